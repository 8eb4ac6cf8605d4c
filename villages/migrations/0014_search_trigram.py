"""A trigram index for the past-log search by a part of a handle name (PostgreSQL only).

`selectors.search_ended(player=...)` looks for `UPPER(handle_name) LIKE UPPER('%x%')`
among the seats, which no b-tree serves (the pattern begins with a wildcard): a name that
few seats or none have was looked for in every seat of every village, 145 ms at 10,000
ended villages (bench/logs.py). pg_trgm's GIN index on the same expression finds those
seats at once. SQLite has neither the extension nor GIN: there these operations do
nothing, and the search reads the seats as before. The index is not in the model's Meta,
since SQLite would then be asked to build it whenever it remakes the seat table.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INDEX = "seat_handle_name_trgm"


class OnPostgreSQL:
    """An operation's work on the database done on PostgreSQL only, either way (Django's
    CreateExtension checks the vendor going forwards but not backwards)."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class Trigrams(OnPostgreSQL, TrigramExtension):
    """CREATE EXTENSION pg_trgm (DROP going backwards)."""


class PostgresOnlySQL(OnPostgreSQL, migrations.RunSQL):
    """RunSQL on PostgreSQL only."""


class Migration(migrations.Migration):
    dependencies = [
        ("villages", "0013_line_numbers"),
    ]

    operations = [
        Trigrams(),
        PostgresOnlySQL(
            sql=(
                f"CREATE INDEX IF NOT EXISTS {INDEX} ON villages_seat "
                "USING gin (UPPER(handle_name) gin_trgm_ops)"
            ),
            reverse_sql=f"DROP INDEX IF EXISTS {INDEX}",
        ),
    ]
