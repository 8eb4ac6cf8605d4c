"""The scan behind tests/test_dependencies.py: where the code reaches into a dependency.

A dependency is any module that is not the project's own (the standard library too); what
the project may use of one is what it documents. The scan reads the code of jinro_site/,
villages/, accounts/ and tests/ (migrations aside) and reports:

* a private name (a leading underscore) of a dependency, however it is reached: an
  attribute, a string given to getattr/setattr/hasattr/delattr or read out of a
  `__dict__`, an import. An underscore name on `self`, `cls`, or a module, class or
  function of the project is the project's own. On any other object it is the project's
  own only when the project defines that name and no dependency the project imports
  does: a bare name says nothing of whose object it is on, so a name of both spellings is
  a dependency's (rename ours);
* a write into an object's `__dict__` (`obj.__dict__[k] = v`, `.update(...)`,
  `vars(obj)[k] = v`, `obj.__dict__ = ...`) but through `self`/`cls` or into an object the
  function has just made with `__new__`, and any read of a dependency module's or
  class's `__dict__`;
* a dunder name that Python's data model does not define (`cls.__dataclass_fields__`, an
  implementation detail of dataclasses, whose documented API is `fields()`);
* getattr/setattr/hasattr/delattr on a dependency's module or class with a name computed
  at run time (nothing says the dependency documents what it reaches);
* an assignment to a dependency's module or class attribute, or setattr/delattr on one
  (a monkey-patch);
* a subclass of a dependency's class that defines, or uses through `self`, a private
  name of its base;
* a comment or docstring that names a private name of a dependency, or says that a
  dependency wraps or patches something: code relying on what a dependency does
  undocumented, whatever the code itself spells.

Names are resolved by scope: a fixture parameter `settings` is not the module-level
`django.conf.settings` it shadows.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import inspect
import io
import re
import tokenize
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("jinro_site", "villages", "accounts", "tests")
OURS = ("jinro_site", "villages", "accounts", "tests", "bench")
# The scan and its test spell the misuses they look for: they are not scanned.
NOT_SCANNED = ("tests/dependency_scan.py", "tests/test_dependencies.py")

# Underscore names that a dependency documents as its API.
DOCUMENTED = {
    "_meta": "https://docs.djangoproject.com/en/5.2/ref/models/meta/",
    "_default_manager": "https://docs.djangoproject.com/en/5.2/topics/db/managers/#default-managers",
}

GETATTRS = ("getattr", "setattr", "hasattr", "delattr")
DICT_WRITES = ("update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__")
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
CHECKED = (ast.ImportFrom, ast.Attribute, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)
CHECKED += (ast.Call, ast.ClassDef)
WRAP_WORDS = re.compile(r"\b(wraps?|wrapped|wrapping|(monkey-?)?patch(es|ed|ing)?)\b", re.I)
UNDERSCORED = re.compile(r"(?<![\w.])_[A-Za-z]\w*|(?<=\.)_[A-Za-z]\w*")
DEP, OWN, LOCAL = "dep", "own", "local"  # how a scope binds a name


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def is_private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not is_dunder(name)


def is_ours(module: str) -> bool:
    return module.split(".")[0] in OURS


def is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


@functools.cache
def data_model() -> frozenset[str]:
    """The dunder names of Python's data model: those of the built-in types (objects,
    classes, functions, methods, modules, code, generators, coroutines, exceptions,
    containers, numbers) and the hooks it defines for classes of ours
    (https://docs.python.org/3/reference/datamodel.html)."""
    kinds: list[object] = [object, type, types.FunctionType, types.MethodType, property]
    kinds += [types.ModuleType, types.CodeType, types.GeneratorType, types.CoroutineType]
    kinds += [BaseException, int, float, complex, str, bytes, list, dict, set, tuple, slice]
    kinds += [staticmethod, classmethod, functools.partial]
    kinds += [contextlib.AbstractContextManager, contextlib.AbstractAsyncContextManager]
    names = {n for kind in kinds for n in dir(kind)}
    names |= {"__dict__", "__annotations__", "__wrapped__", "__slots__", "__all__"}
    names |= {"__call__", "__get__", "__set__", "__delete__", "__set_name__", "__await__"}
    names |= {"__aiter__", "__anext__", "__getattr__", "__missing__", "__post_init__"}
    names |= {"__match_args__", "__fspath__", "__enter__", "__exit__"}
    return frozenset(n for n in names if is_dunder(n))


# --- The files, their scopes and names -------------------------------------------------------


@dataclass(eq=False)
class Scope:
    parent: Scope | None = None
    is_class: bool = False
    names: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (how, dotted)
    made: set[str] = field(default_factory=set)  # names bound to `X.__new__(...)` here

    def lookup(self, name: str) -> tuple[str, str]:
        """How the innermost scope that binds `name` binds it (a method does not see its
        class's names); ("", "") for builtins and unknown names."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names and (scope is self or not scope.is_class):
                return scope.names[name]
            scope = scope.parent
        return "", ""

    def bind(self, name: str, how: str, dotted: str = "") -> None:
        rank = (DEP, OWN, LOCAL)  # an import wins over a rebinding in the same scope
        if name not in self.names or rank.index(how) < rank.index(self.names[name][0]):
            self.names[name] = (how, dotted)


@dataclass
class Source:
    """One file: its text, tree, scopes, what it imports from dependencies, and the
    underscore names it defines."""

    path: Path
    where: str
    text: str
    tree: ast.Module
    checked: list[tuple[ast.AST, Scope]] = field(default_factory=list)  # what to look at
    imported: set[str] = field(default_factory=set)  # dotted names from dependencies
    defined: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, path: Path) -> Source:
        text = path.read_text()
        source = cls(path, path.relative_to(ROOT).as_posix(), text, ast.parse(text, str(path)))
        source.bind_all()
        return source

    def bind_all(self) -> None:
        """One walk: each scope's bindings, the nodes to check (each with its scope), the
        file's dependency imports and own names."""
        stack: list[tuple[ast.AST, Scope]] = [(self.tree, Scope())]
        while stack:
            node, scope = stack.pop()
            inner = scope
            if isinstance(node, CHECKED):
                self.checked.append((node, scope))
            if isinstance(node, SCOPES):
                if not isinstance(node, ast.Lambda):
                    scope.bind(node.name, OWN)
                    self.defined.add(node.name)
                inner = Scope(parent=scope, is_class=isinstance(node, ast.ClassDef))
                if not isinstance(node, ast.ClassDef):
                    for arg in ast.walk(node.args):
                        if isinstance(arg, ast.arg):
                            inner.bind(arg.arg, LOCAL)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                self.bind_import(node, scope)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                scope.bind(node.id, LOCAL)
                self.defined.add(node.id)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                scope.bind(node.name, LOCAL)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and is_self(node.value)  # `self._x = ...`: the project's own attribute
            ):
                self.defined.add(node.attr)
            if isinstance(node, ast.Assign) and is_new(node.value):
                scope.made.update(t.id for t in node.targets if isinstance(t, ast.Name))
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
        self.defined = {name for name in self.defined if is_private(name)}

    def bind_import(self, node: ast.Import | ast.ImportFrom, scope: Scope) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = (alias.asname or alias.name).split(".")[0]
                ours = is_ours(alias.name)
                scope.bind(local, OWN if ours else DEP, alias.name if alias.asname else local)
                if not ours:
                    self.imported.add(alias.name)
            return
        ours = bool(node.level) or not node.module or is_ours(node.module)
        for alias in node.names:
            dotted = f"{node.module}.{alias.name}"
            scope.bind(alias.asname or alias.name, OWN if ours else DEP, dotted)
            if not ours:
                self.imported.add(dotted)


