"""The live screen in real browsers (issue 9): each audience's screen follows the game by the
parts its socket sends, and equals a fresh load of its panes; the speaker of a late
sitter's line, the staff's hide and show, kicks and bans, both clocks, a lost socket.

The players act through the public API over HTTP (tests/api/client.py), so every push
starts in the site process, as a bot's or another browser's would; the browsers only watch.
"""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from tests.api.client import Api, Driver, HttpTransport, Plan, Table, open_village
from tests.e2e.players import session_cookie

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]

# What a fresh load and the live screen may differ in, besides nothing: the page's own CSRF
# token, the flash of a new line, the countdowns the script ticks, the log's bookkeeping,
# and the empty style attribute Playwright's screenshots leave behind.
NORMALIZE = r"""
(html) => html
  .replace(/ value="[^"]*" data-csrf/g, ' data-csrf')
  .replace(/ style=""/g, '')
  .replace(/ data-last="\d+"/g, '')
  .replace(/(class="msg[^"]*?) new"/g, '$1"')
  .replace(/(<span class="(?:countdown|vclock)"[^>]*>)[^<]*</g, '$1<')
"""

# In the top page: every part of every pane, against the same pane fetched afresh.
COMPARE = (
    r"""
async () => {
  const normalize = """
    + NORMALIZE
    + r""";
  const differ = [];
  for (const frame of document.querySelectorAll("iframe")) {
    if (frame.hidden || !frame.contentDocument || !frame.getAttribute("src")) continue;
    const live = frame.contentDocument;
    const answer = await fetch(frame.contentWindow.location.pathname, {credentials: "same-origin"});
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    for (const part of fresh.querySelectorAll("[id]")) {
      if (!/^(d|u|h)-/.test(part.id)) continue;
      const mine = live.getElementById(part.id);
      const a = mine ? normalize(mine.outerHTML) : "(missing)";
      const b = normalize(part.outerHTML);
      if (a !== b) differ.push({id: part.id, live: a.slice(0, 400), fresh: b.slice(0, 400)});
    }
  }
  return differ;
}
"""
)


def browser_of(contexts, site: str, username: str, **ctx) -> Page:
    """A browser logged in as `username` (a session made here, in the shared database)."""
    context = contexts(**ctx)
    if username:
        context.add_cookies([session_cookie(site, username)])
    return context.new_page()


def open_screen(page: Page, site: str, village_id: int) -> None:
    page.goto(f"{site}/villages/{village_id}/")
    page.frame_locator("iframe[name=lower]").locator("#d-head").wait_for()
    page.frame_locator("iframe[name=up]").locator("#u-actions").wait_for(state="attached")
    page.wait_for_function("() => document.documentElement.classList.contains('live')")


def settled(page: Page, what: str, timeout: float = 15) -> None:
    """The screen equals a fresh load of its panes (waiting for pushes still on their way)."""
    deadline = time.monotonic() + timeout
    while True:
        differ = page.evaluate(COMPARE)
        if not differ:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: the live screen differs from a fresh load: {differ}")
        time.sleep(0.3)


def lower(page: Page):
    return page.frame_locator("iframe[name=lower]")


def upper(page: Page):
    return page.frame_locator("iframe[name=up]")


# ---------------------------------------------------------------------------
# Every audience, through a whole game

# Thirteen: wolves 1-2, seer 3, medium 4, guard 5, commons 6-7, madman 8, villagers 9-13.
CAST_13 = ["wolf", "wolf", "seer", "medium", "guard", "common", "common", "madman"]
CAST_13 += ["villager"] * 5
AUDIENCES = {"villager": 13, "wolf": 1, "common": 6, "dead": 12}


def chatter(table: Table, g) -> None:
    """Lines of every kind at the start of each phase: talk, wolves, commons, monologue,
    heaven, a will."""
    say = table.player

    def post(seat: int, text: str, channel: str = "talk", volume: str = "normal") -> None:
        if seat in g.alive or channel == "heaven":
            status = 200 if channel == "will" else 201
            say(seat).ok(
                "POST",
                table.path("messages"),
                {"text": text, "channel": channel, "volume": volume},
                status=status,
            )

    tag = f"{g.day}{g.phase[0]}"
    if g.phase == "night":
        post(1, f"WOLF-{tag} 今夜はどうする", volume="strong")
        post(6, f"COMMON-{tag} 共有の相談")
        post(13, f"MONO-{tag} ひとりごと")
        post(11, f"WILL-{tag} 私は村人でした", "will")
    else:
        post(13, f"TALK-{tag} おはようございます", volume="weak")
        post(9, f"TALK-{tag} 怪しい人がいます")
    for dead in sorted(set(range(1, 14)) - g.alive):
        post(dead, f"HEAVEN-{tag}-{dead} 霊界より", "heaven")
        break


