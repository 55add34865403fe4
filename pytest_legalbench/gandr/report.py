"""GANDR's report files: ``gandr-results.json`` (the summary and every record) and one JSON
Lines audit trace per item under ``gandr-traces/`` (one line per round or baseline step)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..atomic_write import write_text_atomic
from .record import GandrRecord, trace_lines

RESULTS_FILE = "gandr-results.json"
TRACES_FOLDER = "gandr-traces"
#: Version of the results and trace layout; bumped when a field changes meaning.
FORMAT_VERSION = 1


def trace_file_name(question_id: str, system: str) -> str:
    """The trace file of an item: ``<question_id>-<system>.jsonl`` with unsafe characters
    replaced (``gandr:b1`` becomes ``gandr_b1``)."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", f"{question_id}-{system}") + ".jsonl"


def write_gandr_report(folder: Path, records: Sequence[GandrRecord],
                       summary: Mapping[str, object], *, backend: str) -> list[Path]:
    """Write the results file, then every trace; return the paths, the results file first."""
    results = folder / RESULTS_FILE
    # The results file first: it holds everything, traces included, so it survives a
    # failure while writing the per-item files.
    write_text_atomic(results, json.dumps(
        {"format_version": FORMAT_VERSION, "backend": backend, "summary": summary,
         "records": [r.to_dict() for r in records]}, indent=1, sort_keys=True) + "\n")
    written = [results]
    for record in records:
        path = folder / TRACES_FOLDER / trace_file_name(record.question_id, record.system)
        write_text_atomic(path, "".join(json.dumps(line, sort_keys=True) + "\n"
                                        for line in trace_lines(record)))
        written.append(path)
    return written
