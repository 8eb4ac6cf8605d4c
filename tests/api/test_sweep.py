"""The deadline sweep through the services: time-up, sudden death, silence, outage, abandon.

The players act through the API (at the real now); the sweep is called with an explicit
`now` past each deadline, twice each time to show it is idempotent.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from villages.models import Message, Village
from villages.services.clock import sweep_due_villages

from .client import Api, Table, check_history, open_village

CAST8 = ["wolf", "wolf", "seer", "villager", "villager", "villager", "villager", "villager"]
REALTIME = {"time": {"mode": "realtime", "day_seconds": 60, "night_seconds": 60}}


@pytest.fixture(autouse=True)
def short_clock(settings):
    settings.JINRO_SUDDEN_DEATH_GRACE = 3
    settings.JINRO_ALERT_FROM = 1
    settings.JINRO_ALERT_EVERY = 1
    settings.JINRO_SILENCE_REAL_SECONDS = 60
    settings.JINRO_OUTAGE_SECONDS = 90


def at(value: str | None) -> datetime:
    assert value is not None
    return datetime.fromisoformat(value)


def codes(table: Table) -> list[str]:
    return [m["code"] for m in table.messages() if m["kind"] == "system"]


def version(table: Table) -> int:
    return Village.objects.get(pk=table.id).version


def sweep_twice(when: datetime, table: Table) -> None:
    """The second sweep at the same moment finds nothing left to do."""
    sweep_due_villages(now=when)
    lines, v = Message.objects.filter(village_id=table.id).count(), version(table)
    assert sweep_due_villages(now=when) == 0 or (
        Message.objects.filter(village_id=table.id).count() == lines and version(table) == v
    ), "a second sweep at the same time changed the village"


def to_day_2(table: Table) -> None:
    table.player(1).ok("POST", table.path("night-action"), {"action": "attack", "targets": [4]})
    table.player(3).ok("POST", table.path("night-action"), {"action": "divine", "targets": [5]})
    assert table.state()["village"]["phase"] == "day"


def test_a_non_voter_dies_of_sudden_death_once_the_grace_is_over(api: Api):
    table = open_village(api, players=8, options=REALTIME, cast=CAST8)
    to_day_2(table)
    for voter in (1, 2, 3, 5, 6, 7):  # seat 8 never votes
        table.player(voter).ok("POST", table.path("vote"), {"target": 7 if voter != 7 else 6})
    deadline = at(table.state()["clock"]["phase_deadline"])

    sweep_twice(deadline - timedelta(seconds=1), table)
    assert "time_up_day" not in codes(table), "not before the phase's end"

    sweep_twice(deadline + timedelta(seconds=1), table)
    assert codes(table).count("time_up_day") == 1
    clock = table.state()["clock"]
    sudden = at(clock["sudden_death_deadline"])
    assert sudden == deadline + timedelta(seconds=4) and clock["virtual_seconds_left"] == 0
    refused = table.player(5).send("POST", table.path("messages"), {"text": "まだ話せる？"})
    assert refused.code == "wrong_phase", "talk closes when the time is up"

    sweep_twice(sudden - timedelta(seconds=1), table)
    assert table.state()["seats"][7]["alive"]
    sweep_twice(sudden + timedelta(seconds=1), table)
    state = table.state()
    assert not state["seats"][7]["alive"], "seat 8 did not vote"
    assert sum(not s["alive"] for s in state["seats"]) == 2  # seat 4 (attacked) and seat 8
    assert codes(table).count("sudden_death") == 1
    assert codes(table).count("revote_after_sudden") == 1
    assert all(not s["has_voted"] for s in state["seats"] if s["alive"]), "ballots cleared"
    # The tallies list the round the sudden death voided, without its uncounted ballots
    # (issue 32, item 1).
    assert state["votes"] == [
        {"day": 2, "round": 1, "ballots": [], "executed": None, "result": "void"}
    ]
    assert codes(table).count("time_up_day") == 2, "a new grace for the revote"
    assert api.history(table.player(8).username)["stats"]["sudden_deaths"] == 0, "not yet ended"

    # The revote goes on; the village ends with the wolves executed, and history counts it.
    table.player(1).ok("POST", table.path("messages"), {"text": "投票だけ"}, status=409)
    for voter in (2, 3, 5, 6, 7):
        table.player(voter).ok("POST", table.path("vote"), {"target": 1})
    table.player(1).ok("POST", table.path("vote"), {"target": 3})
    assert not table.state()["seats"][0]["alive"]


def test_at_night_every_wolf_dies_if_no_wolf_chose_and_the_village_wins(api: Api):
    table = open_village(api, players=8, options=REALTIME, cast=CAST8)
    table.player(3).ok("POST", table.path("night-action"), {"action": "divine", "targets": [5]})
    deadline = at(table.state()["clock"]["phase_deadline"])
    sweep_twice(deadline, table)
    sweep_twice(deadline + timedelta(seconds=3), table)
    final = table.state()
    assert final["winner"] == "village"
    assert [s["death_cause"] for s in final["seats"][:2]] == ["sudden", "sudden"]
    assert codes(table).count("sudden_death") == 2
    check_history(table, final)
    for wolf in (1, 2):
        assert api.history(table.player(wolf).username)["stats"]["sudden_deaths"] == 1


def test_nobody_votes_everyone_dies_a_draw(api: Api):
    table = open_village(api, players=8, options=REALTIME, cast=CAST8)
    to_day_2(table)
    deadline = at(table.state()["clock"]["phase_deadline"])
    sweep_twice(deadline, table)
    sweep_twice(deadline + timedelta(seconds=3), table)
    final = table.state()
    assert final["winner"] == "draw" and not any(s["alive"] for s in final["seats"])
    assert "win_draw" in codes(table)
    check_history(table, final)


def test_a_deadline_missed_by_an_outage_restarts_the_grace(api: Api):
    table = open_village(api, players=8, options=REALTIME, cast=CAST8)
    to_day_2(table)
    deadline = at(table.state()["clock"]["phase_deadline"])
    sweep_twice(deadline, table)
    sudden = at(table.state()["clock"]["sudden_death_deadline"])
    back = sudden + timedelta(seconds=91)
    sweep_twice(back, table)
    state = table.state()
    assert sum(s["alive"] for s in state["seats"]) == 7, "nobody dies for the server's outage"
    assert codes(table).count("outage") == 1
    assert at(state["clock"]["sudden_death_deadline"]) == back + timedelta(seconds=3)


def test_silence_costs_an_hour_by_day_once_per_silent_minute(api: Api):
    table = open_village(api, players=8, cast=CAST8)  # virtual time
    to_day_2(table)
    village = Village.objects.get(pk=table.id)
    start = at(village.game["clock"]["silence_ref"])
    left = table.state()["clock"]["virtual_seconds_left"]
    assert left == 12 * 3600

    sweep_twice(start + timedelta(seconds=59), table)
    assert codes(table).count("silence_day") == 0
    sweep_twice(start + timedelta(seconds=60), table)
    assert codes(table).count("silence_day") == 1
    sweep_twice(start + timedelta(seconds=90), table)
    assert codes(table).count("silence_day") == 1, "once per silent period"
    sweep_twice(start + timedelta(seconds=120), table)
    assert codes(table).count("silence_day") == 2
    assert table.state()["clock"]["virtual_seconds_left"] == left - 2 * 3600


def test_a_waiting_village_idle_for_abandon_seconds_is_abandoned(api: Api, settings):
    settings.JINRO_ABANDON_SECONDS = 1200
    table = open_village(api, players=3, capacity=8, start=False)
    idle_since = at(Village.objects.get(pk=table.id).game["clock"]["last_activity_at"])
    sweep_twice(idle_since + timedelta(seconds=1199), table)
    assert table.state()["village"]["status"] == "waiting"
    sweep_twice(idle_since + timedelta(seconds=1200), table)
    village = table.state()["village"]
    assert village["status"] == "ended" and village["winner"] is None and village["abandoned"]
    assert codes(table).count("abandoned") == 1
    assert api.history(table.player(1).username)["games"] == [], "an abandoned village is no game"


def test_the_sweep_leaves_villages_that_are_not_due_alone(api: Api):
    table = open_village(api, players=8, options=REALTIME, cast=CAST8)
    v = version(table)
    assert sweep_due_villages() == 0
    assert version(table) == v


def test_one_sudden_death_count_on_the_profile_the_history_page_and_the_api(api: Api):
    """The count is defined once (accounts.selectors.sudden_deaths): ended villages,
    abandoned ones included, practice ones too; a running game's counts once it ends."""
    import re

    from django.contrib.auth import get_user_model
    from django.test import Client

    from villages.services import lifecycle

    def shown(username: str) -> tuple[int, int, int]:
        user = get_user_model().objects.get(username=username)
        browser = Client()
        browser.force_login(user)
        profile = browser.get("/accounts/profile/").content.decode()
        history = Client().get(f"/accounts/users/{username}/").content.decode()
        counted = [int(re.search(r"突然死: (\d+)回", page)[1]) for page in (profile, history)]
        return counted[0], counted[1], api.history(username)["stats"]["sudden_deaths"]

    # A village that ends with both wolves dead of sudden death.
    ended = open_village(api, players=8, options=REALTIME, cast=CAST8)
    ended.player(3).ok("POST", ended.path("night-action"), {"action": "divine", "targets": [5]})
    deadline = at(ended.state()["clock"]["phase_deadline"])
    sweep_twice(deadline, ended)
    sweep_twice(deadline + timedelta(seconds=3), ended)
    wolf = ended.player(1).username
    assert shown(wolf) == (1, 1, 1)

    # The same player dies of sudden death again (seat 8 does not vote on day 2) in a
    # village the staff then abandon.
    later = open_village(api, players=7, options=REALTIME, capacity=8, start=False)
    later.sit(ended.player(1))
    later.fix_cast(api.staff(), dict(enumerate(CAST8, start=1)))
    later.start()
    to_day_2(later)
    for voter in (1, 2, 3, 5, 6, 7):
        later.player(voter).ok("POST", later.path("vote"), {"target": 7 if voter != 7 else 6})
    deadline = at(later.state()["clock"]["phase_deadline"])
    sweep_twice(deadline + timedelta(seconds=1), later)
    sudden = at(later.state()["clock"]["sudden_death_deadline"])
    sweep_twice(sudden + timedelta(seconds=1), later)
    assert not later.state()["seats"][7]["alive"] and "sudden_death" in codes(later)
    assert shown(wolf) == (1, 1, 1), "its village still runs"
    lifecycle.end_village(village_id=later.id)
    assert shown(wolf) == (2, 2, 2), "an abandoned village does not undo a sudden death"