def is_new(value: ast.expr) -> bool:
    """`object.__new__(...)`, `cls.__new__(...)`: an object being made, still nobody's."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "__new__"
    )


def project_files() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            if "migrations" not in path.parts and where not in NOT_SCANNED:
                yield path


# --- What the dependencies define ----------------------------------------------------------


def resolve(dotted: str) -> object:
    """The object a dotted name of a dependency names (None: not importable)."""
    path = dotted.split(".")
    for cut in range(len(path), 0, -1):
        try:
            found: object = importlib.import_module(".".join(path[:cut]))
        except ImportError:
            continue
        for name in path[cut:]:
            found = getattr(found, name, None)
        return found
    return None


def modules_behind(obj: object) -> set[types.ModuleType]:
    """The modules whose code makes `obj`: a module; a class and its bases; a function;
    the class of any other object."""
    if obj is None:
        return set()
    if isinstance(obj, types.ModuleType):
        return {obj}
    if isinstance(obj, type):
        makers: tuple[object, ...] = obj.__mro__
    elif callable(obj):
        makers = (obj,)
    else:
        makers = type(obj).__mro__
    found = {inspect.getmodule(maker) for maker in makers}
    return {m for m in found if m is not None and m.__name__ != "builtins"}


@functools.cache
def private_names_in(module: types.ModuleType) -> frozenset[str]:
    """Every underscore name a module's source spells (its functions, classes, names, the
    attributes it sets on anything: `self._future`, `request._cached_user`)."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):  # compiled: what it exposes
        inside = [module, *(v for v in vars(module).values() if isinstance(v, type))]
        return frozenset(n for obj in inside for n in dir(obj) if is_private(n))
    return frozenset(n for n in UNDERSCORED.findall(source) if is_private(n))


