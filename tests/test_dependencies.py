"""The project uses its dependencies only through what they document (issues 30 and 40).

The scan (tests/dependency_scan.py, where what it reports is listed) reads the code of
jinro_site/, villages/, accounts/ and tests/. A few names with a leading underscore are a
dependency's documented API: each is in `dependency_scan.DOCUMENTED` with the page that
documents it. There is no allow-list of names.
"""

from __future__ import annotations

import functools
import re

from tests import dependency_scan as scan

# KNOWN: findings in files that a rewrite is still changing, each with what the scan says
# there; the second test fails once a finding is gone, so that its entry goes too. Nothing
# is added here but for a file under such a rewrite.
KNOWN: dict[str, list[str]] = {}


@functools.cache
def findings() -> tuple[str, ...]:
    """Each finding over the project, "file:line: what" (one scan for both tests)."""
    return tuple(scan.violations())


def split(finding: str) -> tuple[str, str]:
    """("file", "what") of "file:line: what"."""
    where, _line, what = finding.split(":", 2)
    return where, what.strip()


def test_the_project_uses_its_dependencies_only_through_what_they_document():
    found = [f for f in findings() if split(f)[1] not in KNOWN.get(split(f)[0], [])]
    assert found == [], "\n".join(found)


def test_each_known_finding_is_still_there_until_it_is_cleared():
    present = {split(f) for f in findings()}
    known = [(where, what) for where, whats in KNOWN.items() for what in whats]
    gone = [f"{where}: {what}" for where, what in known if (where, what) not in present]
    assert gone == [], "cleared: take these out of KNOWN\n" + "\n".join(gone)


def scanned(tmp_path, monkeypatch, files: dict[str, str]) -> str:
    """What the scan reports over a fake project made of `files` (under villages/)."""
    package = tmp_path / "villages"
    package.mkdir()
    for name, text in files.items():
        (package / name).write_text(text)
    monkeypatch.setattr(scan, "ROOT", tmp_path)
    monkeypatch.setattr(scan, "PACKAGES", ("villages",))
    return "\n".join(scan.violations())


def test_the_scan_finds_private_names_imports_monkey_patches_and_overrides(tmp_path, monkeypatch):
    found = scanned(
        tmp_path,
        monkeypatch,
        {
            "bad.py": (
                "from daphne import http_protocol\n"
                "from django.template.backends.django import reraise, _private\n"
                "from twisted.internet import tcp\n"
                "from concurrent.futures import ThreadPoolExecutor\n"
                "from villages import ours\n"
                "http_protocol.WebRequest = object\n"
                "setattr(tcp.Connection, 'write', None)\n"
                "def f(transport, obj):\n"
                "    return transport._tempDataBuffer, obj._state.fields_cache, obj._meta\n"
                "class C(ThreadPoolExecutor):\n"
                "    def _adjust_thread_count(self):\n"
                "        return self._mine, ours._helper()\n"
                "    def _a_new_one_of_ours(self):\n"
                "        return self._counter()\n"
            ),
            "ours.py": "def _helper():\n    return 1\n",
        },
    )
    assert "imports django.template.backends.django._private" in found
    assert "assigns http_protocol.WebRequest" in found
    assert "setattr on tcp.Connection" in found
    assert "private name _tempDataBuffer" in found and "private name _state" in found
    assert "_meta" not in found  # documented
    assert "C overrides _adjust_thread_count" in found
    assert "_a_new_one_of_ours" not in found  # not an override
    assert "C uses _counter of its base" in found
    assert "_mine" not in found and "_helper" not in found  # the project's own


def test_the_scan_finds_a_write_into_a_requests_dict(tmp_path, monkeypatch):
    """As jinro_site/apiauth.py kept the token's user (issue 40)."""
    found = scanned(
        tmp_path,
        monkeypatch,
        {
            "auth.py": (
                "from django.http import HttpRequest\n"
                "def caller(request: HttpRequest, lookup):\n"
                "    user = request.__dict__.get('_token_user')\n"
                "    if user is None:\n"
                "        user = request.__dict__['_token_user'] = lookup()\n"
                "    vars(request).update(seen=True)\n"
                "    return user\n"
                "def copied(obj):\n"
                "    new = object.__new__(type(obj))  # an object being made: its own dict\n"
                "    new.__dict__.update(obj.__dict__)\n"
                "    return new\n"
            )
        },
    )
    assert "auth.py:5: writes into request.__dict__ (an item)" in found
    assert "auth.py:6: writes into vars(request)" in found
    assert "auth.py:3: uses the private name _token_user" in found
    assert "new.__dict__" not in found


