"""The engine is pure: no Django, no clock, no global randomness (issue 3, STYLE.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "villages" / "engine"


def test_engine_and_its_tests_import_without_django() -> None:
    """The engine and this suite's helpers load in a bare interpreter, Django untouched."""
    code = (
        "import sys\n"
        "import villages.engine, villages.engine.game, villages.engine.visibility\n"
        "import tests.engine.harness, tests.engine.randomplay, tests.engine.oracle\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'celery'))\n"
        "assert not bad, bad\n"
    )
    root = ENGINE.parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_engine_reads_no_clock_and_no_global_random() -> None:
    """Time is an argument and randomness a passed-in `random.Random`."""
    banned = re.compile(
        r"datetime\.now|datetime\.utcnow|time\.time\(|date\.today|"
        r"random\.(random|choice|shuffle|sample|randint|seed)\(|import django|from django"
    )
    for path in ENGINE.glob("*.py"):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not banned.search(line), f"{path.name}:{no}: {line.strip()}"
