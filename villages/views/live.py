"""The live game screen's drawing: a whole screen as a socket's page should show it now,
and a pushed delta drawn once in a language for every socket of a process that shows it.

Both use the one renderer of the game screen (`villages.views.parts`) on inputs built from
the viewer's view (`villages.screenview`), as the pages do: the socket and the page draw
the same HTML from the same inputs, and a socket sends only what its page lacks
(`villages.consumers.session.Page`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation

from villages import line_numbers
from villages.groups import encode
from villages.live_reads import lines_after, viewer_in
from villages.lru import LRU
from villages.screenview import line_input, parts_of, speakers
from villages.selectors import View, log_marks, visible_messages
from villages.snapshots import snapshot_of

from . import parts as render
from .screen import log_parts
from .standing import Local, local_for


@dataclass
class Screen:
    """A screen's view drawn now: every part, the lines after a point, maybe the logs."""

    viewer: int | None
    version: int
    last: int
    parts: dict[str, tuple[str, str]]  # id -> (html, digest)
    lines: list[list[Any]]  # [id, pane, phase, html]
    marks: str
    local: Local  # what the screen knows of its person
    send: set[str]  # the parts a client receives (a player list stands for its rows)
    logs: dict[str, tuple[str, str]] = field(default_factory=dict)


def line_row(line: dict[str, Any]) -> list[Any]:
    """A line as a screen frame carries it: [id, pane, phase, html]."""
    message = line["message"]
    return [message["id"], line["into"], render.phase_key(message), render.line_html(line)]


def read_screen(
    village_id: int, user_id: int | None, *, after: int, lang: str, logs: bool
) -> Screen | None:
    """The user's screen as it should be now: every part, and the lines after `after`
    (None: no such village)."""
    loaded = snapshot_of(village_id)
    if loaded is None:
        return None
    viewer = viewer_in(loaded, user_id)
    view = View(loaded, viewer)
    with translation.override(lang):
        local = local_for(user_id, loaded)
        parts = parts_of(view)
        drawn = render.render_parts(parts, parts, local)
        screen = Screen(
            viewer=viewer,
            version=loaded.village.version,
            last=line_numbers.last_number(loaded.village, loaded.state, viewer),
            parts={k: (html, render.digest(html)) for k, html in drawn.items()},
            send=set(render.to_send(drawn)) | set(render.LOGS),
            lines=[],
            marks=log_marks(loaded, viewer),
            local=local,
        )
        if screen.last > after:
            who = speakers(loaded)
            ended = loaded.state.phase.value == "ended"
            rows = lines_after(loaded, viewer, after)
            for m in visible_messages(loaded.village, loaded.state, viewer, rows):
                screen.lines.append(line_row(line_input(m, who, ended=ended)))
        if logs:
            for part_id, html in log_parts(view).items():
                screen.logs[part_id] = (html, render.digest(html))
    return screen


# Deltas drawn in this process: (delta key, language, Local) -> parts, lines, cues. The
# viewers who see a commit alike share one delta, drawn here once for all their sockets.
DRAWN: LRU[Any, dict[str, Any]] = LRU(2000)


def draw_delta(envelope: dict[str, Any], lang: str, local: Local) -> dict[str, Any]:
    """A pushed screen delta (`villages.groups.village_screen`) drawn in `lang` for a
    socket whose person is `local`, once per process."""
    key = (envelope["key"], lang, local)
    drawn = DRAWN.get(key)
    if drawn is None:
        drawn = _draw(json.loads(envelope["blob"]), lang, local)
        DRAWN.put(key, drawn)
    return drawn


def _draw(delta: dict[str, Any], lang: str, local: Local) -> dict[str, Any]:
    """Its parts (with their digests, and whether a client receives them), lines, cues,
    and the whole frame encoded for the sockets that take it as it is."""
    with translation.override(lang):
        parts = delta.get("parts") or {}
        drawn = render.render_parts(parts, parts, local)
        sent = set(render.to_send(drawn))
        out: dict[str, Any] = {
            "parts": [[k, html, render.digest(html), k in sent] for k, html in drawn.items()],
            "lines": [line_row(line) for line in delta.get("lines") or []],
            "restore": [line_row(line) for line in delta.get("restore") or []],
            "hide": list(delta.get("hide") or []),
            "cues": [render.cue_text(c) for c in delta.get("cues") or []],
            "marks": delta.get("marks"),
        }
    frame: dict[str, Any] = {"type": "screen"}
    shown = [[k, html, digest] for k, html, digest, send in out["parts"] if send]
    if shown:
        frame["parts"] = shown
    for name in ("lines", "restore", "hide", "cues", "marks"):
        if out[name]:
            frame[name] = out[name]
    out["text"] = encode(frame) if len(frame) > 1 else ""
    return out
