"""The first run of docs/getting-started.md, run as the page writes it: every command block of
the page's first-run section against ``examples/first-run/``, offline on the reference backend,
and every output line the page shows found in what the command before it printed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "getting-started.md"
EXAMPLE = REPO / "examples" / "first-run"
# A marker line, then the fenced block it labels.
_BLOCK = re.compile(r"<!-- first-run-(commands|output) -->\n```\w*\n(.*?)\n```", re.DOTALL)


@dataclass
class Step:
    """A command block of the page and the output lines the page shows for it."""

    commands: list[str]
    shown: list[str] = field(default_factory=list)


def page_steps(text: str) -> list[Step]:
    """The first-run section's commands, each block with the output shown after it."""
    steps: list[Step] = []
    for kind, body in _BLOCK.findall(text):
        if kind == "commands":
            joined = body.replace("\\\n", " ")
            steps.append(Step([line.strip() for line in joined.splitlines()
                               if line.strip() and not line.lstrip().startswith("#")]))
        else:
            assert steps, "an output block before any command block"
            steps[-1].shown += [line for line in body.splitlines() if line.strip()]
    return steps


def argv(command: str) -> list[str]:
    """The command's arguments, run with this environment's pytest and legalbench."""
    words = shlex.split(command)
    if words[0] == "pytest":
        return [sys.executable, "-m", "pytest", *words[1:]]
    if words[0] == "legalbench":
        return [str(Path(sys.executable).with_name("legalbench")), *words[1:]]
    raise AssertionError(f"the first run may only use pytest and legalbench: {command}")


def test_page_has_the_first_run() -> None:
    steps = page_steps(PAGE.read_text(encoding="utf-8"))
    assert [s.commands[0].split()[:2] for s in steps] == [
        ["legalbench", "stats"], ["legalbench", "evaluate"], ["pytest", "benchmarks"]]
    assert all(step.shown for step in steps)
    assert all("examples/first-run/" in step.commands[0] for step in steps)


@pytest.mark.slow
def test_first_run_as_documented(tmp_path: Path, shared_cache: Path) -> None:
    """The page's commands run in a copy of the parts of a checkout they read, so the run's
    report folder lands there and nothing is written into the repository. Slow: three
    processes each load the embedding stack (about 80 s on a busy 2-core machine)."""
    shutil.copytree(EXAMPLE, tmp_path / "examples" / "first-run")
    (tmp_path / "benchmarks").mkdir()
    for name in ("test_legalbench.py", "conftest.py"):
        shutil.copy(REPO / "benchmarks" / name, tmp_path / "benchmarks" / name)
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTEST_", "LEGALBENCH_", "ANTHROPIC_"))}
    env.update(HF_HUB_OFFLINE="1", LEGALBENCH_CACHE_DIR=str(shared_cache))
    for step in page_steps(PAGE.read_text(encoding="utf-8")):
        printed = ""
        for command in step.commands:
            done = subprocess.run(argv(command), cwd=tmp_path, env=env, capture_output=True, check=False,
                                  text=True, timeout=900)
            printed += done.stdout + done.stderr
            assert done.returncode == 0, f"{command}\n{printed}"
        lines = {line.rstrip() for line in printed.splitlines()}
        missing = [line for line in step.shown if line.rstrip() not in lines]
        assert not missing, (f"docs/getting-started.md shows lines that {step.commands} no "
                             f"longer prints:\n" + "\n".join(missing) + f"\n\nit printed:\n{printed}")
    report = tmp_path / "first-run-report"
    assert {"results.json", "report.html", "verdicts.csv"} <= {p.name for p in report.iterdir()}
