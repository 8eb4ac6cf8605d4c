"""Instructions per request through daphne, counted by callgrind: figures that do not move
with the machine's load, for comparing two versions of the code in one run.

    .venv/bin/python bench/instructions.py [--code DIR ...] [--requests 30] [--kinds post lower top]

For each `--code` directory (a checkout of the site; default: this one), the site runs as
`manage.py runsite` (daphne, the embedded layout) under `valgrind --tool=callgrind
--instr-atstart=no`, on one SQLite database that this bench builds (a 22-seat village on
day 2, bench/common.py). Each kind of request is sent a few times to warm the process up,
then `--requests` times with callgrind counting (`callgrind_control -i on/off`); the
figure is the process's instructions (every thread: the event loop and the request
threads) divided by the requests. The kinds:

* `post`: a living seat's line, POST /api/v1/villages/<id>/messages with its token;
* `lower`: the lower pane of a logged-in living seat, GET /villages/<id>/down/;
* `top`: the top page, GET /, anonymous;
* `static`: an icon, GET /static/villages/icons/silver-moon.svg;
* `healthz`: GET /healthz.

With `--sockets N` (and `--screen` for game screens rather than API sockets), N sockets of
living seats watch the village (bench/post_cpu.py's watchers, in this process), and each
counted post waits until every socket has received its line: the count then holds the
push to them.

Both versions are measured on the same database, the second after the first: the village's
log grows by the first version's posts, a few hundred lines of a long day (the lower pane
draws the whole day). `--requests` sets how many; compare versions on equal terms by
running them again in the other order (`--code B A`). Counting slows the site some
fifty times: the bench lifts the site's overload refusals (JINRO_QUEUE_WAIT_MS,
JINRO_WRITE_WAIT_MS) so that it answers every request however slowly.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, Client, day_two_village, free_port, session_cookie, setup_django
from post_cpu import Watchers

SLOW = {
    "JINRO_QUEUE_WAIT_MS": "10000000",
    "JINRO_READ_QUEUE_WAIT_MS": "10000000",
    "JINRO_WRITE_WAIT_MS": "10000000",
}
KINDS = ("post", "lower", "top", "static", "healthz")


class CountedSite:
    """`manage.py runsite` of the checkout `code`, under callgrind, not counting yet."""

    def __init__(self, code: Path, work: Path) -> None:
        self.port = free_port()
        self.out = work / f"callgrind-{code.name}-{self.port}"
        self.out.mkdir()
        self.log = work / f"site-{code.name}-{self.port}.log"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            "--trace-children=yes",  # runsite becomes daphne (exec)
            f"--callgrind-out-file={self.out}/callgrind.out.%p",
            sys.executable,
            "manage.py",
            "runsite",
            "--no-access-log",
            "--no-ticker",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        self.popen = subprocess.Popen(
            command,
            cwd=code,
            env=dict(os.environ) | SLOW | {"PYTHONUNBUFFERED": "1"},
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        for _ in range(3000):
            with contextlib.suppress(OSError):
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                return
            if self.popen.poll() is not None:
                sys.exit(f"the site of {code} stopped; see {self.log}")
            time.sleep(0.2)
        sys.exit(f"the site of {code} did not start; see {self.log}")

    def control(self, *args: str) -> None:
        subprocess.run(
            ["callgrind_control", *args, str(self.popen.pid)],
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def counted(self, work: callable) -> int:  # type: ignore[valid-type]
        """Instructions the process ran while `work()` ran."""
        self.control("-z")
        self.control("-i", "on")
        work()
        self.control("-i", "off")
        before = set(self.out.iterdir())
        self.control("-d")
        for _ in range(600):
            made = set(self.out.iterdir()) - before
            if made and all(_totals(p) is not None for p in made):
                return sum(_totals(p) or 0 for p in made)
            time.sleep(0.1)
        raise RuntimeError("callgrind wrote no dump")

    def stop(self) -> None:
        self.popen.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(60)


def _totals(path: Path) -> int | None:
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return None
    found = [
        int(line.split()[1])
        for line in text.splitlines()
        if line.startswith(("totals:", "summary:"))
    ]
    return max(found) if found else None


def requests_of(kind: str, village, cookie: str, watchers: Watchers | None = None):
    """A function that sends one request of `kind` on `client` and checks its answer."""
    seats = [no for no in range(11, 22)]
    turn = iter(range(10**9))

    def send(client: Client) -> None:
        if kind == "post":
            no = seats[next(turn) % len(seats)]
            before = dict(watchers.seen) if watchers else {}
            client.post_line(village.id, village.tokens[no], f"counted line {next(turn)}")
            while watchers and any(watchers.seen[n] <= before[n] for n in before):
                time.sleep(0.002)
            return
        path, headers = {
            "lower": (f"/villages/{village.id}/down/", {"Cookie": f"sessionid={cookie}"}),
            "top": ("/", {}),
            "static": ("/static/villages/icons/silver-moon.svg", {}),
            "healthz": ("/healthz", {}),
        }[kind]
        status, _body = client.request("GET", path, headers=headers)
        if status != 200:
            raise RuntimeError(f"{path}: {status}")

    return send


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=Path, nargs="+", default=[ROOT])
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--warm", type=int, default=5)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=["post", "lower", "top"])
    parser.add_argument("--sockets", type=int, default=0, help="sockets watching the posts")
    parser.add_argument("--screen", action="store_true", help="game screens, not API sockets")
    args = parser.parse_args()
    work = setup_django()
    village = day_two_village()
    cookie = session_cookie(village.users[12])
    figures: dict[str, dict[str, float]] = {}
    for code in args.code:
        code = code.resolve()
        print(f"{code}: starting the site under callgrind ...", flush=True)
        site = CountedSite(code, work)
        watchers = None
        try:
            client = Client(site)  # type: ignore[arg-type]
            if args.sockets:
                watchers = Watchers(site, village, args.sockets, args.screen)
            for kind in args.kinds:
                send = requests_of(kind, village, cookie, watchers)
                for _ in range(args.warm):
                    send(client)
                total = site.counted(
                    lambda send=send, client=client: [send(client) for _ in range(args.requests)]
                )
                figures.setdefault(kind, {})[str(code)] = total / args.requests
                print(f"  {kind:8} {total / args.requests / 1e6:8.2f} M instructions a request")
        finally:
            if watchers is not None:
                watchers.stop()
            site.stop()
    print()
    print(f"{'kind':8} " + " ".join(f"{str(c.resolve())[-28:]:>30}" for c in args.code))
    for kind, by_code in figures.items():
        print(
            f"{kind:8} " + " ".join(f"{by_code[str(c.resolve())] / 1e6:28.2f} M" for c in args.code)
        )


if __name__ == "__main__":
    main()
