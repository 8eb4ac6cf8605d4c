"""ASGI entry point: `daphne jinro_site.asgi:application` (and `manage.py runsite`).

HTTP goes to Django's WSGI application on a pool of request threads
(`jinro_site.http_threads`), behind `/media/` served here when the site serves its own
files; WebSockets to the village sockets (`villages.consumers`), after the Origin check and
the session's user. With JINRO_SWEEP_TICKER=1 (what `manage.py runsite` sets in the
embedded layout) this process also runs the deadline sweep (`jinro_site.runtime`).
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jinro_site.settings")

# Sets Django up: everything below may import models.
django_wsgi = get_wsgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from jinro_site.http_threads import ThreadedWSGI  # noqa: E402
from jinro_site.media_asgi import MediaFiles  # noqa: E402
from jinro_site.runtime import SweepTicker, tune_gc_for_a_server  # noqa: E402
from jinro_site.wsorigin import KnownPaths, SessionOriginValidator, SessionUser  # noqa: E402
from villages.routing import websocket_urlpatterns  # noqa: E402
from villages.tasks import next_sweep_due, run_sweep  # noqa: E402

pages = ThreadedWSGI(django_wsgi)

application = ProtocolTypeRouter(
    {
        "http": MediaFiles(pages) if settings.JINRO_SERVE_STATIC else pages,
        "websocket": KnownPaths(
            SessionOriginValidator(SessionUser(URLRouter(websocket_urlpatterns))),
            urlconf="villages.routing",
        ),
    }
)

if os.environ.get("JINRO_SWEEP_TICKER") == "1":
    SweepTicker(
        target=run_sweep, next_due=next_sweep_due, interval=settings.JINRO_SWEEP_INTERVAL
    ).start()
tune_gc_for_a_server()  # everything is imported: freeze it, collect the young less often
