"""The classic screen in a real browser (issue 6): a whole game, live panes, cues, refresh."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from villages.models import Village

from .players import PASSWORD, Player

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]


def make_players(site, contexts, n, prefix="p", form_login=False, **ctx) -> list[Player]:
    """`n` people logged in (the first through the login page, with `form_login`)."""
    User = get_user_model()
    players = []
    for i in range(1, n + 1):
        User.objects.create_user(f"{prefix}{i}", password=PASSWORD)
        player = Player(site, contexts(**ctx), f"{prefix}{i}")
        player.login(through_the_form=form_login and i == 1)
        players.append(player)
    return players


def create_village(host: Player, shot=None, **fields) -> int:
    page = host.page
    page.goto(f"{host.base}/villages/new/")
    page.fill("#id_name", fields.get("name", "ブラウザ村"))
    page.fill("#id_comment", fields.get("comment", "最後まで遊びます"))
    page.select_option("#id_capacity", str(fields.get("capacity", 8)))
    if shot:
        shot(page, "02-create-form", full_page=True)
    page.click("#create-form button[type=submit]")
    page.wait_for_url(re.compile(r"/villages/\d+/$"))
    return int(re.search(r"/villages/(\d+)/", page.url).group(1))


def seat_all(players: list[Player], village_id: int) -> None:
    for i, p in enumerate(players):
        p.sit(village_id, f"村人{i + 1}号", i)


def start_game(players: list[Player], village_id: int) -> None:
    for p in players:
        p.open_screen(village_id)
        p.up.locator("#start-vote").click()
    deadline = time.monotonic() + 20
    while Village.objects.get(pk=village_id).status != "playing":
        assert time.monotonic() < deadline, "the game did not start after every start vote"
        time.sleep(0.2)
    for p in players:
        p.open_screen(village_id)
        p.read_role()


def living(players: list[Player]) -> list[Player]:
    alive = []
    for p in players:
        state = p.lower.locator(f'.player:has(.pname:text-is("{p.seat_name}"))')
        if "alive" in (state.get_attribute("class") or ""):
            alive.append(p)
    return alive


def wait_phase(player: Player, text: str) -> None:
    expect(player.lower.locator(".phase-line")).to_contain_text(text, timeout=20_000)


def test_eight_players_play_a_whole_game_through_the_pages(site, contexts, shot):
    anon = Player(site, contexts(), "")
    anon.page.goto(f"{site}/")
    shot(anon.page, "01-top-anonymous", full_page=True)

    players = make_players(site, contexts, 8, form_login=True)
    host = players[0]
    village_id = create_village(host, shot)
    seat_page = players[1].page
    seat_page.goto(f"{site}/villages/{village_id}/seat/")
    shot(seat_page, "03-seat-form", full_page=True)
    seat_all(players, village_id)
    players[0].open_screen(village_id)
    players[0].say("よろしくお願いします！", "strong")
    expect(players[0].lower.locator("#d-log")).to_contain_text("よろしくお願いします！")
    shot(players[0].page, "04-waiting-room")
    players[0].page.goto(f"{site}/")
    shot(players[0].page, "05-top-with-village", full_page=True)

    start_game(players, village_id)
    roles = {p.seat_name: p.role for p in players}
    assert sorted(roles.values()).count("wolf") == 2, roles
    wolves = [p for p in players if p.role == "wolf"]
    seer = next(p for p in players if p.role == "seer")
    villager = next(p for p in players if p.role == "villager")

    # Night 1: wolves talk (a villager sees only the howl), then act.
    wolves[0].say("WOLF-TALK-NIGHT1 誰を襲う？")
    expect(villager.lower.locator("#d-log")).to_contain_text("アオォーン", timeout=15_000)
    expect(villager.lower.locator("#d-log")).not_to_contain_text("WOLF-TALK-NIGHT1")
    shot(wolves[0].page, "06-night-wolf")
    shot(villager.page, "07-night-villager")
    non_wolves = [p for p in players if p.role != "wolf"]
    victim = next(p for p in non_wolves if p is not seer and p is not villager)
    wolves[0].up.locator("a.act-attack").click()
    expect(wolves[0].lower.locator("form.targets")).to_be_visible()
    shot(wolves[0].page, "08-attack-page")
    wolves[0].lower.locator("form.targets label", has_text=victim.seat_name).locator(
        "input"
    ).check()
    wolves[0].lower.locator("form.targets button[type=submit]").click()
    seer.act("divine", wolves[0].seat_name)

    # Day 2: the village votes out the divined wolf.
    for p in players:
        wait_phase(p, "2日目の昼")
    expect(seer.lower.locator(".my-role")).to_contain_text("狼")
    shot(seer.page, "09-day2-seer")
    villager.say("占い結果を信じて投票しよう")
    alive = [p for p in players if p is not victim]
    for p in alive:
        target = wolves[0] if p is not wolves[0] else seer
        p.act("vote", target.seat_name)
    for p in alive:
        wait_phase(p, "2日目の夜")
    shot(villager.page, "10-night2-tally", full_page=False)

    # The executed wolf is in heaven: three panes.
    wolves[0].open_screen(village_id)
    expect(wolves[0].heaven.locator("body")).to_be_visible()
    wolves[0].up.locator("#talk-text").fill("霊界からこんにちは")
    wolves[0].up.locator("#talk-form button[type=submit]").click()
    expect(wolves[0].heaven.locator("#h-log")).to_contain_text("霊界からこんにちは")
    shot(wolves[0].page, "11-heaven-mode")
    # The classic proportions: the village takes most of the height, heaven about a fifth.
    boxes = {
        name: wolves[0].page.locator(f"iframe[name={name}]").bounding_box()
        for name in ("up", "lower", "heaven")
    }
    height = wolves[0].page.viewport_size["height"]
    assert boxes["lower"]["height"] > 3 * boxes["heaven"]["height"], boxes
    assert 0.15 * height <= boxes["heaven"]["height"] <= 0.25 * height, boxes

    # Night 2: the other wolf attacks; the seer (if alive) divines.
    humans = [p for p in alive if p.role != "wolf"]
    prey = next(p for p in humans if p is not seer)
    wolves[1].act("attack", prey.seat_name)
    if seer in alive:
        seer.act("divine", wolves[1].seat_name)
    survivors = [p for p in alive if p is not wolves[0] and p is not prey]
    for p in survivors:
        wait_phase(p, "3日目の昼")
    for p in survivors:
        target = wolves[1] if p is not wolves[1] else seer
        p.act("vote", target.seat_name)

    # The end: the village wins and everything is revealed, to everyone.
    for p in players:
        p.open_screen(village_id)
        expect(p.lower.locator(".phase-line")).to_contain_text("村人の勝利", timeout=20_000)
    assert Village.objects.get(pk=village_id).winner == "village"
    expect(villager.lower.locator("#d-log")).to_contain_text("WOLF-TALK-NIGHT1")
    expect(villager.lower.locator(".players")).to_contain_text("人狼")
    shot(villager.page, "12-ended")
    villager.lower.locator("a", has_text="過去ログ").click()
    villager.page.wait_for_url(re.compile(rf"/villages/{village_id}/log/"))
    expect(villager.page.locator(".days")).to_contain_text("2日目")
    shot(villager.page, "13-past-log", full_page=True)
    villager.page.goto(f"{site}/accounts/users/{villager.username}/")
    expect(villager.page.locator(".stats")).to_contain_text("1戦 1勝")
    shot(villager.page, "14-history", full_page=True)


def seated_without_a_browser(village_id: int, n: int, prefix: str) -> list:
    """`n` more people in the village who need no screen: seated through the services."""
    from villages.models import Icon
    from villages.services import lifecycle

    icon = Icon.objects.choosable().values_list("pk", flat=True).first()
    users = [get_user_model().objects.create_user(f"{prefix}{i}") for i in range(n)]
    for i, user in enumerate(users):
        lifecycle.sit(village_id=village_id, user=user, handle_name=f"{prefix}{i}", icon_id=icon)
    return users


def test_live_talk_objection_cue_and_hidden_wolf_talk(site, contexts, shot):
    from villages.services import lifecycle

    a, b = make_players(site, contexts, 2, prefix="q")
    village_id = create_village(a)
    seat_all([a, b], village_id)
    quiet = seated_without_a_browser(village_id, 6, "qq")
    spectator = Player(site, contexts(), "")
    spectator.open_screen(village_id)
    a.open_screen(village_id)
    b.open_screen(village_id)

    # Before the game: another player's talk appears live, without a reload.
    b.page.evaluate("() => { window.frames['lower'].__noReload = 'still-here'; }")
    a.say("LIVE-TALK-BEFORE-START")
    expect(b.lower.locator("#d-log")).to_contain_text("LIVE-TALK-BEFORE-START", timeout=10_000)
    assert b.page.evaluate("() => window.frames['lower'].__noReload") == "still-here"
    # From the keyboard: Ctrl+Enter sends, and the box has the focus again for the next line.
    expect(a.up.locator("#talk-text")).to_be_focused()
    a.page.keyboard.type("KEYBOARD-LINE")
    a.page.keyboard.press("Control+Enter")
    expect(b.lower.locator("#d-log")).to_contain_text("KEYBOARD-LINE", timeout=10_000)
    expect(a.up.locator("#talk-text")).to_be_focused()

    # 異議あり: the count goes down and the others get the cue.
    expect(a.up.locator("#objections-left")).to_have_text("5")
    a.up.locator("#objection-button").click()
    expect(a.up.locator("#objections-left")).to_have_text("4")
    cue = b.lower.locator("#cue")
    expect(cue).to_be_visible(timeout=10_000)
    expect(cue).to_have_attribute("data-kind", "objection")
    expect(cue).to_contain_text(a.seat_name)
    expect(spectator.lower.locator("#cue")).to_have_attribute("data-kind", "objection")
    shot(b.page, "15-objection-cue")

    # The game, with a (seat 1) a wolf and b (seat 2) a villager.
    staff = get_user_model().objects.create_user("q-staff", is_staff=True)
    cast = {1: "wolf", 2: "villager", 3: "wolf", 4: "seer"} | {n: "villager" for n in range(5, 9)}
    lifecycle.fix_cast(
        village_id=village_id,
        user=staff,
        roles={str(no): role for no, role in cast.items()},
        sub_roles={},
    )
    for user in quiet:
        lifecycle.vote_start(village_id=village_id, user=user)
    start_game([a, b], village_id)
    spectator.open_screen(village_id)
    wolf, villager = a, b
    assert (wolf.role, villager.role) == ("wolf", "villager")
    wolf.say("SECRET-WOLF-PLAN-XYZ")
    for viewer in (villager, spectator):
        log = viewer.lower.locator("#d-log")
        expect(log).to_contain_text("アオォーン", timeout=10_000)
        expect(log).not_to_contain_text("SECRET-WOLF-PLAN-XYZ")
        html = viewer.page.context.request.get(f"{site}/villages/{village_id}/down/").text()
        assert "SECRET-WOLF-PLAN-XYZ" not in html
    expect(wolf.lower.locator("#d-log")).to_contain_text("SECRET-WOLF-PLAN-XYZ", timeout=10_000)
    shot(spectator.page, "16-spectator-night")


def test_auto_refresh_keeps_a_page_current_without_javascript(site, contexts, shot):
    players = make_players(site, contexts, 2, prefix="r")
    village_id = create_village(players[0])
    players[0].sit(village_id, "話す人", 0)
    reader = Player(site, contexts(java_script_enabled=False), "")
    page = reader.page
    page.goto(f"{site}/villages/{village_id}/up/")
    page.select_option("select[name=refresh]", "15")
    page.locator(".controls form").first.locator("button[type=submit]").click()
    page.goto(f"{site}/villages/{village_id}/down/")
    players[0].open_screen(village_id)
    players[0].say("AUTO-REFRESH-LINE")
    expect(page.locator(".log")).to_contain_text("AUTO-REFRESH-LINE", timeout=25_000)
    shot(page, "17-no-javascript-lower-pane")


def test_on_a_phone_the_panes_stack_and_the_controls_stay_reachable(site, contexts, shot):
    phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
    (player,) = make_players(site, contexts, 1, prefix="s", **phone)
    village_id = create_village(player)
    player.sit(village_id, "スマホの人", 3)
    player.open_screen(village_id)
    up = player.page.locator("iframe[name=up]").bounding_box()
    lower = player.page.locator("iframe[name=lower]").bounding_box()
    assert up and lower
    assert lower["y"] >= up["y"] + up["height"] - 1, "the lower pane is not below the upper one"
    for box in (up, lower):
        assert box["x"] >= 0 and box["x"] + box["width"] <= 391, f"a pane leaves the screen: {box}"
    # The upper pane is as tall as what it holds (the host's bot controls too): none is cut
    # off behind a scroll of its own.
    upper = player.page.frame("up")
    assert upper is not None
    upper.wait_for_function(
        "() => document.documentElement.scrollHeight <= document.documentElement.clientHeight"
    )
    up = player.page.locator("iframe[name=up]").bounding_box()
    bots = player.up.locator("#add-bots").bounding_box()
    assert up and bots and bots["y"] + bots["height"] <= up["y"] + up["height"], (bots, up)
    # The talk box, its button and 異議あり fit on the screen and work.
    for control in ("#talk-text", "#talk-form button[type=submit]", "#objection-button"):
        box = player.up.locator(control).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 391, f"{control}: {box}"
    player.say("スマホから失礼します")
    expect(player.lower.locator("#d-log")).to_contain_text("スマホから失礼します")
    player.up.locator("#objection-button").tap()
    expect(player.up.locator("#objections-left")).to_have_text("4")
    # The panes fill the screen and scroll each on its own: the page itself does not.
    lower = player.page.locator("iframe[name=lower]").bounding_box()
    assert lower and lower["y"] + lower["height"] <= 844 + 1, lower
    assert player.page.evaluate("document.documentElement.scrollHeight") <= 844
    shot(player.page, "18-phone-screen", full_page=True)


# Every control of a pane that the eye cannot reach or a click would not hit (another
# element lies over its middle, or it is out of the pane's sight).
HIDDEN_CONTROLS = """
() => [...document.querySelectorAll("button, select, textarea, a[href], input:not([type=hidden])")]
  .filter((el) => el.getClientRects().length)
  .filter((el) => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) return true;
    const hit = document.elementFromPoint(x, y);
    return !(hit && (hit === el || el.contains(hit)));
  })
  .map((el) => el.outerHTML.slice(0, 120))
