"""Whole games through the API (Django's test client): 8 and 22 players, every option,
every kind of victory, and each player's history afterwards."""

from __future__ import annotations

from typing import Any

import pytest

from .client import (
    Api,
    Driver,
    GameView,
    Plan,
    Table,
    check_history,
    draw_by_ties,
    expected_winner,
    lovers_win,
    open_village,
    village_wins,
    wolves_win,
)

ALL_OPTIONS = {
    "time": {"mode": "realtime", "day_seconds": 600, "night_seconds": 300},
    "cupid": True,
    "poison": True,
    "decider": True,
    "authority": True,
    "hide_roles_in_heaven": True,
    "dummy_boy": True,
}


def finish(table: Table, plan: Plan, winner: str) -> dict[str, Any]:
    final = Driver(table, plan).play()
    assert final["winner"] == winner, f"expected {winner}, the village says {final['winner']}"
    assert expected_winner(final) == winner, "the final seats do not support that winner"
    assert final["village"]["status"] == "ended" and final["village"]["winner"] == winner
    assert all(s["role"] for s in final["seats"]), "after the end every role is revealed"
    check_history(table, final)
    return final


def messages_with(table: Table, code: str) -> list[dict[str, Any]]:
    return [m for m in table.messages() if m.get("code") == code]


# ---------------------------------------------------------------------------
# Eight players


def test_8_players_random_cast_village_wins(api: Api):
    table = open_village(api, players=8)
    roles = [s["me"]["role"] for s in table.own_states().values()]
    assert sorted(roles) == sorted(["villager"] * 5 + ["seer"] + ["wolf"] * 2)
    final = finish(table, village_wins(), "village")
    assert [s["seat_no"] for s in final["seats"] if s["role"] == "wolf" and s["alive"]] == []
    assert messages_with(table, "win_village")


def test_8_players_dummy_boy_and_hidden_roles_wolves_win(api: Api):
    table = open_village(api, players=8, options={"dummy_boy": True, "hide_roles_in_heaven": True})
    first = table.state()
    dummy = first["seats"][0]
    assert dummy["seat_no"] == 1 and dummy["dummy"] and dummy["username"] is None
    assert len(table.players) == 7, "the dummy boy is one of the eight"
    final = finish(table, wolves_win(), "wolves")
    dummy = final["seats"][0]
    assert dummy["role"] not in ("wolf", "fox", "poison", "cupid")
    assert dummy["death_cause"] == "attacked", "the wolves eat the dummy boy on night 1"
    history_users = {g["village_id"] for g in api.history(table.host.username)["games"]}
    assert table.id not in history_users, "the host did not play"


def test_8_players_cupid_shoots_themself_lovers_win(api: Api):
    cast = ["cupid", "wolf", "wolf", "seer", "villager", "villager", "villager", "villager"]
    options = {"cupid": True, "decider": True, "poison": True}
    table = open_village(api, players=8, options=options, cast=cast)
    village = table.state()["village"]
    assert village["options"]["decider"] and village["options"]["poison"], "as the host chose"
    in_force = village["options_in_force"]
    assert in_force["cupid"] and not in_force["decider"] and not in_force["poison"], (
        "an option whose minimum is not met has no effect"
    )
    final = finish(table, lovers_win(), "lovers")
    lovers = [s["seat_no"] for s in final["seats"] if "lovers" in s["sub_roles"]]
    assert lovers == [1, 5], "below 18 players the cupid is one of the two"
    cupid_history = api.history(table.player(1).username)["games"][0]
    assert cupid_history["team"] == "lovers" and cupid_history["won"]
    plain_villager = api.history(table.player(6).username)["games"][0]
    assert plain_villager["team"] == "village" and not plain_villager["won"]


