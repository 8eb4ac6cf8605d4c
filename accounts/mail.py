"""E-mail addresses: optional, given at registration or on the profile, and in use only
once confirmed by the link mailed to them.

The address waits in the profile (`pending_email`) until its link is followed; only then
does it become the user's `email`, the one Django's password reset writes to. A link is
signed (it names the user and the address) and works for EMAIL_CONFIRM_SECONDS; giving
another address makes the earlier link useless.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import send_mail
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from villages.engine.errors import BadRequest
from villages.services.ratelimit import MAIL_LIMIT, rate_limit

from .services import profile_of

SALT = "accounts.mail.confirm"


def ask_to_confirm(request: HttpRequest, user: Any, address: str) -> None:
    """Keep `address` as the user's pending one and mail it its confirmation link."""
    rate_limit("mail", str(user.pk), MAIL_LIMIT)
    profile = profile_of(user)
    profile.pending_email = address
    profile.save(update_fields=["pending_email"])
    token = signing.dumps({"user": user.pk, "email": address}, salt=SALT)
    link = request.build_absolute_uri(reverse("accounts:confirm_email", args=[token]))
    context = {"user": user, "link": link, "hours": settings.EMAIL_CONFIRM_SECONDS // 3600}
    send_mail(
        _("メールアドレスの確認"),
        render_to_string("accounts/confirm_email.txt", context),
        settings.DEFAULT_FROM_EMAIL,
        [address],
    )


def confirm(token: str) -> Any:
    """Follow a confirmation link: the address becomes the user's. Returns the user."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.EMAIL_CONFIRM_SECONDS)
    except signing.SignatureExpired:
        raise BadRequest(
            _("確認用のリンクの有効期限が切れています。もう一度送ってください。")
        ) from None
    except signing.BadSignature:
        raise BadRequest(_("確認用のリンクが正しくありません。")) from None
    user = get_user_model().objects.filter(pk=data.get("user"), is_active=True).first()
    profile = profile_of(user) if user is not None else None
    if profile is None or profile.pending_email != data.get("email"):
        raise BadRequest(
            _("このリンクはもう使えません（別のアドレスが指定されたか、確認済みです）。")
        )
    user.email = profile.pending_email
    user.save(update_fields=["email"])
    profile.pending_email = ""
    profile.save(update_fields=["pending_email"])
    return user


def forget(user: Any) -> None:
    """The user takes back its address (confirmed or pending): no mail goes to it."""
    user.email = ""
    user.save(update_fields=["email"])
    profile = profile_of(user)
    profile.pending_email = ""
    profile.save(update_fields=["pending_email"])
