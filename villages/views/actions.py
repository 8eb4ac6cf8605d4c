"""What the game screen's forms and buttons do: talk, vote and night actions, kick, start,
leave, objection, bots, AIWolf agents, the screen's settings. Each runs a service for the
logged-in user and goes back to its pane, or draws the pane again with the refusal
(`villages.views.panes`).

* `talk`        the upper pane's talk box (its POST), where the engine says the talk goes
* `act`, `kick` the vote / night-action / kick pages, offering only what the engine accepts
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from villages import selectors, wording
from villages.engine import Phase, RuleError, speech
from villages.engine import game as engine
from villages.engine.errors import BadRequest
from villages.forms import PrefsForm, TalkForm
from villages.services import agents as agent_seats
from villages.services import bots as bot_seats
from villages.services import idempotency, lifecycle, play
from villages.services.config import rules
from villages.services.errors import NotFound

from . import targets
from .common import Prefs, error_page, prefs, save_prefs
from .panes import form_pane, seat_entry, upper_page, view_of


def talk(request: HttpRequest, view: selectors.View) -> HttpResponse:
    """発言 / 遺言 from the talk box: a will where the box says so, else the seat's talk,
    which is 霊話 for a dead player while the game runs (`engine.talks_in_heaven`)."""
    form = TalkForm(request.POST)
    form.is_valid()
    data = getattr(form, "cleaned_data", {})
    text = data.get("text", request.POST.get("text", ""))
    mode = data.get("mode") or "normal"
    if not request.user.is_authenticated:
        error = wording.error_text("ログインしてください。")
    else:
        heaven = view.viewer is not None and engine.talks_in_heaven(view.state, view.viewer)
        channel = "will" if mode == "will" else "heaven" if heaven else "talk"
        volume = mode if mode in ("strong", "normal", "weak") else "normal"
        error = submit(
            request,
            lambda: play.post_message(
                village_id=view.village.pk,
                user=request.user,
                text=text,
                channel=channel,
                volume=volume,
                **scene_of(request),
            ),
            village_id=view.village.pk,
        )
        if error is None:
            done = "will" if channel == "will" else "talk"
            return HttpResponseRedirect(f"/villages/{view.village.pk}/up/?done={done}")
    view = view_of(request, view.village.pk)
    # The text goes back into the box, less the characters the rules refused (if any).
    kept = "".join(ch for ch in text if ch not in speech.CONTROLS)
    return upper_page(request, view, text=kept, mode=mode, error=error)


def _number(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


def scene_of(request: HttpRequest) -> dict[str, Any]:
    """The day and phase a form was drawn in (its hidden fields): the services refuse
    what it sends once the village has moved on (API.md's `phase_changed`)."""
    return {"day": _number(request.POST.get("day")), "phase": request.POST.get("phase") or None}


# ---------------------------------------------------------------------------
# Actions: vote and night actions, kick


def act(request: HttpRequest, village_id: int) -> HttpResponse:
    """投票 / 襲撃 / 占い / 護衛 / 愛の矢: only the targets the engine accepts are offered."""
    action = request.GET.get("action") or request.POST.get("action") or "vote"
    if action not in targets.ACTIONS:
        action = "vote"
    try:
        view = view_of(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    error: str | None = None
    if request.method == "POST":
        chosen = [int(x) for x in request.POST.getlist("target") if x.isdigit()]

        def command() -> None:
            at = scene_of(request)
            if action == "vote":
                play.vote(
                    village_id=village_id,
                    user=request.user,
                    target=(chosen or [0])[0],
                    round=_number(request.POST.get("round")),
                    **at,
                )
            else:
                play.night_action(
                    village_id=village_id, user=request.user, action=action, targets=chosen, **at
                )

        error = submit(request, command, village_id=village_id)
        if error is None:
            return HttpResponseRedirect(f"/villages/{village_id}/down/?done={action}")
        view = view_of(request, village_id)
    c = (
        targets.choice(view.state, view.viewer, action)
        if view.viewer is not None
        else targets.Choice(action, refusal=RuleError(_("この村の住人ではありません。")))
    )
    rows = view.loaded.rows
    options = [seat_entry(no, rows[no]) for no in c.targets if no in rows]
    return form_pane(
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
            "form_key": uuid.uuid4().hex,  # one per page drawn: see submit
            # Where the choice is made: a ballot from before a revote, or an action sent
            # after its night, is refused (`phase_changed`), not taken in another scene.
            "scene": {
                "day": view.state.day,
                "phase": view.state.phase.value,
                "round": view.state.vote_round if action == "vote" else None,
            },
        },
        error=error,
    )


def kick(request: HttpRequest, village_id: int) -> HttpResponse:
    """キック投票 (before the start)."""
    try:
        view = view_of(request, village_id)
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

        error = submit(request, command, village_id=village_id)
        if error is None:
            message = (
                _("その人は村から追い出されました。") if kicked[0] else _("キック投票しました。")
            )
        view = view_of(request, village_id)
    rows = view.loaded.rows
    seats = [
        seat_entry(no, row, votes=len(view.state.kick_votes.get(no, ())))
        for no, row in sorted(rows.items())
        if not row.dummy
    ]
    return form_pane(
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


def leave(request: HttpRequest, village_id: int) -> HttpResponse:
    """村を出る (before the start): a page in the lower pane asks first; once left, the
    pane says so (`screen.lower`, ?done=leave). A refusal (a page asked before the start
    and sent after it) is shown in the pane, as the vote and kick pages show theirs."""
    try:
        view = view_of(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    error = None
    if request.method == "POST":
        error = submit(
            request,
            lambda: lifecycle.leave(village_id=village_id, user=request.user),
            village_id=village_id,
        )
        if error is None:
            return HttpResponseRedirect(f"/villages/{village_id}/down/?done=leave")
        view = view_of(request, village_id)
    refusal = None
    if view.viewer is None:
        refusal = _("この村の住人ではありません。")
    elif view.state.phase is not Phase.WAITING:
        refusal = _("ゲームが始まった後は村を出られません。")
    return form_pane(
        request,
        view,
        "villages/leave.html",
        {"refusal": refusal, "form_key": uuid.uuid4().hex},
        error=error,
    )


# ---------------------------------------------------------------------------
# Running a pane's command; the panes' buttons


def submit(request: HttpRequest, command: Callable[[], object], *, village_id: int) -> str | None:
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
                found = view_of(request, village_id)
            except NotFound as error:
                return error_page(request, error)
            return upper_page(request, found, error=wording.error_text(exc))
        return HttpResponseRedirect(_back(request, default(village_id)))

    return view


# The answer says why the game did not start yet, if it did not (panes._start_note).
start_vote = _pane_post(lifecycle.vote_start, lambda v: f"/villages/{v}/up/?start=voted")
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

# 人狼知能エージェントを受け入れる / やめる, and an agent's seat removed (the host or staff).
set_agents = _pane_post(
    agent_seats.set_open,
    lambda v: f"/villages/{v}/up/",
    lambda request: {"open_": request.POST.get("open") == "1"},
)


def _seat_no(request: HttpRequest) -> dict[str, Any]:
    seat_no = request.POST.get("seat_no", "")
    if not seat_no.isdigit():
        raise BadRequest(_("外す席を選んでください。"))
    return {"seat_no": int(seat_no)}


remove_agent = _pane_post(agent_seats.remove, lambda v: f"/villages/{v}/up/", _seat_no)


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
