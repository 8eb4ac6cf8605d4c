"""Account pages: login, logout, registration, password reset, profile, history."""

from __future__ import annotations

import logging
import smtplib

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import check_for_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from jinro_site.apiauth import client_ip
from villages.engine.errors import RuleError
from villages.services.errors import http_status
from villages.wording import ROLE, TEAM, error_text, label

from . import mail, selectors, services
from .forms import EmailForm, LoginForm, PreferencesForm, RegisterForm

logger = logging.getLogger(__name__)


def _ip(request: HttpRequest) -> str:
    return client_ip(request) or "-"


def _with_language(response: HttpResponse, language: str) -> HttpResponse:
    if language and check_for_language(language):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME, language, max_age=365 * 24 * 3600, samesite="Lax"
        )
    return response


class LoginView(auth_views.LoginView):
    """Django's login, rate-limited per address like the API, restoring the user's language."""

    template_name = "accounts/login.html"
    form_class = LoginForm
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        try:
            services.rate_limit("login", _ip(request), services.LOGIN_LIMIT)
        except RuleError as exc:
            form = self.get_form()
            form.is_valid()
            form.add_error(None, error_text(exc))
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        response = super().form_valid(form)
        return _with_language(response, services.profile_of(form.get_user()).language)


class LogoutView(auth_views.LogoutView):
    pass


def register(request: HttpRequest) -> HttpResponse:
    error = refusal = None
    status = 200
    if request.method == "POST":
        form = RegisterForm(request.POST)
        if form.is_valid():
            try:
                user, _token = services.register(
                    username=form.cleaned_data["username"],
                    password=form.cleaned_data["password1"],
                    ip=_ip(request),
                )
            except RuleError as exc:
                refusal, error, status = exc, error_text(exc), http_status(exc)
            else:
                login(request, user, backend="accounts.backends.BanAwareBackend")
                messages.success(request, _("登録しました。ようこそ！"))
                if address := form.cleaned_data.get("email"):
                    _mail_confirmation(request, user, address, registering=True)
                nxt = request.POST.get("next", "")
                safe = url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()})
                return HttpResponseRedirect(nxt if nxt and safe else "/")
        else:
            status = 400
    else:
        form = RegisterForm()
    response = render(
        request,
        "accounts/register.html",
        {"form": form, "error": error, "next": request.GET.get("next", "")},
        status=status,
    )
    if wait := getattr(refusal, "retry_after", None):
        response["Retry-After"] = str(wait)
    return response


def _mail_confirmation(
    request: HttpRequest, user, address: str, *, registering: bool = False
) -> bool:
    """Mail the address its confirmation link; a mail that cannot go is said, not raised
    (what the user did is saved either way). The account is made already: the link only
    confirms the address (accounts.mail), which is then the one password resets go to."""
    try:
        mail.ask_to_confirm(request, user, address)
    except RuleError as exc:
        messages.error(request, error_text(exc))
        return False
    except (OSError, smtplib.SMTPException):
        logger.exception("confirmation mail to user %s could not be sent", user.pk)
        messages.error(
            request,
            _(
                "確認のメールを送れませんでした。しばらくしてからプロフィールでもう一度送ってください。"
            ),
        )
        return False
    sent = (
        _(
            "アカウントはもう使えます。%(address)s に確認のメールを送りました。"
            "メールのリンクを開くと、このアドレスが確認されます。"
        )
        if registering
        else _(
            "%(address)s に確認のメールを送りました。"
            "メールのリンクを開くと、このアドレスが確認されます。"
        )
    )
    messages.success(request, sent % {"address": address})
    return True


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    prof = services.profile_of(request.user)
    response: HttpResponse | None = None
    email_form = EmailForm()
    if request.method == "POST" and request.POST.get("renew_token"):
        prof.renew_token()
        messages.success(request, _("APIトークンを新しくしました。"))
        return HttpResponseRedirect(reverse_lazy("accounts:profile"))
    if request.method == "POST" and request.POST.get("forget_email"):
        mail.forget(request.user)
        messages.success(request, _("メールアドレスを削除しました。"))
        return HttpResponseRedirect(reverse_lazy("accounts:profile"))
    if request.method == "POST" and "email" in request.POST:
        email_form = EmailForm(request.POST)
        if email_form.is_valid():
            _mail_confirmation(request, request.user, email_form.cleaned_data["email"])
            return HttpResponseRedirect(reverse_lazy("accounts:profile"))
    if request.method == "POST" and "email" not in request.POST:
        form = PreferencesForm(request.POST)
        if form.is_valid():
            prof.refresh_seconds = form.cleaned_data["refresh_seconds"]
            prof.sound = form.cleaned_data["sound"]
            prof.list_below = form.cleaned_data["list_below"]
            prof.language = form.cleaned_data["language"]
            prof.save()
            messages.success(request, _("設定を保存しました。"))
            response = HttpResponseRedirect(reverse_lazy("accounts:profile"))
            if prof.language:
                return _with_language(response, prof.language)
            response.delete_cookie(settings.LANGUAGE_COOKIE_NAME)
            return response
    else:
        form = PreferencesForm(
            initial={
                "refresh_seconds": prof.refresh_seconds,
                "sound": prof.sound,
                "list_below": prof.list_below,
                "language": prof.language,
            }
        )
    return render(
        request,
        "accounts/profile.html",
        {
            "profile": prof,
            "form": form,
            "email_form": email_form,
            "sudden_deaths": selectors.sudden_deaths(request.user.get_username()),
        },
        status=400 if email_form.errors else 200,
    )


