"""The game screen (SPEC §10): a frame page of same-origin panes, each its own document.

* `screen`      the frame page: upper + lower, or for the dead heaven input + village + heaven log
* `upper`       talk box, volume/will drop-down, action links, the top-right controls
* `lower`       village name, time, players, own role and results, log, deaths, tallies
* `heaven_log`  the dead's talk (霊話)
* `act`, `kick` the vote / night-action / kick pages, offering only what the engine accepts

Each pane is drawn from the parts of `villages.screenview` by the one renderer
(`villages.views.parts`); the live push sends the same parts as they change. Every read goes
through `villages.selectors` (the API's), every write through the services.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import escape
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import REFRESH_CHOICES
from villages import selectors, wording
from villages.engine import Phase, RuleError, speech
from villages.engine.errors import BadRequest
from villages.forms import PrefsForm, TalkForm
from villages.screenview import layout, parts_of, speakers
from villages.services import bots as bot_seats
from villages.services import idempotency, lifecycle, play
from villages.services.config import rules
from villages.services.errors import NotFound

from . import parts as draw
from . import render as log
from . import targets
from .common import Prefs, error_page, prefs, save_prefs, user_id
from .standing import local_for

SOUNDS = ("dawn", "revote", "objection", "alert", "start")
LOWER = ("d-mode", "d-head", "d-time", "d-players", "d-me", "d-deaths", "d-votes")
UPPER = ("u-mode", "u-where", "u-talk", "u-actions", "u-objection")


def _view(request: HttpRequest, village_id: int) -> selectors.View:
    return log.view_for(village_id, user_id(request))


class _Drawn(dict[str, str]):
    """A pane's parts as HTML for its page, with the digests of what the socket draws."""

    digests: dict[str, str]


def _parts(request: HttpRequest, view: selectors.View, ids: Iterable[str]) -> _Drawn:
    local = local_for(user_id(request), view.loaded, request.user)
    drawn = draw.render_parts(parts_of(view), ids, local)
    # Forms inside parts are drawn once for everyone: the page's own token goes in here.
    token = f'value="{escape(get_token(request))}" data-csrf'
    out = _Drawn(
        {k: mark_safe(html.replace('value="" data-csrf', token)) for k, html in drawn.items()}
    )
    out.digests = {k: draw.digest(html) for k, html in drawn.items()}
    return out


def _by_template(drawn: dict[str, str]) -> dict[str, str]:
    """Part ids as template variables (`d-head` → `p.d_head`)."""
    return {k.replace("-", "_"): v for k, v in drawn.items()}


def _config(
    request: HttpRequest,
    view: selectors.View,
    pane: str,
    drawn: _Drawn | None = None,
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
        "down": reverse("villages:lower", args=[view.village.pk]),
        "signedIn": request.user.is_authenticated,
        "texts": {
            "offline": _("接続が切れました。つなぎ直しています…"),
            "closed": _("このアカウントは利用停止中です。"),
        },
    }


# ---------------------------------------------------------------------------
# The frame page


