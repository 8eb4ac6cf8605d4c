from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.static import serve

from jinro_site.api import api
from jinro_site.views import favicon, healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("accounts/", include("accounts.urls")),
]

if settings.JINRO_SERVE_STATIC:
    # Icons uploaded by admins, when the site runs without jinro_site.asgi's MediaFiles in
    # front (the test client, WSGI); in production the front web server serves var/media/.
    urlpatterns.append(
        re_path(
            rf"^{settings.MEDIA_URL.strip('/')}/(?P<path>.*)$",
            serve,
            {"document_root": settings.MEDIA_ROOT},
        )
    )

urlpatterns.append(path("", include("villages.urls")))

handler400 = "jinro_site.views.bad_request"
handler403 = "jinro_site.views.forbidden"
handler404 = "jinro_site.views.not_found"
handler500 = "jinro_site.views.server_error"