def test_8_players_realtime_four_ties_end_in_a_draw(api: Api):
    options = {"time": {"mode": "realtime", "day_seconds": 600, "night_seconds": 300}}
    table = open_village(api, players=8, options=options)
    clock = table.state()["clock"]
    assert clock["phase_deadline"] is not None and 0 < clock["virtual_seconds_left"] <= 21600
    final = finish(table, draw_by_ties(), "draw")
    day2 = [v for v in final["votes"] if v["day"] == 2]
    assert [v["round"] for v in day2] == [1, 2, 3, 4]
    assert all(v["executed"] is None for v in day2)
    assert sum(s["alive"] for s in final["seats"]) == 7, "a draw by revotes kills nobody"
    assert (
        len(messages_with(table, "revote")) == 2 and len(messages_with(table, "revote_last")) == 1
    )
    for player in table.seated():
        assert not api.history(player.username)["games"][0]["won"]


# ---------------------------------------------------------------------------
# Twenty-two players


def test_22_players_every_option_on_fox_wins(api: Api):
    table = open_village(api, players=22, options=ALL_OPTIONS)
    states = table.own_states()
    assert all("decider" not in s["me"]["sub_roles"] for s in states.values()), (
        "the decider is never told"
    )
    authority = [no for no, s in states.items() if "authority" in s["me"]["sub_roles"]]
    assert len(authority) == 1, "the authority is told"
    plan = Plan(
        execute=lambda g: g.living(roles=["wolf"])[0],
        attack=lambda g: (
            None if g.day == 1 else g.living(not_roles=["wolf", "fox", "poison"], but=g.lovers)[0]
        ),
        divine=lambda g, seer: g.living(but=[seer], not_roles=["fox"])[0],
        # Two wolves become the lovers: the first execution takes both.
        cupid=lambda g, cupid: tuple(g.living(roles=["wolf"])[:2]),
    )
    final = finish(table, plan, "fox")
    seats = {s["seat_no"]: s for s in final["seats"]}
    assert seats[1]["dummy"] and seats[1]["role"] not in ("wolf", "fox", "poison", "cupid")
    roles = sorted(s["role"] for s in final["seats"])
    assert roles.count("wolf") == 4 and roles.count("poison") == 1 and roles.count("cupid") == 1
    assert sum("decider" in s["sub_roles"] for s in final["seats"]) == 1
    weights = {
        b["voter"]: b["weight"] for v in final["votes"] for b in v["ballots"] if v["day"] == 2
    }
    assert weights[authority[0]] == 2 and set(weights.values()) == {1, 2}
    lovers = [s for s in final["seats"] if "lovers" in s["sub_roles"]]
    assert [s["death_cause"] for s in lovers].count("lovers") == 1, "one lover followed"


class DeciderPoisonVillage(Plan):
    """Seats as in the test's cast. Night 1: the seer divines the fox, the wolves eat seat 22.
    Day 2: 20 alive, a tie by weight between wolf 6 and villager 15 that the decider (13,
    voting 6) breaks. Day 3: the poison (12) is executed. Then the wolves, one a day."""

    def __init__(self) -> None:
        super().__init__(
            execute=lambda g: 12 if g.day == 3 else g.living(roles=["wolf"])[0],
            attack=lambda g: g.living(
                not_roles=["wolf", "fox", "poison", "medium", "seer", "guard"]
            )[-1],
            divine=lambda g, seer: 11 if g.day == 1 else g.living(but=[seer])[0],
        )

    def ballots(self, g: GameView) -> dict[int, int]:
        if g.day != 2:
            return super().ballots(g)
        assert g.voters() == [n for n in range(1, 22) if n != 11], "as planned for day 2"
        ballots = {13: 6, 6: 15, 15: 6, 14: 15, 21: 16}  # 14 is the authority: 2 votes
        others = [v for v in g.voters() if v not in ballots]
        for i, voter in enumerate(others):
            ballots[voter] = 6 if i < 8 else 15
        totals = {6: 0, 15: 0}
        for voter, target in ballots.items():
            if target in totals:
                totals[target] += 2 if voter == 14 else 1
        assert totals[6] == totals[15] == 10, totals
        return ballots


