"""The package's import graph: no circle, and every arrow points at the same or an earlier stage.

Every import counts, at module level or inside a function (an import moved into a function to
dodge a circle is still the same dependency), and so do imports under ``TYPE_CHECKING``. A name
imported through the package root counts as an import of the module the root re-exports it
from, and importing a module counts as importing every package ``__init__`` that runs first.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "pytest_legalbench"
ROOT = Path(__file__).resolve().parents[2] / PACKAGE

#: The stages in pipeline order: a module may import from its own stage or an earlier one.
STAGES = ("defaults", "tokens", "files", "stats", "ingest", "navindex", "llm", "vectors",
          "modes", "judging", "results", "gandr", "spans", "reference_backend", "run",
          "plugin", "commands")


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join([PACKAGE, *parts])] = path
    return found


def _exports() -> dict[str, str]:
    """The package root's export table: each public name it re-exports -> the defining module."""
    tree = ast.parse((ROOT / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name)
                                                and target.id == "_EXPORTS"
                                                for target in node.targets):
            table = ast.literal_eval(node.value)
            assert isinstance(table, dict), "the root's _EXPORTS is not a dict"
            return {str(name): str(module) for name, module in table.items()}
    raise AssertionError(f"{PACKAGE}/__init__.py has no _EXPORTS table")


def _imports(name: str, source: str, known: set[str], exports: dict[str, str], *,
             is_package: bool = False) -> Iterator[str]:
    """The package modules that module ``name`` (whose text is ``source``) imports."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + is_package]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            if not origin.startswith(PACKAGE):
                continue
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                if submodule in known:
                    yield submodule
                elif origin == PACKAGE and name != PACKAGE and alias.name in exports:
                    # The root re-exports a stage's name lazily: importing it through the
                    # root is importing its defining module.
                    yield exports[alias.name]
                else:
                    yield origin


def _parents(module: str) -> list[str]:
    """The packages below the root that importing ``module`` runs first (``a.b`` of ``a.b.c``)."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(2, len(parts))]


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    exports = _exports()
    direct = {name: {target for target in _imports(name, path.read_text(encoding="utf-8"), known,
                                                    exports, is_package=path.name == "__init__.py")
                     if target != name}
              for name, path in modules.items()}
    # A package whose __init__ imports modules runs them whenever one of its modules is
    # imported from outside it: that is an import too (not the root's, whose imports are for
    # type checking; not a module's own packages, which are running already).
    loaders = {name for name, path in modules.items()
               if path.name == "__init__.py" and name != PACKAGE and direct[name]}
    graph = {}
    for name, targets in direct.items():
        implicit = {parent for target in targets for parent in _parents(target)
                    if parent in loaders and not f"{name}.".startswith(f"{parent}.")}
        graph[name] = (targets | implicit) - {name}
    return graph


def _stage(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_every_module_belongs_to_a_stage() -> None:
    strays = [m for m in _graph() if m != PACKAGE and _stage(m) not in STAGES]
    assert not strays, f"modules outside the stages {STAGES}: {strays}"


def test_the_package_has_no_import_circle() -> None:
    assert _cycles(_graph()) == []


def test_a_cycle_is_found_when_there_is_one() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_point_to_the_same_or_an_earlier_stage() -> None:
    upstream = []
    for module, targets in _graph().items():
        if module == PACKAGE:
            continue  # the package's face re-exports the public names of every stage
        for target in targets:
            if target == PACKAGE:
                continue
            if STAGES.index(_stage(target)) > STAGES.index(_stage(module)):
                upstream.append(f"{module} -> {target}")
    assert not upstream, "imports of a later stage:\n" + "\n".join(sorted(upstream))


def test_a_name_imported_through_the_root_points_at_its_defining_module() -> None:
    exports = _exports()
    assert exports["Settings"] == f"{PACKAGE}.plugin.settings"
    found = set(_imports(f"{PACKAGE}.results.summary",
                         "from pytest_legalbench import Settings, __version__\n",
                         set(_modules()), exports))
    assert found == {f"{PACKAGE}.plugin.settings", PACKAGE}


def test_importing_a_module_imports_the_packages_it_lies_in() -> None:
    graph = _graph()
    # run.backend imports reference_backend.server; the package's __init__ runs first.
    assert f"{PACKAGE}.reference_backend" in graph[f"{PACKAGE}.run.backend"]
    # Not a module's own package: it is already running when the module is imported.
    assert f"{PACKAGE}.reference_backend" not in graph[f"{PACKAGE}.reference_backend.server"]


def test_the_package_imports_its_root_only_by_name() -> None:
    """``import pytest_legalbench`` would hide which stage its attributes come from."""
    bare = [name for name, path in _modules().items()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Import) and any(a.name == PACKAGE for a in node.names)]
    assert bare == []


def test_the_leaves_import_nothing_from_the_package() -> None:
    graph = _graph()
    for leaf in (f"{PACKAGE}.defaults", f"{PACKAGE}.tokens"):
        assert graph[leaf] <= {PACKAGE}, leaf


def test_the_public_names_resolve_to_their_defining_modules() -> None:
    import importlib

    import pytest_legalbench

    assert sorted(pytest_legalbench.__all__) == sorted(["__version__",
                                                        *pytest_legalbench._EXPORTS])
    for name in pytest_legalbench.__all__:
        value = getattr(pytest_legalbench, name)
        if name != "__version__":
            assert value.__module__.startswith("pytest_legalbench."), name
    assert importlib.import_module("pytest_legalbench").__version__ == "0.1.0"


def test_importing_the_package_imports_no_stage() -> None:
    import subprocess
    import sys

    script = ("import sys, pytest_legalbench; "
              "print(sorted(m for m in sys.modules if m.startswith('pytest_legalbench.')))")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert shown == "[]"
