"""No text with a NUL character (U+0000) gets in: PostgreSQL refuses it in any text
column, so a name, a line or a comment holding one failed as a server error there (and
SQLite kept it). A page's request with one in its query string or a form field is refused
here, before anything reads it: 400, the site's words, nothing changed. The one
exception is the upper pane's talk box: its text goes to the rules, which refuse every
control character (NUL among them) and answer in the pane, which keeps the rest of the
text. The API's bodies are refused by their schemas (jinro_site.apischema.Body), whose
patterns say so.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.urls import Resolver404, resolve, reverse

from .views import nul_character


def refuse_nul(get_response: Callable[[HttpRequest], HttpResponseBase]):
    """Middleware for the pages. The API's bodies are refused by its schemas, after the
    caller is checked (a client learns first that it must log in), and only in the fields
    it reads (an unknown field is ignored, as it always was)."""
    api = reverse("api-v1:api-root")

    def middleware(request: HttpRequest) -> HttpResponseBase:
        refused = not request.path.startswith(api) and carries_nul(request)
        if refused and not (request.method == "POST" and _talk_box(request)):
            return nul_character(request)
        return get_response(request)

    return middleware


def carries_nul(request: HttpRequest) -> bool:
    """In the query string or a form's fields (a file may hold any byte)."""
    if "%00" in request.META.get("QUERY_STRING", ""):
        return True
    if request.method not in ("POST", "PUT", "PATCH"):
        return False
    if request.content_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
        fields = request.POST.lists()
        return any("\x00" in key or any("\x00" in v for v in values) for key, values in fields)
    return False


def _talk_box(request: HttpRequest) -> bool:
    """The request is the upper pane's talk box sending a line (villages.views.screen)."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return False
    return match.view_name == "villages:upper" and set(request.POST) <= TALK_FIELDS


TALK_FIELDS = {"csrfmiddlewaretoken", "idempotency_key", "text", "mode"}
