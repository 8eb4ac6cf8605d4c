"""The standard gettext workflow (issue 13): locale/en/LC_MESSAGES/django.po is the source
of the English, `makemessages` finds nothing in the code that it lacks, every entry has its
English, and the committed .mo is compiled from it."""

import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PO = ROOT / "locale" / "en" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
SOURCES = ["accounts", "jinro_site", "villages", "templates", "locale", "manage.py"]


def statistics(po) -> str:
    answer = subprocess.run(
        ["msgfmt", "--statistics", "--check-format", "-o", "/dev/null", str(po)],
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 0, answer.stderr
    return answer.stderr.strip()


def catalog(mo) -> str:
    """A compiled catalog as gettext's msgunfmt writes it out: its entries, sorted."""
    answer = subprocess.run(["msgunfmt", str(mo)], capture_output=True, text=True, check=True)
    return answer.stdout


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """The .po as `makemessages` leaves it when run over a copy of the code."""
    if shutil.which("msgfmt") is None or shutil.which("xgettext") is None:
        pytest.skip("gettext is absent (CI installs it)")
    copy = tmp_path_factory.mktemp("project")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, copy / name)
    answer = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "en", "--no-obsolete"],
        cwd=copy,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "jinro_site.settings"},
    )
    assert answer.returncode == 0, answer.stderr
    return copy / "locale" / "en" / "LC_MESSAGES" / "django.po"


def test_every_msgid_of_the_code_has_its_english(extracted):
    said = statistics(extracted)
    assert "untranslated" not in said and "fuzzy" not in said, (
        f"{said}: run makemessages and write the English into {PO.relative_to(ROOT)}"
    )


def test_the_po_file_is_the_source_with_a_proper_header():
    text = PO.read_text(encoding="utf-8")
    assert "SOME DESCRIPTIVE TITLE" not in text and "PACKAGE VERSION" not in text
    assert '"Language: en\\n"' in text and '"Project-Id-Version: jinro_site\\n"' in text
    assert not (ROOT / "locale" / "en_translations.py").exists()
    said = statistics(PO)
    assert "untranslated" not in said and "fuzzy" not in said, said


def test_the_committed_mo_is_compiled_from_the_po(tmp_path):
    if shutil.which("msgfmt") is None:
        pytest.skip("gettext is absent (CI installs it)")
    fresh = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "-o", str(fresh), str(PO)], check=True)
    # The catalogs compared as gettext's msgunfmt writes them out (the bytes of two .mo
    # files of one catalog may differ between msgfmt versions).
    assert catalog(MO) == catalog(fresh), "run manage.py compilemessages -l en --ignore .venv"


def test_no_function_shadows_the_translation_marker_it_calls():
    """`_` assigned anywhere in a function (`x, _ = ...`, `for _ in ...`) makes it local to
    the whole function, and a `_("...")` there then fails at run time."""
    import ast

    shadowing = []
    for package in ("accounts", "jinro_site", "villages"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for func in ast.walk(tree):
                if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                own = _own_nodes(func)
                assigned = any(
                    isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Store)
                    for n in own
                )
                called = any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_"
                    for n in own
                )
                if assigned and called:
                    shadowing.append(f"{path.relative_to(ROOT)}:{func.lineno} {func.name}")
    assert not shadowing, shadowing


def _own_nodes(func) -> list:
    """The nodes of `func`'s own scope: not those of a function, lambda or comprehension
    nested in it (each has a scope of its own), found in one walk."""
    import ast

    nested = (
        ast.FunctionDef
        | ast.AsyncFunctionDef
        | ast.Lambda
        | ast.ListComp
        | ast.SetComp
        | ast.DictComp
        | ast.GeneratorExp
    )
    own, todo = [], list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, nested):
            continue
        own.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return own
