"""Every error code of shared/API.md, provoked through the API; none changes anything.

Each case builds a village in some position, takes a snapshot (every seat's and a
spectator's /state and /messages, the village, its database rows, the users), makes the
refused request and takes the snapshot again: equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client

from villages.services.ratelimit import LOGIN_LIMIT, POST_LIMIT, REGISTER_LIMIT

from .client import PASSWORD, Api, Caller, DjangoTransport, Reply, Table, next_ip, open_village
from .snapshot import snapshot

CAST8 = ["wolf", "wolf", "seer", "villager", "villager", "villager", "villager", "villager"]

STATUS = {
    "bad_request": 400,
    "not_authenticated": 401,
    "forbidden": 403,
    "not_found": 404,
    "village_full": 409,
    "already_seated": 409,
    "not_seated": 403,
    "name_taken": 409,
    "wrong_phase": 409,
    "phase_changed": 409,
    "dead": 403,
    "not_your_ability": 403,
    "invalid_target": 400,
    "already_voted": 409,
    "already_acted": 409,
    "no_objections_left": 409,
    "text_empty": 400,
    "text_too_long": 400,
    "too_few_players": 409,
    "rate_limited": 429,
    "method_not_allowed": 405,  # beyond API.md's list, in its error shape
}
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


# ---------------------------------------------------------------------------
# Positions


def position(api: Api, name: str) -> Table:
    if name == "waiting":  # seven of eight seated
        return open_village(api, players=7, capacity=8, start=False)
    if name == "full":
        return open_village(api, players=8, start=False)
    if name == "five":
        return open_village(api, players=5, capacity=8, start=False)
    table = open_village(api, players=8, cast=CAST8)  # night 1: 1, 2 wolves; 3 seer
    if name == "night1":
        return table
    table.player(1).ok("POST", table.path("night-action"), {"action": "attack", "targets": [4]})
    table.player(3).ok("POST", table.path("night-action"), {"action": "divine", "targets": [5]})
    assert table.state()["village"]["phase"] == "day"  # day 2; seat 4 is dead
    return table


def post(caller: Caller, table: Table, rest: str, body: object = None) -> Reply:
    return caller.send("POST", table.path(rest), body)


def say(caller: Caller, table: Table, text: str, channel: str = "talk") -> Reply:
    return post(caller, table, "messages", {"text": text, "channel": channel})


def attack(table: Table, seat: int, target: int, action: str = "attack") -> Reply:
    return post(table.player(seat), table, "night-action", {"action": action, "targets": [target]})


def vote(table: Table, seat: int, target: int) -> Reply:
    return post(table.player(seat), table, "vote", {"target": target})


def outsider(table: Table) -> Caller:
    return table.extras["outsider"]


def staff(table: Table) -> Caller:
    return table.extras["staff"]


def session_without_csrf(table: Table) -> Reply:
    from django.contrib.auth import get_user_model

    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username=table.player(2).username))
    caller = Caller(Api(DjangoTransport(client)), ip=next_ip())
    return caller.send("POST", table.path("objection"))


BURST_IP = "127.250.250.250"


def register_burst(table: Table) -> None:
    for _ in range(REGISTER_LIMIT[0]):
        table.api.register(ip=BURST_IP)


def register_once_more(table: Table) -> Reply:
    body = {"username": "one-too-many", "password": PASSWORD}
    return Caller(table.api, ip=BURST_IP).send("POST", "auth/register", body)


def login(table: Table) -> Reply:
    me = table.player(2)
    return me.send("POST", "auth/token", {"username": me.username, "password": PASSWORD})


def login_burst(table: Table) -> None:
    for _ in range(LOGIN_LIMIT[0]):
        assert login(table).status == 200


def talk_burst(table: Table) -> None:
    for n in range(POST_LIMIT[0]):
        assert say(table.player(2), table, f"{n}回目").status == 201


# ---------------------------------------------------------------------------
# The cases: (code, position, provocation[, preparation])


@dataclass
class Case:
    code: str
    where: str
    provoke: Callable[[Table], Reply]
    prepare: Callable[[Table], object] | None = None


CASES: dict[str, Case] = {
    "bad_request-capacity": Case(
        "bad_request",
        "waiting",
        lambda t: t.host.send("POST", "villages", {"name": "村", "capacity": 7}),
    ),
    "bad_request-short-realtime": Case(
        "bad_request",
        "waiting",
        lambda t: t.host.send(
            "POST",
            "villages",
            {
                "name": "村",
                "capacity": 8,
                "options": {"time": {"mode": "realtime", "day_seconds": 59, "night_seconds": 60}},
            },
        ),
    ),
    "bad_request-not-json": Case(
        "bad_request", "night1", lambda t: t.player(1).send("POST", t.path("vote"), None)
    ),
    "bad_request-unknown-action": Case(
        "bad_request", "night1", lambda t: attack(t, 1, 4, action="bite")
    ),
    "bad_request-illegal-cast": Case(
        "bad_request",
        "full",
        lambda t: post(staff(t), t, "cast", {"roles": {str(n): "wolf" for n in range(1, 9)}}),
    ),
    "bad_request-a-number-as-a-string": Case(
        "bad_request",
        "waiting",
        lambda t: t.host.send("POST", "villages", {"name": "村", "capacity": "8"}),
    ),
    "bad_request-a-word-as-a-flag": Case(
        "bad_request",
        "waiting",
        lambda t: t.host.send(
            "POST", "villages", {"name": "村", "capacity": 8, "options": {"cupid": "yes"}}
        ),
    ),
    # Options that are no object made a village with every option off (issue 32, item 15).
    **{
        f"bad_request-options-{name}": Case(
            "bad_request",
            "waiting",
            lambda t, value=value: t.host.send(
                "POST", "villages", {"name": "村", "capacity": 8, "options": value}
            ),
        )
        for name, value in (("a-word", "abc"), ("a-number", 5), ("a-list", ["cupid"]))
    },
    # A time that is no object, or of an unknown mode, made a village of virtual time
    # (issue 39, item 16).
    **{
        f"bad_request-time-{name}": Case(
            "bad_request",
            "waiting",
            lambda t, value=value: t.host.send(
                "POST", "villages", {"name": "村", "capacity": 8, "options": {"time": value}}
            ),
        )
        for name, value in (
            ("a-word", "virtual"),
            ("a-number", 5),
            ("a-list", []),
            ("null", None),
            ("an-unknown-mode", {"mode": "sometimes"}),
        )
    },
    "bad_request-cast-seat-not-a-number": Case(
        "bad_request",
        "full",
        lambda t: post(staff(t), t, "cast", {"roles": {"first": "wolf"}}),
    ),
    # No text may hold a NUL (PostgreSQL refuses it in any text column): refused at the door.
    "bad_request-nul-in-a-village-name": Case(
        "bad_request",
        "waiting",
        lambda t: t.host.send("POST", "villages", {"name": "村\x00", "capacity": 8}),
    ),
    "bad_request-nul-in-a-handle-name": Case(
        "bad_request",
        "waiting",
        lambda t: post(outsider(t), t, "seats", {"handle_name": "新\x00入り", "icon": 1}),
    ),
    "bad_request-nul-in-a-line": Case(
        "bad_request", "day2", lambda t: say(t.player(5), t, "こん\x00ばんは")
    ),
    "bad_request-nul-in-a-cast-key": Case(
        "bad_request", "full", lambda t: post(staff(t), t, "cast", {"roles": {"1\x00": "wolf"}})
    ),
    # A well-formed id that names no icon: the icon is not found (the schema cannot know it).
    "not_found-no-such-icon": Case(
        "not_found",
        "waiting",
        lambda t: post(outsider(t), t, "seats", {"handle_name": "新入り", "icon": 999999}),
    ),
    "not_authenticated-post": Case(
        "not_authenticated", "day2", lambda t: post(t.api.spectator, t, "vote", {"target": 1})
    ),
    "not_authenticated-before-a-malformed-body": Case(
        "not_authenticated", "day2", lambda t: post(t.api.spectator, t, "vote", None)
    ),
    "not_authenticated-bad-token-on-a-list": Case(
        "not_authenticated",
        "day2",
        lambda t: Caller(t.api, token="not-a-token").send("GET", "villages"),
    ),
    "not_authenticated-bad-token": Case(
        "not_authenticated",
        "day2",
        lambda t: Caller(t.api, token="not-a-token").send("GET", t.path("state")),
    ),
    "forbidden-cast-by-a-player": Case(
        "forbidden",
        "full",
        lambda t: post(
            t.player(1), t, "cast", {"roles": {str(n): r for n, r in enumerate(CAST8, 1)}}
        ),
    ),
    "forbidden-heaven-while-alive": Case(
        "forbidden", "day2", lambda t: say(t.player(5), t, "まだ生きている", "heaven")
    ),
    "forbidden-csrf": Case("forbidden", "waiting", session_without_csrf),
    "not_found-village": Case(
        "not_found", "day2", lambda t: t.api.spectator.send("GET", "villages/999999/state")
    ),
    "not_found-vote-elsewhere": Case(
        "not_found",
        "day2",
        lambda t: t.player(1).send("POST", "villages/999999/vote", {"target": 1}),
    ),
    "not_found-village-id-not-a-number": Case(
        "not_found", "day2", lambda t: t.api.spectator.send("GET", "villages/abc")
    ),
    "not_found-sit-in-no-village-with-no-icon": Case(
        "not_found",
        "waiting",
        lambda t: outsider(t).send(
            "POST", "villages/999999/seats", {"handle_name": "迷子", "icon": 999999}
        ),
    ),
    "not_found-user": Case(
        "not_found", "day2", lambda t: t.api.spectator.send("GET", "users/nobody-here/history")
    ),
    "not_found-path": Case(
        "not_found", "day2", lambda t: t.api.spectator.send("GET", "no/such/endpoint")
    ),
    "village_full": Case(
        "village_full",
        "full",
        lambda t: post(
            outsider(t), t, "seats", {"handle_name": "九人目", "icon": t.api.icons()[0]["id"]}
        ),
    ),
    # Bots for a full village: the village is full, however many were asked for (issue 39).
    "village_full-bots-to-fill": Case(
        "village_full", "full", lambda t: post(t.host, t, "bots", {})
    ),
    "village_full-one-bot": Case(
        "village_full", "full", lambda t: post(t.host, t, "bots", {"count": 1})
    ),
    "already_seated": Case(
        "already_seated",
        "waiting",
        lambda t: post(
            t.player(2), t, "seats", {"handle_name": "二度目", "icon": t.api.icons()[0]["id"]}
        ),
    ),
    "not_seated": Case("not_seated", "day2", lambda t: post(outsider(t), t, "vote", {"target": 1})),
    "name_taken": Case(
        "name_taken",
        "waiting",
        lambda t: post(
            outsider(t),
            t,
            "seats",
            {"handle_name": f"{t.player(2).username}さん", "icon": t.api.icons()[0]["id"]},
        ),
    ),
    "name_taken-username": Case(
        "name_taken",
        "waiting",
        lambda t: Caller(t.api, ip=next_ip()).send(
            "POST", "auth/register", {"username": t.player(2).username, "password": PASSWORD}
        ),
    ),
    "method_not_allowed": Case(
        "method_not_allowed", "day2", lambda t: t.player(2).send("PUT", t.path(""), {})
    ),
    "wrong_phase-vote-at-night": Case("wrong_phase", "night1", lambda t: vote(t, 4, 1)),
    "wrong_phase-attack-by-day": Case("wrong_phase", "day2", lambda t: attack(t, 1, 5)),
    "wrong_phase-sit-after-start": Case(
        "wrong_phase",
        "day2",
        lambda t: post(
            outsider(t), t, "seats", {"handle_name": "遅刻", "icon": t.api.icons()[0]["id"]}
        ),
    ),
    "wrong_phase-leave-after-start": Case(
        "wrong_phase", "day2", lambda t: t.player(5).send("DELETE", t.path("seats/me"))
    ),
    "wrong_phase-start-vote-after-start": Case(
        "wrong_phase", "night1", lambda t: post(t.player(1), t, "start-vote")
    ),
    # The command names the day/phase it was made in, and the village has moved on.
    "phase_changed-night-line-by-day": Case(
        "phase_changed",
        "day2",
        lambda t: post(
            t.player(1), t, "messages", {"text": "噛む相談", "day": 1, "phase": "night"}
        ),
    ),
    "phase_changed-attack-by-day": Case(
        "phase_changed",
        "day2",
        lambda t: post(
            t.player(1), t, "night-action", {"action": "attack", "targets": [5], "day": 1}
        ),
    ),
    "phase_changed-ballot-of-another-round": Case(
        "phase_changed",
        "day2",
        lambda t: post(t.player(5), t, "vote", {"target": 1, "day": 2, "round": 2}),
    ),
    "dead-votes": Case("dead", "day2", lambda t: vote(t, 4, 1)),
    "dead-talks": Case("dead", "day2", lambda t: say(t.player(4), t, "死人に口なし")),
    "not_your_ability": Case(
        "not_your_ability", "night1", lambda t: attack(t, 5, 6, action="divine")
    ),
    "invalid_target-self": Case("invalid_target", "day2", lambda t: vote(t, 5, 5)),
    "invalid_target-dead": Case("invalid_target", "day2", lambda t: vote(t, 5, 4)),
    "invalid_target-wolf-on-wolf": Case("invalid_target", "night1", lambda t: attack(t, 1, 2)),
    "already_voted": Case(
        "already_voted", "day2", lambda t: vote(t, 5, 2), prepare=lambda t: vote(t, 5, 1)
    ),
    "already_acted": Case(
        "already_acted", "night1", lambda t: attack(t, 2, 5), prepare=lambda t: attack(t, 1, 6)
    ),
    "no_objections_left": Case(
        "no_objections_left",
        "waiting",
        lambda t: post(t.player(3), t, "objection"),
        prepare=lambda t: [post(t.player(3), t, "objection") for _ in range(5)],
    ),
    "text_empty": Case("text_empty", "day2", lambda t: say(t.player(5), t, " \n\u3000 ")),
    "text_too_long-chars": Case(
        "text_too_long", "day2", lambda t: say(t.player(5), t, "あ" * 2001)
    ),
    "text_too_long-lines": Case(
        "text_too_long", "day2", lambda t: say(t.player(5), t, "\n".join(["い"] * 51))
    ),
    "text_too_long-will": Case(
        "text_too_long", "day2", lambda t: say(t.player(5), t, "う" * 2001, "will")
    ),
    "too_few_players": Case(
        "too_few_players",
        "five",
        lambda t: post(
            staff(t), t, "cast", {"roles": {str(n): r for n, r in enumerate(CAST8[:5], 1)}}
        ),
    ),
    "rate_limited-register": Case(
        "rate_limited", "waiting", register_once_more, prepare=register_burst
    ),
    "rate_limited-token": Case("rate_limited", "waiting", login, prepare=login_burst),
    "rate_limited-talk": Case(
        "rate_limited", "day2", lambda t: say(t.player(2), t, "もう一言"), prepare=talk_burst
    ),
}


def test_every_api_error_code_has_a_case():
    assert {case.code for case in CASES.values()} == set(STATUS)


POSITIONS = sorted({case.where for case in CASES.values()})


@pytest.mark.parametrize("where", POSITIONS)
def test_an_error_changes_nothing(api: Api, settings, where: str):
    """Each case of this position in turn: prepare, snapshot, refused request, snapshot."""
    settings.JINRO_RATE_LIMIT_ENABLED = True
    table = position(api, where)
    table.extras.update(outsider=api.register(), staff=api.staff())
    failures = []
    before = snapshot(table)
    for case_id, case in CASES.items():
        if case.where != where:
            continue
        if case.prepare is not None:
            case.prepare(table)
            before = snapshot(table)
        reply = case.provoke(table)
        after = snapshot(table)
        body = reply.body if isinstance(reply.body, dict) else {}
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        if reply.status != STATUS[case.code] or reply.code != case.code:
            failures.append(f"{case_id}: answered {reply.status} {reply.body}")
        elif set(body) != {"error"} or set(error) != {"code", "message"}:
            failures.append(f"{case_id}: error body {reply.body}")
        elif not JAPANESE.search(error["message"]):
            failures.append(f"{case_id}: message not for people: {error['message']!r}")
        if after != before:
            failures.append(f"{case_id}: the village changed")
        before = after
    assert not failures, "\n".join(failures)


@pytest.mark.django_db
def test_a_body_too_big_is_refused_413_in_the_apis_shape_and_logs_no_error(client, caplog):
    """A 3 MB JSON body answered 500 and logged a traceback (issue 32, item 14): Django
    refuses to read it, and the API says so."""
    import json as json_module
    import logging

    from accounts.services import register

    _user, token = register(username="big-body", password="pw-Secret-123", ip=None)
    body = json_module.dumps({"text": "あ" * 1_000_000, "channel": "talk"})
    with caplog.at_level(logging.WARNING):
        response = client.post(
            "/api/v1/villages/1/messages",
            body,
            content_type="application/json",
            HTTP_HOST="127.0.0.1",
            HTTP_AUTHORIZATION=f"Token {token}",
        )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"
    assert response.json()["error"]["message"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_bots_for_a_full_village_are_told_the_village_is_full(api: Api):
    """Issue 39, item 16: asking a full village to fill its empty seats was a bad request
    (「ボットは1人以上です。」), and one bot more was told 「空席は0席です。」."""
    table = open_village(api, players=8, start=False)
    for body in ({}, {"count": 1}):
        reply = post(table.host, table, "bots", body)
        assert (reply.status, reply.code) == (409, "village_full"), reply.body
        assert reply.body["error"]["message"] == "この村は満員です。"
