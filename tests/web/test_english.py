"""English pages keep no Japanese where the site words things itself (issue 32, item 13):
the bots' names and lines, role pairs, the profile's auto-refresh choices, the
registration's word on the confirmation mail, the API's own description."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from villages.engine import game as engine
from villages.models import Icon, Message, Village
from villages.services import bots, lifecycle

from ..services.test_bots import play_out

pytestmark = pytest.mark.django_db
PASSWORD = "pw-Secret-123"


def reader(language: str, user=None) -> Client:
    client = Client(headers={"accept-language": language})
    client.cookies["django_language"] = language
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def bot_game(settings):
    """An ended village of eight bots, with a cupid (so that two seats are lovers)."""
    settings.JINRO_BOT_DELAY = 0
    settings.JINRO_RATE_LIMIT_ENABLED = False
    if not Icon.objects.choosable().exists():
        for n in range(3):
            Icon.objects.create(name=f"icon{n}", static_path=f"icons/{n}.svg")
    owner = get_user_model().objects.create_user("host", password=PASSWORD)
    village = lifecycle.create_village(
        user=owner, name="practice", capacity=8, options={"cupid": True}
    )
    Village.objects.filter(pk=village.pk).update(seed=20261205)
    bots.add_bots(village_id=village.pk, user=owner)
    play_out(village.pk)
    return village.pk


def test_bots_are_named_and_talk_in_the_readers_language(bot_game):
    talk = Message.objects.filter(village_id=bot_game, kind="talk")
    assert talk.exists() and all(m.code.startswith("bot_") for m in talk)
    assert any("に投票します" in m.text for m in talk), "the kept text is the site's Japanese"
    pages = (f"/villages/{bot_game}/log/", f"/villages/{bot_game}/down/")
    for path in pages:
        english = reader("en").get(path).content.decode()
        assert engine.BOT_MARK not in english, path
        assert "(bot)" in english, path
        for japanese in ("投票します", "おはよう", "占いCO", "安らかに", "さん"):
            assert japanese not in english, (path, japanese)
    log = reader("en").get(pages[0]).content.decode()
    assert "I vote for" in log
    japanese = reader("ja").get(pages[0]).content.decode()
    assert engine.BOT_MARK in japanese and "に投票します" in japanese
    assert "(bot)" not in japanese and "I vote for" not in japanese


def test_a_role_and_its_sub_role_are_joined_in_the_readers_language(bot_game):
    for path in (f"/villages/{bot_game}/log/", f"/villages/{bot_game}/down/"):
        english = reader("en").get(path).content.decode()
        roles = re.findall(r'<span class="prole">([^<]*)</span>', english)
        assert roles and not any("・" in r for r in roles), (path, roles)
        assert any(r.endswith(", Lover") for r in roles), (path, roles)
        japanese = reader("ja").get(path).content.decode()
        assert any(r.endswith("・恋人") for r in re.findall(r'class="prole">([^<]*)<', japanese))
    export = reader("en").get(f"/villages/{bot_game}/log/export.html").content.decode()
    assert ", Lover" in export and "・恋人" not in export and engine.BOT_MARK not in export


def test_the_profiles_auto_refresh_choices_are_seconds_in_either_language():
    user = get_user_model().objects.create_user("reader", password=PASSWORD)
    english = reader("en", user).get("/accounts/profile/").content.decode()
    choices = re.findall(r'<option value="(\d+)"[^>]*>([^<]*)</option>', english)
    labels = dict(choices)
    assert labels["15"] == "15 s" and labels["120"] == "120 s", labels
    japanese = reader("ja", user).get("/accounts/profile/").content.decode()
    labels = dict(re.findall(r'<option value="(\d+)"[^>]*>([^<]*)</option>', japanese))
    assert labels["15"] == "15秒", labels


def register_with_mail(language: str) -> str:
    client = reader(language)
    answer = client.post(
        "/accounts/register/",
        {
            "username": f"new-{language}",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "email": f"{language}@example.org",
        },
        follow=True,
    )
    assert answer.status_code == 200
    assert get_user_model().objects.filter(username=f"new-{language}").exists()
    return answer.content.decode()


def test_registration_says_the_account_is_made_and_the_link_confirms_the_address(settings):
    settings.JINRO_RATE_LIMIT_ENABLED = False
    japanese = register_with_mail("ja")
    assert "登録されます" not in japanese
    assert "アカウントはもう使えます" in japanese and "このアドレスが確認されます" in japanese
    english = register_with_mail("en")
    assert "to register" not in english
    assert "Your account is ready" in english and "confirms the address" in english


def test_the_api_docs_name_no_file_outside_the_repository():
    for path in ("/api/v1/docs", "/api/v1/openapi.json"):
        text = reader("en").get(path).content.decode()
        assert "shared/" not in text and "API.md" not in text.replace("docs/api.md", ""), path
    assert "docs/api.md" in reader("en").get("/api/v1/openapi.json").content.decode()


def test_a_player_among_bots_reads_their_names_in_english_while_playing(settings):
    """A wolf sitting with fifteen bots, on night 1: its fellow wolves, the attack's
    choices and the player list call the bots by their English names."""
    settings.JINRO_RATE_LIMIT_ENABLED = False
    owner = get_user_model().objects.create_user("host", password=PASSWORD)
    staff = get_user_model().objects.create_user("staff", password=PASSWORD, is_staff=True)
    village = lifecycle.create_village(user=owner, name="practice", capacity=16)
    icon = Icon.objects.choosable().first()
    lifecycle.sit(village_id=village.pk, user=owner, handle_name="Me", icon_id=icon.pk)
    bots.add_bots(village_id=village.pk, user=owner)
    roles = ["wolf", "wolf", "wolf", "seer", "medium", "guard", "common", "common", "madman"]
    roles += ["fox"] + ["villager"] * 6
    cast = {str(no): role for no, role in enumerate(roles, start=1)}
    lifecycle.fix_cast(village_id=village.pk, user=staff, roles=cast, sub_roles={})
    lifecycle.vote_start(village_id=village.pk, user=owner)
    client = reader("en", owner)
    down = client.get(f"/villages/{village.pk}/down/").content.decode()
    fellows = re.search(r"Your fellow werewolves: ([^<]*)</p>", down)
    assert fellows and fellows[1] == "Akira (bot), Yuki (bot)", fellows
    attack = client.get(f"/villages/{village.pk}/act/?action=attack").content.decode()
    assert "Haruka (bot)" in attack
    for page in (down, attack, client.get(f"/villages/{village.pk}/up/").content.decode()):
        assert engine.BOT_MARK not in page and "、" not in page and "さん" not in page
    japanese = reader("ja", owner).get(f"/villages/{village.pk}/down/").content.decode()
    assert "アキラ(ボット)さん、ユウキ(ボット)さん" in japanese
