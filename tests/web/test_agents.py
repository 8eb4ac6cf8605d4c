"""AIWolf agents on the pages (issue 31, item 5): the create form's option, the host's
controls in the waiting room, where agents connect (with the viewer's own token), the
top page's mark."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services import profile_of
from villages.engine import game as engine
from villages.models import Message, Seat, Village
from villages.services import agents, lifecycle

from .conftest import waiting_village

pytestmark = pytest.mark.django_db

PLACEHOLDER = "プロフィールのAPIトークン"


def agents_village(n: int = 3, capacity: int = 9):
    return waiting_village(n=n, capacity=capacity, agents=True)


def address(village_id: int, scheme: str = "ws") -> str:
    return f"{scheme}://testserver/ws/aiwolf/villages/{village_id}/"


def token_of(user) -> str:
    return profile_of(user).api_token


def down(client: Client, village_id: int, **extra) -> str:
    answer = client.get(f"/villages/{village_id}/down/", **extra)
    assert answer.status_code == 200
    return answer.content.decode()


def text(html: str) -> str:
    """The page's text, as it is read (and copied)."""
    return re.sub(r"<[^>]+>", "", html)


def up(client: Client, village_id: int) -> str:
    answer = client.get(f"/villages/{village_id}/up/")
    assert answer.status_code == 200
    return answer.content.decode()


# ---------------------------------------------------------------------------
# Creating


def test_the_create_form_offers_the_agents_option_with_its_help():
    client = Client()
    client.force_login(get_user_model().objects.create_user("maker", password="pw-Secret-123"))
    html = client.get("/villages/new/").content.decode()
    assert 'name="agents"' in html and "人狼知能エージェントを受け入れる" in html
    assert "練習村になります（統計には数えません）" in html


def test_a_village_created_open_to_agents_is_a_practice_village_marked_on_the_top_page():
    client = Client()
    client.force_login(get_user_model().objects.create_user("maker", password="pw-Secret-123"))
    answer = client.post(
        "/villages/new/", {"name": "AIと遊ぶ村", "comment": "", "capacity": "9", "agents": "on"}
    )
    assert answer.status_code == 302, answer.content.decode()[:500]
    village = Village.objects.get(name="AIと遊ぶ村")
    assert village.options["agents"] is True and village.practice
    plain = waiting_village(n=2, capacity=8).village
    assert plain.options["agents"] is False
    top = Client().get("/").content.decode()
    row = top[top.index("AIと遊ぶ村") - 600 : top.index("AIと遊ぶ村") + 900]
    assert "villages/options/agents." in row and 'title="人狼知能エージェント受け入れ"' in row
    assert "練習村（人狼知能エージェントの村）" in row
    other = top[top.index(plain.name) : top.index(plain.name) + 900]
    assert "villages/options/agents." not in other.split("</tr>")[0]


# ---------------------------------------------------------------------------
# Opening and closing


def test_the_host_opens_and_closes_the_village_to_agents_from_the_upper_pane():
    game = waiting_village(n=3, capacity=9)
    host = game.client(1)
    assert 'id="open-agents"' in up(host, game.id)
    assert 'id="open-agents"' not in up(game.client(2), game.id)  # a player, not the host
    assert 'id="open-agents"' not in up(game.client(None), game.id)

    answer = host.post(f"/villages/{game.id}/agents/", {"open": "1"})
    assert answer.status_code == 302 and answer["Location"] == f"/villages/{game.id}/up/"
    game.village.refresh_from_db()
    assert game.village.options["agents"] is True and game.village.practice
    assert Message.objects.filter(village_id=game.id, code="agents_opened").exists()
    page = up(host, game.id)
    assert 'id="close-agents"' in page and "エージェントの受け入れをやめる" in page

    assert host.post(f"/villages/{game.id}/agents/", {"open": "0"}).status_code == 302
    game.village.refresh_from_db()
    assert game.village.options["agents"] is False
    assert Message.objects.filter(village_id=game.id, code="agents_closed").exists()


