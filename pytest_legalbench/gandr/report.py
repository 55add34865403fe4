"""GANDR's report files: ``gandr-results.json`` (the summary and every record) and one JSON
Lines audit trace per item under ``gandr-traces/`` (one line per round or baseline step)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.files.file_names import safe_name
from pytest_legalbench.gandr.record import GandrRecord, trace_lines
from pytest_legalbench.gandr.summary_types import GandrSummary

RESULTS_FILE = "gandr-results.json"
TRACES_FOLDER = "gandr-traces"
#: Version of the results and trace layout; bumped when a field changes meaning.
FORMAT_VERSION = 1


def trace_file_name(question_id: str, system: str) -> str:
    """The trace file of an item, named as its cassette is (``q-gandr:b1`` -> ``q-gandr_b1``)."""
    return safe_name(f"{question_id}-{system}") + ".jsonl"


class ResultsFileError(ValueError):
    """A GANDR results file that cannot be read; the message names it and the problem."""


def read_records(report: Path) -> list[GandrRecord]:
    """The records of a report folder (or of its results file)."""
    path = report / RESULTS_FILE if report.is_dir() else report
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        return [GandrRecord.from_dict(raw) for raw in data["records"]]
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot read the GANDR results ({error.strerror}); "
                               f"run the benchmark with --legalbench-report") from None
    except (ValueError, KeyError, TypeError) as error:
        raise ResultsFileError(f"{path}: not a {RESULTS_FILE} ({error})") from None


def write_gandr_report(folder: Path, records: Sequence[GandrRecord],
                       summary: GandrSummary, *, backend: str) -> list[Path]:
    """Write the results file, then every trace; return the paths, the results file first."""
    results = folder / RESULTS_FILE
    # The results file first: it holds everything, traces included, so it survives a
    # failure while writing the per-item files.
    write_text_atomic(results, json.dumps(
        {"format_version": FORMAT_VERSION, "backend": backend, "summary": summary.to_dict(),
         "records": [r.to_dict() for r in records]}, indent=1, sort_keys=True) + "\n")
    written = [results]
    for record in records:
        path = folder / TRACES_FOLDER / trace_file_name(record.question_id, record.system)
        write_text_atomic(path, "".join(json.dumps(line, sort_keys=True) + "\n"
                                        for line in trace_lines(record)))
        written.append(path)
    return written
