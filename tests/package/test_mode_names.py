"""No branch on a mode's name in the harness: ``run/`` and ``results/`` read what a mode says
about itself (``modes.traits``), never which built-in mode it is.

The one place that knows the built-in names is the registry's table (``modes.registry``); the
harness may use the baseline's name it exports (``BASELINE``: whom every mode is paired with),
but no literal name of a built-in mode, nor the name constants of ``modes.names``. ``inject``
is also a judge's verdict ("inject wins"), so that word is refused only where it is compared
with a mode.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from pytest_legalbench.modes.registry import ALIASES, BASELINE, builtin_modes

ROOT = Path(__file__).resolve().parents[2] / "pytest_legalbench"
#: The harness: the runner and the results.
HARNESS = ("run", "results")
#: Names that are only ever a mode's (unlike ``inject``, also a verdict).
ONLY_MODE_NAMES = {name for name in (*builtin_modes(), *ALIASES) if name != BASELINE}


def _is_builtin_name(value: object) -> bool:
    return isinstance(value, str) and (value.lower() in ONLY_MODE_NAMES
                                       or value.lower() == BASELINE)


def _prose(tree: ast.Module) -> set[int]:
    """The ids of every string that stands as a statement: docstrings (prose may name a
    mode), of modules, classes, functions and attributes."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)}


def _names_in(node: ast.AST) -> Iterator[ast.Constant]:
    """String constants naming a built-in mode in ``node`` or a literal collection of them."""
    if isinstance(node, ast.Constant) and _is_builtin_name(node.value):
        yield node
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        for element in node.elts:
            yield from _names_in(element)


def _mentions_mode(node: ast.AST) -> bool:
    return re.search(r"mode", ast.unparse(node), flags=re.IGNORECASE) is not None


def offences(source: str, where: str) -> list[str]:
    """Each place in ``source`` (the module ``where``) that names a built-in mode:
    ``where:line: what``."""
    tree = ast.parse(source)
    prose = _prose(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "pytest_legalbench.modes.names":
            found.append(f"{where}:{node.lineno}: imports mode names from modes.names")
        if (isinstance(node, ast.Constant) and id(node) not in prose
                and isinstance(node.value, str) and node.value.lower() in ONLY_MODE_NAMES):
            found.append(f"{where}:{node.lineno}: names the mode {node.value!r}")
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for operand in operands:
                others = [other for other in operands if other is not operand]
                for constant in _names_in(operand):
                    if any(_mentions_mode(other) for other in others):
                        found.append(f"{where}:{constant.lineno}: compares a mode with "
                                     f"{constant.value!r}")
    return found


def _harness_files() -> list[Path]:
    return [path for stage in HARNESS for path in sorted((ROOT / stage).rglob("*.py"))]


def test_the_harness_names_no_built_in_mode() -> None:
    found = [line for path in _harness_files()
             for line in offences(path.read_text(encoding="utf-8"),
                                  str(path.relative_to(ROOT)))]
    assert found == []


def test_the_report_script_compares_no_mode_with_a_built_in_name() -> None:
    script = (ROOT / "results" / "report_assets" / "report.js").read_text(encoding="utf-8")
    names = "|".join(re.escape(name) for name in sorted({*ONLY_MODE_NAMES, BASELINE}))
    compared = re.compile(rf"mode\s*[!=]==?\s*[\"'](?:{names})[\"']|"
                          rf"[\"'](?:{names})[\"']\s*[!=]==?\s*\w*mode", re.IGNORECASE)
    assert compared.findall(script) == []
    assert not re.search(r"[\"'](?:navagent|navindex|navembed)", script)


def test_the_check_finds_a_branch_on_a_name() -> None:
    # The check itself can fail: each way of naming a mode is caught, a verdict is not.
    found = offences(
        '"""A docstring may say navagent."""\n'
        "from pytest_legalbench.modes.names import NAVAGENT\n"
        "def f(record, outcome):\n"
        "    if record.mode == 'inject':\n"
        "        return 1\n"
        "    if outcome == 'inject':\n"
        "        return 2\n"
        "    return record.mode in ('navindex', 'x') or 'navembed:closure'\n",
        "sample.py")
    lines = [line.split(": ", 1)[1] for line in found]
    assert sorted(lines) == sorted([
        "imports mode names from modes.names",
        "compares a mode with 'inject'",
        "names the mode 'navindex'",
        "compares a mode with 'navindex'",
        "names the mode 'navembed:closure'"])
