"""A ``--docs`` folder with unreadable files: every one is named in one error, and with
``--skip-bad`` the rest are indexed and the bad ones named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_legalbench.commands.cli import main
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.loading import load_folder

DEAL = Path(__file__).resolve().parents[2] / "conformance" / "tiny_deal"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The tiny deal's two instruments and two files that cannot be read as documents."""
    target = tmp_path / "deal"
    target.mkdir()
    for path in DEAL.glob("*.txt"):
        shutil.copy(path, target)
    (target / "blank.txt").write_bytes(b"")
    (target / "scan.htm").write_bytes(b"<html><body><img src='page1.png'></body></html>")
    return target


def test_every_unreadable_file_is_named_in_one_error(folder: Path) -> None:
    with pytest.raises(CorpusError) as raised:
        load_folder(folder)
    lines = str(raised.value).splitlines()
    assert lines[0] == f"{folder}: 2 of 4 documents cannot be read:"
    assert [line.split(":")[0].strip() for line in lines[1:]] == \
        [str(folder / "blank.txt"), str(folder / "scan.htm")]


def test_skipping_bad_files_loads_the_rest_and_names_them(folder: Path) -> None:
    named: list[str] = []
    documents = load_folder(folder, skipped=named.append)
    assert len(documents) == 2
    assert [problem.split(":")[0] for problem in named] == \
        [str(folder / "blank.txt"), str(folder / "scan.htm")]


def test_the_command_names_every_bad_file_and_skip_bad_indexes_the_rest(
        folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--docs", str(folder), "--no-cache", "-q"]) == 2
    error = capsys.readouterr().err
    assert "2 of 4 documents cannot be read" in error
    assert "blank.txt" in error and "scan.htm" in error
    assert main(["index", "--docs", str(folder), "--skip-bad", "--no-cache", "-q",
                 "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    assert "indexed 2 documents" in captured.out
    skipped = [line for line in captured.err.splitlines() if line.startswith("skipped: ")]
    assert len(skipped) == 2 and "blank.txt" in skipped[0] and "scan.htm" in skipped[1]
