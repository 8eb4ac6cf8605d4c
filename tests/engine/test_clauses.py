"""CLAUSES.md stays true: every test it names exists, and every section §2–§9 has rows."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from .test_golden_games import GOLDEN

CLAUSES = Path(__file__).with_name("CLAUSES.md")
REF = re.compile(r"(test_\w+\.py)::(test_\w+)(?:\[([^\]]+)\])?")


def test_every_test_named_in_clauses_md_exists() -> None:
    """The clause → test map names only real tests (and real golden games / cases)."""
    text = CLAUSES.read_text(encoding="utf-8")
    refs = REF.findall(text)
    assert len(refs) > 150
    golden = {g.name for g in GOLDEN}
    from .test_errors import CASES

    error_cases = {c[1] for c in CASES}
    for module_file, test, param in refs:
        module = importlib.import_module(f"tests.engine.{module_file.removesuffix('.py')}")
        assert hasattr(module, test), f"{module_file}::{test} does not exist"
        if not param:
            continue
        if test == "test_golden_game":
            assert param in golden, param
        elif test == "test_rule_error_is_typed_and_changes_nothing":
            assert param in error_cases, param


def test_every_section_two_to_nine_is_mapped() -> None:
    text = CLAUSES.read_text(encoding="utf-8")
    for section in range(2, 10):
        rows = [line for line in text.splitlines() if line.startswith(f"| §{section}")]
        assert rows, f"no row for §{section}"
        assert all(REF.search(row) for row in rows)
