"""Step-through replay (issue 12): each step a page, worked out from the recorded lines."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from villages.models import Message

from .conftest import play_eleven_to_end, play_to_end, started_eleven, started_village


@pytest.fixture
def finished(db):
    game = started_village()
    play_to_end(game)  # 8 found dead (morning 2), 1 executed (day 2), 7 (morning 3), 2 (day 3)
    return game


def alive_at(game, step: int, eye: str = "") -> set[int]:
    page = Client().get(f"/villages/{game.id}/replay/?step={step}{eye}").content.decode()
    return {int(n) for n in re.findall(r'data-seat="(\d+)" data-alive="1"', page)}


def step_of(game, code: str, nth: int = 1) -> int:
    """The step (1-based, among every line the all-seeing eye sees) of a system line."""
    ids = list(
        Message.objects.filter(village_id=game.id).order_by("id").values_list("code", flat=True)
    )
    return [n for n, c in enumerate(ids, start=1) if c == code][nth - 1]


def test_the_players_list_follows_the_deaths_line_by_line(finished):
    everyone = set(range(1, 9))
    found = step_of(finished, "found_dead")
    assert alive_at(finished, found - 1) == everyone
    assert alive_at(finished, found) == everyone - {8}
    executed = step_of(finished, "executed")
    assert alive_at(finished, executed) == everyone - {8, 1}
    assert alive_at(finished, 10_000) == {3, 4, 5, 6}, "past the end is the last step"


def test_the_all_seeing_eye_shows_roles_and_the_spectators_eye_none(finished):
    page = Client().get(f"/villages/{finished.id}/replay/?step=12").content.decode()
    assert "人狼" in page and 'class="prole"' in page
    puzzle = Client().get(f"/villages/{finished.id}/replay/?step=12&eye=spectator").content.decode()
    assert 'class="prole"' not in puzzle and "WOLF-SECRET-PLAN" not in puzzle


def test_votes_appear_once_their_round_is_closed(finished):
    executed = step_of(finished, "executed")
    before = Client().get(f"/villages/{finished.id}/replay/?step={executed - 1}").content.decode()
    after = Client().get(f"/villages/{finished.id}/replay/?step={executed}").content.decode()
    assert "投票結果" not in before and "投票結果" in after


def test_controls_are_links_and_the_replay_waits_for_the_end(finished, db):
    page = Client().get(f"/villages/{finished.id}/replay/?step=3").content.decode()
    assert 'href="?step=2" rel="prev"' in page and 'href="?step=4" rel="next"' in page
    assert 'type="range" name="step"' in page
    running = started_village_elsewhere()
    refused = Client().get(f"/villages/{running}/replay/")
    assert refused.status_code == 409


def results_at(game, step: int, eye: str = "") -> list[list[str]]:
    """The ability results a replay step shows: each row's cells."""
    page = Client().get(f"/villages/{game.id}/replay/?step={step}{eye}").content.decode()
    if 'id="replay-results"' not in page:
        return []
    table = page[page.index('id="replay-results"') :].split("</table>", 1)[0]
    return [
        re.findall(r"<td[^>]*>(.*?)</td>", row)
        for row in re.findall(r"<tr data-result.*?</tr>", table)
    ]


def test_each_ability_result_appears_at_the_morning_it_was_told(db):
    """Issue 33: the replay shows what the seer, the medium and the guard knew, each result
    from the step of the morning after its night (or day); the spectator's eye, none."""
    game = started_eleven()
    play_eleven_to_end(game)
    day2, day3, day4 = (step_of(game, "morning", n) for n in (1, 2, 3))
    assert results_at(game, day2 - 1) == []
    seer_night1 = ["1日目の夜", "村人4号", "占い", "村人1号", "狼"]
    assert results_at(game, day2) == [seer_night1]
    assert results_at(game, day3 - 1) == [seer_night1]
    day3_rows = [
        seer_night1,
        ["2日目の夜", "村人4号", "占い", "村人3号", "人"],
        ["2日目", "村人5号", "霊能", "村人1号", "狼"],
        ["2日目の夜", "村人6号", "護衛", "村人4号", "護衛成功"],
    ]
    assert results_at(game, day3) == day3_rows
    last = [
        *day3_rows,
        ["3日目", "村人5号", "霊能", "村人8号", "人"],
        ["3日目の夜", "村人6号", "護衛", "村人5号", "—"],
    ]
    assert results_at(game, day4) == results_at(game, 10_000) == last, "none for the bitten seer"
    assert results_at(game, 10_000, "&eye=spectator") == []


def started_village_elsewhere() -> int:
    from django.contrib.auth import get_user_model
    from django.db.models import F, Q, Value
    from django.db.models.functions import Concat

    get_user_model().objects.filter(Q(username__startswith="player") | Q(username="staff")).update(
        username=Concat(Value("old-"), F("username"))
    )
    return started_village().id
