"""The foundation: settings, a page, /healthz, the channel layer and both runtimes."""

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import types
import urllib.request
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings

from jinro_site import livebus
from jinro_site.dburl import parse_database_url
from jinro_site.runtime import SweepTicker
from villages.groups import village_changed, village_group
from villages.services import clock

ROOT = Path(__file__).resolve().parent.parent
ORIGIN = (b"origin", b"http://127.0.0.1")
IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}  # channels' own


# --- Settings ------------------------------------------------------------------------------


def settings_in_subprocess(env: dict[str, str], expression: str) -> subprocess.CompletedProcess:
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({expression}))"
    )
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("JINRO_")}
    full_env.update(env, DJANGO_SETTINGS_MODULE="jinro_site.settings")
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=full_env, capture_output=True, text=True
    )


def test_every_spec_setting_has_its_default():
    expected = {
        "JINRO_KICK_VOTES": 3,
        "JINRO_ABANDON_SECONDS": 1200,
        "JINRO_CUPID_MIN_PLAYERS": 6,
        "JINRO_POISON_MIN_PLAYERS": 20,
        "JINRO_DECIDER_MIN_PLAYERS": 16,
        "JINRO_AUTHORITY_MIN_PLAYERS": 16,
        "JINRO_CUPID_SELF_BELOW": 18,
        "JINRO_MIN_PHASE_SECONDS": 60,
        "JINRO_DAY_VIRTUAL_SECONDS": 43200,
        "JINRO_NIGHT_VIRTUAL_SECONDS": 21600,
        "JINRO_SPEECH_UNITS_CAP": 4,
        "JINRO_DAY_SECONDS_PER_UNIT": 450,
        "JINRO_NIGHT_SECONDS_PER_UNIT": 900,
        "JINRO_SILENCE_REAL_SECONDS": 60,
        "JINRO_SILENCE_DAY_PENALTY": 3600,
        "JINRO_SILENCE_NIGHT_PENALTY": 7200,
        "JINRO_SPEECH_MAX_CHARS": 2000,
        "JINRO_SPEECH_MAX_LINES": 50,
        "JINRO_MAX_REVOTES": 4,
        "JINRO_SUDDEN_DEATH_GRACE": 180,
        "JINRO_ALERT_EVERY": 6,
        "JINRO_ALERT_FROM": 90,
        "JINRO_OUTAGE_SECONDS": 90,
        "JINRO_OBJECTIONS_PER_PLAYER": 5,
        "JINRO_ONE_SEAT_PER_IP": True,
        "JINRO_MAX_ACTIVE_VILLAGES": 10,
        "JINRO_RATE_LIMIT_ENABLED": True,
        "JINRO_SWEEP_INTERVAL": 1,
        "JINRO_BOT_DELAY": 2,
        # AIWolf contest agents (issue 31): the limits told in their `setting`.
        "JINRO_AIWOLF_TALKS_PER_DAY": 5,
        "JINRO_AIWOLF_WHISPERS_PER_NIGHT": 3,
        "JINRO_AIWOLF_SKIPS": 2,
        "JINRO_AIWOLF_ROUND_SECONDS": 10,
        "JINRO_AIWOLF_TIMEOUT": 60,
        # Load and abuse (issue 14): past capacity, and what one socket may send.
        "JINRO_QUEUE_WAIT_MS": 450,
        "JINRO_READ_QUEUE_WAIT_MS": 5000,
        "JINRO_WRITE_WAIT_MS": 450,
        "JINRO_SQLITE_TIMEOUT": 5,
        "JINRO_WS_BURST": 20,
        "JINRO_WS_PER_MINUTE": 60,
        # The live screens (issue 40): the socket hub's heartbeat, daphne's pings.
        "JINRO_LIVE_HEARTBEAT_MS": 2000,
        "JINRO_WS_PING_SECONDS": 60,
    }
    defaults = django_settings.JINRO_DEFAULTS
    assert {name: defaults[name] for name in expected} == expected
    assert set(defaults) - set(expected) == {"JINRO_SERVE_STATIC"}