def test_the_scan_finds_a_dependencys_private_name_the_project_also_spells(tmp_path, monkeypatch):
    """As tests/realtime/sockets.py read WebsocketCommunicator._future (issue 40): a
    class of the project with a `_future` of its own hid it from the scan before."""
    found = scanned(
        tmp_path,
        monkeypatch,
        {
            "sockets.py": (
                "from channels.testing import WebsocketCommunicator\n"
                "OPENED: list[WebsocketCommunicator] = []\n"
                "def started():\n"
                "    return [o for o in OPENED if o._future is not None]\n"
                "def also(o):\n"
                "    return getattr(o, '_future'), hasattr(o, '_output_queue')\n"
            ),
            "mine.py": (
                "class Waiter:\n"
                "    def __init__(self):\n"
                "        self._future = None\n"
                "    def done(self):\n"
                "        return self._future.done()\n"
            ),
        },
    )
    assert (
        "sockets.py:4: uses the private name _future of asgiref.testing"
        " (the project has a name of this spelling too)"
    ) in found
    assert "sockets.py:6: uses the private name _future" in found
    assert "sockets.py:6: uses the private name _output_queue of asgiref.testing" in found
    assert "mine.py" not in found  # through self: its own


def test_the_scan_finds_reliance_on_a_dependencys_patch_told_only_in_a_comment(
    tmp_path, monkeypatch
):
    """As jinro_site/runtime.py relied on channels-redis replacing each loop's close()
    (its `_wrap_close`), which only a comment there said (issue 40)."""
    found = scanned(
        tmp_path,
        monkeypatch,
        {
            "layer.py": "from channels_redis.pubsub import RedisPubSubChannelLayer\n",
            "runtime.py": (
                "import asyncio\n"
                "def run(loop: asyncio.AbstractEventLoop) -> None:\n"
                "    loop.run_forever()\n"
                "    # Closing runs the channel layer's per-loop clean-up (channels_redis\n"
                "    # wraps close()).\n"
                "    loop.close()\n"
                "def stop(loop):\n"
                '    """Stops `loop`, whose close() _wrap_close replaced."""\n'
            ),
        },
    )
    assert "runtime.py:4: a comment relies on what channels_redis wraps or patches" in found
    assert (
        "runtime.py:8: a comment names _wrap_close, a private name of channels_redis.pubsub"
        in found
    )


def test_the_scan_finds_dunder_names_and_computed_names_on_a_dependency(tmp_path, monkeypatch):
    found = scanned(
        tmp_path,
        monkeypatch,
        {
            "reach.py": (
                "import asyncio\n"
                "import dataclasses\n"
                "from django.conf import settings\n"
                "from villages.state import State\n"
                "FIELDS = State.__dataclass_fields__\n"
                "HOOK = asyncio.events.__dict__\n"
                "def named(name):\n"
                "    return getattr(asyncio, name), getattr(settings, name), vars(asyncio)\n"
                "def documented(obj, error):\n"
                "    return obj.__class__.__name__, error.__cause__, dataclasses.fields(obj)\n"
                "def fixture(settings):  # pytest-django's fixture, not django.conf's\n"
                "    settings.DEBUG = True\n"
                "settings.DEBUG = True\n"
            ),
            "state.py": "class State:\n    pass\n",
        },
    )
    assert "reach.py:5: uses __dataclass_fields__, a dunder name outside" in found
    assert "reach.py:6: reads asyncio.events.__dict__, a dependency's namespace" in found
    assert "reach.py:8: getattr on asyncio with a computed name" in found
    assert "reach.py:8: reads vars(asyncio)" in found
    assert "getattr on settings" not in found  # an object's settings, by name: documented
    assert not re.search(r"reach\.py:(10|12):", found)  # the data model; a fixture
    assert "reach.py:13: assigns settings.DEBUG (a monkey-patch)" in found
