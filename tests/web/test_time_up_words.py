"""The talk box's refusal once the night's time is up says what is true for the viewer
(issue 32, item 3): the screen shows the engine's words, as the API's message does."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from villages.models import Village
from villages.services import clock
from villages.snapshots import snapshot_of


def test_the_talk_box_at_night_after_time_up_asks_for_the_night_action_not_a_vote(started):
    now = timezone.now()
    for _ in range(20):  # silence spends the night's virtual time, a sweep at a time
        if snapshot_of(started.id).state.clock.time_up_at is not None:
            break
        now = max(now, Village.objects.get(pk=started.id).deadline_at) + timedelta(seconds=1)
        clock.sweep_due_villages(now=now)
    assert snapshot_of(started.id).state.clock.time_up_at is not None
    seer = started.client(3).post(f"/villages/{started.id}/up/", {"text": "まだ話したい"})
    villager = started.client(5).post(f"/villages/{started.id}/up/", {"text": "まだ話したい"})
    assert "時間切れです。夜の行動を済ませてください。" in seer.content.decode()
    said = villager.content.decode()
    assert "時間切れのため発言できません。" in said and "投票してください" not in said
