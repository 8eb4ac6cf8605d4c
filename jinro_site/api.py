"""`/api/v1/`: one NinjaAPI for the routers of the apps, with the error shape of API.md."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.urls import reverse
from django.utils.translation import gettext_noop
from ninja import NinjaAPI, Router
from ninja.errors import HttpError
from ninja.errors import ValidationError as NinjaValidationError

from accounts.api import router as accounts_router
from jinro_site.apiauth import optional_user
from jinro_site.apischema import NUL_ERROR
from jinro_site.views import nul_character, server_error
from villages.api import router as villages_router
from villages.engine.errors import RuleError
from villages.services.errors import RETRY_AFTER, NotAuthenticated, NotFound, http_status

logger = logging.getLogger(__name__)

api = NinjaAPI(
    title="jinro_site API",
    version="1",
    description=(
        "汝は人狼なりや？ villages for bots, clients and acceptance checks. What the site adds"
        " to this document (errors, Idempotency-Key, message ids) is in docs/api.md."
    ),
    urls_namespace="api-v1",
)
api.add_router("/", accounts_router)
api.add_router("/", villages_router)

# Last: an unknown path under /api/v1/ answers in the API's error shape, not an HTML page.
unknown = Router()


@unknown.api_operation(
    ["GET", "POST", "PUT", "PATCH", "DELETE"], "/{path:rest}", include_in_schema=False
)
def no_such_endpoint(request: HttpRequest, rest: str) -> None:
    raise NotFound(gettext_noop("そのAPIはありません。"))


api.add_router("/", unknown)


def error_response(request: HttpRequest, code: str, message: str, status: int) -> HttpResponse:
    return api.create_response(
        request, {"error": {"code": code, "message": message}}, status=status
    )


READS = frozenset({"GET", "HEAD", "OPTIONS"})


def caller_first(run: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Who is calling, checked before the body and the parameters are parsed.

    A token that is not valid is refused on every endpoint, and a write without a caller
    (but auth/*) is 401 `not_authenticated`, even when its body is malformed as well:
    the client has to learn first that it must log in.
    """

    @functools.wraps(run)
    def checked(request: HttpRequest, **kwargs: object) -> HttpResponseBase:
        try:
            caller = optional_user(request)
        except RuleError as exc:
            return on_rule_error(request, exc)
        auth_path = request.path.startswith(_auth_root())
        if caller is None and request.method not in READS and not auth_path:
            return on_rule_error(request, NotAuthenticated())
        return run(request, **kwargs)

    return checked


api.add_decorator(caller_first, mode="view")


@functools.cache
def _auth_root() -> str:
    """Where auth/* starts (as the middlewares below, found once: `reverse` is a walk of
    the URL patterns, a tenth of a millisecond on every API request)."""
    return reverse("api-v1:api-root") + "auth/"


@api.exception_handler(RuleError)
def on_rule_error(request: HttpRequest, exc: RuleError) -> HttpResponse:
    response = error_response(request, exc.code, exc.message, http_status(exc))
    wait = getattr(exc, "retry_after", None) or RETRY_AFTER.get(exc.code)
    if wait:
        response["Retry-After"] = str(wait)
    return response


@api.exception_handler(RequestDataTooBig)
def on_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    """A body past DATA_UPLOAD_MAX_MEMORY_SIZE: refused (413), nothing read, no fault."""
    message = gettext_noop("リクエストの本文が大きすぎます。")
    return error_response(request, "request_too_large", message, 413)


@api.exception_handler(Exception)
def on_unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    """A bug: the log has the traceback, the client API.md's shape and nothing more (also
    with DEBUG on: a client reads the body, not a debugging page)."""
    logger.error("API %s %s failed", request.method, request.path, exc_info=exc)
    return server_error(request)


@api.exception_handler(NinjaValidationError)
def on_validation_error(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
    if any(e.get("loc", ("",))[0] == "path" for e in exc.errors):
        return on_rule_error(request, NotFound())  # /villages/abc: no such village
    if any(e.get("type") == NUL_ERROR for e in exc.errors):
        return nul_character(request)
    fields = ", ".join(".".join(str(p) for p in e.get("loc", ())[1:]) or "body" for e in exc.errors)
    return error_response(
        request, "bad_request", f"リクエストの形式が正しくありません（{fields}）。", 400
    )


# ninja's own errors (an unreadable body, …) carry English text: people get Japanese.
HTTP_ERRORS = {
    400: ("bad_request", "リクエストの本文をJSONとして読めません。"),
    401: ("not_authenticated", "ログインしてください。"),
    403: ("forbidden", "その操作は許されていません。"),
    404: ("not_found", "見つかりません。"),
}


@api.exception_handler(HttpError)
def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    code, message = HTTP_ERRORS.get(exc.status_code, HTTP_ERRORS[400])
    return error_response(request, code, message, exc.status_code)


def method_not_allowed(get_response: Callable[[HttpRequest], HttpResponseBase]):
    """Middleware: a known API path asked with another method answers 405 in the API's
    error shape (ninja answers such requests itself, in plain text, before any handler)."""

    root = reverse("api-v1:api-root")

    def middleware(request: HttpRequest) -> HttpResponseBase:
        response = get_response(request)
        if response.status_code == 405 and request.path.startswith(root):
            allowed = response.get("Allow", "")
            response = error_response(
                request, "method_not_allowed", "そのメソッドは使えません。", 405
            )
            response["Allow"] = allowed
        return response

    return middleware
