"""`/media/` (icons uploaded by admins) served by the site itself (JINRO_SERVE_STATIC).

A small site runs without a front web server, so its uploaded icons are asked of daphne.
Here a file under MEDIA_ROOT is found once, kept in memory if small, and answered on the
event loop with an ETag and a cache lifetime, so a browser that has it asks again only to
hear 304. (`/static/` is WhiteNoise's, in Django's middleware: hashed names, compressed.)
"""

from __future__ import annotations

import hashlib
import mimetypes
import posixpath
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from django.conf import settings

MAX_CACHED = 512 * 1024  # larger files are read from disk each time
MAX_AGE = 3600
MAX_FILES = 5000


class _File:
    __slots__ = ("body", "etag", "headers", "path")

    def __init__(self, path: Path) -> None:
        self.path = path
        data = path.read_bytes()
        self.etag = '"' + hashlib.blake2b(data, digest_size=8).hexdigest() + '"'
        self.body = data if len(data) <= MAX_CACHED else None
        kind, encoding = mimetypes.guess_type(path.name)
        kind = kind or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
            kind += "; charset=utf-8"
        self.headers = [
            (b"content-type", kind.encode()),
            (b"etag", self.etag.encode()),
            (b"cache-control", f"public, max-age={MAX_AGE}".encode()),
            (b"x-content-type-options", b"nosniff"),
        ]
        if encoding:
            self.headers.append((b"content-encoding", encoding.encode()))

    def read(self) -> bytes:
        return self.body if self.body is not None else self.path.read_bytes()


class MediaFiles:
    """ASGI middleware: answer GET and HEAD under MEDIA_URL, pass the rest."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.prefixes = [("/" + settings.MEDIA_URL.lstrip("/"), self._media)]
        self.files: dict[str, _File] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            path = scope["path"]
            for prefix, find in self.prefixes:
                if path.startswith(prefix):
                    await self._answer(scope, send, find, unquote(path[len(prefix) :]))
                    return
        await self.app(scope, receive, send)

    def _media(self, name: str) -> Path | None:
        root = Path(settings.MEDIA_ROOT).resolve()
        candidate = (root / name).resolve()
        return candidate if candidate.is_file() and root in candidate.parents else None

    async def _answer(self, scope: dict[str, Any], send: Any, find: Any, name: str) -> None:
        key = f"{id(find)}:{name}"
        found = self.files.get(key)
        if found is None:
            clean = posixpath.normpath(name).lstrip("/")
            safe = clean and not clean.startswith("..") and "\x00" not in clean
            path = find(clean) if safe else None
            if path is not None:
                found = _File(path)
                if len(self.files) < MAX_FILES:  # only files that exist are remembered
                    self.files[key] = found
        if found is None:
            await _send(send, 404, [(b"content-type", b"text/plain; charset=utf-8")], b"404")
            return
        asked = dict(scope.get("headers") or []).get(b"if-none-match", b"")
        if found.etag.encode() in asked:
            await _send(send, 304, [(b"etag", found.etag.encode())], b"")
            return
        body = found.read()
        headers = [*found.headers, (b"content-length", str(len(body)).encode())]
        await _send(send, 200, headers, b"" if scope["method"] == "HEAD" else body)


async def _send(send: Any, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
