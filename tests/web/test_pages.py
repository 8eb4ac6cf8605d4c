"""The HTML screens through Django's test client: pages, forms, errors, hidden information."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Profile
from villages.models import InfoPage, Message, Village
from villages.services import moderation, play
from villages.views.render import clear_caches

from .conftest import started_village, to_day_two, waiting_village

pytestmark = pytest.mark.django_db


def pages(village_id: int) -> list[str]:
    base = f"/villages/{village_id}/"
    return [
        "/",
        "/villages/ended/",
        "/info/",
        "/info/rules/",
        base,
        base + "up/",
        base + "down/",
        base + "heaven/",
        base + "log/",
        base + "act/?action=vote",
        base + "kick/",
    ]


@pytest.mark.parametrize("fixture", ["waiting", "started", "day_two", "ended"])
def test_every_page_renders_for_players_and_spectators(request, fixture):
    game = request.getfixturevalue(fixture)
    for seat in (None, 1, 4, 8):
        client = game.client(seat)
        for url in pages(game.id):
            response = client.get(url)
            assert response.status_code == 200, f"{url} as seat {seat}: {response.status_code}"


def test_account_pages_render(db):
    user = get_user_model().objects.create_user("alice", password="pw-Secret-123")
    anon = Client()
    for url in ("/accounts/login/", "/accounts/register/", "/accounts/password-reset/"):
        assert anon.get(url).status_code == 200, url
    assert anon.get("/accounts/profile/").status_code == 302
    me = Client()
    me.force_login(user)
    for url in ("/accounts/profile/", "/accounts/users/alice/", "/villages/new/"):
        assert me.get(url).status_code == 200, url
    assert me.get("/accounts/users/nobody/").status_code == 404


# --- the top page ------------------------------------------------------------------------


def test_top_page_lists_villages_with_option_icons_and_captions(db):
    game = waiting_village(capacity=16, dummy_boy=False)
    Village.objects.filter(pk=game.id).update(
        options={
            "time": {"mode": "realtime", "day_seconds": 300, "night_seconds": 180},
            "cupid": True,
            "dummy_boy": True,
        }
    )
    html = Client().get("/").content.decode()
    assert "テスト村" in html and "よろしく" in html
    assert "8/16" in html
    assert 'alt="リアルタイム制（昼5分・夜3分）" title="リアルタイム制（昼5分・夜3分）"' in html
    assert 'alt="キューピッド"' in html and 'alt="身代わり君"' in html
    for link in ("/villages/ended/", "/info/", "/accounts/login/", "/accounts/register/"):
        assert f'href="{link}' in html, link


def test_the_top_pages_lists_are_drawn_once_and_again_when_what_they_show_changes(db):
    """Visits while nothing changed read no village: the lists are kept under the version
    of what they show (villages.listing), which a seat, a rename or an information page
    moves."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from villages.models import Icon
    from villages.services import lifecycle

    game = waiting_village(n=7, capacity=16)
    first = Client().get("/").content.decode()
    assert "7/16" in first and "テスト村" in first
    with CaptureQueriesContext(connection) as queries:
        again = Client().get("/").content.decode()
    listed = first[first.index("<h2>村の一覧</h2>") :]
    assert listed in again  # the same lists, drawn before
    read = [q["sql"] for q in queries.captured_queries if "villages_" in q["sql"]]
    assert len(read) == 1 and "villages_listing" in read[0]  # the version alone

    newcomer = get_user_model().objects.create_user("newcomer", password="pw-Secret-123")
    icon = Icon.objects.choosable().first()
    lifecycle.sit(village_id=game.id, user=newcomer, handle_name="新入り", icon_id=icon.pk)
    assert "8/16" in Client().get("/").content.decode()
    moderation.edit_village(village_id=game.id, name="改名した村", comment="")
    renamed = Client().get("/").content.decode()
    assert "改名した村" in renamed and "テスト村" not in renamed
    InfoPage.objects.create(slug="manners", title="マナーのページ", body="# マナー")
    assert "マナーのページ" in Client().get("/").content.decode()


