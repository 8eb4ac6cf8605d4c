"""The game screen (SPEC §10): a frame page of same-origin panes, each its own document.

* `screen`      the frame page: upper + lower, or for the dead heaven input + village + heaven log
* `upper`       talk box, volume/will drop-down, action links, the top-right controls
* `lower`       village name, time, players, own role and results, log, deaths, tallies
* `heaven_log`  the dead's talk (霊話)
* `act`, `kick` the vote / night-action / kick pages, offering only what the engine accepts
Every read goes through `villages.selectors` (the API's), every write through the services.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import REFRESH_CHOICES
from villages import selectors
from villages.engine import Phase, RuleError
from villages.forms import TALK_MODES, PrefsForm, TalkForm
from villages.services import lifecycle, play
from villages.services.config import rules
from villages.services.errors import NotFound

from . import labels, targets
from . import render as log
from .common import Prefs, error_page, prefs, save_prefs, user_id

SOUNDS = ("dawn", "revote", "objection", "alert", "start")


def _view(request: HttpRequest, village_id: int) -> selectors.View:
    return log.view_for(village_id, user_id(request))


def speakers(view: selectors.View) -> dict[int, log.Speaker]:
    found = getattr(view.loaded, "_speakers", None)
    if found is None:  # once per loaded snapshot
        found = {
            no: log.Speaker(row.handle_name, row.icon.url if row.icon else "")
            for no, row in view.loaded.rows.items()
        }
        view.loaded._speakers = found  # type: ignore[attr-defined]
    return found


def _layout(view: selectors.View) -> str:
    """ "heaven" (three panes) for a dead player during the game, else "plain"."""
    state = view.state
    me = state.seat(view.viewer) if view.viewer is not None else None
    if me is not None and not me.alive and state.phase in (Phase.DAY, Phase.NIGHT):
        return "heaven"
    return "plain"


def _config(
    request: HttpRequest,
    view: selectors.View,
    pane: str,
    last_id: int = 0,
    who: dict[int, log.Speaker] | None = None,
    p: Prefs | None = None,
) -> str:
    p = p or prefs(request)
    who = who if who is not None else speakers(view)
    me = view.state.seat(view.viewer) if view.viewer is not None else None
    data = {
        "village": view.village.pk,
        "pane": pane,
        "ws": f"/ws/villages/{view.village.pk}/",
        "last": last_id,
        "lang": get_language(),
        "refresh": p.refresh,
        "sound": p.sound,
        "status": view.village.status,
        "phase": view.state.phase.value,
        "day": view.state.day,
        "seat": view.viewer,
        "alive": me.alive if me else None,
        "layout": _layout(view),
        "sounds": {name: f"/static/villages/sounds/{name}.wav" for name in SOUNDS},
        "seats": {str(no): {"name": s.name, "icon": s.icon_url} for no, s in who.items()},
        "texts": _js_texts(),
    }
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def _js_texts() -> dict[str, Any]:
    return {
        "howl_who": _("狼の遠吠え"),
        "whisper_who": _("共有者の小声"),
        "who": {kind: str(pattern) for kind, pattern in log._WHO.items()},
        "objection": _("%(name)sさん「異議あり！」"),
        "dawn": _("夜が明けました"),
        "revote": _("再投票になりました"),
        "alert": _("突然死まであと%(n)s秒"),
        "game_over": _("ゲームが終わりました"),
    }


# ---------------------------------------------------------------------------
# The frame page


def screen(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    base = f"/villages/{village_id}/"
    return render(
        request,
        "villages/screen.html",
        {
            "village": view.village,
            "layout": _layout(view),
            "up_url": base + "up/",
            "down_url": base + "down/",
            "heaven_url": base + "heaven/",
            "config": _config(request, view, "screen"),
        },
    )


# ---------------------------------------------------------------------------
# The upper pane


def _upper_context(request: HttpRequest, view: selectors.View) -> dict[str, Any]:
    state = view.state
    state_json = selectors.state_dict(view)
    me = state_json["me"]
    playing = state.phase in (Phase.DAY, Phase.NIGHT)
    dead = me is not None and not me["alive"] and playing
    modes = [m for m in TALK_MODES if not (m[0] == "will" and (dead or state.phase is Phase.ENDED))]
    choices = targets.available(state, view.viewer) if me and playing and not dead else []
    p = prefs(request)
    return {
        "village": view.village,
        "state": state_json,
        "me": me,
        "dead": dead,
        "playing": playing,
        "waiting": state.phase is Phase.WAITING,
        "ended": state.phase is Phase.ENDED,
        "phase_label": _phase_label(state.day, state.phase.value),
        "modes": modes,
        "actions": [(c.action, labels.ABILITY[c.action]) for c in choices],
        "prefs": p,
        "refresh_choices": REFRESH_CHOICES,
        "can_object": me is not None
        and not dead
        and state.phase in (Phase.WAITING, Phase.DAY)
        and me["objections_left"] > 0,
        "sig": _signature(state_json),
        "config": _config(request, view, "up"),
    }


def _signature(state: dict[str, Any]) -> str:
    """What the upper pane shows that a state push can change (the JS compares it)."""
    me = state["me"] or {}
    v = state["village"]
    parts = [v["status"], v["phase"], v["day"], me.get("alive"), me.get("action_done")]
    return ":".join(
        "" if x is None else str(x).lower() if isinstance(x, bool) else str(x) for x in parts
    )


def _phase_label(day: int, phase: str) -> str:
    if phase == "waiting":
        return str(labels.PHASE["waiting"])
    if phase == "ended":
        return str(labels.PHASE["ended"])
    return _("%(day)s日目の%(phase)s") % {"day": day, "phase": labels.PHASE[phase]}


def upper(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    if request.method == "POST":
        return _talk(request, view)
    context = _upper_context(request, view)
    context["form"] = TalkForm(initial={"mode": "normal"})
    return render(request, "villages/upper.html", context)


def _talk(request: HttpRequest, view: selectors.View) -> HttpResponse:
    form = TalkForm(request.POST)
    form.is_valid()
    data = getattr(form, "cleaned_data", {})
    text = data.get("text", request.POST.get("text", ""))
    mode = data.get("mode") or "normal"
    error: str | None = None
    if not request.user.is_authenticated:
        error = labels.error_text("ログインしてください。")
    else:
        playing = view.state.phase in (Phase.DAY, Phase.NIGHT)
        me = view.state.seat(view.viewer) if view.viewer is not None else None
        channel = "talk"
        if mode == "will":
            channel = "will"
        elif playing and me is not None and not me.alive:
            channel = "heaven"
        volume = mode if mode in ("strong", "normal", "weak") else "normal"
        try:
            play.post_message(
                village_id=view.village.pk,
                user=request.user,
                text=text,
                channel=channel,
                volume=volume,
            )
        except RuleError as exc:
            error = labels.error_text(exc.message)
        else:
            done = "will" if channel == "will" else "talk"
            return HttpResponseRedirect(f"/villages/{view.village.pk}/up/?done={done}")
    view = _view(request, view.village.pk)
    context = _upper_context(request, view)
    context["form"] = TalkForm(initial={"text": text, "mode": mode})
    context["error"] = error
    return render(request, "villages/upper.html", context, status=400)


# ---------------------------------------------------------------------------
# The lower pane and the heaven log


def _lower_context(request: HttpRequest, view: selectors.View) -> dict[str, Any]:
    state = view.state
    s = selectors.state_dict(view)
    p = prefs(request)
    names = {row_no: row.handle_name for row_no, row in view.loaded.rows.items()}
    # Heaven talk has its own pane during the game; after the end the log holds everything.
    heaven: bool | None = None if state.phase is Phase.ENDED else False
    who = speakers(view)
    html, last_id = log.log_html(state, view.village, view.viewer, who, heaven=heaven)
    now = timezone.now()
    seats = []
    for seat in s["seats"]:
        seats.append(
            {
                **seat,
                "role_label": labels.label(labels.ROLE, seat["role"]),
                "sub_labels": [labels.label(labels.SUB_ROLE, x) for x in seat["sub_roles"] or []],
                "cause_label": labels.label(labels.DEATH, seat["death_cause"]),
            }
        )
    deaths = []
    for seat in sorted(
        (x for x in state.seats if not x.alive),
        key=lambda x: (x.death_day or 0, x.death_phase != Phase.NIGHT, x.no),
    ):
        shown = next(x for x in seats if x["seat_no"] == seat.no)
        deaths.append(
            {
                "name": seat.name,
                "when": _phase_label(seat.death_day or 0, (seat.death_phase or Phase.DAY).value),
                "cause": shown["cause_label"],
            }
        )
    votes = []
    for v in reversed(s["votes"]):
        received: dict[int, int] = {}
        for b in v["ballots"]:
            received[b["target"]] = received.get(b["target"], 0) + b["weight"]
        votes.append(
            {
                "day": v["day"],
                "round": v["round"],
                "rows": [
                    {
                        "voter": names.get(b["voter"], "?"),
                        "count": received.get(b["voter"], 0),
                        "target": names.get(b["target"], "?"),
                        "weight": b["weight"],
                    }
                    for b in v["ballots"]
                ],
                "executed": names.get(v["executed"]) if v["executed"] else None,
            }
        )
    me = s["me"]
    me_ctx = None
    if me is not None and me["role"]:
        role = me["role"]
        partner_label = {
            "wolf": _("仲間の人狼"),
            "fanatic": _("人狼"),
            "common": _("もうひとりの共有者"),
            "cupid": _("恋人たち"),
        }.get(role, _("恋人"))
        me_ctx = {
            "role": role,
            "role_label": labels.label(labels.ROLE, role),
            "sub_labels": [labels.label(labels.SUB_ROLE, x) for x in me["sub_roles"]],
            "partner_label": partner_label,
            "partners": [names.get(no, "?") for no in me["partners"]],
            "results": [
                {
                    "day": r["day"],
                    "ability": r["ability"],
                    "target": names.get(r["target"], "?"),
                    "result": labels.label(labels.RESULT, r["result"]),
                    "raw": r["result"],
                }
                for r in me["results"]
            ],
            "alive": me["alive"],
        }
    clock = s["clock"]
    virtual = clock["virtual_seconds_left"]
    return {
        "village": view.village,
        "v": s["village"],
        "state": s,
        "status_label": labels.STATUS.get(view.village.status, ""),
        "phase_label": _phase_label(state.day, state.phase.value),
        "phase": state.phase.value,
        "virtual_left": labels.minutes(virtual) if virtual is not None else None,
        "time_up": clock["time_up"],
        "phase_deadline": clock["phase_deadline"],
        "sudden_deadline": clock["sudden_death_deadline"],
        "real_left": _seconds_until(clock["phase_deadline"], now),
        "sudden_left": _seconds_until(clock["sudden_death_deadline"], now),
        "players_html": log.fragment("villages/players.html", {"seats": seats}),
        "me_html": log.fragment("villages/me.html", {"me": me_ctx}),
        "log_html": html,
        "last_id": last_id,
        "deaths_html": log.fragment("villages/deaths.html", {"deaths": deaths}),
        "votes_html": log.fragment("villages/votes.html", {"votes": votes}),
        "winner_label": labels.label(labels.WINNER, s["winner"]),
        "prefs": p,
        "layout": _layout(view),
        "config": _config(request, view, "down", last_id, who, p),
    }


def _seconds_until(iso: str | None, now) -> str | None:
    if not iso:
        return None
    from datetime import datetime

    left = (datetime.fromisoformat(iso) - now).total_seconds()
    return labels.minutes(int(max(0, left)))


def lower(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    return render(request, "villages/lower.html", _lower_context(request, view))


def heaven_log(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    html, last_id = log.log_html(view.state, view.village, view.viewer, speakers(view), heaven=True)
    return render(
        request,
        "villages/heaven.html",
        {
            "village": view.village,
            "log_html": html,
            "prefs": prefs(request),
            "config": _config(request, view, "heaven", last_id),
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
        if not request.user.is_authenticated:
            error = labels.error_text("ログインしてください。")
        else:
            chosen = [int(x) for x in request.POST.getlist("target") if x.isdigit()]
            try:
                if action == "vote":
                    play.vote(village_id=village_id, user=request.user, target=(chosen or [0])[0])
                else:
                    play.night_action(
                        village_id=village_id, user=request.user, action=action, targets=chosen
                    )
            except RuleError as exc:
                error = labels.error_text(exc.message)
            else:
                return HttpResponseRedirect(f"/villages/{village_id}/down/?done={action}")
            view = _view(request, village_id)
    c = (
        targets.choice(view.state, view.viewer, action)
        if view.viewer is not None
        else targets.Choice(action, refusal=RuleError(_("この村の住人ではありません。")))
    )
    rows = view.loaded.rows
    options = [
        {"no": no, "name": rows[no].handle_name, "icon": rows[no].icon.url if rows[no].icon else ""}
        for no in c.targets
        if no in rows
    ]
    return render(
        request,
        "villages/act.html",
        {
            "village": view.village,
            "action": action,
            "action_label": labels.ABILITY[action],
            "options": options,
            "multi": action == "cupid",
            "fixed": rows[c.fixed].handle_name if c.fixed in rows else None,
            "fixed_no": c.fixed,
            "refusal": labels.error_text(c.refusal.message) if c.refusal else None,
            "error": error,
            "prefs": prefs(request),
            "config": _config(request, view, "act"),
        },
        status=400 if error else 200,
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
        if not request.user.is_authenticated:
            error = labels.error_text("ログインしてください。")
        else:
            try:
                kicked = lifecycle.kick_vote(
                    village_id=village_id,
                    user=request.user,
                    target=int(target) if target.isdigit() else 0,
                )
            except RuleError as exc:
                error = labels.error_text(exc.message)
            else:
                message = (
                    _("その人は村から追い出されました。") if kicked else _("キック投票しました。")
                )
            view = _view(request, village_id)
    rows = view.loaded.rows
    seats = [
        {
            "no": no,
            "name": row.handle_name,
            "icon": row.icon.url if row.icon else "",
            "votes": len(view.state.kick_votes.get(no, ())),
        }
        for no, row in sorted(rows.items())
        if not row.dummy
    ]
    return render(
        request,
        "villages/kick.html",
        {
            "village": view.village,
            "seats": seats,
            "needed": rules().kick_votes,
            "waiting": view.state.phase is Phase.WAITING,
            "error": error,
            "message": message,
            "prefs": prefs(request),
            "config": _config(request, view, "act"),
        },
        status=400 if error else 200,
    )


def _back(request: HttpRequest, default: str) -> str:
    nxt = request.POST.get("next", "")
    return nxt if nxt.startswith("/") and not nxt.startswith("//") else default


@require_POST
@login_required
def start_vote(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        lifecycle.vote_start(village_id=village_id, user=request.user)
    except RuleError as exc:
        return _upper_error(request, village_id, exc)
    return HttpResponseRedirect(_back(request, f"/villages/{village_id}/up/"))


@require_POST
@login_required
def leave(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        lifecycle.leave(village_id=village_id, user=request.user)
    except RuleError as exc:
        return _upper_error(request, village_id, exc)
    return HttpResponseRedirect(_back(request, f"/villages/{village_id}/"))


@require_POST
@login_required
def objection(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        play.object_(village_id=village_id, user=request.user)
    except RuleError as exc:
        return _upper_error(request, village_id, exc)
    return HttpResponseRedirect(_back(request, f"/villages/{village_id}/up/"))


def _upper_error(request: HttpRequest, village_id: int, exc: RuleError) -> HttpResponse:
    try:
        view = _view(request, village_id)
    except NotFound as error:
        return error_page(request, error)
    context = _upper_context(request, view)
    context["form"] = TalkForm(initial={"mode": "normal"})
    context["error"] = labels.error_text(exc.message)
    return render(request, "villages/upper.html", context, status=400)


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
