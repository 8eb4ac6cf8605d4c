"""Operational endpoints of the site itself."""

import logging

from django.db import connection
from django.http import HttpRequest, HttpResponsePermanentRedirect, JsonResponse
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from jinro_site import livebus
from villages.consumers.hub import hub_healthy
from villages.services.errors import Overloaded

logger = logging.getLogger(__name__)

CHANNEL_LAYER_TIMEOUT = 3.0


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def check_channel_layer() -> None:
    """The layer takes a publish (on the loop the site publishes from: nothing is created
    or left behind), and this process's socket hub, if it runs, hears its own pings."""
    livebus.check(CHANNEL_LAYER_TIMEOUT)
    if not hub_healthy():
        raise RuntimeError("the socket hub's pings through the channel layer do not come back")


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the channel layer both answer, else 503."""
    checks = {"database": check_database, "channel_layer": check_channel_layer}
    body = {"status": "ok"}
    for name, check in checks.items():
        try:
            check()
        except Exception as error:
            logger.warning("health check %s failed: %s", name, livebus.what_failed(error))
            body[name] = "error"
            body["status"] = "error"
        else:
            body[name] = "ok"
    return JsonResponse(body, status=200 if body["status"] == "ok" else 503)


FAVICON = "villages/icons/silver-moon.svg"


@require_GET
def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico on their own; the pages also name the icon in <head>."""
    return HttpResponsePermanentRedirect(static(FAVICON))


# --- The site's own error pages (urls.handler500; jinro_site.handler's 503) -------------------

API_PREFIX = "/api/"


def error_answer(request_path: str, status: int, code: str, message: str, title: str):
    """An error as the caller reads it: API.md's error shape under /api/, else a page of
    the site's own (drawn without the request: nothing of it may fail again)."""
    from django.http import HttpResponse
    from django.template.loader import render_to_string

    if request_path.startswith(API_PREFIX):
        response = JsonResponse({"error": {"code": code, "message": message}}, status=status)
    else:
        page = render_to_string("errors/plain.html", {"title": title, "message": message})
        response = HttpResponse(page, status=status)
    response["Content-Length"] = str(len(response.content))  # no middleware may run after
    return response


def _refusal(status: int, code: str, message: str, title: str, doc: str):
    """A handler answering `status` with the site's own page (API.md's shape under /api/);
    `message` and `title` are msgids, translated for each request."""

    def handler(request: HttpRequest, *args: object, **kwargs: object):
        return error_answer(request.path, status, code, _(message), _(title))

    handler.__doc__ = doc
    return handler


not_found = _refusal(
    404,
    "not_found",
    gettext_noop("お探しのページは見つかりませんでした。アドレスを確かめてください。"),
    gettext_noop("ページが見つかりません"),
    "handler404",
)
forbidden = _refusal(
    403,
    "forbidden",
    gettext_noop("このページを見る権限がありません。"),
    gettext_noop("アクセスできません"),
    "handler403",
)
bad_request = _refusal(
    400,
    "bad_request",
    gettext_noop("リクエストを読み取れませんでした。"),
    gettext_noop("不正なリクエスト"),
    "handler400 (a malformed request, or a Host not in ALLOWED_HOSTS)",
)
nul_character = _refusal(
    400,
    "bad_request",
    gettext_noop("使えない文字（U+0000 NUL）が含まれています。何も変更していません。"),
    gettext_noop("使えない文字"),
    "a request carrying a NUL character (jinro_site.middleware.refuse_nul)",
)
csrf_failure = _refusal(
    403,
    "forbidden",
    gettext_noop(
        "フォームの有効期限が切れたか、別のサイトから送られました。何も変更していません。"
        "ページを読み込み直してから、もう一度送ってください。"
    ),
    gettext_noop("送信を受け付けられません"),
    "CSRF_FAILURE_VIEW: a form sent from a stale or foreign page; nothing was changed",
)


def server_error(request: HttpRequest):
    """handler500: nothing of what went wrong is shown (it is in the log)."""
    return error_answer(
        request.path,
        500,
        "server_error",
        _("サーバーでエラーが起きました。時間をおいてやり直してください。"),
        _("サーバーエラー"),
    )


def overloaded(path: str):
    """A request refused before it ran because the site is past its capacity."""
    message = _(Overloaded.default_message)
    response = error_answer(path, 503, Overloaded.code, message, _("混み合っています"))
    response["Retry-After"] = "1"
    return response
