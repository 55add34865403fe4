"""``legalbench cuad-questions``: into the cache (found again on a second run) or a folder, with
the report and a JSON summary; a non-empty --out folder is refused untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_legalbench.commands.cli import main
from pytest_legalbench.ingest.questions import load_question_set
from tests.support.cuad_corpus import make_corpus


def test_into_the_cache_with_the_report(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    corpus, manifest = make_corpus(tmp_path / "corpus")
    argv = ["cuad-questions", "--corpus-dir", str(corpus), "--cache-dir", str(tmp_path / "cache"),
            "--manifest", str(manifest)]
    report = tmp_path / "report.json"
    assert main([*argv, "--report", str(report), "--json", "-q"]) == 0
    summary = json.loads(capsys.readouterr().out)
    folder = Path(summary["folder"])
    assert folder.parent == tmp_path / "cache" / "questions" / "cuad"
    assert folder.name == summary["digest"]
    assert len(load_question_set(folder)) == summary["questions"]
    written = json.loads(report.read_text())
    assert written["questions"] == summary["questions"]
    assert written["controls"] == summary["controls"]
    assert written["excerpts"] == written["located"] + written["unlocated_count"]
    # A second run finds the set and says so in words.
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"set digest {summary['digest']}" in out
    assert f"{summary['questions']} cuad questions" in out


def test_into_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, manifest = make_corpus(tmp_path / "corpus")
    out = tmp_path / "out"
    assert main(["cuad-questions", "--corpus-dir", str(corpus), "--manifest", str(manifest),
                 "--out", str(out), "--json", "-q"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["folder"] == str(out)
    assert len(load_question_set(out)) == summary["questions"]


def test_a_non_empty_out_folder_is_refused(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    corpus, manifest = make_corpus(tmp_path / "corpus")
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep me", encoding="utf-8")
    assert main(["cuad-questions", "--corpus-dir", str(corpus), "--manifest", str(manifest),
                 "--out", str(out), "-q"]) == 2
    assert "not an empty folder (nothing was written)" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["mine.txt"]


def test_a_missing_corpus_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cuad-questions", "--corpus-dir", str(tmp_path / "nothing"),
                 "--cache-dir", str(tmp_path / "cache"), "-q"]) == 2
    assert "nothing' is not a folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["cuad-questions", "--corpus-dir", str(tmp_path / "empty"),
                 "--cache-dir", str(tmp_path / "cache"), "-q"]) == 2
    assert "cuad/master_clauses.csv: not found" in capsys.readouterr().err
