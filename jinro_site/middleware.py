"""No text with a NUL character (U+0000) gets in: PostgreSQL refuses it in any text
column, so a name, a line or a comment holding one failed as a server error there (and
SQLite kept it). A page's request with one in its query string or a form field is refused
here, before anything reads it: 400, the site's words, nothing changed (a pane's talk box
passes its raw text on to the rules, which a Django form's own refusal did not stop). The
API's bodies are refused by their schemas (jinro_site.apischema.Body), whose patterns say
so (NO_NUL).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.urls import reverse

from .views import nul_character


def refuse_nul(get_response: Callable[[HttpRequest], HttpResponseBase]):
    """Middleware for the pages. The API's bodies are refused by its schemas, after the
    caller is checked (a client learns first that it must log in), and only in the fields
    it reads (an unknown field is ignored, as it always was)."""
    api = reverse("api-v1:api-root")

    def middleware(request: HttpRequest) -> HttpResponseBase:
        if not request.path.startswith(api) and carries_nul(request):
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
