"""The game screen (SPEC §10): a frame page of same-origin panes, each its own document.

* `screen`      the frame page: upper + lower, or for the dead heaven input + village + heaven log
* `upper`       talk box, volume/will drop-down, action links, the top-right controls
* `lower`       village name, time, players, own role and results, log, deaths, tallies
* `heaven_log`  the dead's talk (霊話)

The vote / night-action / kick pages and the panes' buttons are `villages.views.actions`
(a talk box's text too: `upper` hands it a POST).

Each pane is drawn from the parts of `villages.screenview` by the one renderer
(`villages.views.parts`, through `villages.views.panes`); the live push sends the same
parts as they change. Every read goes through `villages.selectors` (the API's), every
write through the services. A read of a pane is drawn once per sight and answered 304
while its viewer's page is unchanged (`villages.views.polls`).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.html import escape
from django.utils.safestring import mark_safe

from villages import selectors, wording
from villages.engine import Phase
from villages.engine.state import RoundResult
from villages.screenview import layout, speakers
from villages.services.errors import NotFound

from . import actions, polls
from . import parts as draw
from . import render as log
from .common import Prefs, error_page
from .panes import (
    LOWER,
    by_template,
    config,
    draw_parts,
    pane_answer,
    pane_page,
    upper_body,
    upper_read,
    view_of,
)
from .standing import Local

# ---------------------------------------------------------------------------
# The frame page


def screen(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = view_of(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    base = f"/villages/{village_id}/"
    drawn = draw_parts(request, view, ["screen-mode"])
    body = polls.rendered(
        request,
        "villages/screen.html",
        {
            "village": view.village,
            "layout": layout(selectors.state_dict(view)),
            "mode": drawn["screen-mode"],
            "up_url": base + "up/",
            "down_url": base + "down/",
            "heaven_url": base + "heaven/",
            "config": config(request, view, "screen", drawn),
        },
    )
    return polls.answer(request, body)


# ---------------------------------------------------------------------------
# The upper pane


@polls.conditional(upper_read)
def upper(request: HttpRequest, village_id: int) -> HttpResponse:
    if request.method == "POST":
        try:
            view = view_of(request, village_id)
        except NotFound as error:
            return error_page(request, error)
        return actions.talk(request, view)
    return pane_answer(request, village_id, upper_read, upper_body)


# ---------------------------------------------------------------------------
# The lower pane and the heaven log


def log_parts(view: selectors.View) -> dict[str, str]:
    """The village log and the heaven log, whole, as the viewer may see them now."""
    state = view.state
    ended = state.phase is Phase.ENDED
    who = speakers(view.loaded)
    # Heaven talk has its own pane during the game; after the end the log holds everything.
    village_log, last = log.log_html(
        state, view.village, view.viewer, who, heaven=None if ended else False
    )
    out = {"d-log": _log_section("d-log", village_log, last)}
    if layout(selectors.state_dict(view)) == "heaven":
        heaven, last = log.log_html(state, view.village, view.viewer, who, heaven=True)
        out["h-log"] = _log_section("h-log", heaven, last)
    return out


def _log_section(part_id: str, html: str, last: int) -> str:
    """A log, as a live region: a screen reader reads out each line the socket adds (a whole
    log drawn again, as after a reload, is read only when asked)."""
    label = escape(wording.LOG_LABEL[part_id])
    return (
        f'<section class="part log" data-part="log" id="{part_id}" data-last="{last}"'
        f' role="log" aria-live="polite" aria-relevant="additions" aria-label="{label}">'
        f"{html}</section>"
    )


def lower_body(request: HttpRequest, view: selectors.View, local: Local, p: Prefs) -> str:
    drawn = draw_parts(request, view, LOWER, local)
    logs = log_parts(view)
    last = _last_of(logs["d-log"])
    cue = _own_vote_cue(view) if request.GET.get("done") == "vote" else None
    context = {
        "village": view.village,
        "phase": view.state.phase.value,
        "p": by_template(drawn),
        "log": mark_safe(logs["d-log"]),
        "prefs": p,
        "cue": draw.cue_text(cue) if cue else None,
        # Back from 村を出る (actions.leave): the pane says so while it is so.
        "left": request.GET.get("done") == "leave" and view.viewer is None,
        "config": config(request, view, "down", drawn, last, p),
    }
    return polls.rendered(request, "villages/lower.html", context)


def lower_read(request: HttpRequest, village_id: int) -> polls.Page | None:
    return pane_page(request, village_id, "down", lower_body)


@polls.conditional(lower_read)
def lower(request: HttpRequest, village_id: int) -> HttpResponse:
    return pane_answer(request, village_id, lower_read, lower_body)


def _own_vote_cue(view: selectors.View) -> dict[str, Any] | None:
    """The cue of the round the viewer's own ballot just closed, drawn with the pane its
    vote brings back (`?done=vote`): the socket sent that cue to everyone while this pane
    was loading, so the player who made the tie would see only its line. Drawn while the
    round the viewer voted in was tied and it has not voted again in the revote."""
    state, me = view.state, view.viewer
    if me is None or state.phase is not Phase.DAY:
        return None
    last = next((r for r in reversed(state.rounds) if r.day == state.day), None)
    if last is None or last.result is not RoundResult.TIE or last.round != state.vote_round - 1:
        return None
    voted = {b.voter for b in state.ballots_of_round(last.day, last.round)}
    if me not in voted or any(b.voter == me for b in state.current_ballots()):
        return None
    return {"type": "revote", "reason": "tie"}


def _last_of(section: str) -> int:
    marker = 'data-last="'
    start = section.index(marker) + len(marker)
    return int(section[start : section.index('"', start)])


def heaven_body(request: HttpRequest, view: selectors.View, local: Local, p: Prefs) -> str:
    who = speakers(view.loaded)
    html, last = log.log_html(view.state, view.village, view.viewer, who, heaven=True)
    return polls.rendered(
        request,
        "villages/heaven.html",
        {
            "village": view.village,
            "log": mark_safe(_log_section("h-log", html, last)),
            "prefs": p,
            "config": config(request, view, "heaven", None, last, p),
        },
    )


def heaven_read(request: HttpRequest, village_id: int) -> polls.Page | None:
    return pane_page(request, village_id, "heaven", heaven_body)


@polls.conditional(heaven_read)
def heaven_log(request: HttpRequest, village_id: int) -> HttpResponse:
    return pane_answer(request, village_id, heaven_read, heaven_body)
