"""Whether anyone else has committed to the database: what lets a process that polls the
database (the embedded sweep ticker, the socket hub's heartbeat) skip a read when nothing
can have changed.

`marker()` is a value that moves whenever another connection — another thread's, another
process's — commits a change to the database since this thread's connection last read it:
SQLite's `PRAGMA data_version` (https://sqlite.org/pragma.html#pragma_data_version), paired
with how many connections this thread has opened, since a new connection counts afresh
(Django's documented `connection_created` signal). This thread's own commits do not move
it: a caller reads the marker before its own read of what it watches, so that a commit
after that read moves it. None on an engine without such a marker (PostgreSQL): the
caller reads every time.
"""

from __future__ import annotations

import threading

from django.db import connection
from django.db.backends.signals import connection_created

_opened = threading.local()


def _count_connection(sender: object, connection: object, **kwargs: object) -> None:
    _opened.count = getattr(_opened, "count", 0) + 1


connection_created.connect(_count_connection, dispatch_uid="jinro_site.dbchanges")


def marker() -> tuple[int, int] | None:
    """What moves when another connection commits (see the module's docstring)."""
    if connection.vendor != "sqlite":
        return None
    with connection.cursor() as cursor:  # opens the connection first, if need be
        cursor.execute("PRAGMA data_version")
        (version,) = cursor.fetchone()
    return getattr(_opened, "count", 0), version
