"""The committed cassettes: complete, small, and what a fresh recording produces."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.llm.cassettes import cassette_file, cassette_size

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "cassettes"
MODULE = "test_legalbench"
#: Every mode that runs offline; rerank needs cross-encoder weights that cannot be had here.
MODES = ("inject", "navembed:embed", "navembed:embed+xref", "navembed:hybrid",
         "navembed:titles", "navembed:chunks", "navindex", "navagent",
         # GANDR and its baselines but B3, which needs a cross-encoder.
         "gandr", "gandr:b1", "gandr:b2", "gandr:b4", "gandr:b5")
#: Items re-recorded by the diff test: modes whose requests carry no prompt-cache marks, so
#: what the reference backend reports does not depend on which question a session ran first.
RERECORDED = ("glufox-royalty-base-navembed:embed", "netgear-territory-today-navembed:chunks",
              "stonepoint-maturity-navembed:hybrid")


def _questions() -> list[str]:
    return [q.id for q in load_question_set(question_sets_dir() / "transactions")]


def test_every_question_and_offline_mode_has_a_committed_cassette() -> None:
    missing = [f"{question}-{mode}" for question in _questions() for mode in MODES
               if not cassette_file(COMMITTED, "reference", MODULE,
                                    f"{question}-{mode}").is_file()]
    missing += [f"inject answer of {question}" for question in _questions()
                if not cassette_file(COMMITTED, "reference", f"{MODULE}-inject",
                                     question).is_file()]
    assert not missing, (f"record them: pytest benchmarks --record-mode=once --mode=... "
                         f"({missing[:5]})")


def test_the_committed_set_stays_small() -> None:
    files, size = cassette_size(COMMITTED)
    assert files >= len(_questions()) * (len(MODES) + 1)
    assert size < 5 * 1024 * 1024


def test_a_fresh_recording_matches_the_committed_cassettes(
        pytester: pytest.Pytester, corpus_root: Path, monkeypatch: pytest.MonkeyPatch,
        shared_cache: Path) -> None:
    shutil.copy(REPO / "benchmarks" / f"{MODULE}.py", pytester.path / f"{MODULE}.py")
    # The vectors the committed run was recorded with, as a fresh clone reads them: embedding
    # the corpus cold instead kept one xdist worker busy for five minutes of the suite.
    shutil.copytree(COMMITTED / "vectors", pytester.path / "cassettes" / "vectors")
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("LEGALBENCH_CORPUS_DIR", str(corpus_root))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    modes = sorted({item.split("-navembed")[1] for item in RERECORDED})
    result = pytester.runpytest_subprocess(
        f"--legalbench-cache-dir={shared_cache}",
        "--legalbench-backend=reference", "--record-mode=rewrite", "-p", "no:cacheprovider",
        *(f"--mode=navembed{mode}" for mode in modes),
        *(f"{MODULE}.py::test_question[{item}]" for item in RERECORDED))
    result.assert_outcomes(passed=len(RERECORDED))
    for item in RERECORDED:
        fresh = cassette_file(pytester.path / "cassettes", "reference", MODULE, item)
        committed = cassette_file(COMMITTED, "reference", MODULE, item)
        assert fresh.read_bytes() == committed.read_bytes(), item