def test_jinro_settings_are_read_from_the_environment():
    result = settings_in_subprocess(
        {"JINRO_KICK_VOTES": "5", "JINRO_ONE_SEAT_PER_IP": "off", "JINRO_SWEEP_INTERVAL": "3"},
        "[settings.JINRO_KICK_VOTES, settings.JINRO_ONE_SEAT_PER_IP, "
        "settings.JINRO_RATE_LIMIT_ENABLED, settings.CELERY_BEAT_SCHEDULE"
        "['sweep-due-villages']['schedule']]",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [5, False, True, 3.0]


def test_a_malformed_setting_is_refused_by_name():
    result = settings_in_subprocess({"JINRO_MAX_REVOTES": "four"}, "settings.JINRO_MAX_REVOTES")
    assert result.returncode != 0
    assert "JINRO_MAX_REVOTES='four' is not an integer" in result.stderr


def test_the_operations_page_lists_every_jinro_setting_with_its_default():
    page = (ROOT / "docs" / "operations.md").read_text()
    rows = dict(re.findall(r"^\| `(JINRO_\w+)` \| `([^`]*)` \|", page, flags=re.MULTILINE))
    expected = {
        name: (
            "on without REDIS_URL"
            if name == "JINRO_SERVE_STATIC"
            else str(default).lower()
            if isinstance(default, bool)
            else str(default)
        )
        for name, default in django_settings.JINRO_DEFAULTS.items()
    }
    assert rows == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "postgres://postgres@127.0.0.1:5432/jinro",
            {
                "NAME": "jinro",
                "USER": "postgres",
                "PASSWORD": "",
                "HOST": "127.0.0.1",
                "PORT": "5432",
            },
        ),
        (
            "postgresql://u%40x:p%2Fw@db.example:6543/site?sslmode=require",
            {
                "NAME": "site",
                "USER": "u@x",
                "PASSWORD": "p/w",
                "HOST": "db.example",
                "PORT": "6543",
                "OPTIONS": {"sslmode": "require"},
            },
        ),
        ("postgres://%2Fvar%2Frun%2Fpostgresql/jinro", {"HOST": "/var/run/postgresql"}),
        ("sqlite:///var/db.sqlite3", {"NAME": ROOT / "var" / "db.sqlite3"}),
        ("sqlite:////tmp/x.sqlite3", {"NAME": Path("/tmp/x.sqlite3")}),
        ("sqlite:///:memory:", {"NAME": ":memory:"}),
    ],
)
def test_database_url_is_parsed(url, expected):
    entry = parse_database_url(url, base_dir=ROOT)
    assert {key: entry[key] for key in expected} == expected


def test_unknown_database_scheme_is_refused():
    with pytest.raises(ValueError, match="mysql"):
        parse_database_url("mysql://localhost/jinro", base_dir=ROOT)


def test_beat_schedule_sweeps_every_interval():
    entry = django_settings.CELERY_BEAT_SCHEDULE["sweep-due-villages"]
    assert entry["task"] == "villages.tasks.sweep"
    assert entry["schedule"] == django_settings.JINRO_SWEEP_INTERVAL


def test_daphne_is_the_first_installed_app():
    assert django_settings.INSTALLED_APPS[0] == "daphne"


def test_the_migrations_build_the_models_tables(db):
    from django.core.management import call_command

    try:
        call_command("makemigrations", "--check", "--dry-run", verbosity=0)
    except SystemExit:
        pytest.fail("the models have changes that no migration makes")


@pytest.mark.django_db
def test_a_new_site_starts_with_the_icon_set_the_dummy_boys_icon_and_the_rules():
    from villages.models import Icon, InfoPage

    index = json.loads(
        Path(django_settings.BASE_DIR, "static/villages/icons/index.json").read_text()
    )
    assert list(Icon.objects.choosable().values_list("static_path", flat=True)) == [
        entry["file"] for entry in index
    ]
    assert Icon.objects.get(reserved=True).static_path == "villages/system/dummy-boy.svg"
    assert InfoPage.objects.get(slug="rules").title == "ルール"


# --- HTTP ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_top_page_renders(client):
    response = client.get("/")
    assert response.status_code == 200
    assert "汝は人狼なりや？" in response.content.decode()


@pytest.mark.django_db
def test_the_site_icon_is_the_projects_own(client):
    page = client.get("/").content.decode()
    hashed = r"/static/villages/icons/silver-moon\.[0-9a-f]{12}\.svg"
    icon = re.search(rf'rel="icon" href="({hashed})"', page)
    assert icon, "the page names the icon by its hashed name"
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == icon[1]


@pytest.mark.django_db
def test_healthz_reports_database_and_channel_layer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}


@pytest.mark.django_db
def test_healthz_is_503_when_a_check_fails(client, monkeypatch):
    def broken() -> None:
        raise OSError("database unreachable")

    monkeypatch.setattr("jinro_site.views.check_database", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "error", "channel_layer": "ok"}


# --- WebSocket through the channel layer -----------------------------------------------------


def new_village_id() -> int:
    from villages.models import Village

    return Village.objects.create(name="foundation", capacity=8).pk


