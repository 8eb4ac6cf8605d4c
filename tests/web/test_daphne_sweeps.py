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
    """The sweeps' next ticks, asked of the reactor (nothing runs by itself), on a clock
    that moves only when the test says."""
    asked: list[tuple[float, object]] = []
    monkeypatch.setattr(reactor, "callLater", lambda delay, f, *a: asked.append((delay, f)))
    monkeypatch.setattr(daphne_sweeps, "_clock", lambda: clock[0])
    clock = [1000.0]
    return asked, clock


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
    asked, clock = later
    tick, period = daphne_sweeps.TICK, daphne_sweeps.TIMEOUTS_EVERY
    protocols = [Protocol() for _ in range(200)]
    server = server_with({p: {"application_instance": None} for p in protocols})
    ticks = round(period / tick)  # 20
    daphne_sweeps.timeout_checker(server)
    assert sum(p.timeouts_checked for p in protocols) == 200 // ticks  # not all 200 at once
    for _ in range(ticks - 1):
        clock[0] += tick
        daphne_sweeps.timeout_checker(server)
    assert [p.timeouts_checked for p in protocols] == [1] * 200
    assert [delay for delay, _sweep in asked] == pytest.approx([tick] * (ticks - 1) + [tick])
    late = Protocol()  # connected during the round: looked at in the next one
    server.connections[late] = {"application_instance": None}
    clock[0] += tick  # a period after the round began: the next one begins
    took = 0
    while not late.timeouts_checked and took < ticks:  # a round of 201: within the period
        daphne_sweeps.timeout_checker(server)
        clock[0] += tick
        took += 1
    assert [p.timeouts_checked for p in [*protocols, late]] == [2] * 200 + [1]


def test_a_server_with_few_connections_sweeps_at_daphnes_pace(later):
    asked, clock = later
    period = daphne_sweeps.APPLICATIONS_EVERY
    server = server_with({})
    daphne_sweeps.application_checker(server)  # nothing to look at: the next round later
    assert asked[-1][0] == pytest.approx(period)
    one = Protocol()
    server.connections[one] = {"application_instance": None}
    clock[0] += period / 2
    daphne_sweeps.timeout_checker(server)  # a round of one connection, in one tick
    assert one.timeouts_checked == 1
    assert asked[-1][0] == pytest.approx(daphne_sweeps.TIMEOUTS_EVERY)  # not every tick
    daphne_sweeps.timeout_checker(server)
    assert one.timeouts_checked == 1
    clock[0] += daphne_sweeps.TIMEOUTS_EVERY
    daphne_sweeps.timeout_checker(server)
    assert one.timeouts_checked == 2


async def test_finished_applications_are_reaped_and_closed_connections_forgotten(later, caplog):
    _asked, clock = later
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
            clock[0] += daphne_sweeps.TICK
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
