"""GANDR's report files: ``gandr-results.json`` (the summary and every record) and one JSON
Lines audit trace per item under ``gandr-traces/`` (one line per round or baseline step).

``gandr-results.json`` is ``GandrResults``'s JSON layout (``files.record_json``) with its
``schema_version``; its JSON Schema is generated from it (``commands.schema``). Version 1
(``format_version``) is read by migrating it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.files.file_names import safe_name
from pytest_legalbench.files.record_json import (
    RecordError,
    VersionedFile,
    from_builtins,
    to_builtins,
)
from pytest_legalbench.gandr.record import GandrRecord, trace_lines
from pytest_legalbench.gandr.summary_types import MCNEMAR_KEY, GandrSummary

RESULTS_FILE = "gandr-results.json"
TRACES_FOLDER = "gandr-traces"


@dataclass(frozen=True)
class GandrResults:
    """A GANDR run as ``gandr-results.json`` holds it."""

    backend: str
    """The backends that answered, joined by ``+`` (``none`` when no call was made)."""
    summary: GandrSummary
    records: tuple[GandrRecord, ...]
    """In (system, question_id) order."""


def _from_version_1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 in version 2's layout: each test against the comparator gets the number of
    comparisons its corrected p-value was multiplied by (version 1 kept only the product)."""
    summary = dict(data.get("summary") or {})
    tests = summary.get(MCNEMAR_KEY)
    if isinstance(tests, dict):
        summary[MCNEMAR_KEY] = {system: {"bonferroni": len(tests), **entry}
                                if isinstance(entry, dict) else entry
                                for system, entry in tests.items()}
    return {**data, "summary": summary}


#: The layout this build writes (version 2) and the older one it reads.
GANDR_RESULTS_LAYOUT = VersionedFile(RESULTS_FILE, 2, {1: _from_version_1},
                                     legacy_key="format_version")


def trace_file_name(question_id: str, system: str) -> str:
    """The trace file of an item, named as its cassette is (``q-gandr:b1`` -> ``q-gandr_b1``)."""
    return safe_name(f"{question_id}-{system}") + ".jsonl"


class ResultsFileError(ValueError):
    """A GANDR results file that cannot be read; the message names it and the problem."""


def read_results(report: Path) -> GandrResults:
    """The GANDR run of a report folder (or of its results file); ResultsFileError when it
    cannot be read (a file of a version this build does not read is refused, naming both)."""
    path = report / RESULTS_FILE if report.is_dir() else report
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot read the GANDR results ({error.strerror}); "
                               f"run the benchmark with --legalbench-report") from None
    except ValueError as error:
        raise ResultsFileError(f"{path}: not JSON ({error})") from None
    try:
        layout = GANDR_RESULTS_LAYOUT.current(data, str(path))
    except RecordError as error:
        raise ResultsFileError(str(error)) from None
    return from_builtins(GandrResults, layout, what=f"{path}: not a {RESULTS_FILE}",
                         error=ResultsFileError)


def read_records(report: Path) -> list[GandrRecord]:
    """The records of a report folder (or of its results file)."""
    return list(read_results(report).records)


def write_gandr_report(folder: Path, records: Sequence[GandrRecord],
                       summary: GandrSummary, *, backend: str) -> list[Path]:
    """Write the results file, then every trace; return the paths, the results file first."""
    results = folder / RESULTS_FILE
    # The results file first: it holds everything, traces included, so it survives a
    # failure while writing the per-item files.
    stored = GandrResults(backend=backend, summary=summary, records=tuple(records))
    write_text_atomic(results, json.dumps(GANDR_RESULTS_LAYOUT.stamped(to_builtins(stored)),
                                          indent=1, sort_keys=True) + "\n")
    written = [results]
    for record in records:
        path = folder / TRACES_FOLDER / trace_file_name(record.question_id, record.system)
        write_text_atomic(path, "".join(json.dumps(line, sort_keys=True) + "\n"
                                        for line in trace_lines(record)))
        written.append(path)
    return written