def test_staff_may_open_a_village_to_agents_too():
    game = waiting_village(n=3, capacity=9)
    staff = Client()
    staff.force_login(game.staff)
    assert 'id="open-agents"' in up(staff, game.id)
    assert staff.post(f"/villages/{game.id}/agents/", {"open": "1"}).status_code == 302
    game.village.refresh_from_db()
    assert game.village.options["agents"] is True


def test_a_player_who_is_not_the_host_is_refused_in_japanese_and_nothing_changes():
    game = waiting_village(n=3, capacity=9)
    answer = game.client(2).post(f"/villages/{game.id}/agents/", {"open": "1"})
    assert answer.status_code == 400
    html = answer.content.decode()
    assert "エージェントの受け入れを変えられるのは村を作った人とスタッフだけです。" in html
    game.village.refresh_from_db()
    assert game.village.options["agents"] is False
    # Logged out: sent to log in, nothing changed.
    assert Client().post(f"/villages/{game.id}/agents/", {"open": "1"}).status_code == 302
    game.village.refresh_from_db()
    assert game.village.options["agents"] is False


def test_after_the_start_the_host_has_no_agents_button_and_a_post_is_refused():
    game = waiting_village(n=8, capacity=8)
    for user in game.users:
        lifecycle.vote_start(village_id=game.id, user=user)
    page = up(game.client(1), game.id)
    assert 'id="open-agents"' not in page
    answer = game.client(1).post(f"/villages/{game.id}/agents/", {"open": "1"})
    assert answer.status_code == 400
    assert "人狼知能エージェントの受け入れはゲーム開始前にだけ変えられます。" in (
        answer.content.decode()
    )
    assert 'id="d-agents" hidden' in down(game.client(1), game.id)


# ---------------------------------------------------------------------------
# Agent seats


def test_the_host_removes_an_agent_seat_from_the_players_list():
    game = agents_village()
    owner = game.user(2)
    seat_no = agents.take_seat(village_id=game.id, owner=owner, name="kanolab1")
    row = Seat.objects.get(village_id=game.id, seat_no=seat_no)
    assert row.agent == "kanolab1" and row.handle_name == "kanolab1" + engine.AGENT_MARK

    host_page = down(game.client(1), game.id)
    seat = host_page[host_page.index(f'id="d-seat-{seat_no}"') :].split("</li>")[0]
    assert "kanolab1(AI)" in seat and " agent" in seat and "外す" in seat
    person = host_page[host_page.index('id="d-seat-2"') :].split("</li>")[0]
    assert "外す" not in person  # only agents' seats are removed so
    assert "外す" not in down(game.client(2), game.id)  # the agent's owner is no host
    assert "外す" not in down(game.client(None), game.id)

    answer = game.client(1).post(f"/villages/{game.id}/agents/remove/", {"seat_no": seat_no})
    assert answer.status_code == 302
    assert not Seat.objects.filter(village_id=game.id, seat_no=seat_no, kicked=False).exists()
    after = down(game.client(None), game.id)
    assert f'id="d-seat-{seat_no}"' not in after and "kanolab1(AI)さんが村を去りました。" in after


def test_removing_a_seat_that_is_no_agents_is_refused_in_japanese():
    game = agents_village()
    answer = game.client(1).post(f"/villages/{game.id}/agents/remove/", {"seat_no": 2})
    assert answer.status_code == 400
    assert "その席は人狼知能エージェントの席ではありません。" in answer.content.decode()
    assert Seat.objects.filter(village_id=game.id, seat_no=2, kicked=False).exists()
    answer = game.client(1).post(f"/villages/{game.id}/agents/remove/", {"seat_no": "x"})
    assert answer.status_code == 400 and "外す席を選んでください。" in answer.content.decode()


def test_a_player_who_is_not_the_host_may_not_remove_an_agent():
    game = agents_village()
    seat_no = agents.take_seat(village_id=game.id, owner=game.user(3), name="kanolab1")
    answer = game.client(3).post(f"/villages/{game.id}/agents/remove/", {"seat_no": seat_no})
    assert answer.status_code == 400
    assert "村を作った人とスタッフだけです" in answer.content.decode()
    assert Seat.objects.filter(village_id=game.id, seat_no=seat_no, kicked=False).exists()


