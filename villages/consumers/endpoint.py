"""The address of a village's sockets: `/ws/villages/<id>/`, in the flavour asked for."""

from __future__ import annotations

from typing import Any

from .api import ApiSocket
from .base import query_of
from .screen import ScreenSocket


async def village_socket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI application of `/ws/villages/<id>/`: the flavour the query asks for."""
    flavour = ScreenSocket if query_of(scope).get("screen", [""])[0] == "1" else ApiSocket
    await flavour(scope, send).run(receive)