def token_of_new_user(username: str) -> str:
    from django.contrib.auth import get_user_model

    from accounts.services import profile_of

    return profile_of(get_user_model().objects.create_user(username, password="x")).api_token


def cue(village_id: int, n: int) -> dict:
    """What services publish for a village: an event (of the next version) with a cue."""
    return village_changed(
        village_id, version=n, since=n - 1, cues=[{"type": "objection", "seat_no": n}]
    )


async def open_spectator_socket(village_id: int) -> WebsocketCommunicator:
    """A socket past its first frame (the state) and ready for pushes."""
    from jinro_site.asgi import application

    communicator = WebsocketCommunicator(
        application, f"/ws/villages/{village_id}/", headers=[ORIGIN]
    )
    connected, _ = await communicator.connect()
    assert connected
    assert (await communicator.receive_json_from(timeout=5))["type"] == "state"
    await communicator.send_json_to({"type": "ping"})  # nothing to resume: no holding
    return communicator


async def assert_group_event_reaches_socket(layer) -> None:
    village_id = await database_sync_to_async(new_village_id)()
    communicator = await open_spectator_socket(village_id)
    try:
        await layer.group_send(village_group(village_id), cue(village_id, 1))
        expected = {"type": "objection", "seat_no": 1}
        assert await communicator.receive_json_from(timeout=5) == expected
    finally:
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_websocket_round_trip_through_in_memory_layer(settings, channel_layer):
    settings.CHANNEL_LAYERS = IN_MEMORY
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    assert type(layer).__name__ == "InMemoryChannelLayer"
    await assert_group_event_reaches_socket(layer)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
async def test_websocket_round_trip_through_redis_layer(channel_layer):
    assert type(channel_layer).__name__ == "RedisPubSubChannelLayer"
    await assert_group_event_reaches_socket(channel_layer)


async def test_websocket_from_another_origin_is_refused():
    from jinro_site.asgi import application

    communicator = WebsocketCommunicator(
        application, "/ws/villages/1/", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("origin", "host", "accepted"),
    [
        (b"http://127.0.0.1:8000", b"127.0.0.1:8000", True),
        (b"http://127.0.0.1:8081", b"127.0.0.1:8000", False),  # another port: another site
        (b"https://127.0.0.1:8000", b"127.0.0.1:8000", False),  # another scheme
        (b"http://localhost:8000", b"127.0.0.1:8000", False),  # another host
    ],
    ids=["same", "port", "scheme", "host"],
)
async def test_a_session_socket_must_come_from_this_very_origin(origin, host, accepted):
    """As Django's CSRF check compares an Origin: scheme, host and port."""
    from jinro_site.asgi import application

    village_id = await database_sync_to_async(new_village_id)()
    communicator = WebsocketCommunicator(
        application, f"/ws/villages/{village_id}/", headers=[(b"origin", origin), (b"host", host)]
    )
    connected, _ = await communicator.connect()
    assert connected is accepted
    await communicator.disconnect()


@pytest.mark.parametrize("path", ["/ws/nowhere/1/", "/ws/villages/notanumber/", "/ws/"])
async def test_a_handshake_to_an_address_without_a_socket_is_refused(path):
    """Refused, not answered with an error (daphne's 500)."""
    from jinro_site.asgi import application

    communicator = WebsocketCommunicator(application, path)
    connected, code = await communicator.connect()
    assert (connected, code) == (False, 4403)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("origin", [None, b"http://bot.example"], ids=["no-origin", "elsewhere"])
async def test_a_token_client_connects_whatever_its_origin(origin):
    """Bots and apps (API.md) send no Origin, or their own: their token says who they are."""
    from jinro_site.asgi import application

    village_id = await database_sync_to_async(new_village_id)()
    token = await database_sync_to_async(token_of_new_user)("bot")
    headers = [(b"origin", origin)] if origin else []
    communicator = WebsocketCommunicator(
        application, f"/ws/villages/{village_id}/?token={token}", headers=headers
    )
    connected, _ = await communicator.connect()
    assert connected
    assert (await communicator.receive_json_from(timeout=5))["type"] == "state"
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_client_without_origin_or_token_watches_as_a_spectator():
    from jinro_site.asgi import application

    village_id = await database_sync_to_async(new_village_id)()
    communicator = WebsocketCommunicator(application, f"/ws/villages/{village_id}/")
    connected, _ = await communicator.connect()
    assert connected
    frame = await communicator.receive_json_from(timeout=5)
    assert frame["type"] == "state" and frame["state"]["me"] is None
    await communicator.disconnect()


