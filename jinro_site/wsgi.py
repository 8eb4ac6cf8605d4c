"""WSGI entry point (HTTP only, no WebSockets): the site runs under ASGI (asgi.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jinro_site.settings")

application = get_wsgi_application()