def screen(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    base = f"/villages/{village_id}/"
    drawn = _parts(request, view, ["screen-mode"])
    return render(
        request,
        "villages/screen.html",
        {
            "village": view.village,
            "layout": layout(selectors.state_dict(view)),
            "mode": drawn["screen-mode"],
            "up_url": base + "up/",
            "down_url": base + "down/",
            "heaven_url": base + "heaven/",
            "config": _config(request, view, "screen", drawn),
        },
    )


# ---------------------------------------------------------------------------
# The upper pane


def upper(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    if request.method == "POST":
        return _talk(request, view)
    return _upper_page(request, view)


def _upper_page(
    request: HttpRequest,
    view: selectors.View,
    *,
    text: str = "",
    mode: str = "normal",
    error: str | None = None,
) -> HttpResponse:
    drawn = _parts(request, view, UPPER)
    talk = draw.talk_labels(parts_of(view)["u-talk"])
    state = view.state
    context = {
        "village": view.village,
        "p": _by_template(drawn),
        "phase": state.phase.value,
        "heaven": layout(selectors.state_dict(view)) == "heaven",
        "seated": view.viewer is not None,
        "text": text,
        "mode": mode,
        "placeholder": talk["placeholder"],
        "talk_label": talk["label"],
        "prefs": prefs(request),
        "refresh_choices": REFRESH_CHOICES,
        "error": error,
        "form_key": uuid.uuid4().hex,  # one per page drawn: see _submit
        "config": _config(request, view, "up", drawn),
    }
    return render(request, "villages/upper.html", context, status=400 if error else 200)


def _talk(request: HttpRequest, view: selectors.View) -> HttpResponse:
    form = TalkForm(request.POST)
    form.is_valid()
    data = getattr(form, "cleaned_data", {})
    text = data.get("text", request.POST.get("text", ""))
    mode = data.get("mode") or "normal"
    if not request.user.is_authenticated:
        error = wording.error_text("ログインしてください。")
    else:
        playing = view.state.phase in (Phase.DAY, Phase.NIGHT)
        me = view.state.seat(view.viewer) if view.viewer is not None else None
        channel = "talk"
        if mode == "will":
            channel = "will"
        elif playing and me is not None and not me.alive:
            channel = "heaven"
        volume = mode if mode in ("strong", "normal", "weak") else "normal"
        error = _submit(
            request,
            lambda: play.post_message(
                village_id=view.village.pk,
                user=request.user,
                text=text,
                channel=channel,
                volume=volume,
            ),
            village_id=view.village.pk,
        )
        if error is None:
            done = "will" if channel == "will" else "talk"
            return HttpResponseRedirect(f"/villages/{view.village.pk}/up/?done={done}")
    view = _view(request, view.village.pk)
    # The text goes back into the box, less the characters the rules refused (if any).
    kept = "".join(ch for ch in text if ch not in speech.CONTROLS)
    return _upper_page(request, view, text=kept, mode=mode, error=error)


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
    return (
        f'<section class="part log" data-part="log" id="{part_id}" data-last="{last}">'
        f"{html}</section>"
    )


def lower(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    p = prefs(request)
    drawn = _parts(request, view, LOWER)
    logs = log_parts(view)
    last = _last_of(logs["d-log"])
    context = {
        "village": view.village,
        "phase": view.state.phase.value,
        "p": _by_template(drawn),
        "log": mark_safe(logs["d-log"]),
        "prefs": p,
        "config": _config(request, view, "down", drawn, last, p),
    }
    return render(request, "villages/lower.html", context)


def _last_of(section: str) -> int:
    marker = 'data-last="'
    start = section.index(marker) + len(marker)
    return int(section[start : section.index('"', start)])


def heaven_log(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    who = speakers(view.loaded)
    html, last = log.log_html(view.state, view.village, view.viewer, who, heaven=True)
    return render(
        request,
        "villages/heaven.html",
        {
            "village": view.village,
            "log": mark_safe(_log_section("h-log", html, last)),
            "prefs": prefs(request),
            "config": _config(request, view, "heaven", None, last),
        },
    )


# ---------------------------------------------------------------------------
# Actions: vote and night actions, kick, start, leave, objection


def act(request: HttpRequest, village_id: int) -> HttpResponse:
    """投票 / 襲撃 / 占い / 護衛 / 愛の矢: only the targets the engine accepts are offered."""
    action = request.GET.get("action") or request.POST.get("action") or "vote"
    if action not in targets.ACTIONS:
        action = "vote"
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    error: str | None = None
    if request.method == "POST":
        chosen = [int(x) for x in request.POST.getlist("target") if x.isdigit()]

        def command() -> None:
            if action == "vote":
                play.vote(village_id=village_id, user=request.user, target=(chosen or [0])[0])
            else:
                play.night_action(
                    village_id=village_id, user=request.user, action=action, targets=chosen
                )

        error = _submit(request, command, village_id=village_id)
        if error is None:
            return HttpResponseRedirect(f"/villages/{village_id}/down/?done={action}")
        view = _view(request, village_id)
    c = (
        targets.choice(view.state, view.viewer, action)
        if view.viewer is not None
        else targets.Choice(action, refusal=RuleError(_("この村の住人ではありません。")))
    )
    rows = view.loaded.rows
    options = [_seat_entry(no, rows[no]) for no in c.targets if no in rows]
    return _form_pane(
        request,
        view,
        "villages/act.html",
        {
            "action": action,
            "action_label": wording.ABILITY[action],
            "options": options,
            "multi": action == "cupid",
            "fixed": rows[c.fixed].handle_name if c.fixed in rows else None,
            "fixed_no": c.fixed,
            "refusal": wording.error_text(c.refusal) if c.refusal else None,
            "form_key": uuid.uuid4().hex,  # one per page drawn: see _submit
        },
        error=error,
    )


def kick(request: HttpRequest, village_id: int) -> HttpResponse:
    """キック投票 (before the start)."""
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    error = message = None
    if request.method == "POST":
        target = request.POST.get("target", "")
        kicked: list[bool] = []

        def command() -> None:
            kicked.append(
                lifecycle.kick_vote(
                    village_id=village_id,
                    user=request.user,
                    target=int(target) if target.isdigit() else 0,
                )
            )

        error = _submit(request, command, village_id=village_id)
        if error is None:
            message = (
                _("その人は村から追い出されました。") if kicked[0] else _("キック投票しました。")
            )
        view = _view(request, village_id)
    rows = view.loaded.rows
    seats = [
        _seat_entry(no, row, votes=len(view.state.kick_votes.get(no, ())))
        for no, row in sorted(rows.items())
        if not row.dummy
    ]
    return _form_pane(
        request,
        view,
        "villages/kick.html",
        {
            "seats": seats,
            "needed": rules().kick_votes,
            "waiting": view.state.phase is Phase.WAITING,
            "message": message,
        },
        error=error,
    )


def _form_pane(
    request: HttpRequest,
    view: selectors.View,
    template: str,
    context: dict[str, Any],
    *,
    error: str | None,
) -> HttpResponse:
    """The act and kick panes: a form in the lower frame, with its mode line; 400 when the
    form was refused."""
    drawn = _parts(request, view, ["d-mode"])
    return render(
        request,
        template,
        {
            "village": view.village,
            "phase": view.state.phase.value,  # at night, the night's colours
            **context,
            "error": error,
            "p": _by_template(drawn),
            "prefs": prefs(request),
            "config": _config(request, view, "act", drawn),
        },
        status=400 if error else 200,
    )


def _submit(request: HttpRequest, command: Callable[[], object], *, village_id: int) -> str | None:
    """Run a pane's command for the logged-in user; the error to show, or None.

    The form's `idempotency_key` (a fresh one in every page drawn) makes a form sent twice
    (a second click, a resend after a lost answer) run once: the second gets the first's
    outcome (services/idempotency.py)."""
    if not request.user.is_authenticated:
        return wording.error_text("ログインしてください。")
    key = request.POST.get("idempotency_key", "")

    def run() -> tuple[int, Any]:
        command()
        return 200, None

    try:
        if not key:
            run()
            return None
        status, body = idempotency.once(request.user, key, f"POST {request.path}", village_id, run)
    except RuleError as exc:
        return wording.error_text(exc)
    return wording.error_text(body["error"]["message"]) if status >= 400 else None


def _back(request: HttpRequest, default: str) -> str:
    """Where a form asks to go next: a path of this site only (never another host)."""
    nxt = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(
        nxt, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return nxt if safe and nxt.startswith("/") else default


def _pane_post(
    run: Callable[..., object],
    default: Callable[[int], str],
    form: Callable[[HttpRequest], dict[str, Any]] = lambda request: {},
) -> Callable[[HttpRequest, int], HttpResponse]:
    """A button of the upper pane: run the service (with what `form` reads from the
    request), then go back (or show its error)."""

    @require_POST
    @login_required
    def view(request: HttpRequest, village_id: int) -> HttpResponse:
        try:
            run(village_id=village_id, user=request.user, **form(request))
        except RuleError as exc:
            try:
                found = _view(request, village_id)
            except NotFound as error:
                return error_page(request, error)
            return _upper_page(request, found, error=wording.error_text(exc))
        return HttpResponseRedirect(_back(request, default(village_id)))

    return view


start_vote = _pane_post(lifecycle.vote_start, lambda v: f"/villages/{v}/up/")
leave = _pane_post(lifecycle.leave, lambda v: f"/villages/{v}/")
objection = _pane_post(play.object_, lambda v: f"/villages/{v}/up/")


def _bot_count(request: HttpRequest) -> dict[str, Any]:
    """ボットで空席を埋める (fill), or the number asked for."""
    if request.POST.get("fill"):
        return {"count": None}
    try:
        return {"count": int(request.POST.get("count", ""))}
    except ValueError:
        raise BadRequest(_("ボットの人数を数字で入力してください。")) from None


add_bots = _pane_post(bot_seats.add_bots, lambda v: f"/villages/{v}/up/", _bot_count)


@require_POST
def set_prefs(request: HttpRequest, village_id: int) -> HttpResponse:
    """自動更新 / 音でお知らせ / ↑リスト↓リスト: kept in the profile, or a cookie."""
    form = PrefsForm(request.POST)
    form.is_valid()
    data = getattr(form, "cleaned_data", {})
    old = prefs(request)
    new = Prefs(
        refresh=data["refresh"] if data.get("refresh") is not None else old.refresh,
        sound=(data["sound"] == "1") if data.get("sound") else old.sound,
        list_below=(data["list_below"] == "1") if data.get("list_below") else old.list_below,
    )
    response = HttpResponseRedirect(_back(request, reverse("villages:screen", args=[village_id])))
    save_prefs(request, response, new)
    return response


def _seat_entry(no: int, row: Any, **more: Any) -> dict[str, Any]:
    """A seat as the act and kick pages list it: number, name, icon (and `more`)."""
    return {"no": no, "name": row.handle_name, "icon": row.icon.url if row.icon else "", **more}
