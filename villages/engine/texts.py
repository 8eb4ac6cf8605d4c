"""The system lines the engine posts, as codes: each line is a code and its params (names,
numbers and codes, never words: `Run.post`), and the site words it (`villages.wording`,
the one place that does). Here is what each code carries, so that the engine's tests can
hold every post to it and the site's to its wording.

And the stand-ins a seat sees for talk it may not hear (`visibility.see_message`): API.md
gives a villager the wolves' night talk as `wolf_howl` with the howl text, and the
commons' as `common_whisper` with the whisper text.
"""

from __future__ import annotations

from .errors import _

# Code → the params the engine gives with it.
SYSTEM_LINES: dict[str, tuple[str, ...]] = {
    "seated": ("name",),
    "left": ("name",),
    "kick_vote": ("voter", "name"),  # seat names: who voted to kick whom
    "kicked": ("name",),
    "start_votes_cleared": (),
    "agents_opened": (),
    "agents_closed": (),
    "game_start": ("cast",),  # role codes with their counts: "villager=5 seer=1 wolf=2"
    "night": ("day",),
    "morning": ("day",),
    "found_dead": ("name",),
    "peaceful": (),
    "lovers_suicide": ("name",),
    "executed": ("name",),
    "poison_victim": ("name",),
    "sudden_death": ("name",),
    "time_up_day": ("grace",),  # seconds
    "time_up_night": ("grace",),
    "silence_day": ("hours",),
    "silence_night": ("hours",),
    "revote": ("revotes",),  # the day's ties so far: the first revote is 1
    "revote_last": ("revotes",),
    "tie_draw": ("ties",),
    "revote_after_sudden": (),
    "outage": ("grace",),
    "abandoned": (),
    "abandoned_by_staff": (),
    "objection": ("name",),
    "win_village": (),
    "win_wolves": (),
    "win_fox": (),
    "win_lovers": (),
    "win_draw": (),
    "win_draw_revotes": (),
    # Not a system line but the dummy boy's will (kind "will", its seat's): the site's
    # words, as the reference gives its dummy boy a will of its own.
    "dummy_will": (),
}

# The lines that tell of a death: their `name` is a seat that died then (by attack or
# divination found in the morning, after a lover, by execution, by poison, by sudden death).
DEATH_LINES = frozenset(
    {"found_dead", "lovers_suicide", "executed", "poison_victim", "sudden_death"}
)

HOWL_TEXT = _("アオォーン・・・")
WHISPER_TEXT = _("ヒソヒソ・・・")