"""


def test_the_answer_to_a_post_hides_no_control_and_goes_by_itself(site, contexts, shot):
    """An error (or "will kept") shown in the upper pane, whose height is fixed, first pushed
    the buttons below the talk box out of sight, then floated over the top bar (自動更新,
    ↓リスト, 異議あり) until clicked (issue 32, item 4). It sits above the talk box, the pane
    grows to hold it, and it goes by itself, the typed text kept."""
    (player,) = make_players(site, contexts, 1, prefix="e")
    village_id = create_village(player)
    player.sit(village_id, "長文の人", 2)
    player.open_screen(village_id)
    upper = player.page.frame("up")
    assert upper is not None
    frame = player.page.locator("iframe[name=up]")
    height = frame.bounding_box()["height"]
    player.up.locator("#talk-text").fill("長" * 2001)
    player.up.locator("#talk-form button[type=submit]").click()
    error = player.up.locator("p.error:not(.closed)")
    expect(error).to_have_text("発言は2000文字までです。")
    expect(player.up.locator("#talk-text")).to_have_value("長" * 2001)  # nothing lost
    upper.wait_for_function(f"() => !({HIDDEN_CONTROLS})().length")
    assert upper.evaluate(HIDDEN_CONTROLS) == []
    shot(player.page, "19-upper-pane-error")
    # Nobody clicks: it goes, and the pane gets its height back.
    expect(error).to_have_count(0, timeout=20_000)
    expect(player.up.locator("#talk-text")).to_have_value("長" * 2001)
    player.page.wait_for_function(
        f"() => document.querySelector('iframe[name=up]').offsetHeight === {height}"
    )
    # Clicked, it goes at once.
    player.up.locator("#talk-form button[type=submit]").click()
    expect(error).to_be_visible()
    error.click()
    expect(error).to_have_count(0)
