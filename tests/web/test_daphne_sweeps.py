"""daphne sweeps its connections a slice per tick (jinro_site.daphne_sweeps): each
connection is still looked at once per period, no turn of the loop looks at them all, and
what a look does is what daphne's own sweep did. These fail if an upgrade of daphne
renames the sweeps or changes the bookkeeping they rely on."""

from __future__ import annotations

import asyncio
import inspect
import logging
import subprocess
import sys
import time

import pytest
from daphne.server import Server
from twisted.internet import reactor

from jinro_site import daphne_sweeps


class Protocol:
    """A connection as daphne's sweeps see it."""

    def __init__(self) -> None:
        self.timeouts_checked = 0
        self.shown: list[BaseException] = []

    def check_timeouts(self) -> None:
        self.timeouts_checked += 1

    def handle_exception(self, error: BaseException) -> None:
        self.shown.append(error)


@pytest.fixture
def later(monkeypatch):
    """The sweeps' next ticks, asked of the reactor (nothing runs by itself)."""
    asked: list[tuple[float, object]] = []
    monkeypatch.setattr(reactor, "callLater", lambda delay, f, *a: asked.append((delay, f)))
    return asked


def server_with(connections: dict) -> Server:
    server = Server(application=None, endpoints=["tcp:port=0:interface=127.0.0.1"])
    server.connections = connections
    return server


def test_the_site_makes_daphne_run_the_sliced_sweeps_under_its_own_names():
    # As daphne's command and `manage.py runsite` load the site: daphne.server first.
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import daphne.server, jinro_site.asgi; from daphne.server import Server; "
            "print(Server.application_checker.__module__, Server.timeout_checker.__module__)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.split() == ["jinro_site.daphne_sweeps"] * 2
    run = inspect.getsource(Server.run)  # where daphne starts them, by these names
    assert "self.application_checker" in run and "self.timeout_checker" in run


def test_each_connection_is_looked_at_once_a_period_a_slice_per_tick(later):
    protocols = [Protocol() for _ in range(200)]
    server = server_with({p: {"application_instance": None} for p in protocols})
    ticks = round(daphne_sweeps.TIMEOUTS_EVERY / daphne_sweeps.TICK)  # 20
    daphne_sweeps.timeout_checker(server)
    assert sum(p.timeouts_checked for p in protocols) == 200 // ticks  # not all 200 at once
    assert later == [(daphne_sweeps.TICK, later[0][1])]
    for _ in range(ticks - 1):
        daphne_sweeps.timeout_checker(server)
    assert [p.timeouts_checked for p in protocols] == [1] * 200
    late = Protocol()  # connected during the round: looked at in the next one
    server.connections[late] = {"application_instance": None}
    everyone = [*protocols, late]
    took = 0
    while not late.timeouts_checked and took < ticks:  # a round of 201: within the period
        daphne_sweeps.timeout_checker(server)
        took += 1
    assert [p.timeouts_checked for p in everyone] == [2] * 200 + [1]
    assert len(later) == ticks + took  # every tick asked for the next


async def test_finished_applications_are_reaped_and_closed_connections_forgotten(later, caplog):
    loop = asyncio.get_running_loop()

    def application(done: bool = False, error: BaseException | None = None):
        future = loop.create_future()
        if error is not None:
            future.set_exception(error)
        elif done:
            future.set_result(None)
        return future

    closed_long_ago = time.time() - 3600
    gone, failed, stuck, running, quiet = (Protocol() for _ in range(5))
    crash = RuntimeError("boom")
    server = server_with(
        {
            gone: {"application_instance": application(done=True), "disconnected": 1.0},
            failed: {"application_instance": application(error=crash)},
            stuck: {"application_instance": application(), "disconnected": closed_long_ago},
            running: {"application_instance": application()},
            quiet: {"application_instance": None, "disconnected": time.time()},
        }
    )
    stuck_app = server.connections[stuck]["application_instance"]
    with caplog.at_level(logging.WARNING, logger="daphne.server"):
        for _ in range(round(daphne_sweeps.APPLICATIONS_EVERY / daphne_sweeps.TICK)):
            daphne_sweeps.application_checker(server)
    assert gone not in server.connections and quiet not in server.connections
    assert "application_instance" not in server.connections[failed]
    assert failed.shown == [crash]  # still connected: daphne tells the client
    assert stuck_app.cancelled()  # it outlived its connection
    assert server.connections[running]["application_instance"].done() is False
    logged = [r.getMessage() for r in caplog.records]
    assert any("Exception inside application: boom" in m for m in logged)
    assert any("took too long to shut down" in m for m in logged)
    daphne_sweeps.application_checker(server)  # the cancelled one is reaped on its next look
    daphne_sweeps.application_checker(server)
    daphne_sweeps.application_checker(server)
    assert stuck not in server.connections
