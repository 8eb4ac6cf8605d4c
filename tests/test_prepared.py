"""jinro_site/prepared.py: a read compiled once gives what its queryset gives."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Profile
from accounts.services import profile_of
from jinro_site.prepared import Prepared

pytestmark = pytest.mark.django_db(transaction=True)

BY_TOKEN = Prepared(lambda key: Profile.objects.select_related("user").filter(api_token=key), "-")


def _fields(obj: object) -> dict[str, object]:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_a_prepared_read_gives_the_querysets_rows_converted_alike() -> None:
    user = get_user_model().objects.create_user("prepared", password="pw-12345678")
    user.last_login = timezone.now() - timedelta(days=1)
    user.save()
    profile = profile_of(user)
    profile.bans = {"talk": {"reason": "荒らし", "until": None}}
    profile.save()
    expected = Profile.objects.select_related("user").get(api_token=profile.api_token)

    got = BY_TOKEN.first(profile.api_token)

    assert got is not None
    assert _fields(got) == _fields(expected)
    assert isinstance(got.bans, dict)  # the JSON column came back decoded
    with CaptureQueriesContext(connection) as queries:
        assert _fields(got.user) == _fields(expected.user)  # joined, not read again
    assert len(queries) == 0
    assert got.user.last_login == user.last_login  # an aware datetime, as the ORM gives
    assert BY_TOKEN.first("nobody's token") is None


def test_each_thread_runs_it_on_its_own_connection() -> None:
    user = get_user_model().objects.create_user("threads", password="pw-12345678")
    token = profile_of(user).api_token
    assert BY_TOKEN.first(token) is not None
    found: list[object] = []

    def read() -> None:
        try:
            found.append(BY_TOKEN.first(token))
        finally:
            connection.close()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert [getattr(p, "user_id", None) for p in found] == [user.pk]


def test_the_sample_must_stand_once_among_the_parameters() -> None:
    both = Prepared(lambda v: Profile.objects.filter(api_token=v, language=v), "x")
    with pytest.raises(ValueError, match="must stand once"):
        both.first("x")


def test_an_id_no_column_can_hold_finds_nothing_as_with_the_orm() -> None:
    by_id = Prepared(lambda pk: Profile.objects.filter(pk=pk), -1)
    assert Profile.objects.filter(pk=2**63).first() is None
    assert by_id.first(2**63) is None
    assert by_id.first(-(2**63) - 1) is None
