"""The OpenAPI document tells the truth (schemathesis, a bounded number of cases per
operation): no request makes a server error, every status answered is one the operation
declares (with API.md's error shape), and a request valid by the schema is never refused as
malformed (400): the schema states the limits the site enforces.

A schema-valid request may still be refused for what the schema cannot know: whom the
token belongs to, whether the village exists or is in the right phase (401, 403, 404,
409). The password rules of `auth/register` (not a common password, not like the name)
are told in words only, so its 400s are not counted against the schema.
"""

from __future__ import annotations

import json
import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from jinro_site.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application)

MAX_EXAMPLES = int(os.environ.get("JINRO_FUZZ_EXAMPLES", "12"))
STATE_REFUSALS = {401, 403, 404, 409, 429}


@pytest.fixture
def token(db) -> str:
    from tests.realtime.game import make_user, token_of, waiting_village

    waiting_village(3, capacity=8)  # something for the ids to find now and then
    return token_of(make_user("fuzzer"))


@pytest.fixture(autouse=True)
def _open(settings):
    """No rate limits; and the requests keep the test's database connection open, as
    Django's own test client does (its request signals would close it)."""
    from django.core import signals
    from django.db import close_old_connections

    settings.JINRO_RATE_LIMIT_ENABLED = False
    settings.JINRO_ONE_SEAT_PER_IP = False
    settings.JINRO_MAX_ACTIVE_VILLAGES = 10_000
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_api_answers_as_its_document_says(case, token):
    response = case.call(headers={"Authorization": f"Token {token}"})
    status = response.status_code
    where = f"{case.method} {case.formatted_path} {case.body!r} → {status} {response.text[:300]}"
    assert status < 500, f"server error: {where}"
    declared = case.operation.definition.raw["responses"]
    assert str(status) in declared, f"undeclared status: {where}"
    if status >= 400:
        error = json.loads(response.text)["error"]
        assert set(error) == {"code", "message"} and error["code"] and error["message"], where
    generated_valid = case.meta is not None and case.meta.generation.mode.is_positive
    if generated_valid and case.operation.path != "/api/v1/auth/register":
        assert status < 400 or status in STATE_REFUSALS, f"a schema-valid request refused: {where}"
