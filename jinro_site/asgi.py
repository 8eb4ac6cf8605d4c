"""ASGI entry point: `daphne jinro_site.asgi:application` (and `manage.py runsite`)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jinro_site.settings")

# Set Django up before importing anything that imports models (consumers, auth).
django.setup(set_prefix=False)

from jinro_site.handler import OneHopASGIHandler  # noqa: E402

django_application = OneHopASGIHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from jinro_site.daphne_http import read_bodies_once  # noqa: E402
from jinro_site.daphne_sweeps import spread_sweeps  # noqa: E402
from jinro_site.media_asgi import MediaFiles  # noqa: E402
from jinro_site.runtime import tune_gc_for_a_server  # noqa: E402
from jinro_site.wsorigin import SessionOriginValidator, SessionUser  # noqa: E402
from villages.routing import websocket_urlpatterns  # noqa: E402

http_application = (
    MediaFiles(django_application) if settings.JINRO_SERVE_STATIC else django_application
)

application = ProtocolTypeRouter(
    {
        "http": http_application,
        "websocket": SessionOriginValidator(SessionUser(URLRouter(websocket_urlpatterns))),
    }
)

read_bodies_once()  # twisted parses no body daphne hands on unread (jinro_site.daphne_http)
spread_sweeps()  # daphne looks at its connections a slice at a time (jinro_site.daphne_sweeps)
tune_gc_for_a_server()  # everything is imported: freeze it, collect the young less often