def test_every_audiences_screen_equals_a_fresh_load_through_a_whole_game(site, contexts, shot):
    # With hidden roles in heaven, the harder case for the dead's screens; both cases of
    # every audience's frames are tested in process (tests/realtime/test_events_contract.py).
    hide_roles = True
    api = Api(HttpTransport(site))
    table = open_village(
        api, players=13, cast=CAST_13, options={"hide_roles_in_heaven": hide_roles}
    )
    screens: dict[str, Page] = {}
    for name, seat in AUDIENCES.items():
        screens[name] = browser_of(contexts, site, table.player(seat).username)
    screens["spectator"] = browser_of(contexts, site, "")
    for page in screens.values():
        open_screen(page, site, table.id)

    def check(table: Table, g) -> None:
        chatter(table, g)
        for name, page in screens.items():
            settled(page, f"{name}, day {g.day} {g.phase}")

    plan = Plan(
        execute=lambda g: min(g.living(roles=["wolf"]), default=None),
        attack=lambda g: 12 if g.day == 1 else None,
        divine=lambda g, seer: min(g.living(roles=["wolf"]) or g.living(but=[seer])),
        guard=lambda g, guard: 3,
        chatter=check,
    )
    final = Driver(table, plan).play()
    assert final["winner"] == "village"
    for name, page in screens.items():
        settled(page, f"{name} after the end")
        expect(lower(page).locator(".phase-line")).to_contain_text("村人の勝利")
    log = lower(screens["spectator"]).locator("#d-log")
    expect(log).to_contain_text("WOLF-1n")  # after the end everyone sees everything
    shot(screens["dead"], f"20-dead-{'hidden' if hide_roles else 'shown'}-ended")


# ---------------------------------------------------------------------------
# The staff, the late sitter, the clocks and the socket


def waiting_table(api: Api, players: int, capacity: int = 8) -> Table:
    return open_village(api, players=players, capacity=capacity, start=False)


def test_a_late_sitters_line_shows_its_speaker(site, contexts, shot):
    api = Api(HttpTransport(site))
    table = waiting_table(api, 2)
    page = browser_of(contexts, site, table.player(1).username)
    open_screen(page, site, table.id)
    late = api.register()
    seat = table.sit(late, handle_name="遅れて来た人")
    late.ok("POST", table.path("messages"), {"text": "はじめまして！"}, status=201)
    line = lower(page).locator(".msg", has_text="はじめまして！")
    expect(line).to_contain_text("遅れて来た人")
    expect(line.locator("img.ic")).to_have_count(1)
    expect(lower(page).locator(f"#d-seat-{seat}")).to_contain_text("遅れて来た人")
    shot(page, "21-late-sitter-line")


def staff_page(contexts, site: str) -> Page:
    staff = get_user_model().objects.create_user("e2e-staff", password="x", is_staff=True)
    staff.is_superuser = True
    staff.save()
    return browser_of(contexts, site, staff.username)


def admin_action(admin: Page, site: str, changelist: str, pk: int, action: str) -> None:
    admin.goto(f"{site}/admin/{changelist}/")
    admin.locator(f"input[name=_selected_action][value='{pk}']").check()
    admin.select_option("select[name=action]", action)
    admin.locator("button[name=index]").click()
    expect(admin.locator(".messagelist")).to_be_visible()


def test_the_staffs_hide_and_show_reach_every_open_screen_at_once(site, contexts, shot):
    api = Api(HttpTransport(site))
    table = waiting_table(api, 3)
    line = table.player(2).ok(
        "POST", table.path("messages"), {"text": "消されるべき発言"}, status=201
    )
    viewers = [browser_of(contexts, site, table.player(1).username), browser_of(contexts, site, "")]
    for page in viewers:
        open_screen(page, site, table.id)
        expect(lower(page).locator(f"#m{line['id']}")).to_have_count(1)
    from villages.models import Message

    admin = staff_page(contexts, site)
    row = Message.objects.get(village_id=table.id, text=line["text"]).pk  # the staff's id
    admin_action(admin, site, "villages/message", row, "hide")
    for page in viewers:
        expect(lower(page).locator(f"#m{line['id']}")).to_have_count(0)
        settled(page, "after the hide")
    admin_action(admin, site, "villages/message", row, "unhide")
    for page in viewers:
        expect(lower(page).locator(f"#m{line['id']}")).to_contain_text("消されるべき発言")
        settled(page, "after the show")
    shot(viewers[0], "22-line-shown-again")


