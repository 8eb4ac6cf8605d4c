"""daphne's HTTP requests pass their body on unread.

daphne's `WebRequest` is a twisted `http.Request`, and twisted, for every POST with a body,
parses the request's Content-Type with the standard library's `email` package; for a form
it then parses the body into `request.args`, and for a multipart upload (an icon) it runs
the whole file through `email`'s parser. daphne reads none of that: it hands the raw body
to the ASGI application, which parses it (Django's forms, ninja's JSON) once more.

Measured with py-spy on daphne's event loop while lines were POSTed to the API
(bench/post_cpu.py), the Content-Type parse alone was a sixth of the loop's busy time:
twisted's own test for that work is a flag of the request (`parsePOSTFormSubmission`),
which daphne leaves at its default. `read_bodies_once()` makes daphne's requests be
created with it off. tests/web/test_daphne_http.py fails if an upgrade of daphne or
twisted changes what this relies on.
"""

from __future__ import annotations

from typing import Any

from daphne import http_protocol


class WebRequest(http_protocol.WebRequest):
    """daphne's request, with twisted's parsing of forms and uploads left out."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, parsePOSTFormSubmission=False, **kwargs)


def read_bodies_once() -> None:
    """Make daphne's HTTP channels build `WebRequest` (daphne's `HTTPFactory` takes the
    class from its module's namespace each time it builds a channel)."""
    http_protocol.WebRequest = WebRequest  # type: ignore[misc]
