"""The trigram index of the past-log search by a part of a handle name (migration 0014):
on PostgreSQL it exists and the search's own query can use it; elsewhere it is absent and
the migration did nothing."""

import pytest
from django.db import connection

from villages.models import Seat

pytestmark = pytest.mark.django_db

INDEX = "seat_handle_name_trgm"


def _seat_indexes() -> set[str]:
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, "villages_seat")
    return {name for name, info in found.items() if info["index"]}


def test_the_index_only_on_postgresql():
    assert (INDEX in _seat_indexes()) == (connection.vendor == "postgresql")


def test_the_handle_name_lookup_can_use_it():
    """The search's lookup of a part of a handle name (`icontains`: UPPER(...) LIKE) is the
    index's expression; an empty table makes the planner read it only when nothing else
    will do (no sequential scan)."""
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL index")
    seats = Seat.objects.filter(handle_name__icontains="nobody-at-all").order_by().values("id")
    sql, params = seats.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert INDEX in plan, plan