def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link of a confirmation mail: the address becomes the account's."""
    try:
        user = mail.confirm(token)
    except RuleError as exc:
        return render(request, "villages/error.html", {"error": error_text(exc)}, status=400)
    messages.success(
        request, _("メールアドレス %(address)s を登録しました。") % {"address": user.email}
    )
    return HttpResponseRedirect(reverse_lazy("accounts:profile"))


def history(request: HttpRequest, username: str) -> HttpResponse:
    practice = request.GET.get("practice") == "1"
    try:
        data = selectors.history(username, include_practice=practice)
    except RuleError as exc:
        return render(request, "villages/error.html", {"error": error_text(exc)}, status=404)
    stats = data["stats"]
    most = max([v["games"] for v in stats["by_role"].values()] + [1])
    by_role = [
        _bar(label(ROLE, code), v["games"], v["wins"], most)
        for code, v in sorted(stats["by_role"].items(), key=lambda kv: -kv[1]["games"])
    ]
    most_team = max([v["games"] for v in stats["by_team"].values()] + [1])
    by_team = [
        _bar(label(TEAM, code), v["games"], v["wins"], most_team)
        for code, v in sorted(stats["by_team"].items(), key=lambda kv: -kv[1]["games"])
    ]
    games = [
        {**g, "role_label": label(ROLE, g["role"]), "team_label": label(TEAM, g["team"])}
        for g in data["games"]
    ]
    return render(
        request,
        "accounts/history.html",
        {
            "username": data["username"],
            "practice": practice,
            "has_practice": any(g["practice"] for g in games),
            "games": games,
            "stats": stats,
            "win_rate": round(100 * stats["wins"] / stats["games"]) if stats["games"] else 0,
            "losses": stats["games"] - stats["wins"] - stats["draws"],
            "by_role": by_role,
            "by_team": by_team,
            "sudden_deaths": selectors.sudden_deaths(username),
        },
    )


def _bar(name: str, games: int, wins: int, most: int) -> dict:
    """One bar of an inline SVG chart: games (light) with wins (dark) over it."""
    width = 240
    return {
        "name": name,
        "games": games,
        "wins": wins,
        "rate": round(100 * wins / games) if games else 0,
        "games_w": round(width * games / most),
        "wins_w": round(width * wins / most),
    }


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The language switch: a cookie, and the profile of a logged-in user."""
    language = request.POST.get("language", "")
    nxt = request.POST.get("next", "/")
    if not url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()}):
        nxt = "/"
    response = HttpResponseRedirect(nxt)
    if not check_for_language(language):
        return response
    if request.user.is_authenticated:
        prof = services.profile_of(request.user)
        prof.language = language
        prof.save(update_fields=["language"])
    return _with_language(response, language)


password_reset = auth_views.PasswordResetView.as_view(
    template_name="accounts/password_reset.html",
    email_template_name="accounts/password_reset_email.txt",
    success_url=reverse_lazy("accounts:password_reset_done"),
)
password_reset_done = auth_views.PasswordResetDoneView.as_view(
    template_name="accounts/password_reset_done.html"
)
password_reset_confirm = auth_views.PasswordResetConfirmView.as_view(
    template_name="accounts/password_reset_confirm.html",
    success_url=reverse_lazy("accounts:password_reset_complete"),
)
password_reset_complete = auth_views.PasswordResetCompleteView.as_view(
    template_name="accounts/password_reset_complete.html"
)
