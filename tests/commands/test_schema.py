"""The JSON Schemas of the record files: generated from the record types, committed in
docs/reference/schemas (a test fails when they drift), and true of the files this build
writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_legalbench.commands.cli import main
from pytest_legalbench.commands.schema import QaEnvelope, schema_text, schemas
from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.gandr.report import RESULTS_FILE as GANDR_FILE
from pytest_legalbench.gandr.report import read_results, write_gandr_report
from pytest_legalbench.results.results_file import read_run, results_json
from pytest_legalbench.run.journal import (
    ItemEntry,
    PlanEntry,
    StartEntry,
    StopEntry,
    journal_line,
    read_journal,
)
from pytest_legalbench.run.protocol import envelope
from pytest_legalbench.run.stored_records import record_of

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "docs" / "reference" / "schemas"
VERSION_1 = REPO / "tests" / "support" / "fixtures" / "records_v1"


def _validator(name: str) -> Any:
    schema = json.loads((COMMITTED / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_committed_schemas_are_what_this_build_generates() -> None:
    generated = schemas()
    assert sorted(path.name for path in COMMITTED.glob("*.json")) == sorted(generated)
    stale = [name for name, schema in generated.items()
             if (COMMITTED / name).read_text(encoding="utf-8") != schema_text(schema)]
    assert stale == [], f"regenerate them: legalbench schema ({stale})"


def test_the_command_writes_the_schemas_and_checks_a_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "schemas"
    assert main(["schema", str(folder), "-q"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted(schemas())
    assert main(["schema", str(folder), "--check"]) == 0
    capsys.readouterr()
    (folder / "results.schema.json").write_text("{}\n", encoding="utf-8")
    assert main(["schema", str(folder), "--check"]) == 1
    assert capsys.readouterr().out == (f"{folder / 'results.schema.json'}: differs from what "
                                       f"this build generates (run legalbench schema)\n")
    assert (folder / "results.schema.json").read_text(encoding="utf-8") == "{}\n"


def test_a_results_file_this_build_writes_meets_its_schema(tmp_path: Path) -> None:
    written = json.loads(results_json(read_run(VERSION_1 / "results.json")))
    validator = _validator("results.schema.json")
    validator.validate(written)
    # The schema is not a rubber stamp: a file without its header, or of another version,
    # or with a count that is not one, fails it.
    for broken in ({k: v for k, v in written.items() if k != "run"},
                   {**written, "schema_version": 1},
                   {**written, "records": [{**written["records"][0], "payload_tokens": "9"}]}):
        assert not validator.is_valid(broken)


def test_a_gandr_results_file_this_build_writes_meets_its_schema(tmp_path: Path) -> None:
    run = read_results(VERSION_1 / GANDR_FILE)
    write_gandr_report(tmp_path, run.records, run.summary, backend=run.backend)
    written = json.loads((tmp_path / GANDR_FILE).read_text(encoding="utf-8"))
    validator = _validator("gandr-results.schema.json")
    validator.validate(written)
    assert not validator.is_valid({**written, "summary": {"systems": []}})


def test_every_kind_of_journal_line_meets_its_schema() -> None:
    contents = read_journal(VERSION_1 / "journal.jsonl")
    start = contents.starts[0]
    item = contents.items[0]
    assert item.envelope is not None
    lines = [journal_line(start), journal_line(PlanEntry(start.run, ("a", "b"))),
             journal_line(ItemEntry(start.run, item.item, start.digest, item.envelope)),
             journal_line(ItemEntry(start.run, "b", start.digest, None, "no cross-encoder")),
             journal_line(StopEntry(start.run, "the cost limit was reached"))]
    validator = _validator("journal-line.schema.json")
    for line in json.loads(json.dumps(lines)):
        validator.validate(line)
    assert [line["kind"] for line in lines] == ["start", "plan", "item", "item", "stop"]
    assert not validator.is_valid({**lines[2], "envelope": {"product": "qa", "record": {}}})
    assert not validator.is_valid({**lines[0], "kind": "begin"})


def test_the_schema_s_envelope_is_the_one_records_travel_in() -> None:
    contents = read_journal(VERSION_1 / "journal.jsonl")
    product, record = record_of(contents.items[0].envelope or {})
    assert product == "qa"
    assert to_builtins(QaEnvelope("qa", record)) == envelope("qa", record)  # type: ignore[arg-type]


def test_a_journal_line_is_its_version_its_kind_then_its_fields() -> None:
    start = StartEntry("r1", {"modes": "navindex"}, "abc", report=True)
    assert journal_line(start) == {"schema_version": 3, "kind": "start", "run": "r1",
                                   "fingerprint": {"modes": "navindex"}, "digest": "abc",
                                   "report": True}


def test_the_output_lengths_a_run_leaves_meet_their_schema(tmp_path: Path) -> None:
    from pytest_legalbench.llm.ledger import Call, Usage
    from pytest_legalbench.run.output_memory import MemoryKey, remember

    calls = [("navindex", Call(stage="navindex.answer", model="reference", backend="reference",
                               usage=Usage(10, 0, 0, 90), latency_s=0.1, question_id="q1"))]
    path = remember(tmp_path, MemoryKey("reference", "a", "j"), calls, "reports/A")
    assert path is not None
    written = json.loads(path.read_text(encoding="utf-8"))
    validator = _validator("output-lengths.schema.json")
    validator.validate(written)
    stage = written["stages"]["navindex.answer"]
    assert not validator.is_valid({**written, "schema_version": 2})
    assert not validator.is_valid({**written, "stages": {"navindex.answer": {
        **stage, "calls": "one"}}})
