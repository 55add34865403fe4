"""The summary the README and the judging page quote is the one the replayed default benchmark
prints: each quoted line is found in a real replay (a line ending in "..." by its beginning)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: The pages that quote the default run's summary, and the heading their quote sits under.
QUOTES = {"README.md": "## Reading a summary",
          "docs/concepts/judging.md": "## Ties split by key facts"}
_TEXT_BLOCK = re.compile(r"```text\n(.*?)\n```", re.DOTALL)

pytestmark = pytest.mark.slow


def quoted_lines(page: str, heading: str) -> list[str]:
    """The lines of the first text block after ``heading``."""
    found = _TEXT_BLOCK.search(page, page.index(heading))
    assert found is not None, f"no text block under {heading!r}"
    return [line for line in found.group(1).splitlines() if line.strip()]


def printed(line: str, output: set[str]) -> bool:
    """Whether the quoted ``line`` is a line of ``output`` ("...": a line that begins so)."""
    if line.endswith("..."):
        return any(o.startswith(line[:-3]) for o in output)
    return line in output


def test_quoted_lines_match_by_line_or_beginning() -> None:
    output = {"  a: 1; b: 2", "  c"}
    assert printed("  a: 1; ...", output) and printed("  c", output)
    assert not printed("  a: 2; ...", output) and not printed("c", output)


def test_the_quoted_summary_is_what_the_default_replay_prints(
        tmp_path: Path, corpus_root: Path, shared_cache: Path) -> None:
    # A copy of what the replay reads, so nothing it might record lands in the checkout.
    shutil.copy(REPO / "benchmarks" / "test_legalbench.py", tmp_path)
    shutil.copytree(REPO / "cassettes", tmp_path / "cassettes")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTEST_", "LEGALBENCH_", "ANTHROPIC_"))}
    env.update(LEGALBENCH_CORPUS_DIR=str(corpus_root), LEGALBENCH_CACHE_DIR=str(shared_cache),
               HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    output = {line.rstrip() for line in done.stdout.splitlines()}
    for page, heading in QUOTES.items():
        lines = quoted_lines((REPO / page).read_text(encoding="utf-8"), heading)
        missing = [line for line in lines if not printed(line, output)]
        assert not missing, (f"{page} quotes summary lines the default replay no longer "
                             f"prints; update them from its output:\n" + "\n".join(missing))
