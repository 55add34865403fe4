"""``legalbench schema DIR``: the JSON Schemas of the files that hold records (results.json,
a run journal's line, gandr-results.json, the cache's output lengths), generated from the record types themselves.

The committed copies live in ``docs/reference/schemas/``; a test fails when they differ from
what this command writes, and ``--check`` says which differ without writing.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pytest_legalbench.commands.common import Progress, UsageProblem
from pytest_legalbench.files.record_json import json_schema
from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.gandr.report import GANDR_RESULTS_LAYOUT, GandrResults
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.results_file import RESULTS_LAYOUT, StoredRun
from pytest_legalbench.run.journal import JOURNAL_LINE, JournalEntry

#: Where the repository keeps the generated schemas.
SCHEMAS_FOLDER = Path("docs") / "reference" / "schemas"


@dataclass(frozen=True)
class QaEnvelope:
    """An item's record of the QA benchmark, as it travels (``run.protocol.envelope``)."""

    product: Literal["qa"]
    record: ItemRecord


@dataclass(frozen=True)
class GandrEnvelope:
    """An item's record of GANDR, as it travels (``run.protocol.envelope``)."""

    product: Literal["gandr"]
    record: GandrRecord


#: Every record envelope a journal's item line may hold.
RecordEnvelope = QaEnvelope | GandrEnvelope


def _journal_line_schema() -> dict[str, Any]:
    schema = JOURNAL_LINE.schema(
        JournalEntry, title="A line of journal.jsonl",
        description="One JSON object per line of a run's journal.jsonl, its kind telling "
                    "which: a run's start, the items one process planned, one finished item "
                    "(its record envelope, or why it was skipped), or an early stop.")
    # The journal keeps envelopes as the builtins they travel as; their layout is a record's.
    envelope = json_schema(RecordEnvelope)
    definitions = schema.setdefault("$defs", {})
    for name, definition in envelope.pop("$defs", {}).items():
        if definitions.setdefault(name, definition) != definition:
            raise ValueError(f"two definitions named {name} in the journal line's schema")
    definitions["ItemEntry"]["properties"]["envelope"] = {
        "anyOf": [envelope, {"type": "null"}], "default": None,
        "description": "the item's record and its product; absent when the item was skipped"}
    return schema


def schemas() -> dict[str, dict[str, Any]]:
    """File name to the JSON Schema of each file that holds records."""
    # Imported here: the output lengths are the plan's, which brings numpy, and the command
    # line must start without it.
    from pytest_legalbench.run.output_memory import MEMORY_LAYOUT, OutputMemory

    return {
        "results.schema.json": RESULTS_LAYOUT.schema(
            StoredRun, title="results.json",
            description="Everything a QA benchmark run measured: its header, every item's "
                        "record, the summary and the retrieved provisions."),
        "journal-line.schema.json": _journal_line_schema(),
        "gandr-results.schema.json": GANDR_RESULTS_LAYOUT.schema(
            GandrResults, title="gandr-results.json",
            description="A GANDR run: the backends that answered, the summary per system and "
                        "every item's record."),
        "output-lengths.schema.json": MEMORY_LAYOUT.schema(
            OutputMemory, title="output-lengths/BACKEND+ANSWER_MODEL+JUDGE_MODEL.json",
            description="The output lengths earlier runs on one backend with one pair of "
                        "models measured, per stage, kept in the cache for the next plan."),
    }


def schema_text(schema: dict[str, Any]) -> str:
    """A schema as its file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def register(commands: Any) -> None:
    """Add the ``schema`` subcommand."""
    schema = commands.add_parser(
        "schema", help="write the JSON Schemas of results.json, a journal line and "
                       "gandr-results.json into a folder")
    schema.add_argument("folder", type=Path, nargs="?", default=SCHEMAS_FOLDER,
                        help=f"where to write them (default: {SCHEMAS_FOLDER})")
    schema.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming the files that differ")
    schema.add_argument("-q", "--quiet", action="store_true", help="print no progress")
    schema.set_defaults(run=run_schema)


def run_schema(args: argparse.Namespace, progress: Progress) -> int:
    """Write (or check) every schema file."""
    folder: Path = args.folder
    if folder.exists() and not folder.is_dir():
        raise UsageProblem(f"{folder}: not a folder")
    stale = []
    for name, schema in schemas().items():
        path, text = folder / name, schema_text(schema)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
            continue
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        progress(f"wrote {path}")
    for path in stale:
        print(f"{path}: differs from what this build generates (run legalbench schema)")
    return 1 if stale else 0
