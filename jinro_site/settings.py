"""Django settings for jinro_site, read from the environment.

Two runtimes share this file. Without REDIS_URL the site is *embedded*: one daphne
process (`manage.py runsite`) with the in-memory channel layer and a sweep ticker.
With REDIS_URL it is the production layout: channels-redis, Celery worker + beat.
docs/operations.md lists every variable.
"""

import os
from dataclasses import fields as dataclass_fields
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key

from jinro_site.dburl import parse_database_url
from villages.engine.rules import Rules

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
VAR_DIR.mkdir(exist_ok=True)

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw.strip().lower() in _TRUE:
        return True
    if raw.strip().lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# --- Runtime mode --------------------------------------------------------------------------

REDIS_URL = os.environ.get("REDIS_URL", "")
EMBEDDED = not REDIS_URL

# Off unless asked for (DEBUG=1): its pages show settings and tracebacks to any visitor.
DEBUG = env_bool("DEBUG", False)


def _secret_key() -> str:
    if key := os.environ.get("SECRET_KEY"):
        return key
    if not EMBEDDED:
        raise ImproperlyConfigured("SECRET_KEY must be set in the production layout (REDIS_URL)")
    # The embedded site keeps its own key under var/, made once, readable by its owner only.
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        key_file.touch(mode=0o600)
        key_file.write_text(get_random_secret_key())
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()

LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", LOOPBACK_HOSTS if EMBEDDED or DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# --- HTTPS (docs/deployment.md's production environment turns these on behind a TLS proxy) --


def _proxy_ssl_header() -> tuple[str, str] | None:
    raw = os.environ.get("SECURE_PROXY_SSL_HEADER", "")
    if not raw.strip():
        return None
    header, sep, value = raw.partition(",")
    if not sep or not header.strip().startswith("HTTP_") or not value.strip():
        raise ImproperlyConfigured(
            f"SECURE_PROXY_SSL_HEADER={raw!r}: give HEADER,VALUE as in HTTP_X_FORWARDED_PROTO,https"
        )
    return (header.strip(), value.strip())


SECURE_PROXY_SSL_HEADER = _proxy_ssl_header()
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # monitors ask the daphne behind the proxy directly
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# The game screen is a frameset of the site's own pages (SPEC §10), so frames are allowed
# from the same origin (X_FRAME_OPTIONS below); check --deploy's advice of DENY would
# blank the screen.
SILENCED_SYSTEM_CHECKS = ["security.W019"]

# --- Applications --------------------------------------------------------------------------

INSTALLED_APPS = [
    "daphne",  # first: its runserver replaces Django's
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "ninja",  # /api/v1/docs with its own Swagger UI files, no third-party script
    "villages",
    "accounts",
]

MIDDLEWARE = [
    # A request leaves no reference cycles behind (jinro_site.requestcycles).
    "jinro_site.requestcycles.release_request",
    "django.middleware.security.SecurityMiddleware",
    # /static/ (hashed, compressed, cached for a year) before anything else runs.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A NUL character in any field or parameter: refused before anything reads it.
    "jinro_site.middleware.refuse_nul",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "jinro_site.api.method_not_allowed",
]

ROOT_URLCONF = "jinro_site.urls"
CSRF_FAILURE_VIEW = "jinro_site.views.csrf_failure"
# The game screen is made of same-site frames (SPEC §10); other sites may not frame it.
X_FRAME_OPTIONS = "SAMEORIGIN"
WSGI_APPLICATION = "jinro_site.wsgi.application"
ASGI_APPLICATION = "jinro_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ------------------------------------------------------------------------------

DATABASES = {
    "default": parse_database_url(
        os.environ.get("DATABASE_URL", "sqlite:///var/db.sqlite3"), base_dir=BASE_DIR
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (daphne, a test, a worker) may share the file: wait for locks,
    # take the write lock at BEGIN (no upgrade deadlocks), let readers run beside a writer.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        **DATABASES["default"]["OPTIONS"],
    }

# Each request thread keeps its connection (jinro_site.handler); checked before reuse.
DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("DB_CONN_MAX_AGE", "300"))
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = ["accounts.backends.BanAwareBackend"]
# Sessions are kept in the database and read through the cache (Redis with REDIS_URL).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
MESSAGE_STORAGE = "jinro_site.requestcycles.RequestMessages"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
# Mail (address confirmation, password reset): through SMTP when EMAIL_HOST is given,
# else printed on the console (the embedded default). EMAIL_BACKEND overrides both.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 587 if EMAIL_HOST else 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "jinro@localhost")
# How long an address-confirmation link works (seconds).
EMAIL_CONFIRM_SECONDS = env_int("EMAIL_CONFIRM_SECONDS", 3 * 24 * 3600)

# --- Language and time ---------------------------------------------------------------------

