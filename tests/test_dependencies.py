"""The project uses its dependencies only through what they document (issue 30).

An AST scan of the project's code (jinro_site/, villages/, accounts/; migrations aside)
fails on:

* a private name of a dependency: `from django.x import _name`, or an attribute with a
  leading underscore read or written on anything but the project's own objects (`self`,
  `cls`, and names the project defines itself);
* an assignment to a dependency's module or class attribute (`daphne.server.Server.x = ...`,
  `http_protocol.WebRequest = ...`, `setattr(some_module, ...)`): a monkey-patch;
* a subclass of a dependency's class that defines a method with a leading underscore
  (an override of an undocumented method).

A few names with a leading underscore are a dependency's documented API; each is listed
in DOCUMENTED with the page that documents it. ALLOWED is for exceptions and stays empty.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("jinro_site", "villages", "accounts")
OURS = (*PACKAGES, "tests")

# Underscore names that a dependency documents as its API.
DOCUMENTED = {
    "_meta": "https://docs.djangoproject.com/en/5.2/ref/models/meta/",
    "_default_manager": "https://docs.djangoproject.com/en/5.2/topics/db/managers/#default-managers",
}
ALLOWED: set[tuple[str, str]] = set()  # (file, name): should stay empty


def project_files() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def parsed() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(), str(path))) for path in project_files()]


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def own_names(trees: list[tuple[Path, ast.Module]]) -> set[str]:
    """Every underscore name the project defines: functions, classes, attributes it
    assigns (`self._x = ...`, `x._y = ...` of its own objects), class-level names."""
    names: set[str] = set()
    for _path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {name for name in names if is_private(name)}


def imported_modules(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dependency module or object it was imported as (not ours)."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in OURS:
                    found[(alias.asname or alias.name).split(".")[0]] = alias.name
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.split(".")[0] not in OURS
        ):
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def violations() -> list[str]:
    trees = parsed()
    ours = own_names(trees)
    found: list[str] = []
    for path, tree in trees:
        where = str(path.relative_to(ROOT))
        deps = imported_modules(tree)
        for node in ast.walk(tree):
            line = f"{where}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] not in OURS:
                    for alias in node.names:
                        if is_private(alias.name) or any(map(is_private, node.module.split("."))):
                            found.append(f"{line}: imports {node.module}.{alias.name}")
            elif isinstance(node, ast.Attribute) and is_private(node.attr):
                base = node.value
                if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                    continue
                if node.attr in ours or node.attr in DOCUMENTED:
                    continue
                if (where, node.attr) not in ALLOWED:
                    found.append(f"{line}: uses the private name {node.attr}")
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and _of_dependency(target.value, deps):
                        found.append(f"{line}: assigns {ast.unparse(target)} (a monkey-patch)")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
                and node.args
                and _of_dependency(node.args[0], deps)
            ):
                found.append(f"{line}: {node.func.id} on {ast.unparse(node.args[0])}")
            elif isinstance(node, ast.ClassDef):
                bases = [b for b in (_dependency_class(x, deps) for x in node.bases) if b]
                for item in node.body:
                    if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        continue
                    if is_private(item.name) and any(hasattr(b, item.name) for b in bases):
                        found.append(f"{line}: {node.name} overrides {item.name} of a dependency")
                for inner in ast.walk(node):  # the base's private names, through self
                    if (
                        isinstance(inner, ast.Attribute)
                        and is_private(inner.attr)
                        and isinstance(inner.value, ast.Name)
                        and inner.value.id in ("self", "cls")
                        and any(hasattr(b, inner.attr) for b in bases)
                    ):
                        found.append(
                            f"{where}:{inner.lineno}: {node.name} uses {inner.attr} of its base"
                        )
    return found


def _dependency_class(node: ast.expr, deps: dict[str, str]) -> object:
    """The dependency's class that `node` names as a base (None: not a dependency's)."""
    if not _of_dependency(node, deps):
        return None
    dotted = ast.unparse(node).split(".")
    path = deps[dotted[0]].split(".") + dotted[1:]
    for cut in range(len(path), 0, -1):
        try:
            found: object = importlib.import_module(".".join(path[:cut]))
        except ImportError:
            continue
        for name in path[cut:]:
            found = getattr(found, name, None)
        return found
    return None


def _of_dependency(node: ast.expr, deps: dict[str, str]) -> bool:
    """`node` names a dependency's module or class (`daphne.server`, `Server`, `x.Y`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in deps


def test_the_project_uses_its_dependencies_only_through_what_they_document():
    found = violations()
    assert found == [], "\n".join(found)


def test_the_scan_finds_what_it_is_for(tmp_path, monkeypatch):
    """The scan itself: each kind of misuse in a file of a fake package is reported."""
    package = tmp_path / "villages"
    package.mkdir()
    (package / "bad.py").write_text(
        "from daphne import http_protocol\n"
        "from django.template.backends.django import reraise, _private\n"
        "from twisted.internet import tcp\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "http_protocol.WebRequest = object\n"
        "setattr(tcp.Connection, 'write', None)\n"
        "def f(transport, obj):\n"
        "    return transport._tempDataBuffer, obj._state.fields_cache, obj._meta\n"
        "class C(ThreadPoolExecutor):\n"
        "    def _adjust_thread_count(self):\n"
        "        return self._mine\n"
        "    def _a_new_one_of_ours(self):\n"
        "        return self._counter()\n"
    )
    monkeypatch.setattr("tests.test_dependencies.ROOT", tmp_path)
    monkeypatch.setattr("tests.test_dependencies.PACKAGES", ("villages",))
    found = "\n".join(violations())
    assert "imports django.template.backends.django._private" in found
    assert "assigns http_protocol.WebRequest" in found
    assert "setattr on tcp.Connection" in found
    assert "private name _tempDataBuffer" in found and "private name _state" in found
    assert "_meta" not in found  # documented
    assert "C overrides _adjust_thread_count" in found
    assert "_a_new_one_of_ours" not in found  # not an override
    assert "C uses _counter of its base" in found
    assert "_mine" not in found  # the class's own
