"""API.md's `phase_changed` (issue 39, items 12 and 15): a command that names the day and
phase it was made in (a ballot its round too) is refused 409 once the village has moved
on, and nothing is stored; without them it is taken wherever the village is."""

from __future__ import annotations

from .client import Api, Table, open_village

CAST8 = ["wolf", "wolf", "seer", "villager", "villager", "villager", "villager", "villager"]


def day_two(api: Api) -> Table:
    table = open_village(api, players=8, cast=CAST8)  # night 1: 1, 2 wolves; 3 seer
    table.player(1).ok("POST", table.path("night-action"), {"action": "attack", "targets": [4]})
    table.player(3).ok("POST", table.path("night-action"), {"action": "divine", "targets": [5]})
    assert table.state()["village"]["phase"] == "day"
    return table


def test_a_wolfs_night_line_sent_after_the_dawn_is_refused_and_never_public(api: Api):
    table = open_village(api, players=8, cast=CAST8)
    night = {"day": 1, "phase": "night"}
    said = table.player(1).ok(
        "POST", table.path("messages"), {"text": "狼の相談", **night}, status=201
    )
    assert said["kind"] == "wolf"
    table.player(1).ok("POST", table.path("night-action"), {"action": "attack", "targets": [4]})
    table.player(3).ok("POST", table.path("night-action"), {"action": "divine", "targets": [5]})
    before = table.messages(table.player(5))
    reply = table.player(2).send(
        "POST", table.path("messages"), {"text": "明日は5を吊ろう", **night}
    )
    assert (reply.status, reply.code) == (409, "phase_changed"), reply.body
    assert "発言は送られませんでした" in reply.body["error"]["message"]
    assert table.messages(table.player(5)) == before, "nothing is stored"
    everything = [m["text"] for m in table.messages(table.player(2))]
    assert "明日は5を吊ろう" not in everything
    # Written for the day, it is the day's talk.
    day = {"day": 2, "phase": "day"}
    said = table.player(2).ok(
        "POST", table.path("messages"), {"text": "おはよう", **day}, status=201
    )
    assert (said["kind"], said["day"], said["phase"]) == ("talk", 2, "day")


def test_a_ballot_from_before_a_revote_is_refused_and_not_counted(api: Api):
    table = day_two(api)  # 4 was bitten; 1 2 3 5 6 7 8 vote
    first = {"day": 2, "phase": "day", "round": 1}
    ballots = {1: 2, 2: 1, 3: 1, 5: 2, 6: 7, 7: 6, 8: 6}
    for voter, target in ballots.items():
        table.player(voter).ok("POST", table.path("vote"), {"target": target, **first})
    state = table.state()
    assert [(r["day"], r["round"], r["executed"]) for r in state["votes"]] == [(2, 1, None)]
    reply = table.player(3).send("POST", table.path("vote"), {"target": 2, **first})
    assert (reply.status, reply.code) == (409, "phase_changed"), reply.body
    assert reply.body["error"]["message"] == "再投票になりました。もう一度投票してください。"
    assert table.state(table.player(3))["me"]["vote"] is None, "counted in no round"
    second = {**first, "round": 2}
    assert table.player(3).ok("POST", table.path("vote"), {"target": 2, **second}) == {
        "tally_done": False
    }
    assert table.state(table.player(3))["me"]["vote"] == 2


def test_a_night_action_sent_after_its_night_is_refused(api: Api):
    table = day_two(api)
    body = {"action": "divine", "targets": [2], "day": 1, "phase": "night"}
    reply = table.player(3).send("POST", table.path("night-action"), body)
    assert (reply.status, reply.code) == (409, "phase_changed"), reply.body
    reply = table.player(3).send("POST", table.path("night-action"), {**body, "phase": "midnight"})
    assert (reply.status, reply.code) == (400, "bad_request")
