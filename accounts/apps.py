from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = _("アカウント")

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the system checks)
