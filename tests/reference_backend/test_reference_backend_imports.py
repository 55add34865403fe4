"""The reference backend stands in for a model, so of GANDR it may know only the wire format:
no module of it imports a GANDR module other than ``gandr.wire``, and that one is a leaf."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_legalbench
from pytest_legalbench.gandr import tool_specs, wire
from pytest_legalbench.stats.agreement import AUDIT_LABELS

PACKAGE = Path(pytest_legalbench.__file__).parent
BACKEND = PACKAGE / "reference_backend"
GANDR = "pytest_legalbench.gandr"
ALLOWED = f"{GANDR}.wire"


def imported_modules(source: str, package: str) -> list[str]:
    """Every module a source file imports, relative imports resolved against ``package``.

    ``from P import name`` counts as importing ``P.name`` as well as ``P``, since the name may
    be a submodule; ``importlib.import_module("...")`` with a literal name counts too.
    """
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            found.append(base)
            found.extend(f"{base}.{alias.name}" for alias in node.names)
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and ast.unparse(node.func) in ("importlib.import_module", "import_module",
                                             "__import__")):
            found.append(node.args[0].value)
    return found


def forbidden(modules: list[str]) -> list[str]:
    """The GANDR modules among ``modules`` that the reference backend may not import."""
    return [m for m in modules if m.startswith(f"{GANDR}.")
            and not (m == ALLOWED or m.startswith(f"{ALLOWED}."))]


@pytest.mark.parametrize("path", sorted(BACKEND.glob("*.py")), ids=lambda p: p.name)
def test_no_backend_module_imports_gandr_beyond_the_wire_format(path: Path) -> None:
    modules = imported_modules(path.read_text(encoding="utf-8"),
                               "pytest_legalbench.reference_backend")
    assert forbidden(modules) == [], f"{path.name} imports GANDR's own code"


@pytest.mark.parametrize(("source", "bad"), [
    ("from pytest_legalbench.gandr.creac import claims", True),
    ("import pytest_legalbench.gandr.citations", True),
    ("from pytest_legalbench.gandr import tool_specs", True),
    ("from ..gandr import correctness_rules", True),
    ("from ..gandr.prompting import KIND_RULES", True),
    ("importlib.import_module('pytest_legalbench.gandr.creac')", True),
    ("from pytest_legalbench.gandr.wire import CITE_OPEN", False),
    ("from pytest_legalbench.gandr import wire", False),
    ("from ..gandr.wire import RUBRIC_TOOL", False),
    ("from .markers import find_markers", False),
])
def test_the_import_check_tells_wire_from_the_rest(source: str, bad: bool) -> None:
    modules = imported_modules(source, "pytest_legalbench.reference_backend")
    assert bool(forbidden(modules)) is bad


def test_the_wire_module_imports_only_the_standard_library() -> None:
    modules = imported_modules((PACKAGE / "gandr" / "wire.py").read_text(encoding="utf-8"),
                               GANDR)
    assert {m.split(".")[0] for m in modules} <= set(sys.stdlib_module_names) | {"__future__"}


def test_loading_the_backend_loads_no_gandr_module_but_the_wire_format() -> None:
    script = ("import sys, pytest_legalbench.reference_backend; "
              "print(' '.join(m for m in sys.modules if m.startswith('pytest_legalbench.gandr')))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout.split()
    assert set(loaded) <= {GANDR, ALLOWED}


def test_the_wire_audit_labels_are_the_stats_stage_labels() -> None:
    assert wire.AUDIT_LABELS == AUDIT_LABELS


def test_gandr_tools_are_named_and_shaped_by_the_wire_constants() -> None:
    audit = tool_specs.claim_audit_tool()
    claim = audit.input_schema["properties"]["claims"]["items"]["properties"]
    assert audit.name == wire.CLAIM_AUDIT_TOOL
    assert claim["label"]["enum"] == list(wire.AUDIT_LABELS)
    assert claim["block"]["enum"] == list(wire.AUDIT_BLOCKS)
    rubric = tool_specs.rubric_tool()
    assert (rubric.name, rubric.input_schema["required"]) == (wire.RUBRIC_TOOL,
                                                              list(wire.RUBRIC_DIMENSIONS))
    assert tool_specs.critic_tool().name == wire.CRITIC_TOOL
    assert tool_specs.correctness_tool((1, 5)).name == wire.CORRECTNESS_TOOL
    assert tool_specs.equivalence_tool().name == wire.EQUIVALENCE_TOOL
