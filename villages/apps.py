from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class VillagesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "villages"
    verbose_name = _("村")

    def ready(self) -> None:
        # Imported here, where Django's documentation places signal receivers: the module
        # imports the models, which cannot be imported while the apps load.
        from villages import listing

        listing.connect_signals()
