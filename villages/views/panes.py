"""What the game screen's panes share: the viewer's view, its parts as HTML, the config of
the page's script, and the upper pane and form panes drawn whole (`screen` draws the panes,
`actions` runs their forms and buttons and draws a pane again with what they said).

A pane is drawn with slots for what is the request's own and filled in for each answer;
a read of the upper, lower or heaven pane is drawn once per sight and answered 304 while
its viewer's page is unchanged (`villages.views.polls`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.models import REFRESH_CHOICES
from villages import selectors
from villages.engine import MIN_PLAYERS
from villages.engine import visibility as vis
from villages.screenview import AGENTS, layout, parts_of
from villages.services import idempotency
from villages.services.errors import NotFound

from . import parts as draw
from . import polls
from . import render as log
from .common import Prefs, error_page, prefs, user_id
from .standing import Local, local_for

SOUNDS = ("dawn", "revote", "objection", "alert", "start")
LOWER = ("d-mode", "d-head", "d-time", "d-players", "d-agents", "d-me", "d-deaths", "d-votes")
UPPER = ("u-mode", "u-where", "u-talk", "u-actions", "u-objection")


def view_of(request: HttpRequest, village_id: int) -> selectors.View:
    return log.view_for(village_id, user_id(request))


class Drawn(dict[str, str]):
    """A pane's parts as HTML for its page, with the digests of what the socket draws."""

    digests: dict[str, str]


def standing(request: HttpRequest, view: selectors.View) -> Local:
    return local_for(user_id(request), view.loaded, request.user)


def draw_parts(
    request: HttpRequest, view: selectors.View, ids: Iterable[str], local: Local | None = None
) -> Drawn:
    local = local if local is not None else standing(request, view)
    parts = parts_of(view)
    drawn = draw.render_parts(parts, ids, local)
    # Forms inside parts are drawn once for everyone: the page's token slot goes in here.
    token = f'value="{polls.CSRF}" data-csrf'
    out = Drawn(
        {k: mark_safe(html.replace('value="" data-csrf', token)) for k, html in drawn.items()}
    )
    if "d-time" in out:
        now = timezone.now()
        out["d-time"] = mark_safe(draw.virtual_clock_now(out["d-time"], parts["d-time"], now))
    if AGENTS in out:
        out[AGENTS] = mark_safe(_agents_for(request, out[AGENTS]))
    out.digests = {k: draw.digest(html) for k, html in drawn.items()}
    return out


TOKEN_SLOT = re.compile(r"<span data-agent-token-slot>.*?</span>", flags=re.DOTALL)


def _agents_for(request: HttpRequest, html: str) -> str:
    """The agents' address as this request reached the site (ws://, or wss:// behind
    HTTPS), and the slot of the viewer's own API token in the config fragment (a
    placeholder with a link to the profile for a spectator who is not logged in). Drawn
    for the page alone: the part the socket sends has neither, the page's script fills
    them in (static/villages/js/jinro.js)."""
    origin = f"{'wss' if request.is_secure() else 'ws'}://{request.get_host()}"
    html = html.replace(
        "<span data-ws-origin></span>", f"<span data-ws-origin>{escape(origin)}</span>"
    )
    # An account that has no profile yet gets its token from the profile page, as the
    # placeholder says.
    if not polls.api_token(request):
        return html
    slot = polls.API_TOKEN
    html = html.replace('data-agent-token=""', f'data-agent-token="{slot}"', 1)
    return TOKEN_SLOT.sub(f"<span data-agent-token-slot>{slot}</span>", html)


def by_template(drawn: dict[str, str]) -> dict[str, str]:
    """Part ids as template variables (`d-head` → `p.d_head`)."""
    return {k.replace("-", "_"): v for k, v in drawn.items()}


def config(
    request: HttpRequest,
    view: selectors.View,
    pane: str,
    drawn: Drawn | None = None,
    last_id: int = 0,
    p: Prefs | None = None,
) -> dict[str, Any]:
    """What the page's script needs (given to it with json_script: no name can break out)."""
    p = p or prefs(request)
    return {
        "village": view.village.pk,
        "pane": pane,
        "ws": f"/ws/villages/{view.village.pk}/?screen=1",
        "last": last_id,
        "lang": get_language(),
        "refresh": p.refresh,
        "sound": p.sound,
        "layout": layout(selectors.state_dict(view)),
        "sounds": {name: f"/static/villages/sounds/{name}.wav" for name in SOUNDS},
        "parts": drawn.digests if drawn is not None else {},
        "marks": selectors.log_marks(view.loaded, view.viewer),
        "etag": polls.ETAG,  # the page's own (unquoted; "" for a page answered otherwise)
        "down": reverse("villages:lower", args=[view.village.pk]),
        "signedIn": request.user.is_authenticated,
        "texts": {
            "offline": _("接続が切れました。つなぎ直しています…"),
            "closed": _("このアカウントは利用停止中です。"),
        },
    }


