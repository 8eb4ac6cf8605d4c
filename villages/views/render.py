"""The talk log as HTML, with closed phases cached per audience.

A phase that is over can no longer change (every line is posted under the
village lock with the phase it belongs to), so its rendered HTML is kept per
*audience*: the set of viewers who see exactly the same lines. The audience is
not decided here: it is read off the one visibility function by probing it
with one line of every kind, spoken by the viewer and by somebody else. Two
viewers whose probes answer alike see every real line alike, because
`see_message` depends on a line only through its kind and whether its speaker
is the viewer. A viewer's death, the end of the game, a hidden line or another
language all change the key, so nothing stale is ever served.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import Count, Max, Q, Sum
from django.template.loader import get_template
from django.utils.html import escape
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from villages import selectors
from villages.engine import GameState, MessageKind, Phase
from villages.engine import visibility as vis
from villages.models import Message, Village

from .labels import is_japanese, system_text


@dataclass(frozen=True)
class Speaker:
    name: str
    icon_url: str


@dataclass(frozen=True)
class _Probe:
    kind: str
    seat_no: int | None
    text: str = ""


def audience(state: GameState, viewer: int | None) -> tuple:
    """Who sees what, as a hashable key derived from `visibility.see_message` alone."""
    answers = []
    depends_on_self = False
    for kind in MessageKind:
        mine = vis.see_message(state, viewer, _Probe(kind.value, viewer if viewer else -1))
        other = vis.see_message(state, viewer, _Probe(kind.value, -2))
        a = None if mine is None else (mine.kind.value, mine.seat_no is not None)
        b = None if other is None else (other.kind.value, other.seat_no is not None)
        answers.append((a, b))
        depends_on_self |= a != b
    return (tuple(answers), viewer if depends_on_self else None)


# ---------------------------------------------------------------------------
# One line


def _text_html(text: str) -> str:
    return escape(text).replace("\n", "<br>")


def message_html(msg: Message, seen: vis.MessageView, speakers: dict[int, Speaker]) -> str:
    """One line of the log; `seen` is what the viewer may see of `msg`."""
    kind = seen.kind.value
    speaker = speakers.get(seen.seat_no) if seen.seat_no is not None else None
    if kind in ("system", "objection"):
        text = system_text(msg.code, msg.params or {}, seen.text)
        return (
            f'<div class="msg k-{kind}" id="m{msg.pk}" data-id="{msg.pk}">'
            f'<span class="say">{_text_html(text)}</span></div>'
        )
    text = seen.text
    if kind in ("wolf_howl", "common_whisper") and not is_japanese():
        text = _(text)
    who = _who(kind, speaker)
    return (
        f'<div class="msg k-{kind} v-{escape(msg.volume)}" id="m{msg.pk}" data-id="{msg.pk}">'
        f'<span class="who">{who}</span><span class="say">{_text_html(text)}</span></div>'
    )


_WHO = {
    "wolf": gettext_lazy("%(name)s（人狼）"),
    "common": gettext_lazy("%(name)s（共有者）"),
    "monologue": gettext_lazy("%(name)sの独り言"),
    "heaven": gettext_lazy("%(name)s（霊話）"),
    "will": gettext_lazy("%(name)sの遺言"),
}


def _who(kind: str, speaker: Speaker | None) -> str:
    if kind == "wolf_howl":
        return escape(_("狼の遠吠え"))
    if kind == "common_whisper":
        return escape(_("共有者の小声"))
    if speaker is None:
        return ""
    icon = f'<img class="ic" src="{escape(speaker.icon_url)}" alt="">' if speaker.icon_url else ""
    pattern = _WHO.get(kind)
    name = escape(str(pattern) % {"name": speaker.name} if pattern else speaker.name)
    return f"{icon}{name}"


def lines_html(
    state: GameState,
    viewer: int | None,
    messages: Iterable[Message],
    speakers: dict[int, Speaker],
    *,
    heaven: bool | None,
    oldest_first: bool = False,
) -> str:
    """Lines newest first (or oldest first).

    `heaven`: True only heaven talk, False none of it, None everything.
    """
    out = []
    for msg in messages:
        seen = vis.see_message(state, viewer, msg)
        if seen is None:
            continue
        is_heaven = seen.kind is MessageKind.HEAVEN
        if heaven is not None and is_heaven != heaven:
            continue
        out.append(message_html(msg, seen, speakers))
    if not oldest_first:
        out.reverse()
    return "".join(out)


# ---------------------------------------------------------------------------
# Phases and the cache


def phases(state: GameState) -> list[tuple[int, str]]:
    """Every (day, phase) a line of this village may belong to, oldest first."""
    groups: list[tuple[int, str]] = [(0, "waiting")]
    for d in range(1, state.day + 1):
        if d >= 2:
            groups.append((d, "day"))
        groups.append((d, "night"))
    if state.phase is Phase.ENDED:
        groups.append((state.day, "ended"))
    elif state.phase is Phase.DAY and groups[-1] == (state.day, "night"):
        groups.pop()  # day d comes before night d
    current = (state.day, state.phase.value)
    return [g for g in groups if g != current] + [current]


class _Cache:
    """A small in-process LRU: rendered closed phases are immutable, so no sharing is needed."""

    def __init__(self, size: int = 4000) -> None:
        self.size = size
        self.data: OrderedDict[tuple, str] = OrderedDict()
        self.lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple) -> str | None:
        with self.lock:
            value = self.data.get(key)
            if value is not None:
                self.data.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
            return value

    def put(self, key: tuple, value: str) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.data.clear()


CLOSED_PHASES = _Cache()


def _log_marks(village_id: int) -> tuple[int, tuple]:
    """The village's newest line id, and a key that changes when a line is hidden or shown."""
    hidden = Q(hidden=True)
    agg = Message.objects.filter(village_id=village_id).aggregate(
        last=Max("id"), n=Count("id", filter=hidden), s=Sum("id", filter=hidden)
    )
    return agg["last"] or 0, (agg["n"], agg["s"])