def test_a_kicked_or_banned_players_screen_says_so_at_once(site, contexts, shot):
    api = Api(HttpTransport(site))
    table = waiting_table(api, 4)
    kicked = browser_of(contexts, site, table.player(2).username)
    banned = browser_of(contexts, site, table.player(3).username)
    closed = browser_of(contexts, site, table.player(4).username)
    for page in (kicked, banned, closed):
        open_screen(page, site, table.id)
    expect(upper(banned).locator("#talk-form")).to_be_visible()
    admin = staff_page(contexts, site)

    from villages.models import Seat

    seat = Seat.objects.get(village_id=table.id, seat_no=2, kicked=False)
    admin_action(admin, site, "villages/seat", seat.pk, "kick")
    expect(upper(kicked).locator("#u-actions")).to_contain_text("この村から退出させられました")
    expect(upper(kicked).locator("#talk-form")).to_be_hidden()
    shot(kicked, "23-kicked")

    ban_in_the_admin(admin, site, table.player(3).username, "talk", "荒らし行為")
    notice = upper(banned).locator("#u-actions .banned")
    expect(notice).to_contain_text("荒らし行為")
    expect(notice).to_contain_text("発言")
    expect(upper(banned).locator("#talk-form")).to_be_hidden()  # it may not talk: no box
    shot(banned, "24-banned")

    # A log-in ban: the screen is drawn again as a spectator's, and says why.
    ban_in_the_admin(admin, site, table.player(4).username, "login", "なりすまし")
    why = upper(closed).locator("#closed")
    expect(why).to_contain_text("なりすまし")
    expect(why).to_contain_text("ログイン")
    expect(upper(closed).locator("#u-actions")).to_contain_text("見物中です")
    expect(upper(closed).locator("#talk-form")).to_be_hidden()
    expect(upper(closed).locator("#conn")).to_be_hidden()  # not "reconnecting" for ever
    expect(closed.locator("html.live")).to_have_count(1)  # live again, as a spectator
    shot(closed, "24b-account-closed")


def ban_in_the_admin(admin: Page, site: str, username: str, kind: str, reason: str) -> None:
    """The staff bans a user through the admin's ban form (no end: for good)."""
    user = get_user_model().objects.get(username=username)
    admin.goto(f"{site}/admin/accounts/ban/add/")
    admin.fill("#id_user", str(user.pk))
    admin.select_option("#id_kind", kind)
    admin.fill("#id_reason", reason)
    admin.locator("input[name=_save]").click()
    expect(admin.locator(".messagelist")).to_be_visible()


def test_both_clocks_tick_together_on_every_screen(site, contexts, shot):
    api = Api(HttpTransport(site))
    table = open_village(
        api,
        players=8,
        options={"time": {"mode": "realtime", "day_seconds": 300, "night_seconds": 240}},
    )
    pages = [browser_of(contexts, site, table.player(n).username) for n in (1, 5)]
    for page in pages:
        open_screen(page, site, table.id)

    def clocks(page: Page) -> tuple[str, str]:
        return (
            lower(page).locator(".vclock").inner_text(),
            lower(page).locator(".countdown").first.inner_text(),
        )

    first = [clocks(page) for page in pages]
    # Read a moment apart: the same clock (a real second is 1.5 virtual minutes here).
    assert abs(_seconds(first[0][1]) - _seconds(first[1][1])) <= 1, first
    assert abs(_virtual(first[0][0]) - _virtual(first[1][0])) <= 3, first
    # Both clocks run down with no event between: wait for two seconds to pass on each
    # (a loaded machine may fire a page's one-second timer late, so poll, up to 8 s).
    deadline = time.monotonic() + 8
    while True:
        later = [clocks(page) for page in pages]
        ticked = all(
            _seconds(r0) - _seconds(r1) >= 2 and _virtual(v1) < _virtual(v0)
            for (v0, r0), (v1, r1) in zip(first, later, strict=True)
        )
        if ticked or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert ticked, (first, later)  # 6 virtual hours in 4 real minutes
    shot(pages[0], "25-realtime-clocks")