def dependency_private_names(imported: set[str]) -> dict[str, str]:
    """Underscore name -> a dependency module that defines it, over every module behind a
    name the project imports from a dependency."""
    modules: set[types.ModuleType] = set()
    for dotted in imported:
        modules |= modules_behind(resolve(dotted))
    found: dict[str, str] = {}
    for module in sorted(modules, key=lambda m: m.__name__):
        for name in private_names_in(module):
            found.setdefault(name, module.__name__)
    return found


# --- The scan ------------------------------------------------------------------------------


class Scan:
    """One pass over the project: `found` lists each misuse as "file:line: what"."""

    def __init__(self) -> None:
        self.sources = [Source.read(path) for path in project_files()]
        self.ours = set().union(*(s.defined for s in self.sources))
        self.theirs = dependency_private_names(set().union(*(s.imported for s in self.sources)))
        # Dependencies as prose names them: top-level packages whose names are no English
        # words (`channels_redis`, not `channels`).
        tops = {d.split(".")[0] for s in self.sources for d in s.imported}
        self.packages = sorted(t for t in tops if "_" in t.strip("_"))
        self.found: list[str] = []
        for source in self.sources:
            FileScan(self, source).run()


class FileScan:
    def __init__(self, scan: Scan, source: Source) -> None:
        self.scan, self.source = scan, source
        self.scope = Scope()
        self.line = 0

    def run(self) -> None:
        for node, scope in self.source.checked:
            self.scope, self.line = scope, node.lineno  # type: ignore[attr-defined]
            self.check(node)
        self.prose()

    def check(self, node: ast.AST) -> None:
        if isinstance(node, ast.ImportFrom):
            self.import_from(node)
        elif isinstance(node, ast.Attribute):
            self.reach(node.value, node.attr, node.attr)
            if node.attr == "__dict__" and self.of_dependency(node.value):
                self.report(f"reads {ast.unparse(node)}, a dependency's namespace")
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            self.assignment(node)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.ClassDef):
            self.subclass(node)

    def report(self, what: str, line: int | None = None) -> None:
        self.scan.found.append(f"{self.source.where}:{line or self.line}: {what}")

    # -- names ------------------------------------------------------------------------------

    def import_from(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module or is_ours(node.module):
            return
        for alias in node.names:
            if is_private(alias.name) or any(map(is_private, node.module.split("."))):
                self.report(f"imports {node.module}.{alias.name}")

    def reach(self, base: ast.expr, name: str, spelled: str) -> None:
        """`base.<name>`, however it is written (`spelled`)."""
        if is_self(base):
            return
        if is_dunder(name):
            if name not in data_model():
                self.report(f"uses {spelled}, a dunder name outside Python's data model")
        elif is_private(name) and name not in DOCUMENTED:
            theirs, ours = self.scan.theirs, self.scan.ours
            if self.of_dependency(base):
                self.report(f"uses the private name {name} of {ast.unparse(base)}")
            elif self.binding(base)[0] == OWN:
                return
            elif name in theirs:
                also = " (the project has a name of this spelling too)" if name in ours else ""
                self.report(f"uses the private name {name} of {theirs[name]}{also}")
            elif name not in ours:
                self.report(f"uses the private name {name}")

    def call(self, node: ast.Call) -> None:
        func, args = node.func, node.args
        if isinstance(func, ast.Name) and func.id in GETATTRS and len(args) >= 2:
            name = args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                self.reach(args[0], name.value, f"{func.id}(..., {name.value!r})")
            elif self.is_namespace(args[0]):
                self.report(f"{func.id} on {ast.unparse(args[0])} with a computed name")
            if func.id in ("setattr", "delattr") and self.of_dependency(args[0]):
                self.report(f"{func.id} on {ast.unparse(args[0])} (a monkey-patch)")
        elif isinstance(func, ast.Name) and func.id == "vars" and args:
            if self.of_dependency(args[0]):
                self.report(f"reads vars({ast.unparse(args[0])}), a dependency's namespace")
        elif isinstance(func, ast.Attribute) and func.attr in DICT_WRITES:
            self.dict_write(func.value, f".{func.attr}(...)")
            if func.attr in ("pop", "setdefault", "__setitem__") and args:
                self.dict_key(func.value, args[0])
        elif isinstance(func, ast.Attribute) and func.attr == "get" and args:
            self.dict_key(func.value, args[0])

    def dict_key(self, holder: ast.expr, key: ast.expr) -> None:
        """A string key of `obj.__dict__` or `vars(obj)`: `obj.<key>`."""
        owner = namespace_of(holder)
        if owner is not None and isinstance(key, ast.Constant) and isinstance(key.value, str):
            self.reach(owner, key.value, f"{ast.unparse(holder)}[{key.value!r}]")

    def dict_write(self, holder: ast.expr, how: str) -> None:
        owner = namespace_of(holder)
        if owner is None or is_self(owner):
            return
        if isinstance(owner, ast.Name) and owner.id in self.scope.made:
            return  # an object this function is making
        self.report(f"writes into {ast.unparse(holder)} ({how})")

    def assignment(self, node: ast.stmt) -> None:
        many = isinstance(node, ast.Assign | ast.Delete)
        targets = node.targets if many else [node.target]  # type: ignore[attr-defined]
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr == "__dict__":
                self.dict_write(target, "replaced")
            elif isinstance(target, ast.Attribute) and self.of_dependency(target.value):
                self.report(f"assigns {ast.unparse(target)} (a monkey-patch)")
            elif isinstance(target, ast.Subscript):
                self.dict_write(target.value, "an item")
                self.dict_key(target.value, target.slice)

    def subclass(self, node: ast.ClassDef) -> None:
        bases = [b for b in (self.dependency_object(x) for x in node.bases) if b]
        for item in node.body:
            if (
                isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and is_private(item.name)
                and any(hasattr(b, item.name) for b in bases)
            ):
                self.report(f"{node.name} overrides {item.name} of a dependency", item.lineno)
        for inner in ast.walk(node):  # the base's private names, through self
            if (
                isinstance(inner, ast.Attribute)
                and is_private(inner.attr)
                and is_self(inner.value)
                and any(hasattr(b, inner.attr) for b in bases)
            ):
                self.report(f"{node.name} uses {inner.attr} of its base", inner.lineno)

    # -- comments and docstrings -------------------------------------------------------------

    def prose(self) -> None:
        text, theirs = self.source.text, self.scan.theirs
        named = {n for n in UNDERSCORED.findall(text) if n in theirs}
        named -= self.scan.ours | DOCUMENTED.keys()
        packages = [p for p in self.scan.packages if p in text]
        if not named and not (packages and WRAP_WORDS.search(text)):
            return  # nothing in this file for prose to say
        for line, words in prose_of(text, self.source.tree):
            for sentence in re.split(r"(?<=[.;])\s+|\n\s*\n", words):
                for name in sorted(set(UNDERSCORED.findall(sentence)) & named):
                    self.report(f"a comment names {name}, a private name of {theirs[name]}", line)
                if WRAP_WORDS.search(sentence):
                    for package in (p for p in packages if re.search(rf"\b{p}\b", sentence)):
                        self.report(f"a comment relies on what {package} wraps or patches", line)

    # -- what an expression is ---------------------------------------------------------------

    def binding(self, node: ast.expr) -> tuple[str, str]:
        """How the scope in force binds `node`'s root name."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return self.scope.lookup(node.id) if isinstance(node, ast.Name) else ("", "")

    def of_dependency(self, node: ast.expr) -> bool:
        """`node` is, or is reached from, a name imported from a dependency."""
        return self.binding(node)[0] == DEP

    def is_namespace(self, node: ast.expr) -> bool:
        """A dependency's module or class (not an object such as django.conf.settings)."""
        return isinstance(self.dependency_object(node), types.ModuleType | type)

    def dependency_object(self, node: ast.expr) -> Any:
        """The dependency's object that `node` names (None: not a dependency's)."""
        how, dotted = self.binding(node)
        if how != DEP:
            return None
        return resolve(".".join([dotted, *ast.unparse(node).split(".")[1:]]))


def namespace_of(holder: ast.expr) -> ast.expr | None:
    """`obj` when `holder` is `obj.__dict__` or `vars(obj)`."""
    if isinstance(holder, ast.Attribute) and holder.attr == "__dict__":
        return holder.value
    if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.args:
        return holder.args[0] if holder.func.id == "vars" else None
    return None


def prose_of(text: str, tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment (a run of comment lines as one) and docstring."""
    run: list[str] = []
    start = 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            start = start if run else token.start[0]
            run.append(token.string.lstrip("#").strip())
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT) and run:
            yield start, " ".join(run)
            run = []
    if run:
        yield start, " ".join(run)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body:
                yield node.body[0].lineno, doc


def violations() -> list[str]:
    return Scan().found
