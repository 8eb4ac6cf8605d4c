"""Mail (issue 13): an optional address, confirmed by a link, is what password reset writes
to. Django's locmem outbox here; a real SMTP sink (aiosmtpd) and a real site process in
the services step."""

from __future__ import annotations

import re
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from accounts.models import Profile

PASSWORD = "pw-Secret-123"
LINK = re.compile(r"https?://[^\s]+")


def register(client: Client, username: str, email: str = "") -> None:
    answer = client.post(
        "/accounts/register/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD, "email": email},
    )
    assert answer.status_code == 302, answer.content.decode()[:1000]


def only_link(message) -> str:
    (link,) = LINK.findall(message.body)
    return urllib.parse.urlsplit(link).path


@pytest.mark.django_db
def test_an_address_given_at_registration_is_used_only_once_its_link_is_followed():
    client = Client()
    register(client, "mailer", "mailer@example.org")
    user = get_user_model().objects.get(username="mailer")
    assert user.email == "" and Profile.objects.get(user=user).pending_email == "mailer@example.org"
    (message,) = mail.outbox
    assert message.to == ["mailer@example.org"] and "mailer" in message.body
    link = only_link(message)
    answer = client.get(link, follow=True)
    assert "mailer@example.org を登録しました" in answer.content.decode()
    user.refresh_from_db()
    assert user.email == "mailer@example.org"
    assert Profile.objects.get(user=user).pending_email == ""
    again = Client().get(link)
    assert again.status_code == 400 and "もう使えません" in again.content.decode()


@pytest.mark.django_db
def test_registering_without_an_address_sends_nothing():
    register(Client(), "nomail")
    assert mail.outbox == []


@pytest.mark.django_db
def test_a_new_address_on_the_profile_makes_the_earlier_link_useless(settings):
    client = Client()
    register(client, "changer", "first@example.org")
    first = only_link(mail.outbox[0])
    page = client.get("/accounts/profile/").content.decode()
    assert "確認待ち: first@example.org" in page
    answer = client.post("/accounts/profile/", {"email": "second@example.org"}, follow=True)
    assert "second@example.org に確認のメールを送りました" in answer.content.decode()
    assert client.get(first).status_code == 400
    client.get(only_link(mail.outbox[1]))
    assert get_user_model().objects.get(username="changer").email == "second@example.org"
    bad = client.post("/accounts/profile/", {"email": "not an address"})
    assert bad.status_code == 400 and len(mail.outbox) == 2
    client.post("/accounts/profile/", {"forget_email": "1"})
    assert get_user_model().objects.get(username="changer").email == ""


@pytest.mark.django_db
def test_an_expired_or_forged_link_is_refused(settings):
    client = Client()
    register(client, "late", "late@example.org")
    link = only_link(mail.outbox[0])
    settings.EMAIL_CONFIRM_SECONDS = -1
    answer = client.get(link)
    assert answer.status_code == 400 and "有効期限が切れています" in answer.content.decode()
    settings.EMAIL_CONFIRM_SECONDS = 3600
    assert client.get(link[:-3] + "xyz/").status_code == 400
    assert get_user_model().objects.get(username="late").email == ""


@pytest.mark.django_db
def test_a_mail_server_that_is_down_does_not_lose_the_registration(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    client = Client()
    answer = client.post(
        "/accounts/register/",
        {"username": "down", "password1": PASSWORD, "password2": PASSWORD, "email": "d@ex.org"},
        follow=True,
    )
    assert "確認のメールを送れませんでした" in answer.content.decode()
    assert get_user_model().objects.filter(username="down").exists()


@pytest.mark.django_db
def test_password_reset_writes_to_the_confirmed_address_only_and_its_link_sets_a_new_password():
    client = Client()
    register(client, "forgetful", "forgetful@example.org")
    mail.outbox.clear()
    Client().post("/accounts/password-reset/", {"email": "forgetful@example.org"})
    assert mail.outbox == [], "an address not yet confirmed receives no reset mail"
    register(Client(), "confirmed", "confirmed@example.org")
    Client().get(only_link(mail.outbox[-1]))
    mail.outbox.clear()
    answer = Client().post("/accounts/password-reset/", {"email": "confirmed@example.org"})
    assert answer.status_code == 302
    (message,) = mail.outbox
    assert message.to == ["confirmed@example.org"]
    browser = Client()
    form = browser.get(only_link(message), follow=True)
    assert form.status_code == 200 and "new_password1" in form.content.decode()
    done = browser.post(
        form.redirect_chain[-1][0],
        {"new_password1": "Another-pass-987", "new_password2": "Another-pass-987"},
    )
    assert done.status_code == 302
    assert Client().login(username="confirmed", password="Another-pass-987")


@pytest.mark.services
def test_a_real_site_sends_through_smtp_and_its_links_work(transactional_db, tmp_path):
    """aiosmtpd as the SMTP server of a real site process; the test follows the mails'
    links over HTTP as a user would."""
    from aiosmtpd.controller import Controller

    from tests.conftest import free_port, serve_site

    received: list[str] = []

    class Sink:
        async def handle_DATA(self, server, session, envelope):
            received.append(envelope.content.decode("utf-8", "replace"))
            return "250 OK"

    port = free_port()
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    env = {
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "JINRO_RATE_LIMIT_ENABLED": "0",
        "JINRO_ONE_SEAT_PER_IP": "0",
    }
    try:
        with serve_site("mail-site", tmp_path, env) as site:
            browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

            def form(path: str, fields: dict[str, str]):
                page = browser.open(site.url + path, timeout=10).read().decode()
                token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
                body = urllib.parse.urlencode({"csrfmiddlewaretoken": token, **fields})
                return browser.open(site.url + path, body.encode(), timeout=20)

            form(
                "/accounts/register/",
                {
                    "username": "smtp-user",
                    "password1": PASSWORD,
                    "password2": PASSWORD,
                    "email": "smtp-user@example.org",
                },
            )
            assert len(received) == 1 and "smtp-user@example.org" in received[0]
            body = mail_text(received[0])
            browser.open(site.url + urllib.parse.urlsplit(LINK.findall(body)[0]).path)
            assert get_user_model().objects.get(username="smtp-user").email == (
                "smtp-user@example.org"
            )
            form("/accounts/password-reset/", {"email": "smtp-user@example.org"})
            assert len(received) == 2
            reset = urllib.parse.urlsplit(LINK.findall(mail_text(received[1]))[0]).path
            page = browser.open(site.url + reset, timeout=10)
            set_password = urllib.parse.urlsplit(page.geturl()).path
            form(
                set_password,
                {"new_password1": "Kirin-tsuki-8820", "new_password2": "Kirin-tsuki-8820"},
            )
            fresh = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
            browser = fresh  # a new browser logs in with the new password
            answer = form(
                "/accounts/login/", {"username": "smtp-user", "password": "Kirin-tsuki-8820"}
            )
            assert urllib.parse.urlsplit(answer.geturl()).path == "/", "logged in, sent home"
    finally:
        controller.stop()


def mail_text(raw: str) -> str:
    """The text of a mail as the sink received it (headers off, transfer encoding undone)."""
    from email import message_from_string

    message = message_from_string(raw)
    return message.get_payload(decode=True).decode(message.get_content_charset() or "utf-8")
