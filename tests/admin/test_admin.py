"""Moderation in the Django admin: villages, seats, messages, icons, users, profiles."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.api.client import Api, DjangoTransport, open_village
from villages.models import Icon, Message, Seat, Village

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa75\x81\x84"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


@pytest.fixture
def api(db) -> Api:
    from django.core.cache import cache

    cache.clear()
    return Api(DjangoTransport())


class _Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if tag == "input" and attributes.get("name") and attributes.get("type") != "submit":
            self.fields[attributes["name"]] = attributes.get("value") or ""


def form_fields(page: str) -> dict[str, str]:
    """The inputs a browser would send back from an admin change form."""
    parser = _Inputs()
    parser.feed(page)
    return parser.fields


def act(admin_client, model: str, action: str, pks: list[int], **extra: str):
    url = reverse(f"admin:{model}_changelist")
    data = {"action": action, "_selected_action": pks, **extra}
    return admin_client.post(url, data, follow=True)


@pytest.mark.parametrize(
    "page",
    [
        "admin:villages_village_changelist",
        "admin:villages_seat_changelist",
        "admin:villages_message_changelist",
        "admin:villages_icon_changelist",
        "admin:villages_infopage_changelist",
        "admin:auth_user_changelist",
        "admin:accounts_profile_changelist",
    ],
)
def test_every_moderation_list_opens(api: Api, admin_client, page: str):
    open_village(api, players=8)
    assert admin_client.get(reverse(page)).status_code == 200


def test_village_list_filters_and_search(api: Api, admin_client):
    table = open_village(api, players=8, name="検索される村")
    url = reverse("admin:villages_village_changelist")
    page = admin_client.get(url, {"status__exact": "playing", "q": "検索"})
    assert page.status_code == 200 and "検索される村" in page.content.decode()
    assert "検索される村" not in admin_client.get(url, {"status__exact": "ended"}).content.decode()
    change = admin_client.get(reverse("admin:villages_village_change", args=[table.id]))
    assert change.status_code == 200 and table.player(1).username in change.content.decode()


def test_ending_a_village_now_asks_first_then_abandons_it_through_the_engine(
    api: Api, admin_client
):
    table = open_village(api, players=8)
    before = table.state()
    asked = act(admin_client, "villages_village", "end_now", [table.id]).content.decode()
    assert "村を今すぐ終了しますか？" in asked and "はい、終了します" in asked
    assert f'name="_selected_action" value="{table.id}"' in asked
    assert table.state() == before, "nothing happens before the staff says yes"
    act(admin_client, "villages_village", "end_now", [table.id], confirmed="yes")
    state = table.state()
    assert state["village"]["status"] == "ended" and state["village"]["abandoned"]
    assert state["winner"] is None
    last = table.messages()[-1]
    assert last["code"] == "abandoned_by_staff" and "管理者により" in last["text"]
    page = act(admin_client, "villages_village", "end_now", [table.id], confirmed="yes")
    assert "すでに終わっています" in page.content.decode(), "a second end is refused, politely"


def test_an_admin_save_keeps_a_vote_committed_while_the_form_was_open(api: Api, admin_client):
    table = open_village(api, players=8, start=False)
    url = reverse("admin:villages_village_change", args=[table.id])
    form = form_fields(admin_client.get(url).content.decode())  # the form is read
    table.player(2).ok("POST", table.path("start-vote"))  # a player votes meanwhile
    version = Village.objects.get(pk=table.id).version
    saved = admin_client.post(url, {**form, "name": "改名した村", "comment": "説明"})
    assert saved.status_code == 302, saved.content.decode()[:2000]
    village = Village.objects.get(pk=table.id)
    assert (village.name, village.comment) == ("改名した村", "説明")
    assert village.version == version + 1
    assert Seat.objects.get(village=village, seat_no=2).start_voted, "the vote is kept"
    assert table.state()["village"]["name"] == "改名した村"


def test_the_lists_show_names_not_codes(api: Api, admin_client):
    table = open_village(api, players=8, cast=["wolf", "wolf", "seer"] + ["villager"] * 5)
    seats = admin_client.get(reverse("admin:villages_seat_changelist")).content.decode()
    assert "人狼" in seats and "占い師" in seats and ">wolf<" not in seats
    assert "役職" in seats and "死因" in seats and "席番号" in seats
    villages = admin_client.get(reverse("admin:villages_village_changelist")).content.decode()
    assert "場面" in villages and "勝者" in villages
    lines = admin_client.get(reverse("admin:villages_message_changelist")).content.decode()
    assert "システム" in lines and ">system<" not in lines
    for header in ("村", "日", "場面", "席番号"):
        assert f">{header}<" in lines or f">{header}</a>" in lines, header
    assert table.id


def test_deleting_a_village(api: Api, admin_client):
    table = open_village(api, players=8, start=False)
    url = reverse("admin:villages_village_changelist")
    admin_client.post(
        url, {"action": "delete_selected", "_selected_action": [table.id], "post": "yes"}
    )
    assert not Village.objects.filter(pk=table.id).exists()
    assert table.api.spectator.send("GET", table.path("state")).code == "not_found"


def test_a_staff_kick_before_the_start_removes_the_seat(api: Api, admin_client):
    table = open_village(api, players=8, start=False)
    seat = Seat.objects.get(village_id=table.id, seat_no=5)
    act(admin_client, "villages_seat", "kick", [seat.pk])
    assert 5 not in [s["seat_no"] for s in table.state()["seats"]]
    assert Seat.objects.get(pk=seat.pk).kicked


def test_a_kick_after_the_start_is_refused_and_changes_nothing(api: Api, admin_client):
    table = open_village(api, players=8)
    seat = Seat.objects.get(village_id=table.id, seat_no=5)
    before = table.state()
    page = act(admin_client, "villages_seat", "kick", [seat.pk])
    assert "キック投票はゲーム開始前だけです" in page.content.decode()
    assert table.state() == before


def test_a_hidden_message_disappears_from_every_view_and_comes_back(api: Api, admin_client):
    table = open_village(api, players=8, start=False)
    line = table.player(3).ok("POST", table.path("messages"), {"text": "不適切な発言"}, status=201)
    viewers = [None, *table.seated()]
    row = Message.objects.get(village_id=table.id, text=line["text"])  # the staff's own id
    act(admin_client, "villages_message", "hide", [row.pk])
    assert Message.objects.get(pk=row.pk).hidden
    for viewer in viewers:
        assert "不適切な発言" not in [m["text"] for m in table.messages(viewer)]
    act(admin_client, "villages_message", "unhide", [row.pk])
    for viewer in viewers:
        assert "不適切な発言" in [m["text"] for m in table.messages(viewer)]


def test_message_list_filters_by_village_and_kind(api: Api, admin_client):
    table = open_village(api, players=8, start=False)
    table.player(3).ok("POST", table.path("messages"), {"text": "フィルタ確認用の発言"}, status=201)
    url = reverse("admin:villages_message_changelist")
    page = admin_client.get(url, {"village__id__exact": table.id, "kind__exact": "talk"})
    assert page.status_code == 200 and "フィルタ確認用の発言" in page.content.decode()
    page = admin_client.get(url, {"village__id__exact": table.id, "kind__exact": "system"})
    assert "フィルタ確認用の発言" not in page.content.decode()


def test_an_uploaded_icon_can_be_chosen_through_the_api(api: Api, admin_client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    upload = SimpleUploadedFile("kitsune.png", PNG, content_type="image/png")
    response = admin_client.post(
        reverse("admin:villages_icon_add"),
        {"name": "狐の面", "image": upload, "static_path": "", "order": 99, "is_active": "on"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    icon = Icon.objects.get(name="狐の面")
    listed = {i["id"]: i for i in api.icons()}
    assert listed[icon.pk]["url"].startswith("/media/icons/kitsune")
    assert (tmp_path / icon.image.name).read_bytes() == PNG
    table = open_village(api, players=7, capacity=8, start=False)
    me = api.register()
    me.ok("POST", table.path("seats"), {"handle_name": "狐", "icon": icon.pk}, status=201)
    seat = next(s for s in table.state()["seats"] if s["handle_name"] == "狐")
    assert seat["icon"] == icon.pk and seat["icon_url"] == listed[icon.pk]["url"]


def test_an_svg_upload_is_refused(api: Api, admin_client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    upload = SimpleUploadedFile("x.svg", b"<svg><script>alert(1)</script></svg>")
    response = admin_client.post(
        reverse("admin:villages_icon_add"),
        {"name": "危険", "image": upload, "static_path": "", "order": 0, "is_active": "on"},
    )
    assert response.status_code == 200 and not Icon.objects.filter(name="危険").exists()


@pytest.mark.parametrize(
    "name, body",
    [
        ("fake.png", b"<svg><script>alert(1)</script></svg>"),
        ("page.jpg", b"<html><body>hello</body></html>"),
        ("riff.webp", b"RIFF\x00\x00\x00\x00WAVEfmt "),
        ("png-inside.gif", PNG),
    ],
)
def test_a_file_that_is_not_the_image_its_name_says_is_refused(
    admin_client, settings, tmp_path, name, body
):
    settings.MEDIA_ROOT = tmp_path
    response = admin_client.post(
        reverse("admin:villages_icon_add"),
        {"name": "偽", "image": SimpleUploadedFile(name, body), "static_path": "", "order": 0},
    )
    assert response.status_code == 200 and not Icon.objects.filter(name="偽").exists()
    assert "画像の中身が" in response.content.decode()


def test_a_banned_users_token_stops_working_and_unbanning_restores_it(api: Api, admin_client):
    me = api.register()
    user = get_user_model().objects.get(username=me.username)
    assert me.send("GET", "me").status == 200
    act(admin_client, "auth_user", "ban", [user.pk])
    assert me.send("GET", "me").code == "not_authenticated"
    body = {"username": me.username, "password": "Kagome-kagome-1234"}
    assert me.send("POST", "auth/token", body).code == "not_authenticated"
    act(admin_client, "auth_user", "unban", [user.pk])
    assert me.send("GET", "me").status == 200


def test_renewing_a_token_from_the_admin(api: Api, admin_client):
    me = api.register()
    profile = get_user_model().objects.get(username=me.username).profile
    act(admin_client, "accounts_profile", "renew_tokens", [profile.pk])
    assert me.send("GET", "me").code == "not_authenticated"
