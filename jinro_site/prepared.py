"""Reads on every request's path, compiled by the ORM once instead of on every call.

Building a query's SQL is most of what a one-row ORM read costs (about 0.5 ms, against
0.03 ms for running it), and a posted line makes such reads for its token and for its
village. A `Prepared` read keeps what the ORM compiled — the SQL, its converters, the
columns of each model — and runs it again with a new parameter; the rows come back
through the ORM's own converters and model loaders, so they are what the queryset gives.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

M = TypeVar("M", bound=Model)


class _Compiled:
    def __init__(self, queryset: QuerySet[Any], sample: object, alias: str) -> None:
        self.connection = connections[alias]
        self.compiler = queryset.query.get_compiler(using=alias)
        self.sql, params = self.compiler.as_sql()
        self.params = list(params)
        found = [i for i, p in enumerate(self.params) if p == sample]
        if len(found) != 1:
            raise ValueError(f"the sample parameter {sample!r} must stand once in {params!r}")
        self.at = found[0]
        klass_info, select = self.compiler.klass_info, self.compiler.select
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.columns = [f[0].target.attname for f in select[self.start : self.end]]
        self.related = get_related_populators(klass_info, select, alias)
        selected = [column[0] for column in select[: self.compiler.col_count]]
        self.converters = self.compiler.get_converters(selected)


def _in_range(number: int, connection: Any) -> bool:
    """Whether a BIGINT column (the ids here) can hold `number`."""
    low, high = connection.ops.integer_field_range("BigIntegerField")
    return low <= number <= high


class Prepared(Generic[M]):
    """The first row of `make(parameter)` (a queryset with one parameter), as a model
    instance with its `select_related` rows, or None. `sample` is a value of the
    parameter's type that the queryset is compiled with; it must appear once in the
    compiled parameters. Compiled once per thread (each thread has its connection)."""

    def __init__(
        self,
        make: Callable[[Any], QuerySet[M]],
        sample: object,
        alias: str = DEFAULT_DB_ALIAS,
    ) -> None:
        self.make, self.sample, self.alias = make, sample, alias
        self.local = threading.local()

    def _compiled(self) -> _Compiled:
        compiled: _Compiled | None = getattr(self.local, "compiled", None)
        if compiled is None or compiled.connection is not connections[self.alias]:
            compiled = _Compiled(self.make(self.sample)[:1], self.sample, self.alias)
            self.local.compiled = compiled
        return compiled

    def first(self, parameter: object) -> M | None:
        c = self._compiled()
        if isinstance(parameter, int) and not _in_range(parameter, c.connection):
            return None  # as the ORM's lookup: no row has an id the column cannot hold
        params = list(c.params)
        params[c.at] = parameter
        with c.connection.cursor() as cursor:
            cursor.execute(c.sql, params)
            rows = cursor.fetchmany(1)
        if not rows:
            return None
        row = rows[0]
        if c.converters:
            row = next(iter(c.compiler.apply_converters(rows, c.converters)))
        obj: M = c.model.from_db(self.alias, c.columns, row[c.start : c.end])
        for related in c.related:
            related.populate(row, obj)
        return obj


class Insert(Generic[M]):
    """INSERT of `model` rows, one statement a row, every concrete field but the pk, which
    comes back (RETURNING: PostgreSQL, SQLite ≥ 3.35). Values are prepared as the ORM's
    save prepares them (`pre_save`: auto_now_add; `get_db_prep_save`: JSON, datetimes)."""

    def __init__(self, model: type[M], alias: str = DEFAULT_DB_ALIAS) -> None:
        meta = model._meta
        self.alias = alias
        self.fields = [f for f in meta.concrete_fields if not f.generated and not f.primary_key]
        qn = connections[alias].ops.quote_name
        columns = ", ".join(qn(f.column) for f in self.fields)
        marks = ", ".join(["%s"] * len(self.fields))
        self.sql = (
            f"INSERT INTO {qn(meta.db_table)} ({columns}) VALUES ({marks}) "
            f"RETURNING {qn(meta.pk.column)}"
        )

    def save(self, objs: list[M]) -> list[M]:
        connection = connections[self.alias]
        with connection.cursor() as cursor:
            for obj in objs:
                params = [
                    f.get_db_prep_save(f.pre_save(obj, True), connection) for f in self.fields
                ]
                cursor.execute(self.sql, params)
                obj.pk = cursor.fetchone()[0]
                obj._state.adding = False
                obj._state.db = self.alias
        return objs


class Update(Generic[M]):
    """UPDATE of `fields` of the rows whose `where` fields equal the values given, adding 1
    to `counter` (a version); returns how many rows changed. Values are prepared as the
    ORM's update prepares them."""

    def __init__(
        self,
        model: type[M],
        fields: list[str],
        where: list[str],
        counter: str,
        alias: str = DEFAULT_DB_ALIAS,
    ) -> None:
        meta = model._meta
        self.alias = alias
        self.fields = [meta.get_field(name) for name in fields]
        self.where = [meta.get_field(name) for name in where]
        qn = connections[alias].ops.quote_name
        counted = qn(meta.get_field(counter).column)
        sets = ", ".join(
            [*(f"{qn(f.column)} = %s" for f in self.fields), f"{counted} = {counted} + 1"]
        )
        matches = " AND ".join(f"{qn(f.column)} = %s" for f in self.where)
        self.sql = f"UPDATE {qn(meta.db_table)} SET {sets} WHERE {matches}"

    def run(self, values: dict[str, Any], where: list[Any]) -> int:
        connection = connections[self.alias]
        params = [f.get_db_prep_save(values[f.name], connection) for f in self.fields]
        params += [
            f.get_db_prep_value(v, connection) for f, v in zip(self.where, where, strict=True)
        ]
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            return cursor.rowcount
