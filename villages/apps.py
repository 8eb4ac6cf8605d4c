from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class VillagesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "villages"
    verbose_name = _("村")
