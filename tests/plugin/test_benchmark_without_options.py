"""A benchmark run no flag or ini key asked for: the session starts when it collects
benchmark items, reading its settings from the environment, and keeps its journal and
summary; under xdist each worker starts its own and they share one run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_legalbench.llm.cassettes import cassette_file
from tests.support.benchmark_project import MODULE, REPO, seed_vector_record
from tests.support.plugin_sessions import FOREIGN_ENV

QUESTIONS = ("glufox-royalty-base", "guerrilla-insider-lockup")
#: The default modes, which a run with no --mode benchmarks.
MODES = ("navembed:closure", "navindex")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, corpus_root: Path,
            tmp_path: Path) -> pytest.Pytester:
    """The benchmark module and the cassettes of two packaged questions, with no ini key:
    the corpus and cache come from the environment."""
    shutil.copy(REPO / "benchmarks" / f"{MODULE}.py", pytester.path)
    pytester.makeini("[pytest]\n")
    items = [(MODULE, f"{q}-{mode}") for q in QUESTIONS for mode in MODES]
    for group, name in [*items, *((f"{MODULE}-inject", q) for q in QUESTIONS)]:
        target = cassette_file(pytester.path / "cassettes", "reference", group, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(cassette_file(REPO / "cassettes", "reference", group, name), target)
    seed_vector_record(pytester.path)
    for name in (*FOREIGN_ENV, "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT",
                 "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEGALBENCH_CORPUS_DIR", str(corpus_root))
    monkeypatch.setenv("LEGALBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return pytester


def _summary(output: str) -> str:
    """The summary section: from its title to pytest's closing line."""
    start = output.index("legalbench summary")
    return output[start:output.rindex("\n=")]


def _journal_kinds(cache: Path) -> tuple[str, list[str]]:
    """The one run folder's name and its journal's line kinds."""
    folder, = (cache / "runs").iterdir()
    lines = (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    return folder.name, [json.loads(line)["kind"] for line in lines]


def test_collected_benchmark_items_start_the_session_plain_and_under_xdist(
        project: pytest.Pytester, tmp_path: Path) -> None:
    select = ["-k", " or ".join(QUESTIONS), "-p", "no:cacheprovider"]
    plain = project.runpytest_subprocess(*select)
    plain.assert_outcomes(passed=len(QUESTIONS) * len(MODES))
    # The settings line follows the collection it was started by.
    plain.stdout.fnmatch_lines(["collected 64 items / 60 deselected / 4 selected",
                                ("legalbench: profile transactions, corpus *; modes "
                                "navembed:closure, navindex; judge reference-anchored")])
    name, kinds = _journal_kinds(tmp_path / "cache")
    assert kinds == ["start", "plan", *["item"] * 4]
    shutil.rmtree(tmp_path / "cache" / "runs")

    spread = project.runpytest_subprocess(*select, "-n", "2")
    spread.assert_outcomes(passed=len(QUESTIONS) * len(MODES))
    # The controller started no session (nothing asked before its workers collected), so it
    # read the settings for the summary at the end; the summary is the plain run's.
    assert _summary(spread.stdout.str()) == _summary(plain.stdout.str())
    name, kinds = _journal_kinds(tmp_path / "cache")
    # One run: one start, each worker's plan, every item once.
    assert name.startswith("xdist-")
    assert kinds[0] == "start" and sorted(kinds[1:]) == ["item"] * 4 + ["plan"] * 2


def test_without_xdist_the_group_mark_is_known(project: pytest.Pytester) -> None:
    # Items carry xdist's group mark; with xdist not loaded the plugin registers it, so
    # --strict-markers collects them and no session warns of an unknown mark.
    result = project.runpytest_subprocess("-k", QUESTIONS[0], "-p", "no:cacheprovider",
                                          "-p", "no:xdist", "--strict-markers")
    result.assert_outcomes(passed=len(MODES))
    assert "Unknown pytest.mark" not in result.stdout.str()