LANGUAGE_CODE = "ja"
LANGUAGES = [("ja", "日本語"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Asia/Tokyo"
USE_TZ = True

# --- Static files --------------------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"  # `collectstatic` (bin/run and bin/test run it) fills it
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Names carry the content's hash (a new jinro.js is a new URL after an upgrade), with
    # gzip copies beside them; WhiteNoise serves them with far-future cache headers.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Uploads (icons added by admins). Served by the site itself when JINRO_SERVE_STATIC is on
# (the embedded default); otherwise by the front web server (deploy/nginx/jinro_site.conf).
MEDIA_URL = "media/"
MEDIA_ROOT = VAR_DIR / "media"

# --- Channels and Celery -------------------------------------------------------------------


def _redis_db(url: str) -> int:
    path = urlsplit(url).path.strip("/")
    return int(path) if path.isdigit() else 0


# The layers are the stack's own, used through the Channels layer API only: each socket
# process hears them through one channel (villages.consumers.hub), so one event per commit
# crosses them (jinro_site.livebus), never a rendering per viewer.
if EMBEDDED:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            # The hub's one channel holds every village's events until it reads them.
            "CONFIG": {"capacity": 10_000},
        }
    }
    # Nothing consumes this broker: the embedded site sweeps in its own process.
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
else:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's pub/sub layer (the fastest and leanest measured here). It
            # needs PUBLISH, SUBSCRIBE, UNSUBSCRIBE and PING of its Redis account, no key
            # and no CLIENT command (docs/operations.md).
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        # Notice a silently dead connection (a NAT or proxy that dropped
                        # it) within seconds, not at the next TCP timeout.
                        "health_check_interval": 15,
                        "socket_keepalive": True,
                    }
                ],
                # Pub/sub names are server-wide, unlike keys: keep sites (and test runs)
                # on different Redis databases apart.
                "prefix": f"jinro-db{_redis_db(REDIS_URL)}.",
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    # Every key the site writes starts with "jinro:" (the cache's KEY_PREFIX too), so that
    # its Redis account may be limited to its own keys (docs/operations.md).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"global_keyprefix": "jinro:"}
    CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"global_keyprefix": "jinro:"}
    # One cache for every node: rate limits count across processes.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "jinro",
        }
    }

# The queue beat sends the sweep to and workers take it from: sites (or test runs with
# their own beats and workers) that share one Redis database keep their tasks apart.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_RESULT_EXPIRES = 3600
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- Game settings (SPEC.md §12) -----------------------------------------------------------
# Each is a setting of its own, overridable by an environment variable of the same name.
# Durations are seconds. App code reads them through django.conf.settings at call time.

# The rules' numbers have one home, the engine's `Rules` (pure Python, safe to import here);
# the site adds what only the site uses.
JINRO_DEFAULTS: dict[str, int | bool] = {
    f"JINRO_{f.name.upper()}": f.default for f in dataclass_fields(Rules)
} | {
    "JINRO_ONE_SEAT_PER_IP": True,
    "JINRO_MAX_ACTIVE_VILLAGES": 10,
    "JINRO_RATE_LIMIT_ENABLED": True,
    "JINRO_BOT_DELAY": 2,  # seconds a bot waits after a change before it looks again
    # AIWolf contest agents (docs/aiwolf.md): the limits told in their `setting`, how long
    # one round of talk lasts (each living agent is asked once in it), and how long an
    # agent may take to answer (seconds).
    "JINRO_AIWOLF_TALKS_PER_DAY": 5,
    "JINRO_AIWOLF_WHISPERS_PER_NIGHT": 3,
    "JINRO_AIWOLF_SKIPS": 2,
    "JINRO_AIWOLF_ROUND_SECONDS": 10,
    "JINRO_AIWOLF_TIMEOUT": 60,
    # Site operation, not game rules:
    "JINRO_SWEEP_INTERVAL": 1,  # seconds between two sweeps (ticker or Celery beat)
    # How often a socket process's hub asks the database for the versions of the villages
    # its sockets watch, and pings itself through the channel layer (villages.consumers.hub):
    # a change whose event was lost reaches the screens within two of these.
    "JINRO_LIVE_HEARTBEAT_MS": 2000,
    # Seconds between daphne's keep-alive pings of an open WebSocket (its --ping-interval;
    # a peer silent 30 s after one is closed). daphne sends those due every 2 s, all at
    # once: at 20 s (its default) a process holding 4,400 sockets pinged 440 of them in one
    # go, a 40-90 ms stall of every socket's frames (bench/ws_latency.py; docs/benchmarks.md).
    "JINRO_WS_PING_SECONDS": 60,
    # Past capacity (issue 14): a request that waited this long for a thread, or a write
    # for its turn (villages.services.gate), is refused with 503 and Retry-After. A read
    # (GET, HEAD: a burst of polls) queues longer: it is refused only when the site is
    # that far behind (issue 40; jinro_site.http_threads).
    "JINRO_QUEUE_WAIT_MS": 450,
    "JINRO_READ_QUEUE_WAIT_MS": 5000,
    "JINRO_WRITE_WAIT_MS": 450,
    # Writers of one process queue in villages.services.gate, not in SQLite: its busy
    # timeout (seconds) only covers another process's write (a management command, a test).
    "JINRO_SQLITE_TIMEOUT": 5,
    # What one WebSocket may send (villages.consumers): a burst, then so many a minute.
    "JINRO_WS_BURST": 20,
    "JINRO_WS_PER_MINUTE": 60,
    # The site serves /media/ (uploaded icons) itself, having no front web server.
    "JINRO_SERVE_STATIC": EMBEDDED,
}

_jinro = {
    name: env_bool(name, default) if isinstance(default, bool) else env_int(name, default)
    for name, default in JINRO_DEFAULTS.items()
}
globals().update(_jinro)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"].setdefault("timeout", _jinro["JINRO_SQLITE_TIMEOUT"])

CELERY_BEAT_SCHEDULE = {
    "sweep-due-villages": {
        "task": "villages.tasks.sweep",
        "schedule": float(_jinro["JINRO_SWEEP_INTERVAL"]),
        # A sweep that waited longer than one interval is superseded by the next one.
        "options": {"expires": float(_jinro["JINRO_SWEEP_INTERVAL"])},
    },
}

# --- Logging -------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # Every record reaches the console through one QuietRedisOutage, which sees them all.
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["quiet_redis_outage"],
        }
    },
    "filters": {
        "quiet_redis_outage": {"()": "jinro_site.logfilters.QuietRedisOutage"},
        "refusals_are_not_faults": {"()": "jinro_site.logfilters.RefusalsAreNotFaults"},
    },
    "loggers": {
        "django.request": {"filters": ["refusals_are_not_faults"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