def upper_body(
    request: HttpRequest,
    view: selectors.View,
    local: Local,
    p: Prefs,
    *,
    text: str = "",
    mode: str = "normal",
    error: str | None = None,
) -> str:
    """The upper pane, drawn: the talk box (with `text` in it again after a refusal), the
    actions, the controls, and the `error` a form was refused with."""
    drawn = draw_parts(request, view, UPPER, local)
    talk = draw.talk_labels(parts_of(view)["u-talk"])
    state = view.state
    context = {
        "village": view.village,
        "p": by_template(drawn),
        "phase": state.phase.value,
        "heaven": layout(selectors.state_dict(view)) == "heaven",
        "seated": view.viewer is not None,
        "text": text,
        "mode": mode,
        "placeholder": talk["placeholder"],
        "talk_label": talk["label"],
        "prefs": p,
        "refresh_choices": REFRESH_CHOICES,
        "error": error,
        "start_note": _start_note(view) if request.GET.get("start") == "voted" else "",
        "form_key": polls.FORM_KEY,  # one per page answered: see actions.submit
        "config": config(request, view, "up", drawn, p=p),
    }
    return polls.rendered(request, "villages/upper.html", context)


def upper_page(
    request: HttpRequest,
    view: selectors.View,
    *,
    text: str = "",
    mode: str = "normal",
    error: str | None = None,
) -> HttpResponse:
    """The upper pane after a form (400 with the `error` it was refused with)."""
    local, p = standing(request, view), prefs(request)
    body = upper_body(request, view, local, p, text=text, mode=mode, error=error)
    return polls.answer(request, body, status=400 if error else 200)


# ---------------------------------------------------------------------------
# Panes answered 304 while unchanged (villages.views.polls)

Body = Callable[[HttpRequest, selectors.View, Local, Prefs], str]


def sight(request: HttpRequest, view: selectors.View, pane: str, local: Local, p: Prefs) -> tuple:
    """Everything a pane drawn for this request depends on, but its slots: the village at
    its version, the viewer's seat and standing, the screen's preferences, the language,
    the path with its query (`?done=`), the host (the agents' address), and in a real-time
    phase the virtual clock as it stands now (drawn for the page without script)."""
    village = view.village
    return (
        pane,
        village.pk,
        village.seed,  # ids may be reused (a rolled-back test, a restored backup)
        village.version,
        view.viewer,
        local,
        p,
        get_language(),
        request.get_full_path(),
        request.get_host(),
        request.is_secure(),
        bool(polls.api_token(request)),  # the agents' part: the token's slot or a link
        draw.virtual_clock_text(parts_of(view)["d-time"], timezone.now()) if pane == "down" else "",
    )


def pane_page(
    request: HttpRequest, village_id: int, pane: str, body: Body, *more: object
) -> polls.Page | None:
    """The pane for this read: drawn once per sight (None when there is no such village:
    the view answers the error)."""
    try:
        view = view_of(request, village_id)
    except NotFound:
        return None
    local, p = standing(request, view), prefs(request)
    found = polls.kept(sight(request, view, pane, local, p), lambda: body(request, view, local, p))
    return polls.page(request, found, *more)


def pane_answer(
    request: HttpRequest, village_id: int, prepare: polls.Prepare, body: Body
) -> HttpResponse:
    """A pane view's answer: the prepared page of a read, or a page drawn for this request
    alone (another method), or the error."""
    found = polls.prepared(request, prepare, village_id)
    if found is not None:
        return found.answer(request)
    try:
        view = view_of(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    return polls.answer(request, body(request, view, standing(request, view), prefs(request)))


def upper_read(request: HttpRequest, village_id: int) -> polls.Page | None:
    """The upper pane for a read. Its form key is a slot, drawn afresh into every 200; a
    304 leaves the browser the page it has, whose key is unused while the user has no new
    kept answer (a form sent with it keeps one: services.idempotency), so the user's newest
    answer is part of the ETag."""
    newest = idempotency.newest_answer(request.user) if request.user.is_authenticated else 0
    return pane_page(request, village_id, "up", upper_body, newest)


def _start_note(view: selectors.View) -> str:
    """After a vote to start that did not start the game: why not yet (SPEC §2.3)."""
    state = view.state
    voted = vis.start_votes(state)
    if view.viewer is None or voted is None:
        return ""
    seated = len(state.seats)
    if seated < MIN_PLAYERS:
        return _("開始に投票しました。ゲームは%(needed)s人以上で始まります（あと%(more)s人）。") % {
            "needed": MIN_PLAYERS,
            "more": MIN_PLAYERS - seated,
        }
    return _("開始に投票しました。参加者全員が投票すると始まります（あと%(more)s人）。") % {
        "more": seated - voted
    }


def form_pane(
    request: HttpRequest,
    view: selectors.View,
    template: str,
    context: dict[str, Any],
    *,
    error: str | None,
) -> HttpResponse:
    """The act and kick panes: a form in the lower frame, with its mode line; 400 when the
    form was refused."""
    drawn = draw_parts(request, view, ["d-mode"])
    body = polls.rendered(
        request,
        template,
        {
            "village": view.village,
            "phase": view.state.phase.value,  # at night, the night's colours
            **context,
            "error": error,
            "p": by_template(drawn),
            "prefs": prefs(request),
            "config": config(request, view, "act", drawn),
        },
    )
    return polls.answer(request, body, status=400 if error else 200)


def seat_entry(no: int, row: Any, **more: Any) -> dict[str, Any]:
    """A seat as the act and kick pages list it: number, name, icon (and `more`)."""
    return {"no": no, "name": row.handle_name, "icon": row.icon.url if row.icon else "", **more}
