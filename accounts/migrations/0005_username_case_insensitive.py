"""User names unique regardless of letter case (issue 39, item 9): a unique index on the
lower-cased user name, beside Django's own unique one (a name is already unique regardless
of width: Django keeps it NFKC-normalised).

No account is changed or lost. Where the database already holds names that differ only in
case, the index is not made: `manage.py migrate` (and `manage.py check --database default`)
then lists them (accounts.W001), the staff rename all but one of each group in the admin,
and `manage.py migrate accounts 0004 && manage.py migrate` makes the index. Registration
refuses such a name either way (`accounts.names`)."""

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, migrations, transaction

from accounts.names import case_clashes

INDEX = "accounts_username_lower_uniq"
logger = logging.getLogger(__name__)


def add_index(apps, schema_editor):
    User = apps.get_model(settings.AUTH_USER_MODEL)
    # The historical model has no USERNAME_FIELD: the field's name is the model's.
    name_field = User._meta.get_field(get_user_model().USERNAME_FIELD)
    table, column = User._meta.db_table, name_field.column
    users = User._default_manager.using(schema_editor.connection.alias)
    names = users.values_list(name_field.name, flat=True)
    clashes = case_clashes(names)
    if clashes:
        logger.warning("user names that differ only in case, no index made: %s", clashes)
        return
    q = schema_editor.quote_name
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute(
                f"CREATE UNIQUE INDEX {q(INDEX)} ON {q(table)} (LOWER({q(column)}))"
            )
    except IntegrityError:  # the database lower-cases some letter as Python does not
        logger.warning("user names that differ only in case: no index made", exc_info=True)


def drop_index(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(INDEX)}")


class Migration(migrations.Migration):
    # After the user table's own latest migration: on SQLite, altering a table remakes it,
    # and an index that only SQL made would not be made again.
    dependencies = [
        ("accounts", "0004_ban_field_names"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(add_index, drop_index)]
