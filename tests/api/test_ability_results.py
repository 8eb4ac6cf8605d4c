"""Ability results as the API's State and the screen tell them (issue 33): the guard learns
the next morning whether its guard held ("guarded") or not (null), and nothing of a night
the wolves attacked the guard itself; a seer bitten the night it divines learns nothing."""

from __future__ import annotations

from typing import Any

from django.test import Client

from ..web.conftest import Game, act, execute, started_eleven

GUARD, SEER, MEDIUM = 6, 4, 5


def results(game: Game, seat_no: int) -> list[dict[str, Any]]:
    me = game.client(seat_no).get(f"/api/v1/villages/{game.id}/state").json()["me"]
    assert me["seat_no"] == seat_no
    return me["results"]


def own_part(game: Game, seat_no: int) -> str:
    page = game.client(seat_no).get(f"/villages/{game.id}/down/").content.decode()
    return page[page.index('id="d-me"') :].split("</section>", 1)[0]


def test_a_guard_is_told_guarded_when_its_charge_was_attacked_and_null_when_not(db):
    game = started_eleven()
    act(game, 1, "attack", 7)
    act(game, SEER, "divine", 1)
    execute(game, 1, [1, 2, 3, 4, 5, 6, 8, 9, 10, 11], last=4)
    act(game, GUARD, "guard", SEER)
    act(game, SEER, "divine", 3)
    assert results(game, GUARD) == [], "nothing before the morning"
    act(game, 2, "attack", SEER)
    held = {"day": 2, "ability": "guard", "target": SEER, "result": "guarded"}
    assert results(game, GUARD) == [held]
    assert "2日目の夜、村人4号さんを人狼の襲撃から護衛しました。" in own_part(game, GUARD)
    english = game.client(GUARD)
    english.cookies["django_language"] = "en"
    page = english.get(f"/villages/{game.id}/down/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Night 2: you guarded 村人4号 from the werewolves&#x27; attack." in page
    execute(game, 8, [2, 3, 4, 5, 6, 8, 9, 10, 11], last=2)
    act(game, GUARD, "guard", MEDIUM)
    act(game, SEER, "divine", 2)
    act(game, 2, "attack", 9)
    assert results(game, GUARD) == [
        held,
        {"day": 3, "ability": "guard", "target": MEDIUM, "result": None},
    ]
    part = own_part(game, GUARD)
    assert "3日目の夜、村人5号さんを護衛しました。" in part and part.count("襲撃から") == 1
    for seat_no in (SEER, MEDIUM, 9):  # nobody else is told the guard's results
        assert all(r["ability"] != "guard" for r in results(game, seat_no))


def test_a_guard_bitten_itself_is_told_nothing_of_that_night(db):
    game = started_eleven()
    act(game, 1, "attack", 7)
    act(game, SEER, "divine", 1)
    execute(game, 3, [1, 2, 3, 4, 5, 6, 8, 9, 10, 11], last=4)
    act(game, GUARD, "guard", SEER)
    act(game, SEER, "divine", 2)
    act(game, 1, "attack", GUARD)
    me = game.client(GUARD).get(f"/api/v1/villages/{game.id}/state").json()["me"]
    assert me["alive"] is False and me["results"] == []
    assert "護衛しました" not in own_part(game, GUARD)


def test_a_seer_bitten_the_night_it_divines_is_told_nothing_of_that_night(db):
    game = started_eleven()
    act(game, 1, "attack", 7)
    act(game, SEER, "divine", 1)
    execute(game, 3, [1, 2, 3, 4, 5, 6, 8, 9, 10, 11], last=4)
    act(game, GUARD, "guard", MEDIUM)
    act(game, SEER, "divine", 2)
    act(game, 1, "attack", SEER)
    answer = Client().get(f"/api/v1/villages/{game.id}/state").json()
    assert {s["seat_no"]: s["alive"] for s in answer["seats"]}[SEER] is False
    assert results(game, SEER) == [{"day": 1, "ability": "divine", "target": 1, "result": "wolf"}]