# --- create and sit ------------------------------------------------------------------------


def test_create_form_shows_options_below_their_minimum_as_inactive_with_the_reason(db):
    user = get_user_model().objects.create_user("host", password="pw-Secret-123")
    client = Client()
    client.force_login(user)
    html = client.get("/villages/new/").content.decode()  # capacity 16 by default
    assert "20人以上の村でのみ有効です（この定員では無効）" in html  # poison
    assert "16人以上の村で有効" in html  # decider and authority are in force
    response = client.post("/villages/new/", {"name": "", "capacity": "8"})
    assert response.status_code == 400
    html = response.content.decode()
    assert html.count(">16人以上の村でのみ有効です（この定員では無効）</small>") == 2
    assert html.count(" disabled>") == 3  # poison, decider, authority


def test_creating_a_village_through_the_form(db):
    user = get_user_model().objects.create_user("host", password="pw-Secret-123")
    client = Client()
    client.force_login(user)
    response = client.post(
        "/villages/new/",
        {
            "name": "新しい村",
            "comment": "初心者歓迎",
            "capacity": "12",
            "realtime": "on",
            "day_minutes": "4",
            "night_minutes": "2",
            "dummy_boy": "on",
        },
    )
    village = Village.objects.get(name="新しい村")
    assert response.status_code == 302 and response["Location"] == f"/villages/{village.pk}/"
    assert village.options["time"] == {"mode": "realtime", "day_seconds": 240, "night_seconds": 120}
    assert village.options["dummy_boy"] is True