# ---------------------------------------------------------------------------
# Where agents connect


def test_the_waiting_room_shows_the_address_and_the_config_with_the_viewers_own_token():
    game = agents_village()
    for user in game.users:
        profile_of(user)
    host_page = down(game.client(1), game.id)
    fragment = (
        "web_socket:\n"
        f"  url: {address(game.id)}\n"
        f"  token: {token_of(game.user(1))}\n"
        "  auto_reconnect: false"
    )
    assert fragment in text(host_page)
    assert "空席はあと6席です。" in host_page and "agent.num" in host_page

    other = down(game.client(2), game.id)
    assert f"url: {address(game.id)}\n  token: {token_of(game.user(2))}\n" in text(other)
    assert token_of(game.user(1)) not in other  # nobody sees another's token

    spectator = down(Client(), game.id)
    assert f"url: {address(game.id)}\n  token: （{PLACEHOLDER}）\n" in text(spectator)
    assert 'href="/accounts/profile/"' in spectator
    assert all(token_of(u) not in spectator for u in game.users)


def test_the_docs_give_the_very_config_the_waiting_room_gives():
    """Issue 39, item 14: docs/aiwolf.md's config.yml fragment is the waiting room's, line
    for line (the address and the token aside, which are the page's own)."""
    from tests.conftest import ROOT

    docs = (ROOT / "docs" / "aiwolf.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```yaml\n(.*?)```", docs, flags=re.DOTALL)
    documented = block.rstrip().splitlines()
    indent = len(documented[0]) - len(documented[0].lstrip())
    documented = [line[indent:] for line in documented]
    game = agents_village()
    profile_of(game.user(1))
    page = down(game.client(1), game.id)
    [pre] = re.findall(r'<pre class="agents-config"[^>]*>(.*?)</pre>', page, flags=re.DOTALL)
    shown = text(pre).replace(address(game.id), "ws://127.0.0.1:8000/ws/aiwolf/villages/12/")
    shown = shown.replace(token_of(game.user(1)), "<your API token>")
    assert shown.splitlines() == documented
    # What players will read of the contest's sample agent, told before they meet it.
    assert "Agent[03]" in docs and "players will" in docs


def test_an_account_without_a_profile_yet_is_shown_the_placeholder():
    game = agents_village()
    page = down(game.client(2), game.id)  # player2 has never opened its profile
    assert f"url: {address(game.id)}\n  token: （{PLACEHOLDER}）\n" in text(page)


def test_the_address_is_wss_when_the_page_came_over_https():
    game = agents_village()
    page = text(down(game.client(2), game.id, secure=True))
    assert address(game.id, "wss") in page and address(game.id) not in page


def test_a_village_closed_to_agents_shows_no_address():
    game = waiting_village(n=3, capacity=9)
    page = down(game.client(2), game.id)
    assert "/ws/aiwolf/villages/" not in page and "web_socket:" not in page
    agents.set_open(village_id=game.id, user=game.user(1), open_=True)
    assert address(game.id) in text(down(game.client(2), game.id))


def test_the_socket_is_sent_the_agents_part_without_anyones_token():
    """The part as the live screen pushes it is drawn once for every viewer: no token and
    no host in it (the page's script fills both from what the page has)."""
    from villages import selectors
    from villages.screenview import parts_of
    from villages.views import parts
    from villages.views.standing import local_for

    game = agents_village()
    for user in game.users:
        profile_of(user)
    view = selectors.view_for(game.id, game.user(1).pk)
    local = local_for(game.user(1).pk, view.loaded)
    html = parts.render_part("d-agents", parts_of(view)["d-agents"], local)
    assert "<span data-ws-origin></span>/ws/aiwolf/villages/" in html
    assert 'data-agent-token=""' in html and PLACEHOLDER in html
    assert all(token_of(u) not in html for u in game.users)