async def test_another_sites_page_with_an_empty_token_is_still_refused():
    from jinro_site.asgi import application

    communicator = WebsocketCommunicator(
        application, "/ws/villages/1/?token=", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
async def test_sync_code_publishes_to_sockets_from_any_thread(channel_layer):
    """What a Celery task, a request or the ticker does: publish from sync code, in a
    thread of its own (the send runs on the loop of the hub, or the process's long-lived
    loop, never on a loop of its own)."""
    village_id = await database_sync_to_async(new_village_id)()
    communicator = await open_spectator_socket(village_id)
    try:
        for n in (1, 2):  # twice: the loop and its Redis connections outlive one send
            event = cue(village_id, n)
            await asyncio.to_thread(livebus.publish, village_group(village_id), event)
            expected = {"type": "objection", "seat_no": n}
            assert await communicator.receive_json_from(timeout=5) == expected
    finally:
        await communicator.disconnect()


class SlowLayer:
    """A channel layer whose every group send takes a while, and that notes each one."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def group_send(self, group: str, message: dict) -> None:
        await asyncio.sleep(0.02)
        self.sent.append(group)


async def test_a_push_is_sent_even_when_its_request_is_cancelled(monkeypatch):
    """A browser that navigates while its POST is pending makes Django cancel the request
    mid-push; the committed commands' events must still go out, in order."""
    from asgiref.sync import sync_to_async

    layer = SlowLayer()
    monkeypatch.setattr(livebus, "get_channel_layer", lambda: layer)
    groups = [f"village.{n}" for n in range(1, 11)]

    def commits() -> None:
        for group in groups:
            livebus.publish(group, {"type": "x"})
            if group == groups[1]:
                time.sleep(0.05)  # the request is cancelled about here

    request = asyncio.ensure_future(sync_to_async(commits)())
    while len(layer.sent) < 1:  # the sends have begun
        await asyncio.sleep(0.005)
    request.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await request
    for _ in range(200):  # the sends go on, on the bus loop, to the last group
        if len(layer.sent) == len(groups):
            break
        await asyncio.sleep(0.02)
    assert layer.sent == groups


# --- Real processes --------------------------------------------------------------------------


def test_daphne_server_answers_http_and_websocket(daphne_server):
    with urllib.request.urlopen(f"{daphne_server}/healthz", timeout=10) as response:
        assert json.load(response) == {"status": "ok", "database": "ok", "channel_layer": "ok"}
    with urllib.request.urlopen(f"{daphne_server}/", timeout=10) as response:
        assert "汝は人狼なりや？" in response.read().decode()
    with urllib.request.urlopen(f"{daphne_server}/static/admin/css/base.css") as response:
        assert response.status == 200

    village_id = new_village_id()

    async def connect() -> None:
        import websockets

        ws_url = daphne_server.replace("http", "ws") + f"/ws/villages/{village_id}/"
        async with websockets.connect(ws_url, origin=daphne_server) as socket:
            assert json.loads(await asyncio.wait_for(socket.recv(), 10))["type"] == "state"
            await socket.ping()

    asyncio.run(connect())


@pytest.mark.services
def test_group_event_reaches_a_socket_of_the_daphne_process(daphne_server):
    village_id = new_village_id()

    async def round_trip() -> None:
        import websockets
        from channels.layers import get_channel_layer

        layer = get_channel_layer()
        ws_url = daphne_server.replace("http", "ws") + f"/ws/villages/{village_id}/"
        try:
            async with websockets.connect(ws_url, origin=daphne_server) as socket:
                assert json.loads(await asyncio.wait_for(socket.recv(), 10))["type"] == "state"
                await socket.send(json.dumps({"type": "ping"}))
                await layer.group_send(village_group(village_id), cue(village_id, 3))
                received = await asyncio.wait_for(socket.recv(), 10)
                assert json.loads(received) == {"type": "objection", "seat_no": 3}
        finally:
            await layer.flush()

    asyncio.run(round_trip())


@pytest.mark.services
def test_celery_task_round_trip_through_redis(celery_worker_process):
    from villages.tasks import ping

    assert ping.delay().get(timeout=30) == "pong"


# --- The sweep in both runtimes --------------------------------------------------------------


@pytest.fixture
def fake_clock(monkeypatch):
    """Stand-in for villages.services.clock's sweep; `calls` counts sweeps, `fail_first`
    fails one."""
    module = types.SimpleNamespace()
    module.calls = 0
    module.fail_first = False
    module.swept = threading.Event()

    def sweep_due_villages() -> None:
        module.calls += 1
        if module.fail_first and module.calls == 1:
            raise RuntimeError("first sweep fails")
        module.swept.set()

    monkeypatch.setattr(clock, "sweep_due_villages", sweep_due_villages)
    return module


def test_embedded_ticker_calls_the_sweep(fake_clock):
    from villages.tasks import run_sweep

    ticker = SweepTicker(target=run_sweep, interval=0.05)
    ticker.start()
    try:
        assert fake_clock.swept.wait(5), "the ticker never called sweep_due_villages()"
    finally:
        ticker.stop(timeout=5)
    assert not ticker.is_alive()


def test_embedded_ticker_survives_a_failing_sweep(fake_clock):
    from villages.tasks import run_sweep

    fake_clock.fail_first = True
    ticker = SweepTicker(target=run_sweep, interval=0.05)
    ticker.start()
    try:
        assert fake_clock.swept.wait(5), "the ticker stopped after a failing sweep"
    finally:
        ticker.stop(timeout=5)
    assert fake_clock.calls >= 2


def _commit_in_another_thread(work) -> None:
    """`work` committed on another thread's connection (as a request's or a worker's)."""
    from django.db import connection

    def run() -> None:
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()


@pytest.mark.django_db(transaction=True)
def test_an_idle_ticker_sweeps_again_when_another_connection_commits_or_a_time_comes():
    """On SQLite a tick reads the data version only while nothing can be due (an idle
    site's sweep read and updated four times a second); on PostgreSQL it sweeps every
    tick."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    swept: list[int] = []
    due: list = [None]  # what next_due() answers: nothing waits for time
    ticker = SweepTicker(target=lambda: swept.append(1), next_due=lambda: due[0], interval=60)

    def sweeps() -> bool:
        before = len(swept)
        ticker.tick()
        return len(swept) > before

    skips = connection.vendor == "sqlite"
    assert sweeps()  # the first tick
    assert sweeps() is not skips  # nothing committed, nothing due
    _commit_in_another_thread(lambda: get_user_model().objects.create(username="elsewhere"))
    assert sweeps()  # a commit elsewhere may have set a deadline
    assert sweeps() is not skips
    due[0] = timezone.now() + timedelta(milliseconds=300)
    _commit_in_another_thread(lambda: get_user_model().objects.create(username="again"))
    assert sweeps()  # learns the new time
    assert sweeps() is not skips  # not yet come
    time.sleep(0.35)
    assert sweeps()  # it has come
    get_user_model().objects.create(username="here")  # this thread's own commit
    due[0] = None
    assert sweeps()  # the time it knew is past: it sweeps, and learns there is none
    assert sweeps() is not skips


@pytest.mark.django_db(transaction=True)
def test_the_database_marker_moves_with_another_connections_commit_or_a_new_connection():
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.db.backends.signals import connection_created

    from jinro_site import dbchanges

    if connection.vendor != "sqlite":
        assert dbchanges.marker() is None  # PostgreSQL: read every time
        return
    first = dbchanges.marker()
    assert dbchanges.marker() == first
    get_user_model().objects.create(username="mine")
    assert dbchanges.marker() == first  # this connection's own commit
    _commit_in_another_thread(lambda: get_user_model().objects.create(username="theirs"))
    second = dbchanges.marker()
    assert second != first
    # A new connection counts its data version afresh: the marker moves with it.
    connection_created.send(sender=type(connection), connection=connection)
    assert dbchanges.marker() != second


def test_sweep_task_calls_the_same_sweep(fake_clock):
    from villages.tasks import sweep

    sweep()  # the task body, as a worker runs it
    assert fake_clock.calls == 1


def test_the_redis_client_reads_replies_with_hiredis():
    """Each pushed frame reaches a socket's process as a Redis message: the C parser
    (redis[hiredis]) takes a tenth off the sockets' CPU per line (bench/ws_latency.py)."""
    import redis.utils

    assert redis.utils.HIREDIS_AVAILABLE


def test_a_daphne_process_takes_its_gc_thresholds_from_the_environment(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from jinro_site import runtime

    monkeypatch.delenv("GC_THRESHOLDS", raising=False)
    assert runtime.gc_thresholds() == runtime.GC_THRESHOLDS
    monkeypatch.setenv("GC_THRESHOLDS", " 2000, 5,50 ")
    assert runtime.gc_thresholds() == (2000, 5, 50)
    for bad in ("2000,5", "0,10,100", "a,b,c", "2000,-1,100"):
        monkeypatch.setenv("GC_THRESHOLDS", bad)
        with pytest.raises(ImproperlyConfigured, match="GC_THRESHOLDS"):
            runtime.gc_thresholds()