def test_sitting_errors_are_shown_in_japanese_and_keep_the_form(waiting):
    newcomer = get_user_model().objects.create_user("late", password="pw-Secret-123")
    client = Client()
    client.force_login(newcomer)
    response = client.post(
        f"/villages/{waiting.id}/seat/", {"handle_name": "遅れた人", "icon": "1", "trip": ""}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "この村は満員です。" in html
    assert 'value="遅れた人"' in html


def test_seat_form_offers_every_icon(db):
    game = waiting_village(n=3)
    user = get_user_model().objects.create_user("newbie", password="pw-Secret-123")
    client = Client()
    client.force_login(user)
    html = client.get(f"/villages/{game.id}/seat/").content.decode()
    assert html.count('class="icon-choice"') >= 20
    response = client.post(
        f"/villages/{game.id}/seat/", {"handle_name": "新人", "icon": "2", "trip": "secret"}
    )
    assert response.status_code == 302
    assert "◆" in Client().get(f"/villages/{game.id}/down/").content.decode()


# --- the upper pane -----------------------------------------------------------------------


def test_upper_pane_has_the_volume_drop_down_with_the_will_last(started):
    html = started.client(4).get(f"/villages/{started.id}/up/").content.decode()
    options = re.findall(r'<option value="(strong|normal|weak|will)"', html)
    assert options == ["strong", "normal", "weak", "will"]
    assert "遺言を残す" in html and "強く発言する" in html and "弱く発言する" in html


def test_a_talk_error_is_shown_and_the_typed_text_is_kept(day_two, settings):
    settings.JINRO_SPEECH_MAX_LINES = 2
    text = "一行目\n二行目\n三行目の大事な意見"
    response = day_two.client(4).post(
        f"/villages/{day_two.id}/up/", {"text": text, "mode": "normal"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "発言は2行までです。" in html
    assert "三行目の大事な意見</textarea>" in html


def test_talking_and_writing_a_will_through_the_upper_pane(day_two):
    client = day_two.client(4)
    response = client.post(f"/villages/{day_two.id}/up/", {"text": "強い主張", "mode": "strong"})
    assert response.status_code == 302
    line = Message.objects.get(text="強い主張")
    assert line.volume == "strong" and line.kind == "talk"
    response = client.post(f"/villages/{day_two.id}/up/", {"text": "後は任せた", "mode": "will"})
    assert response.status_code == 302 and "done=will" in response["Location"]
    assert day_two.village.seats.get(seat_no=4).will == "後は任せた"
    html = client.get(f"/villages/{day_two.id}/down/").content.decode()
    assert 'class="msg k-talk v-strong"' in html


def test_the_dead_talk_in_heaven_through_the_same_box(day_two):
    client = day_two.client(8)  # bitten on night 1
    assert "layout-heaven" in client.get(f"/villages/{day_two.id}/").content.decode()
    client.post(f"/villages/{day_two.id}/up/", {"text": "HEAVEN-ONLY-LINE", "mode": "normal"})
    assert Message.objects.get(text="HEAVEN-ONLY-LINE").kind == "heaven"
    assert "HEAVEN-ONLY-LINE" in client.get(f"/villages/{day_two.id}/heaven/").content.decode()
    for seat in (None, 4):
        for url in ("down/", "heaven/", "log/", "up/"):
            html = day_two.client(seat).get(f"/villages/{day_two.id}/{url}").content.decode()
            assert "HEAVEN-ONLY-LINE" not in html, (seat, url)


def test_objection_counts_down_and_posts_a_line(waiting):
    client = waiting.client(2)
    assert (
        '異議あり (<span id="objections-left">5</span>)'
        in client.get(f"/villages/{waiting.id}/up/").content.decode()
    )
    assert client.post(f"/villages/{waiting.id}/objection/").status_code == 302
    html = client.get(f"/villages/{waiting.id}/up/").content.decode()
    assert '<span id="objections-left">4</span>' in html
    assert (
        "村人2号さん「異議あり！」"
        in Client().get(f"/villages/{waiting.id}/down/").content.decode()
    )


# --- actions ---------------------------------------------------------------------------


def _offered(html: str) -> list[int]:
    return sorted(int(x) for x in re.findall(r'name="target" value="(\d+)"', html))


def test_vote_page_offers_only_living_others(day_two):
    html = day_two.client(4).get(f"/villages/{day_two.id}/act/?action=vote").content.decode()
    assert _offered(html) == [1, 2, 3, 5, 6, 7]  # not self, not the dead seat 8


def test_attack_page_offers_no_wolf_and_the_seer_page_no_self(started):
    html = started.client(1).get(f"/villages/{started.id}/act/?action=attack").content.decode()
    assert _offered(html) == [3, 4, 5, 6, 7, 8]
    html = started.client(3).get(f"/villages/{started.id}/act/?action=divine").content.decode()
    assert _offered(html) == [1, 2, 4, 5, 6, 7, 8]


def test_an_ability_you_do_not_have_offers_nothing_and_says_why(started):
    html = started.client(4).get(f"/villages/{started.id}/act/?action=divine").content.decode()
    assert _offered(html) == []
    assert "あなたにはその能力がありません。" in html


def test_voting_through_the_page_and_a_second_vote_is_refused(day_two):
    client = day_two.client(4)
    url = f"/villages/{day_two.id}/act/?action=vote"
    assert client.post(url, {"action": "vote", "target": "1"}).status_code == 302
    response = client.post(url, {"action": "vote", "target": "2"})
    assert response.status_code == 400
    assert "すでに投票済みです。" in response.content.decode()


def test_upper_pane_links_only_the_actions_the_engine_allows(started):
    wolf = started.client(1).get(f"/villages/{started.id}/up/").content.decode()
    villager = started.client(4).get(f"/villages/{started.id}/up/").content.decode()
    assert "act-attack" in wolf and "act-divine" not in wolf
    assert "act-" not in villager


def test_waiting_room_start_and_kick_votes(waiting):
    client = waiting.client(1)
    html = client.get(f"/villages/{waiting.id}/up/").content.decode()
    assert "ゲーム開始に投票" in html and "キック投票" in html and "村を出る" in html
    client.post(f"/villages/{waiting.id}/start/")
    assert "開始に投票済み" in client.get(f"/villages/{waiting.id}/up/").content.decode()
    for seat in (2, 3, 4):
        waiting.client(seat).post(f"/villages/{waiting.id}/kick/", {"target": "8"})
    assert not waiting.village.seats.filter(seat_no=8, kicked=False).exists()
    assert "開始に投票済み" not in client.get(f"/villages/{waiting.id}/up/").content.decode()


# --- preferences ---------------------------------------------------------------------------


def test_auto_refresh_is_a_noscript_meta_refresh_remembered_per_user(waiting):
    client = waiting.client(3)
    client.post(f"/villages/{waiting.id}/prefs/", {"refresh": "30", "sound": "0"})
    profile = Profile.objects.get(user=waiting.user(3))
    assert profile.refresh_seconds == 30 and profile.sound is False
    html = client.get(f"/villages/{waiting.id}/down/").content.decode()
    assert '<noscript><meta http-equiv="refresh" content="30"></noscript>' in html
    client.post(f"/villages/{waiting.id}/prefs/", {"list_below": "1"})
    html = client.get(f"/villages/{waiting.id}/down/").content.decode()
    assert html.index('data-part="log"') < html.index('data-part="players"')


def test_anonymous_preferences_live_in_a_cookie(waiting):
    client = Client()
    client.post(f"/villages/{waiting.id}/prefs/", {"refresh": "15"})
    assert client.cookies["jinro_refresh"].value == "15"
    html = client.get(f"/villages/{waiting.id}/down/").content.decode()
    assert 'content="15"' in html


# --- hidden information --------------------------------------------------------------------


def _all_html(game, seat) -> str:
    client = game.client(seat)
    return "".join(client.get(url).content.decode() for url in pages(game.id))


def test_no_hidden_information_reaches_a_villager_or_a_spectator(day_two):
    for seat in (4, None):
        html = _all_html(day_two, seat)
        assert "WOLF-SECRET-PLAN" not in html, seat
        assert "アオォーン" in html, seat
        assert "MONOLOGUE-OF-FOUR" not in html or seat == 4, seat
        assert "role-wolf" not in html and "role-seer" not in html, seat
    wolf = _all_html(day_two, 2)
    assert "WOLF-SECRET-PLAN" in wolf and "MONOLOGUE-OF-FOUR" not in wolf
    assert "狼" in day_two.client(3).get(f"/villages/{day_two.id}/down/").content.decode()


def test_a_death_widens_the_view_even_with_closed_phases_cached(db):
    game = started_village()
    play.post_message(village_id=game.id, user=game.user(1), text="WOLF-NIGHT-ONE")
    before = game.client(8).get(f"/villages/{game.id}/down/").content.decode()
    assert "WOLF-NIGHT-ONE" not in before
    to_day_two(game)  # seat 8 is bitten: the dead see everything
    after = game.client(8).get(f"/villages/{game.id}/down/").content.decode()
    assert "WOLF-NIGHT-ONE" in after
    still = game.client(7).get(f"/villages/{game.id}/down/").content.decode()
    assert "WOLF-NIGHT-ONE" not in still


def test_cached_log_is_the_same_as_a_fresh_render_for_every_viewer(db):
    game = started_village()
    to_day_two(game)
    play.post_message(village_id=game.id, user=game.user(5), text="昼の発言")
    viewers = [None, *range(1, 9)]
    fresh = {}
    for seat in viewers:
        clear_caches()
        fresh[seat] = game.client(seat).get(f"/villages/{game.id}/down/").content.decode()
    for seat in reversed(viewers):  # now every closed phase comes from the cache
        assert game.client(seat).get(f"/villages/{game.id}/down/").content.decode() == fresh[seat]


def test_the_open_phase_is_drawn_once_for_those_who_see_it_alike(db):
    """Night 1 open: wolf talk, a villager's and the seer's monologues between its lines.
    The villagers who wrote nothing share one drawing of the night, the wolves another;
    a viewer who wrote a monologue has its own. Each viewer's page is the one drawn for it
    alone: nobody's shows another's monologue, or a number that counts one."""
    from villages.views.render import CLOSED_PHASES

    game = started_village()
    for seat, text in [
        (1, "WOLF-TALK-A"),
        (5, "MONOLOGUE-OF-FIVE"),
        (2, "WOLF-TALK-B"),
        (3, "MONOLOGUE-OF-THE-SEER"),
        (1, "WOLF-TALK-C"),
    ]:
        play.post_message(village_id=game.id, user=game.user(seat), text=text)
    viewers = [None, *range(1, 9)]
    url = f"/villages/{game.id}/down/"
    fresh = {}
    for seat in viewers:
        clear_caches()
        fresh[seat] = game.client(seat).get(url).content.decode()
    clear_caches()
    for seat in [6, 1, 5, 3, 2, 7, None, 4, 8]:  # a sharer draws first
        assert game.client(seat).get(url).content.decode() == fresh[seat], seat
    night = [key for key in CLOSED_PHASES.data if key[-2:-1] == ((1, "night"),)]
    assert len(night) == 5  # villagers 4, 6, 7, 8; seat 5; the seer; the wolves; spectators
    for seat in viewers:
        shown = {m for m in ("FIVE", "THE-SEER") if f"MONOLOGUE-OF-{m}" in fresh[seat]}
        assert shown == {5: {"FIVE"}, 3: {"THE-SEER"}}.get(seat, set()), seat
    ids = {seat: re.findall(r'id="m(\d+)"', fresh[seat]) for seat in (4, 5)}
    assert len(ids[5]) == len(ids[4]) + 1 and set(ids[4]) <= set(ids[5])


def test_a_hidden_line_disappears_from_cached_phases(day_two):
    url = f"/villages/{day_two.id}/down/"
    assert "MONOLOGUE-OF-FOUR" in day_two.client(4).get(url).content.decode()
    line = Message.objects.get(text="MONOLOGUE-OF-FOUR")
    moderation.set_hidden([line.pk], hidden=True)  # as the admin's action does
    assert "MONOLOGUE-OF-FOUR" not in day_two.client(4).get(url).content.decode()


def test_after_the_end_everything_is_revealed_with_a_link_to_the_past_log(ended):
    html = Client().get(f"/villages/{ended.id}/down/").content.decode()
    assert "村人の勝利" in html
    assert "WOLF-SECRET-PLAN" in html and "MONOLOGUE-OF-FOUR" in html
    assert "role-wolf" in html and "role-seer" in html
    assert f'href="/villages/{ended.id}/log/"' in html
    log = Client().get(f"/villages/{ended.id}/log/?day=1").content.decode()
    assert "WOLF-SECRET-PLAN" in log and "投票の結果" not in log
    log2 = Client().get(f"/villages/{ended.id}/log/?day=2").content.decode()
    assert "投票の結果" in log2 and "WOLF-SECRET-PLAN" not in log2


# --- information pages and accounts ------------------------------------------------------


def test_rules_page_has_a_table_of_contents_with_anchors_from_bracket_headings(db):
    html = Client().get("/info/rules/").content.decode()
    assert 'class="toc"' in html
    assert '<h3 id="勝利条件">【勝利条件】</h3>' in html
    assert 'href="#%E5%8B%9D%E5%88%A9%E6%9D%A1%E4%BB%B6"' in html


def test_the_rules_page_reads_this_sites_settings(db, settings):
    html = Client().get("/info/rules/").content.decode()
    assert "3分以内に投票・行動しなかった人は突然死します" in html
    assert "残り1分30秒からは6秒ごとに警告音" in html
    assert "1単位は昼なら7分30秒、夜なら15分" in html
    assert "開始前から数えて一人5回までです" in html
    assert "{{" not in html
    settings.JINRO_SUDDEN_DEATH_GRACE = 90
    settings.JINRO_OBJECTIONS_PER_PLAYER = 3
    settings.JINRO_DAY_SECONDS_PER_UNIT = 3600 + 1800
    html = Client().get("/info/rules/").content.decode()
    assert "1分30秒以内に投票・行動しなかった人は突然死します" in html
    assert "開始前から数えて一人3回までです" in html
    assert "1単位は昼なら1時間30分、夜なら15分" in html
    assert "3分以内" not in html and "一人5回" not in html


def test_a_page_may_name_any_rule_setting_and_a_wrong_name_stays_as_written(db):
    InfoPage.objects.create(
        slug="numbers", title="数字", body="キック{{ kick_votes }}、{{no_such_setting}}"
    )
    html = Client().get("/info/numbers/").content.decode()
    assert "キック3人、{{no_such_setting}}" in html


def test_an_admin_page_with_only_bracket_headings(db):
    InfoPage.objects.create(
        slug="extra", title="補足ルール", body="【その一】\n本文\n\n【その二】\n本文"
    )
    html = Client().get("/info/extra/").content.decode()
    assert (
        '<h2 id="その一">【その一】</h2>' in html and 'href="#%E3%81%9D%E3%81%AE%E4%BA%8C"' in html
    )
    InfoPage.objects.filter(slug="extra").update(published=False)
    assert Client().get("/info/extra/").status_code == 404


def test_registration_logs_in_and_shows_the_token_on_the_profile(db, settings):
    client = Client()
    response = client.post(
        "/accounts/register/",
        {"username": "bob", "password1": "pw-Secret-123", "password2": "pw-Secret-123"},
    )
    assert response.status_code == 302
    token = Profile.objects.get(user__username="bob").api_token
    html = client.get("/accounts/profile/").content.decode()
    assert token in html
    client.post("/accounts/profile/", {"renew_token": "1"})
    assert Profile.objects.get(user__username="bob").api_token != token


def test_registration_is_rate_limited(db, settings):
    settings.JINRO_RATE_LIMIT_ENABLED = True
    from django.core.cache import cache

    cache.clear()
    client = Client()
    statuses = [
        client.post(
            "/accounts/register/",
            {"username": f"u{i}", "password1": "pw-Secret-123", "password2": "pw-Secret-123"},
        ).status_code
        for i in range(12)
    ]
    assert statuses[-1] == 429
    cache.clear()


def test_history_page_has_statistics_with_svg_charts(ended):
    html = Client().get(f"/accounts/users/{ended.user(4).username}/").content.decode()
    assert "1戦 1勝" in html and "<svg" in html and "村人陣営" in html
    assert "突然死: 0回" in html


def test_language_switch_saves_the_profile_and_translates_pages(waiting):
    client = waiting.client(2)
    client.post("/accounts/language/", {"language": "en", "next": "/"})
    assert Profile.objects.get(user=waiting.user(2)).language == "en"
    html = client.get("/").content.decode()
    assert "Create a village" in html
    html = client.get(f"/villages/{waiting.id}/up/").content.decode()
    assert "Objection" in html and "Auto refresh" in html


def test_the_lower_pane_reads_its_log_in_queries_that_do_not_grow_with_it(day_two):
    """Every line is read whole with its phase: a column left out of the read would be
    fetched again per line (an N+1 on the busiest page)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries_for_a_fresh_pane() -> int:
        clear_caches()
        client = day_two.client(4)
        client.get(f"/villages/{day_two.id}/down/")  # session, profile: read once
        clear_caches()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(f"/villages/{day_two.id}/down/").status_code == 200
        return len(captured)

    few = queries_for_a_fresh_pane()
    for n in range(30):
        play.post_message(village_id=day_two.id, user=day_two.user(4 + n % 4), text=f"行{n}")
    assert queries_for_a_fresh_pane() == few
