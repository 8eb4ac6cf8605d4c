from django.apps import AppConfig
from django.core.management.base import CommandError
from django.db.models.signals import pre_migrate
from django.utils.translation import gettext_lazy as _


class VillagesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "villages"
    verbose_name = _("村")

    def ready(self) -> None:
        pre_migrate.connect(refuse_a_partly_squashed_database, sender=self)


def refuse_a_partly_squashed_database(*, using: str, **kwargs: object) -> None:
    """A database that applied only some of the migrations a squash replaced would be left
    as it is, silently: Django runs neither the squash nor the old files, which are gone."""
    from django.db import connections
    from django.db.migrations.loader import MigrationLoader

    loader = MigrationLoader(connections[using], ignore_no_migrations=True)
    for key, squash in loader.replacements.items():
        done = [old for old in squash.replaces if old in loader.applied_migrations]
        if done and len(done) < len(squash.replaces):
            raise CommandError(
                f"{key[0]}: this database stopped at {done[-1][1]}; upgrade to commit 9287ef9 "
                "and migrate there first (README: Upgrading)."
            )