def _seconds(text: str) -> int:
    minutes, seconds = text.strip().split(":")
    return int(minutes) * 60 + int(seconds)


def _virtual(text: str) -> int:
    m = re.search(r"(?:(\d+)時間)?(\d+)分", text)
    assert m, text
    return int(m.group(1) or 0) * 60 + int(m.group(2))


def test_a_screen_that_lost_its_socket_says_so_and_catches_up_without_reloading(
    site, contexts, shot
):
    api = Api(HttpTransport(site))
    table = waiting_table(api, 3)
    page = browser_of(contexts, site, table.player(1).username)
    routes = []
    allowed = {"now": True}

    def route(ws) -> None:
        if not allowed["now"]:
            ws.close()
            return
        ws.connect_to_server()
        routes.append(ws)

    page.route_web_socket(re.compile(r".*/ws/villages/.*"), route)
    loads = []
    page.on("request", lambda r: loads.append(r.url) if "/villages/" in r.url else None)
    open_screen(page, site, table.id)
    loads.clear()

    allowed["now"] = False
    routes[-1].close()
    expect(lower(page).locator("#conn")).to_be_visible()
    shot(page, "26-socket-lost")
    for n in range(3):
        table.player(2).ok("POST", table.path("messages"), {"text": f"留守中{n}"}, status=201)
    allowed["now"] = True
    for n in range(3):
        expect(lower(page).locator("#d-log")).to_contain_text(f"留守中{n}", timeout=20_000)
    expect(lower(page).locator("#conn")).to_be_hidden()
    assert not [url for url in loads if re.search(r"/(up|down|heaven)/", url)], loads
    settled(page, "after the reconnection")
    table.player(2).ok("POST", table.path("messages"), {"text": "ただいま"}, status=201)
    expect(lower(page).locator("#d-log")).to_contain_text("ただいま")
    shot(page, "27-socket-back")


def test_a_new_phase_keeps_the_kind_of_talk_being_typed(site, contexts, shot):
    api = Api(HttpTransport(site))
    table = waiting_table(api, 8)
    page = browser_of(contexts, site, table.player(8).username)
    open_screen(page, site, table.id)
    mode = upper(page).locator("#talk-mode")
    mode.select_option("will")
    upper(page).locator("#talk-text").fill("書きかけの遺言")
    before = upper(page).locator("#u-talk").get_attribute("data-placeholder")
    table.start()  # the night comes: the talk row is drawn again
    expect(upper(page).locator("#u-talk")).not_to_have_attribute("data-placeholder", before or "")
    expect(mode).to_have_value("will")
    expect(upper(page).locator("#talk-text")).to_have_value("書きかけの遺言")


def test_a_days_sudden_death_is_cued_like_a_revote_and_its_round_tallied(
    site, contexts, shot, sweeping, settings
):
    """Issue 32, item 1: voters saw 投票済み turn back into 投票する without a word. Now a
    day's sudden death is cued and sounded on every screen as a tie's revote is, and the
    tallies list the round it voided. A 5-second day (SITE_ENV lets a day be that short)
    and a 3-second grace: the site's ticker sweeps on the embedded default, this process
    with Redis (`sweeping`, by this process's settings)."""
    settings.JINRO_SUDDEN_DEATH_GRACE = 3
    api = Api(HttpTransport(site))
    realtime = {"time": {"mode": "realtime", "day_seconds": 5, "night_seconds": 300}}
    cast = ["wolf", "wolf", "seer"] + ["villager"] * 5
    table = open_village(api, players=8, cast=cast, options=realtime)
    page = browser_of(contexts, site, table.player(5).username)
    open_screen(page, site, table.id)
    table.player(1).ok("POST", table.path("night-action"), {"action": "attack", "targets": [8]})
    table.player(3).ok("POST", table.path("night-action"), {"action": "divine", "targets": [4]})
    for seat, target in ((1, 2), (2, 1), (3, 1), (4, 1), (5, 1)):  # 6 and 7 never vote
        table.player(seat).ok("POST", table.path("vote"), {"target": target})
    expect(lower(page).locator("#cue")).to_contain_text("突然死", timeout=30_000)
    expect(lower(page).locator("#d-votes")).to_contain_text("突然死が出たため無効")
    shot(page, "33-sudden-death-revote-cue")
    expect(upper(page).locator("#u-actions")).to_contain_text("投票する")
