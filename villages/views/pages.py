"""Pages around the game: the top page, past logs, information pages, create, sit."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from jinro_site.apiauth import client_ip
from villages import listing, selectors, wording
from villages.engine import RuleError
from villages.engine.cast import OPTION_FLAGS, option_minimums
from villages.forms import CreateVillageForm, LogSearchForm, SeatForm
from villages.infopages import values as setting_values
from villages.infopages.render import render as render_markdown
from villages.models import InfoPage, Village
from villages.services import bots as bot_seats
from villages.services import lifecycle
from villages.services.config import rules

from . import polls
from .common import error_page, user_id
from .standing import kicked_how

logger = logging.getLogger(__name__)


def option_icons(options: dict[str, Any]) -> list[dict[str, str]]:
    """One icon per option in force, captioned (the real-time one with its minutes)."""
    icons = []
    time = options.get("time") or {}
    if time.get("mode") == "realtime":
        caption = _("リアルタイム制（昼%(day)s・夜%(night)s）") % {
            "day": wording.minutes(int(time.get("day_seconds", 0))),
            "night": wording.minutes(int(time.get("night_seconds", 0))),
        }
        icons.append({"src": static("villages/options/realtime.svg"), "caption": caption})
    for name in OPTION_FLAGS:
        if options.get(name):
            icons.append(
                {
                    "src": static(f"villages/options/{name}.svg"),
                    "caption": str(wording.OPTION[name]),
                }
            )
    return icons


def _rows(qs) -> list[dict[str, Any]]:
    rows = []
    for village in qs:
        d = selectors.village_dict(village)
        d["status_label"] = wording.STATUS.get(d["status"], "")
        d["winner_label"] = wording.label(wording.WINNER, d["winner"])
        d["icons"] = option_icons(d["options"])
        if village.practice:
            caption = (
                _("練習村（人狼知能エージェントの村）")
                if d["options"].get("agents")
                else _("練習村（ボットの席があります）")
            )
            d["icons"].insert(
                0, {"src": static("villages/options/practice.svg"), "caption": caption}
            )
        rows.append(d)
    return rows


PRACTICE_FILTERS = {"only": True, "none": False}  # ?practice=only|none; anything else: all


def _practice(request: HttpRequest) -> str:
    practice = request.GET.get("practice", "")
    return practice if practice in PRACTICE_FILTERS else ""


def _top_body(request: HttpRequest, version: str) -> str:
    context = {"listed": _listed(_practice(request), version)}
    return polls.rendered(request, "villages/index.html", context)


def _top_read(request: HttpRequest) -> polls.Page | None:
    """The top page for a read, drawn once per version of its lists, language, path (its
    filter; the header's links come back to it) and logged-in user (the header names it);
    answered 304 while that is unchanged. A page with messages to show is drawn for the
    request alone."""
    if polls.shows_messages(request):
        return None
    version = listing.version()
    user = request.user
    sight = (
        "top",
        version,
        get_language(),
        request.get_full_path(),
        user.pk,
        user.get_username(),
    )
    return polls.page(request, polls.kept(sight, lambda: _top_body(request, version)))


@polls.conditional(_top_read)
def index(request: HttpRequest) -> HttpResponse:
    found = polls.prepared(request, _top_read)
    if found is not None:
        return found.answer(request)
    return polls.answer(request, _top_body(request, listing.version()))


LISTED_FOR = 300  # seconds a drawn list is kept (it is drawn anew as soon as it changes)


def _listed(practice: str, version: str) -> str:
    """The top page's lists (villages waiting or playing, the latest ended, the information
    pages), the same for every visitor: drawn once per `version` of what they show
    (`villages.listing`) and language, and kept in Django's cache."""
    key = f"jinro:index:{version}:{get_language()}:{practice}"
    found = _cached(key)
    if found is not None:
        return mark_safe(found)
    active = selectors.villages().filter(
        status__in=[Village.Status.WAITING, Village.Status.PLAYING]
    )
    if practice:
        active = active.filter(practice=PRACTICE_FILTERS[practice])
    html = render_to_string(
        "villages/index_lists.html",
        {
            "practice": practice,
            "villages": _rows(active[:100]),
            "recent": _rows(selectors.villages(Village.Status.ENDED)[:5]),
            "pages": InfoPage.objects.filter(published=True),
        },
    )
    with contextlib.suppress(Exception):  # a cache that is away: drawn again next time
        cache.set(key, html, LISTED_FOR)
    return mark_safe(html)


def _cached(key: str) -> str | None:
    try:
        return cache.get(key)
    except Exception:  # the cache (Redis) is away: the page is drawn, not refused
        logger.warning("top page: the cache is unreachable", exc_info=True)
        return None


PER_PAGE = 50
LAST_PAGE = 1_000_000  # far past any list; a larger number would overflow the SQL offset