FRAGMENTS = _Cache(2000)
SNAPSHOTS = _Cache(200)


def view_for(village_id: int, user_id: int | None) -> selectors.View:
    """`selectors.view_for`, reusing the loaded village while its version is the same.

    Every write to a village goes through `services.core.run`, which bumps
    `Village.version` with a compare-and-set; a loaded village of one version is a
    snapshot that can no longer change. Each viewer gets a fresh `View` over it.
    """
    found = Village.objects.filter(pk=village_id).values_list("version", "seed").first()
    if found is None:
        return selectors.view_for(village_id, user_id)  # raises NotFound
    loaded = SNAPSHOTS.get((village_id, *found))
    if loaded is None:
        view = selectors.view_for(village_id, user_id)
        SNAPSHOTS.put((village_id, view.village.version, view.village.seed), view.loaded)
        return view
    row = loaded.seat_of_user(user_id)
    return selectors.View(loaded, row.seat_no if row else None)


def fragment(template: str, context: dict) -> str:
    """A template rendered once per distinct input (and language): same data, same HTML."""
    key = (template, get_language(), repr(sorted(context.items())))
    html = FRAGMENTS.get(key)
    if html is None:
        html = get_template(template).render(context)
        FRAGMENTS.put(key, html)
    return html


def log_html(
    state: GameState,
    village: Village,
    viewer: int | None,
    speakers: dict[int, Speaker],
    *,
    heaven: bool | None,
    groups: Sequence[tuple[int, str]] | None = None,
    oldest_first: bool = False,
) -> tuple[str, int]:
    """The log newest first, and the village's newest line id when it was read (0 if none).

    Closed phases come from the cache; only the current phase is read from the database.
    """
    village_id = village.pk
    last_id, hidden_key = _log_marks(village_id)
    all_groups = phases(state)
    current = all_groups[-1]
    wanted = list(groups) if groups is not None else all_groups
    key_base = (
        village_id,
        village.seed,  # ids may be reused (a rolled-back test, a restored backup)
        audience(state, viewer),
        heaven,
        get_language(),
        hidden_key,
    )
    parts: list[str] = []
    missing: list[tuple[int, str]] = []
    for group in wanted:
        if group == current:
            continue
        cached = CLOSED_PHASES.get((*key_base, group))
        if cached is None:
            missing.append(group)
    fresh: dict[tuple[int, str], list[Message]] = {g: [] for g in missing}
    rows = _messages(village_id, missing)
    for msg in rows:
        fresh.setdefault((msg.day, msg.phase), []).append(msg)
    if current in wanted and CLOSED_PHASES.get((*key_base, current, last_id)) is None:
        fresh[current] = _current_lines(village, current, last_id, hidden_key)
    for group in missing:
        CLOSED_PHASES.put(
            (*key_base, group),
            lines_html(
                state, viewer, fresh[group], speakers, heaven=heaven, oldest_first=oldest_first
            ),
        )
    for group in wanted if oldest_first else reversed(wanted):
        if group == current:
            # The open phase, rendered once per new line (last_id) and audience.
            key = (*key_base, group, last_id)
            html = CLOSED_PHASES.get(key)
            if html is None:
                html = lines_html(
                    state,
                    viewer,
                    fresh.get(group, []),
                    speakers,
                    heaven=heaven,
                    oldest_first=oldest_first,
                )
                CLOSED_PHASES.put(key, html)
        else:
            html = CLOSED_PHASES.get((*key_base, group)) or ""
        if html:
            parts.append(f'<div class="phase" data-phase="{group[0]}-{group[1]}">{html}</div>')
    return "".join(parts), last_id


CURRENT = _Cache(200)


def clear_caches() -> None:
    for cache in (CLOSED_PHASES, FRAGMENTS, SNAPSHOTS, CURRENT):
        cache.clear()


def _current_lines(
    village: Village, group: tuple[int, str], last_id: int, hidden_key: tuple
) -> list[Message]:
    """The open phase's rows; new lines change `last_id`, hiding one changes `hidden_key`."""
    key = (village.pk, village.seed, group, last_id, hidden_key)
    rows = CURRENT.get(key)
    if rows is None:
        rows = _messages(village.pk, [group])
        CURRENT.put(key, rows)
    return rows


def _messages(village_id: int, groups: list[tuple[int, str]]) -> list[Message]:
    if not groups:
        return []
    cond = Q()
    for day, phase in groups:
        cond |= Q(day=day, phase=phase)
    return list(
        Message.objects.filter(cond, village_id=village_id, hidden=False)
        .only("id", "day", "phase", "kind", "seat_no", "text", "volume", "code", "params")
        .order_by("id")
    )
