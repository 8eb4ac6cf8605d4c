"""The OpenAPI document tells the truth (schemathesis, a bounded number of cases per
operation): no request makes a server error, every status answered is one the operation
declares (with API.md's error shape), and a request valid by the schema is never refused as
malformed (400): the schema states the limits the site enforces.

A schema-valid request may still be refused for what the schema cannot know: whom the
token belongs to, whether the village exists or is in the right phase (401, 403, 404,
409), and the 400 of an operation whose document says in words when it comes
(`apischema.refused_in_words`: the password rules of `auth/register` that no pattern can
state, a seat of `DELETE agents/{seat_no}` that is not an agent's).
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
    told = refusals_in_words(declared)
    if generated_valid:
        assert status < 400 or status in STATE_REFUSALS | told, (
            f"a schema-valid request refused: {where}"
        )


def refusals_in_words(responses: dict[str, dict[str, str]]) -> set[int]:
    """The statuses an operation's document tells in words (its own description, not
    the status's name): a 400 that its schema cannot state."""
    return (
        {400} if responses.get("400", {}).get("description") not in (None, "Bad Request") else set()
    )


def test_an_operations_400_that_no_schema_can_state_is_told_in_words(db):
    """Issue 39, item 16: the document says when DELETE agents/{seat_no} and
    auth/register answer 400 to a body its types accept."""
    from django.test import Client

    paths = Client().get("/api/v1/openapi.json").json()["paths"]
    agents = paths["/api/v1/villages/{village_id}/agents/{seat_no}"]["delete"]["responses"]
    register = paths["/api/v1/auth/register"]["post"]["responses"]
    assert "not an AIWolf agent's" in agents["400"]["description"]
    assert "common password" in register["400"]["description"]
    assert refusals_in_words(agents) == refusals_in_words(register) == {400}
    vote = paths["/api/v1/villages/{village_id}/vote"]["post"]["responses"]
    assert refusals_in_words(vote) == set(), "a vote's 400 is the schema's own"


def test_the_password_pattern_refuses_what_the_validators_refuse_of_digits(db):
    """Issue 39, item 16: the schema's password pattern allowed an all-digit password,
    which registration refuses (NumericPasswordValidator): now it says so too."""
    import re

    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError
    from django.test import Client

    schemas = Client().get("/api/v1/openapi.json").json()["components"]["schemas"]
    pattern = schemas["CredentialsIn"]["properties"]["password"]["pattern"]
    for password in ("20250101123456", "9" * 20, "Kagome-kagome-1234", "a2025010112345"):
        try:
            validate_password(password)
            valid = True
        except ValidationError:
            valid = False
        assert (re.search(pattern, password) is not None) == valid, password
