from django.contrib import admin
from django.urls import include, path

from jinro_site.api import api
from jinro_site.views import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("accounts/", include("accounts.urls")),
    path("", include("villages.urls")),
]