def ended(request: HttpRequest) -> HttpResponse:
    """過去ログ: ended villages, newest first, 50 a page, searched by the form's criteria."""
    try:
        page = min(max(1, int(request.GET.get("page", "1"))), LAST_PAGE)
    except ValueError:
        page = 1
    form = LogSearchForm(request.GET or None)
    searched = form.is_bound and form.is_valid()
    qs = selectors.search_ended(**form.criteria()) if searched else selectors.search_ended()
    rows = _rows(qs[(page - 1) * PER_PAGE : page * PER_PAGE + 1])
    query = request.GET.copy()
    query.pop("page", None)

    def page_link(n: int) -> str:
        query["page"] = str(n)
        return "?" + query.urlencode()

    return render(
        request,
        "villages/ended.html",
        {
            "villages": rows[:PER_PAGE],
            "form": form,
            "searched": searched and any(form.cleaned_data.values()),
            "page": page,
            "previous": page_link(page - 1) if page > 1 else "",
            "next": page_link(page + 1) if len(rows) > PER_PAGE else "",
        },
        status=400 if form.is_bound and not searched else 200,
    )


# ---------------------------------------------------------------------------
# Information pages (情報一覧)


def info_index(request: HttpRequest) -> HttpResponse:
    return render(
        request, "villages/info_index.html", {"pages": InfoPage.objects.filter(published=True)}
    )


def info_page(request: HttpRequest, slug: str) -> HttpResponse:
    page = get_object_or_404(InfoPage, slug=slug)
    if not page.published and not request.user.is_staff:
        raise Http404
    rendered = render_markdown(setting_values.fill(page.body, rules()))
    return render(
        request,
        "villages/info_page.html",
        {"page": page, "body": rendered.html, "toc": rendered.toc},
    )


# ---------------------------------------------------------------------------
# Create and sit


def _option_notes(capacity: int) -> dict[str, dict[str, Any]]:
    """Why an option would have no effect in a village of `capacity` (server-side text)."""
    notes = {}
    for name, minimum in option_minimums(rules()).items():
        active = capacity >= minimum
        notes[name] = {
            "min": minimum,
            "active": active,
            "note": _("%(n)s人以上の村で有効") % {"n": minimum}
            if active
            else _("%(n)s人以上の村でのみ有効です（この定員では無効）") % {"n": minimum},
        }
    return notes


@login_required
def create(request: HttpRequest) -> HttpResponse:
    error = None
    if request.method == "POST":
        form = CreateVillageForm(request.POST)
        if form.is_valid():
            try:
                village = lifecycle.create_village(
                    user=request.user,
                    name=form.cleaned_data["name"],
                    comment=form.cleaned_data["comment"],
                    capacity=form.cleaned_data["capacity"],
                    options=form.options(),
                )
            except RuleError as exc:
                error = wording.error_text(exc)
            else:
                if form.cleaned_data.get("bots"):
                    bot_seats.add_bots(
                        village_id=village.pk, user=request.user, count=form.cleaned_data["bots"]
                    )
                return HttpResponseRedirect(f"/villages/{village.pk}/")
    else:
        form = CreateVillageForm()
    try:
        capacity = int(form["capacity"].value() or 16)
    except (TypeError, ValueError):
        capacity = 16
    notes = _option_notes(capacity)
    fields = []
    for name in OPTION_FLAGS:
        fields.append({"field": form[name], "note": notes.get(name)})
    return render(
        request,
        "villages/create.html",
        {
            "form": form,
            "option_fields": fields,
            "error": error,
            "min_phase_minutes": max(1, rules().min_phase_seconds // 60),
        },
        status=400 if (error or form.errors) else 200,
    )


def _icons_worn(view: selectors.View) -> dict[int, list[str]]:
    """The icons taken in the village (a seat may wear one taken, but would rather not):
    icon id → the names of the seats that wear it."""
    worn: dict[int, list[str]] = {}
    for _no, row in sorted(view.loaded.rows.items()):
        if row.icon_id is not None:
            worn.setdefault(row.icon_id, []).append(row.handle_name)
    return worn


@login_required
def seat(request: HttpRequest, village_id: int) -> HttpResponse:
    """村人登録: handle name, icon, trip."""
    try:
        village = selectors.get_village(village_id)
    except RuleError as exc:
        return error_page(request, exc)
    error = None
    view = selectors.view_for(village_id, user_id(request))
    worn_by = _icons_worn(view)
    if request.method == "POST":
        form = SeatForm(request.POST, worn_by=worn_by)
        if form.is_valid():
            try:
                lifecycle.sit(
                    village_id=village_id,
                    user=request.user,
                    handle_name=form.cleaned_data["handle_name"],
                    icon_id=form.cleaned_data["icon"].pk,
                    trip=form.cleaned_data["trip"],
                    ip=client_ip(request),
                )
            except RuleError as exc:
                error = wording.error_text(exc)
            else:
                return HttpResponseRedirect(f"/villages/{village_id}/")
        view = selectors.view_for(village_id, user_id(request))  # as the refusal left it
    else:
        form = SeatForm(worn_by=worn_by)
    return render(
        request,
        "villages/seat.html",
        {
            "village": village,
            "form": form,
            "error": error,
            "seated": view.viewer is not None,
            "kicked": kicked_how(view.loaded, request.user.pk),
            "waiting": village.status == Village.Status.WAITING,
        },
        status=400 if (error or form.errors) else 200,
    )
