"""What players met in a whole game (issue 39, "what players met", items 5–11, 13, 17):
the revote cue for the player whose ballot made the tie, the waiting room's start-vote
count, a draw in a history, registration's allowance, user names regardless of case, the
seat form's icons, leaving a village, the clock without scripts, and wording."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import Client

from accounts.admin import RenameForm
from accounts.checks import username_case_clashes
from villages.media_gen import ICONS
from villages.models import Icon
from villages.services import lifecycle, play, ratelimit
from villages.services.config import rules

from .conftest import CAST8, Game, to_day_two, waiting_village

pytestmark = pytest.mark.django_db


def english(user=None) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.cookies["django_language"] = "en"
    if user is not None:
        client.force_login(user)
    return client


def tie(game: Game, *, last: int = 7) -> None:
    """One tied round of day 2 (seats 1–7 alive): three votes for 4, three for 1, one for 2;
    seat `last` casts the ballot that closes the round."""
    ballots = {1: 4, 2: 4, 3: 4, 4: 1, 5: 1, 6: 1, 7: 2}
    for voter in [v for v in ballots if v != last] + [last]:
        play.vote(village_id=game.id, user=game.user(voter), target=ballots[voter])


def drawn(game: Game) -> None:
    """Day 2 ties until the village ends in a draw (SPEC §5: the MAX_REVOTES-th tie)."""
    to_day_two(game)
    for _ in range(rules().max_revotes):
        tie(game)
    game.village.refresh_from_db()
    assert game.village.winner == "draw"


# --- 7. A drawn village is a draw in a history --------------------------------------------


def test_a_drawn_village_is_a_draw_in_the_history_not_a_loss(started):
    drawn(started)
    name = started.user(3).username
    page = Client().get(f"/accounts/users/{name}/").content.decode()
    row = page[page.index("<tbody>") : page.index("</tbody>")]
    assert "引き分け" in row and "敗北" not in row, row
    assert "1戦 0勝 0敗 1分" in page
    api = Client().get(f"/api/v1/users/{name}/history").json()
    assert api["games"][0]["result"] == "draw" and api["games"][0]["won"] is False
    assert api["stats"]["draws"] == 1
    # The export of the village says it too.
    export = Client().get(f"/villages/{started.id}/log/export.html").content.decode()
    assert "敗北" not in export and "引き分け" in export


def test_the_history_says_win_and_loss_as_results(ended):
    """`result` beside `won` (API.md): the village won, the wolves lost."""
    games = {
        seat: Client().get(f"/api/v1/users/{ended.user(seat).username}/history").json()["games"]
        for seat in (1, 3)
    }
    assert games[1][0]["result"] == "loss" and games[3][0]["result"] == "win"


# --- 17. Wording ----------------------------------------------------------------------------


def test_the_objection_button_has_a_space_before_its_count(waiting):
    html = waiting.client(2).get(f"/villages/{waiting.id}/up/").content.decode()
    assert '異議あり (<span id="objections-left">5</span>)' in html


def test_too_many_lines_are_refused_as_a_message_of_at_most_fifty_lines(day_two):
    response = english(day_two.user(4)).post(
        f"/villages/{day_two.id}/up/", {"text": "a\n" * 51, "mode": "normal"}
    )
    assert response.status_code == 400
    assert "A message is at most 50 lines." in response.content.decode()


def test_a_history_with_no_games_says_so(waiting):
    name = waiting.user(1).username
    page = Client().get(f"/accounts/users/{name}/").content.decode()
    assert "0戦" not in page and "勝率 0%" not in page
    assert "まだ対戦の記録はありません。" in page
    assert "No games yet." in english().get(f"/accounts/users/{name}/").content.decode()


# --- 13. The clock without scripts ------------------------------------------------------------


def test_the_virtual_clock_of_a_real_time_day_is_a_duration_without_scripts(db):
    game = waiting_village(time={"mode": "realtime", "day_seconds": 600, "night_seconds": 300})
    lifecycle.fix_cast(village_id=game.id, user=game.staff, roles=CAST8, sub_roles={})
    for user in game.users:
        lifecycle.vote_start(village_id=game.id, user=user)
    to_day_two(game)
    html = game.client(4).get(f"/villages/{game.id}/down/").content.decode()
    shown = re.search(r'<span class="vclock"[^>]*>([^<]*)</span>', html)
    assert shown, html
    # 12 virtual hours in 10 real minutes, drawn a moment after dawn: 11 hours and some.
    assert re.fullmatch(r"残り (11時間\d{1,2}分|12時間)", shown[1]), shown[1]
    english_html = english(game.user(4)).get(f"/villages/{game.id}/down/").content.decode()
    shown = re.search(r'<span class="vclock"[^>]*>([^<]*)</span>', english_html)
    assert shown and re.fullmatch(r"(11 h \d{1,2} min|12 h) left", shown[1]), shown[1]


# --- 6. The waiting room's start votes -------------------------------------------------------


def test_the_waiting_room_counts_the_start_votes_and_the_seats_the_game_needs(db):
    game = waiting_village(n=3, capacity=10)
    answer = game.client(1).post(f"/villages/{game.id}/start/", follow=True)
    upper = answer.content.decode()
    # Voting alone says why nothing happens.
    assert "開始に投票しました。ゲームは8人以上で始まります（あと5人）。" in upper
    lower = Client().get(f"/villages/{game.id}/down/").content.decode()
    assert "参加 3 / 10 人" in lower and "開始に投票 1 / 3 人" in lower
    assert "ゲームは8人以上で始まります（あと5人）。" in lower
    state = Client().get(f"/api/v1/villages/{game.id}/state").json()
    assert state["village"]["start_votes"] == 1 and state["village"]["seats_needed"] == 8
    page = english().get(f"/villages/{game.id}/down/").content.decode()
    assert "1 of 3 voted to start" in page and "8 or more players (5 more)" in page


def test_with_enough_seats_the_start_vote_says_everyone_must_vote(waiting):
    lifecycle.vote_start(village_id=waiting.id, user=waiting.user(2))
    upper = waiting.client(1).post(f"/villages/{waiting.id}/start/", follow=True)
    assert "参加者全員が投票すると始まります（あと6人）。" in upper.content.decode()
    lower = Client().get(f"/villages/{waiting.id}/down/").content.decode()
    assert "開始に投票 2 / 8 人" in lower and "参加者全員が開始に投票すると始まります。" in lower
    state = Client().get(f"/api/v1/villages/{waiting.id}/state").json()
    assert state["village"]["start_votes"] == 2


# --- 5. The revote cue for the player whose ballot made the tie ------------------------------


def cue_box(html: str) -> str:
    start = html.index('id="cue"')
    return html[html.rindex("<div", 0, start) : html.index("</div>", start)]


def test_the_ballot_that_makes_a_tie_brings_back_a_pane_with_the_revote_cue(day_two):
    voter = day_two.client(7)
    ballots = {1: 4, 2: 4, 3: 4, 4: 1, 5: 1, 6: 1}
    for seat, target in ballots.items():
        play.vote(village_id=day_two.id, user=day_two.user(seat), target=target)
    # The vote page as the player sends it: its answer brings back the pane, ?done=vote.
    answer = voter.post(f"/villages/{day_two.id}/act/?action=vote", {"target": "2"})
    assert answer.status_code == 302 and answer["Location"].endswith("/down/?done=vote")
    box = cue_box(voter.get(answer["Location"]).content.decode())
    assert "hidden" not in box and 'data-kind="revote"' in box and "再投票になりました" in box
    # Without the ballot just cast (a pane loaded as usual), the socket's cue is the cue.
    assert "hidden" in cue_box(voter.get(f"/villages/{day_two.id}/down/").content.decode())
    # Voted again in the revote: nothing left to cue.
    play.vote(village_id=day_two.id, user=day_two.user(7), target=1)
    assert "hidden" in cue_box(voter.get(answer["Location"]).content.decode())


def test_a_ballot_that_settles_the_day_draws_no_cue(day_two):
    for voter in (2, 3, 4, 5, 6, 7):
        play.vote(village_id=day_two.id, user=day_two.user(voter), target=1)
    client = day_two.client(1)
    answer = client.post(f"/villages/{day_two.id}/act/?action=vote", {"target": "3"})
    assert answer.status_code == 302
    assert "hidden" in cue_box(client.get(answer["Location"]).content.decode())


# --- 8. Registration's allowance -------------------------------------------------------------


@pytest.fixture
def limited(settings):
    settings.JINRO_RATE_LIMIT_ENABLED = True
    cache.clear()
    yield
    cache.clear()


def register(username: str, password: str = "pw-Secret-123", *, client: Client | None = None):
    body = {"username": username, "password1": password, "password2": password}
    return (client or Client()).post("/accounts/register/", body)


def test_refused_registrations_do_not_use_up_the_addresss_allowance(limited):
    assert register("taken").status_code == 302
    for i in range(ratelimit.REGISTER_LIMIT[0] + 2):
        assert register(f"weak{i}", "12345678").status_code == 400  # all digits
        assert register("taken").status_code == 409
        api = Client().post(
            "/api/v1/auth/register",
            {"username": f"weak{i}", "password": "password"},  # too common
            content_type="application/json",
        )
        assert api.status_code == 400
    assert register("newcomer").status_code == 302


def test_too_many_registrations_are_told_when_to_try_again(limited):
    for i in range(ratelimit.REGISTER_LIMIT[0]):
        assert register(f"u{i}").status_code == 302
    refused = register("one-more")
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "この接続元からのユーザー登録は1時間に10件までです。" in page
    assert "60分ほど後にもう一度お試しください。" in page
    assert 3500 < int(refused["Retry-After"]) <= 3600
    api = Client().post(
        "/api/v1/auth/register",
        {"username": "one-more", "password": "pw-Secret-123"},
        content_type="application/json",
    )
    assert api.status_code == 429 and "分ほど後に" in api.json()["error"]["message"]
    assert 3500 < int(api["Retry-After"]) <= 3600
    english_page = register("one-more", client=english()).content.decode()
    assert "10 accounts every 1 h" in english_page and "in about 60 min" in english_page


def test_registration_goes_through_uncounted_when_the_cache_is_unreachable(
    limited, cache_unreachable
):
    for i in range(ratelimit.REGISTER_LIMIT[0] + 2):
        assert register(f"u{i}").status_code == 302


# --- 9. User names regardless of letter case ------------------------------------------------


def api_register(username: str):
    body = {"username": username, "password": "pw-Secret-123"}
    return Client().post("/api/v1/auth/register", body, content_type="application/json")


def test_a_name_that_differs_only_in_case_or_width_is_refused(db):
    assert api_register("alice").status_code == 201
    page = register("Alice")
    assert page.status_code == 409
    assert "「alice」というユーザー名がすでにあります。" in page.content.decode()
    for name in ("ALICE", "ａｌｉｃｅ", "Ａｌｉｃｅ"):
        refused = api_register(name)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "name_taken"
        assert "「alice」" in refused.json()["error"]["message"], name
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["alice"]
    assert register("alice2").status_code == 302


def test_the_database_itself_keeps_names_apart_regardless_of_case(db):
    User = get_user_model()
    User.objects.create_user("carol")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("Carol")


def test_the_admin_may_not_rename_a_user_to_anothers_name_in_other_case(db):
    User = get_user_model()
    User.objects.create_user("dave")
    erin = User.objects.create_user("erin")
    data = {"username": "Dave", "date_joined": "2026-01-01 00:00:00", "password": "x"}
    form = RenameForm(data, instance=erin)
    assert not form.is_valid() and "username" in form.errors
    form = RenameForm({**data, "username": "Erin"}, instance=erin)  # its own name, recased
    assert form.is_valid(), form.errors


@pytest.mark.django_db(transaction=True)
def test_names_that_already_clash_are_kept_and_listed_and_the_index_waits_for_them():
    User = get_user_model()
    call_command("migrate", "accounts", "0004", verbosity=0)
    try:
        User.objects.create_user("Bob")
        User.objects.create_user("bob")
        call_command("migrate", "accounts", verbosity=0)
        assert sorted(User.objects.values_list("username", flat=True)) == ["Bob", "bob"]
        warnings = username_case_clashes(databases=["default"])
        assert [w.id for w in warnings] == ["accounts.W001"] and "Bob, bob" in warnings[0].msg
        User.objects.filter(username="Bob").update(username="Bobby")  # as the staff would
        call_command("migrate", "accounts", "0004", verbosity=0)
        call_command("migrate", "accounts", verbosity=0)
        assert username_case_clashes(databases=["default"]) == []
        with pytest.raises(IntegrityError), transaction.atomic():
            User.objects.create_user("BOB")
    finally:
        User.objects.all().delete()
        call_command("migrate", "accounts", "0004", verbosity=0)
        call_command("migrate", "accounts", verbosity=0)


# --- 10. The seat form's icons, and English names --------------------------------------------


def test_the_seat_form_marks_the_icons_already_taken_in_the_village(db):
    game = waiting_village(n=2, capacity=8)  # seats 1 and 2 wear the first two icons
    newcomer = get_user_model().objects.create_user("newcomer", password="pw-Secret-123")
    client = Client()
    client.force_login(newcomer)
    html = client.get(f"/villages/{game.id}/seat/").content.decode()
    labels = re.findall(r'<label class="icon-choice[^"]*".*?</label>', html, flags=re.S)
    icons = list(Icon.objects.choosable())
    assert len(labels) == len(icons)
    taken = [i for i, label in enumerate(labels) if "taken" in label.split(">")[0]]
    assert taken == [0, 1], taken
    assert "使用中" in labels[0] and 'title="村人1号"' in labels[0]
    assert "使用中" not in labels[2]


def test_english_pages_name_the_icons_and_the_rules_page_in_english(db):
    game = waiting_village(n=1, capacity=8)
    reader = english(get_user_model().objects.create_user("reader2", password="pw-Secret-1"))
    html = reader.get(f"/villages/{game.id}/seat/").content.decode()
    assert "Red circle" in html and "Ginger cat" in html and ">taken<" in html
    for _slug, japanese, *_rest in ICONS:
        assert japanese not in html, japanese
    top = english().get("/").content.decode()
    assert ">Rules</a>" in top and "ルール" not in top
    assert ">Rules</a>" in english().get("/info/").content.decode()
    # Japanese pages keep the names as they are.
    assert ">ルール</a>" in Client().get("/").content.decode()


# --- 11. Leaving a village -------------------------------------------------------------------


def test_leaving_asks_first_and_says_afterwards_that_you_left(waiting):
    client = waiting.client(3)
    upper = client.get(f"/villages/{waiting.id}/up/").content.decode()
    link = re.search(r'<a href="(/villages/\d+/leave/)" target="lower"[^>]*>村を出る</a>', upper)
    assert link, "村を出る opens a page that asks first"
    assert f'action="/villages/{waiting.id}/leave/"' not in upper, "no form leaves at once"
    asked = client.get(link[1]).content.decode()
    assert "この村を出ますか？" in asked and 'id="leave-confirm"' in asked
    assert waiting.village.seats.filter(user=waiting.user(3)).exists()
    answer = client.post(link[1])
    assert answer.status_code == 302 and answer["Location"].endswith("/down/?done=leave")
    assert not waiting.village.seats.filter(user=waiting.user(3)).exists()
    told = client.get(answer["Location"]).content.decode()
    assert "「テスト村」を出ました。" in told
    told = english(waiting.user(3)).get(answer["Location"]).content.decode()
    assert "You left “テスト村”." in told


def test_a_leave_page_sent_after_the_start_is_refused_inside_the_pane(waiting):
    client = waiting.client(3)
    asked = client.get(f"/villages/{waiting.id}/leave/").content.decode()
    assert 'id="leave-confirm"' in asked
    lifecycle.fix_cast(village_id=waiting.id, user=waiting.staff, roles=CAST8, sub_roles={})
    for user in waiting.users:
        lifecycle.vote_start(village_id=waiting.id, user=user)
    refused = client.post(f"/villages/{waiting.id}/leave/")
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "ゲームが始まった後は村を出られません。" in html
    assert 'id="d-mode"' in html and 'id="talk-form"' not in html, "the lower pane, not the upper"
    assert 'id="leave-confirm"' not in html
    assert waiting.village.seats.filter(user=waiting.user(3)).exists()
    english_html = english(waiting.user(3)).post(f"/villages/{waiting.id}/leave/").content.decode()
    assert "You cannot leave once the game has started." in english_html
