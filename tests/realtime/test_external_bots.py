"""examples/bot.py, the documented external client, plays a whole game against a live
site: seven copies of it (six with a token, one signing itself up) and one of the site's
own bot seats, to the end."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from villages.models import Seat, Village
from villages.services import bots, lifecycle

from ..conftest import restore_icons, serve_site
from .game import make_user, token_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def _site_process(django_db_setup, tmp_path_factory):
    """A site of this module's own: several clients on this one machine share an address,
    which one seat per address would refuse."""
    env = {"JINRO_ONE_SEAT_PER_IP": "0", "JINRO_RATE_LIMIT_ENABLED": "0"}
    with serve_site("bots-site", tmp_path_factory.mktemp("bots-site"), env) as process:
        yield process


@pytest.fixture
def site(transactional_db, _site_process) -> str:
    restore_icons()
    _site_process.check_alive()
    return _site_process.url


def test_seven_external_bots_and_a_built_in_one_play_to_the_end(site, sweeping, tmp_path):
    host = make_user(staff=True)
    village = lifecycle.create_village(user=host, name="外部ボット村", capacity=8)
    bots.add_bots(village_id=village.pk, user=host, count=1)
    clients = []
    for n in range(1, 8):
        args = [sys.executable, str(ROOT / "examples" / "bot.py"), "--base", site]
        args += ["--village", str(village.pk), "--name", f"external{n}", "--seed", str(n)]
        if n < 7:
            args += ["--token", token_of(make_user(f"external{n}"))]
        log = (tmp_path / f"bot{n}.log").open("w")
        clients.append((subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT), log))
    deadline = time.monotonic() + 200
    try:
        while Village.objects.get(pk=village.pk).status != Village.Status.ENDED:
            failed = [n for n, (p, _) in enumerate(clients, 1) if p.poll() not in (None, 0)]
            assert not failed, [(tmp_path / f"bot{n}.log").read_text() for n in failed]
            assert time.monotonic() < deadline, "the game did not end"
            time.sleep(0.5)
        for process, _ in clients:
            assert process.wait(30) == 0
    finally:
        for process, log in clients:
            process.kill()
            log.close()
    ended = Village.objects.get(pk=village.pk)
    assert ended.winner
    seats = Seat.objects.filter(village=ended, kicked=False)
    assert seats.count() == 8 and seats.exclude(bot="").count() == 1
    assert not seats.filter(death_cause="sudden").exists()
    logs = "".join((tmp_path / f"bot{n}.log").read_text() for n in range(1, 8))
    assert logs.count("the game is over") == 7, logs
