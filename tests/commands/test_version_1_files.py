"""Files the previous version wrote (schema version 1, ``tests/support/fixtures/records_v1``)
read with this build: reported, compared (with themselves rewritten in the current version),
re-summarised and resumed from; a file of a version this build does not know is refused in
one line naming the file and both versions."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pytest_legalbench.commands.cli import main
from pytest_legalbench.gandr.report import GANDR_RESULTS_LAYOUT
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.results_file import RESULTS_LAYOUT, read_run, results_json
from pytest_legalbench.run.journal import JOURNAL_LINE, JournalError, read_journal
from pytest_legalbench.run.stored_records import record_of

FIXTURES = Path(__file__).resolve().parents[1] / "support" / "fixtures" / "records_v1"
QUESTIONS = ("glufox-royalty-base", "guerrilla-insider-lockup")
MODES = ("navembed:closure", "navindex")


@pytest.fixture
def version_1(tmp_path: Path) -> Path:
    """A report folder holding the version 1 files (a copy: reading writes beside them)."""
    folder = tmp_path / "v1"
    shutil.copytree(FIXTURES, folder)
    return folder


def _command(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_fixture_is_what_version_1_wrote() -> None:
    results = json.loads((FIXTURES / "results.json").read_text(encoding="utf-8"))
    gandr = json.loads((FIXTURES / "gandr-results.json").read_text(encoding="utf-8"))
    lines = (FIXTURES / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    assert results["format_version"] == 1 and "schema_version" not in results
    assert gandr["format_version"] == 1 and "schema_version" not in gandr
    assert {json.loads(line)["v"] for line in lines} == {1}


def test_a_version_1_results_file_reads_whole(version_1: Path) -> None:
    run = read_run(version_1)
    assert [(r.question_id, r.mode) for r in run.records] == [
        (question, mode) for question in QUESTIONS for mode in MODES]
    assert [entry.mode for entry in run.summary.modes] == list(MODES)
    assert run.header.backend == "reference" and run.header.corpus.documents == 10
    assert len(run.provisions) > 40
    # Its texts were trimmed from the fixture: the provisions read without them.
    assert run.excerpts.segments == {} and run.provision_text(next(iter(run.provisions))) is None


def test_legalbench_report_writes_the_page_of_a_version_1_run(
        version_1: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _command(capsys, "report", str(version_1), "-q")
    assert (status, err) == (0, "")
    page = (version_1 / "report.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page,
                      re.DOTALL)
    assert found is not None
    data = json.loads(found.group(1))
    # Both products' files were read: the QA items and the GANDR items beside them.
    assert sorted((item["q"], item["mode"]) for item in data["qa"]["items"]) == [
        (question, mode) for question in QUESTIONS for mode in MODES]
    assert out.strip() == str(version_1 / "report.html")
    assert data.get("gandr")


def test_legalbench_compare_reads_a_version_1_run_against_its_current_rewrite(
        version_1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rewritten = tmp_path / "current" / "results.json"
    rewritten.parent.mkdir()
    rewritten.write_text(results_json(read_run(version_1)), encoding="utf-8")
    assert json.loads(rewritten.read_text(encoding="utf-8"))["schema_version"] == 3
    status, across, err = _command(capsys, "compare", str(version_1), str(rewritten))
    assert (status, err) == (0, "")
    status, itself, _ = _command(capsys, "compare", str(version_1), str(version_1))
    assert status == 0
    # The same run in either version: the comparison is the run against itself.
    assert across.splitlines()[2:] == itself.splitlines()[2:]
    assert "navindex (A) vs navindex (B): 2 and 2 items, 2 shared" in across
    assert "  mode cost: $0.1307 -> $0.1307 (+0.0000 USD)" in across
    assert across.count("  flipped: 0 questions") == 2
    status, plain, _ = _command(capsys, "compare", str(version_1), str(rewritten), "--json")
    changes = json.loads(plain)["modes"]
    assert [change["shared"] for change in changes] == [2, 2]
    assert all(metric["change"] in (0, None) for change in changes
               for metric in change["metrics"].values())


def test_legalbench_gandr_summary_rescores_a_version_1_run(
        version_1: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _command(capsys, "gandr-summary", str(version_1), "-q")
    assert status == 0
    assert "  gandr: 2 items, 0 unscored, 22 calls, $0.1479" in out.splitlines()
    assert "    gandr: b=0 c=0 p=1 (Bonferroni 1) over 2 items" in out.splitlines()


def test_a_version_1_journal_gives_back_its_records(version_1: Path) -> None:
    contents = read_journal(version_1 / "journal.jsonl")
    assert (len(contents.starts), contents.torn) == (1, 0)
    assert len(next(iter(contents.plans.values()))) == 4
    records = contents.records(contents.starts[0].digest)
    assert sorted(records) == [f"{question}-navembed:closure" for question in QUESTIONS]
    for item, envelope in records.items():
        product, record = record_of(envelope)
        assert product == "qa" and isinstance(record, ItemRecord)
        assert f"{record.question_id}-{record.mode}" == item


@pytest.mark.parametrize(("name", "command", "current"), [
    ("results.json", ["report"], 3), ("results.json", ["compare"], 3),
    ("gandr-results.json", ["gandr-summary"], 2)])
def test_a_file_of_a_newer_version_is_refused_in_one_line(
        version_1: Path, capsys: pytest.CaptureFixture[str], name: str,
        command: list[str], current: int) -> None:
    path = version_1 / name
    current = (RESULTS_LAYOUT if name == "results.json" else GANDR_RESULTS_LAYOUT).version
    data = json.loads(path.read_text(encoding="utf-8"))
    data["schema_version"] = current + 1
    path.write_text(json.dumps(data), encoding="utf-8")
    args = [*command, str(path), *([str(path)] if command == ["compare"] else []), "-q"]
    status, out, err = _command(capsys, *args)
    assert (status, out) == (2, "")
    assert err == (f"legalbench: error: {path}: {name} of schema_version {current + 1}; this "
                   f"build reads versions 1 to {current} (a newer pytest-legalbench wrote it)\n")


def test_a_journal_line_of_a_newer_version_is_refused(version_1: Path) -> None:
    journal = version_1 / "journal.jsonl"
    lines = journal.read_text(encoding="utf-8").splitlines()
    newer = json.loads(lines[2])
    del newer["v"]
    newer["schema_version"] = JOURNAL_LINE.version + 1
    journal.write_text("\n".join([*lines[:2], json.dumps(newer)]) + "\n", encoding="utf-8")
    with pytest.raises(JournalError, match=re.escape(
            f"{journal} line 3: journal line of schema_version {JOURNAL_LINE.version + 1}; "
            f"this build reads versions 1 to {JOURNAL_LINE.version}")):
        read_journal(journal)
