"""The screen's forms carry the scene they were drawn in (issue 39, items 12 and 15): the
talk box its day and phase, the vote page its round. Sent after the village has moved on,
the form is refused with the reason in its pane, the text stays in the box, and nothing
is stored."""

from __future__ import annotations

import re

from villages.models import Message
from villages.services import play

from .conftest import Game


def hidden(page: str, name: str) -> str:
    found = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)"', page)
    assert found, f"no hidden {name} in the form"
    return found.group(1)


def form_of(page: str, *names: str) -> dict[str, str]:
    return {name: hidden(page, name) for name in names}


def test_a_night_line_sent_from_the_talk_box_after_the_dawn_is_refused_and_kept(started: Game):
    wolf = started.client(1)
    up = f"/villages/{started.id}/up/"
    form = form_of(wolf.get(up).content.decode(), "day", "phase", "idempotency_key")
    assert (form["day"], form["phase"]) == ("1", "night")
    play.night_action(village_id=started.id, user=started.user(1), action="attack", targets=[8])
    play.night_action(village_id=started.id, user=started.user(3), action="divine", targets=[1])
    text = "PACK-PLAN 明日は3を吊らせよう"
    answer = wolf.post(up, {"text": text, "mode": "normal", **form})
    page = answer.content.decode()
    assert answer.status_code == 400
    assert "場面が変わったため、この発言は送られませんでした" in page
    assert f">{text}</textarea>" in page, "the text stays in the box"
    assert not Message.objects.filter(village_id=started.id, text=text).exists()
    # The page drawn with the refusal is of the day: sent again, the line is the day's.
    again = form_of(page, "day", "phase", "idempotency_key")
    assert (again["day"], again["phase"]) == ("2", "day")
    assert wolf.post(up, {"text": text, "mode": "normal", **again}).status_code == 302
    said = Message.objects.get(village_id=started.id, text=text)
    assert (said.kind, said.day, said.phase) == ("talk", 2, "day")


def test_a_ballot_from_a_vote_page_drawn_before_a_revote_is_refused(day_two: Game):
    act = f"/villages/{day_two.id}/act/?action=vote"
    seven = day_two.client(7)
    form = form_of(seven.get(act).content.decode(), "day", "phase", "round", "idempotency_key")
    assert (form["day"], form["phase"], form["round"]) == ("2", "day", "1")
    # Seat 8 was bitten; the seven others tie 2 / 2 / 2 / 1 (seat 7 from another window).
    for voter, target in {1: 2, 2: 1, 3: 1, 4: 2, 5: 6, 6: 5, 7: 6}.items():
        play.vote(village_id=day_two.id, user=day_two.user(voter), target=target)
    answer = seven.post(act, {"action": "vote", "target": "1", **form})
    page = answer.content.decode()
    assert "再投票になりました。もう一度投票してください。" in page
    assert hidden(page, "round") == "2", "the page drawn with the refusal is the new round's"
    assert not day_two.village.ballots.filter(round=2).exists()
