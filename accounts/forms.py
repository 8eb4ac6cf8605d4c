"""Forms of the account pages; registration itself is `accounts.services.register`."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from villages.services.errors import Banned

from .models import REFRESH_CHOICES
from .services import refuse_banned_login


class LoginForm(AuthenticationForm):
    """Django's login form; a user banned from logging in, with the right password, is
    told the ban's kind, reason and end instead of "wrong password"."""

    def clean(self) -> dict:
        try:
            return super().clean()
        except forms.ValidationError:
            try:
                refuse_banned_login(
                    self.cleaned_data.get("username") or "", self.cleaned_data.get("password") or ""
                )
            except Banned as banned:
                raise forms.ValidationError(banned.message, code="banned") from None
            raise


class RegisterForm(forms.Form):
    username = forms.CharField(label=_("ユーザー名"), max_length=150)
    password1 = forms.CharField(label=_("パスワード"), widget=forms.PasswordInput)
    password2 = forms.CharField(label=_("パスワード（確認）"), widget=forms.PasswordInput)
    email = forms.EmailField(
        label=_("メールアドレス（任意）"),
        required=False,
        help_text=_("パスワードを忘れたときの再設定に使います。確認のメールが届きます。"),
    )

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password1") != data.get("password2"):
            raise forms.ValidationError(_("パスワードが一致しません。"))
        return data


class EmailForm(forms.Form):
    email = forms.EmailField(label=_("メールアドレス"))


class PreferencesForm(forms.Form):
    refresh_seconds = forms.TypedChoiceField(
        label=_("自動更新"),
        coerce=int,
        choices=[(n, str(n)) for n in REFRESH_CHOICES],  # worded in __init__
    )
    sound = forms.BooleanField(label=_("音でお知らせ"), required=False)
    list_below = forms.BooleanField(
        label=_("村人リストを会話の下に表示（↓リスト）"), required=False
    )
    language = forms.ChoiceField(
        label=_("言語"),
        choices=[("", _("ブラウザに合わせる")), *settings.LANGUAGES],
        required=False,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # "15秒" as the game screen's controls say it, in the request's language.
        self.fields["refresh_seconds"].choices = [
            (n, gettext("%(n)s秒") % {"n": n} if n else gettext("手動")) for n in REFRESH_CHOICES
        ]