def test_22_players_decider_authority_poison_village_wins(api: Api):
    cast = (
        ["seer", "medium", "guard", "common", "common", "wolf", "wolf", "wolf", "wolf"]
        + ["madman", "fox", "poison"]
        + ["villager"] * 10
    )
    decider, authority = 13, 14
    table = open_village(
        api,
        players=22,
        options={"poison": True, "decider": True, "authority": True},
        cast=cast,
        sub_roles={decider: ["decider"], authority: ["authority"]},
    )
    assert table.state(table.player(authority))["me"]["sub_roles"] == ["authority"]
    assert table.state(table.player(decider))["me"]["sub_roles"] == [], "never told"
    final = finish(table, DeciderPoisonVillage(), "village")
    seats = {s["seat_no"]: s for s in final["seats"]}
    day2 = [v for v in final["votes"] if v["day"] == 2]
    assert len(day2) == 1 and day2[0]["executed"] == 6, "the decider broke the tie at once"
    assert {b["voter"]: b["weight"] for b in day2[0]["ballots"]}[authority] == 2
    assert seats[11]["death_cause"] == "divined", "divining the fox kills it"
    assert seats[22]["death_cause"] == "attacked"
    assert seats[12]["death_cause"] == "executed"
    poisoned = [s for s in final["seats"] if s["death_cause"] == "poisoned"]
    assert len(poisoned) == 1, "an executed poison takes exactly one with them"
    assert len(messages_with(table, "poison_victim")) == 1
    medium = table.state(table.player(2))["me"]["results"]
    assert {"day": 2, "ability": "medium", "target": 6, "result": "wolf"} in medium
    assert {"day": 3, "ability": "medium", "target": 12, "result": "human"} in medium
    seer = table.state(table.player(1))["me"]["results"]
    assert {"day": 1, "ability": "divine", "target": 11, "result": "human"} in seer


def test_22_players_dummy_boy_wolves_win(api: Api):
    table = open_village(api, players=22, options={"dummy_boy": True}, seed=7)
    plan = wolves_win()
    plan.execute = lambda g: (g.living(roles=["fox"]) or g.living(not_roles=["wolf"], but=[1]))[0]
    final = finish(table, plan, "wolves")
    living = [s for s in final["seats"] if s["alive"]]
    wolves = [s for s in living if s["role"] == "wolf"]
    assert len(living) - len(wolves) <= len(wolves)


def test_22_players_cupid_links_two_others_lovers_win(api: Api):
    table = open_village(api, players=22, options={"cupid": True}, seed=3)
    roles = {no: s["me"]["role"] for no, s in table.own_states().items()}
    villagers = sorted(no for no, r in roles.items() if r == "villager")
    cupid = next(no for no, r in roles.items() if r == "cupid")
    final = finish(table, lovers_win(lovers=(villagers[0], villagers[1])), "lovers")
    seats = {s["seat_no"]: s for s in final["seats"]}
    assert "lovers" not in seats[cupid]["sub_roles"], "from 18 players the cupid may pick others"
    assert api.history(table.player(cupid).username)["games"][0]["won"]


def test_22_players_realtime_hidden_roles_four_ties_draw(api: Api):
    options = {
        "time": {"mode": "realtime", "day_seconds": 900, "night_seconds": 600},
        "hide_roles_in_heaven": True,
    }
    table = open_village(api, players=22, options=options, seed=4)
    final = finish(table, draw_by_ties(), "draw")
    assert [(v["day"], v["round"]) for v in final["votes"]] == [(2, r) for r in (1, 2, 3, 4)]
    assert sum(s["alive"] for s in final["seats"]) == 21, "only the wolves' first prey died"


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_random_8_player_games_end_with_a_consistent_winner(api: Api, seed: int):
    """Random legal choices from start to end: whatever happens, the ending follows SPEC §9."""
    table = open_village(api, players=8, options={"cupid": True}, seed=seed)
    final = Driver(table, Plan(), seed=seed).play()
    assert final["winner"] == expected_winner(final)
    check_history(table, final)
