"""The README as the front door, the documentation site, and perf/'s list of scripts."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
#: The README's limits: a front door, not a manual.
MOST_LINES = 250
LONGEST_LINE = 120
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The numbered lines of Markdown outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def test_prose_lines_leave_code_blocks_out() -> None:
    text = "a\n```bash\n" + "x" * 200 + "\n```\nb"
    assert prose_lines(text) == [(1, "a"), (5, "b")]


def test_the_readme_is_short_and_its_prose_lines_fit() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MOST_LINES
    long = [f"line {n}: {len(line)} characters" for n, line in prose_lines(text)
            if len(line) > LONGEST_LINE]
    assert long == []


def test_the_readme_starts_with_the_two_commands_ci_runs() -> None:
    head = README.read_text(encoding="utf-8").splitlines()[:20]
    commands = [line for line in head if line.startswith("bash .ci/setup && ")]
    assert len(commands) == 2
    assert commands[0].endswith("-m pytest benchmarks -n 2")
    # CI runs exactly the README's test command.
    assert commands[1] in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_every_link_of_the_readme_leads_to_a_file() -> None:
    targets = _LINK.findall(README.read_text(encoding="utf-8"))
    local = [t for t in targets if "://" not in t]
    assert any(t.startswith("docs/") for t in local)
    assert [t for t in local if not (REPO / t).exists()] == []


def test_every_perf_script_is_listed_with_its_output() -> None:
    scripts = sorted(p.name for p in (REPO / "perf").glob("*.py") if p.name != "measuring.py")
    listing = (REPO / "perf" / "README.md").read_text(encoding="utf-8")
    page = (REPO / "docs" / "performance.md").read_text(encoding="utf-8")
    assert [s for s in scripts if f"| `{s}` |" not in listing] == []
    assert [s for s in scripts if f"`perf/{s}`" not in page] == []
    # Each output file the listing names is committed.
    named = re.findall(r"`output/([\w.]+)`", listing)
    assert named and [n for n in named if not (REPO / "perf" / "output" / n).is_file()] == []


def test_no_perf_script_is_named_like_a_test() -> None:
    assert list((REPO / "perf").glob("test_*.py")) == []


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """What CI runs: a broken link, a missing include or a page left out of the nav fails."""
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    if mkdocs is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    done = subprocess.run([mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    assert (tmp_path / "site" / "getting-started" / "index.html").is_file()


_REPO_PATH = re.compile(r"`((?:tests|perf|pytest_legalbench|conformance|prompts|corpus|benchmarks|"
                        r"examples|cassettes|docs)/[\w/.+-]+\.(?:py|md|txt|json|yaml|jinja))`")


def test_every_file_the_pages_name_exists() -> None:
    """A renamed module or script shows up here, not in a reader's failed look-up."""
    pages = [README, REPO / "perf" / "README.md", REPO / "benchmarks" / "README.md",
             *sorted((REPO / "docs").rglob("*.md"))]
    named = {(page.relative_to(REPO).as_posix(), path) for page in pages
             for path in _REPO_PATH.findall(page.read_text(encoding="utf-8"))}
    assert len(named) > 20
    assert sorted(pair for pair in named if not (REPO / pair[1]).exists()) == []
