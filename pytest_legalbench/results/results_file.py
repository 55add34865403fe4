"""results.json: everything a run measured, self-sufficient for ``legalbench report`` and
``legalbench compare``.

It holds the run header, every record, the summary, a ``provisions`` table (each provision
any record retrieved, keyed by node id: its document, citation and span) and ``texts``, the
retrieved stretches of each document, each character once (see ``provision_table``).
The top-level ``backend`` and ``models`` repeat the header's for readers of the first layout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_legalbench.results.item_record import RECORD_FORMAT, ItemRecord
from pytest_legalbench.results.provision_table import Excerpts, ProvisionPlace
from pytest_legalbench.results.run_header import RunHeader
from pytest_legalbench.results.summary import Summary

RESULTS_FILE = "results.json"


class ResultsFileError(ValueError):
    """A results file that cannot be read; the message names it and the problem."""


@dataclass(frozen=True)
class StoredRun:
    """A QA run as results.json holds it."""

    header: RunHeader
    records: tuple[ItemRecord, ...]
    """In (question_id, mode) order."""
    summary: Summary
    """The run's summary."""
    provisions: Mapping[str, ProvisionPlace]
    """Node id -> where each provision a record retrieved lies."""
    excerpts: Excerpts = field(default_factory=lambda: Excerpts({}))
    """The retrieved text, each character once."""
    format_version: int = RECORD_FORMAT

    def provision_text(self, node_id: str) -> str | None:
        """The text of a retrieved provision; None when the run did not keep it."""
        place = self.provisions.get(node_id)
        return None if place is None else self.excerpts.text(place.doc_id, place.start,
                                                              place.end)

    def to_dict(self) -> dict[str, object]:
        """The run as results.json holds it."""
        return {"format_version": self.format_version, "backend": self.header.backend,
                "models": dict(self.header.models), "run": self.header.to_dict(),
                "records": [record.to_dict() for record in self.records],
                "provisions": {node: entry.to_dict() for node, entry in self.provisions.items()},
                "texts": self.excerpts.to_dict(), "summary": self.summary.to_dict()}


def results_json(run: StoredRun) -> str:
    """The text of results.json for ``run``."""
    try:
        text = json.dumps(run.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{RESULTS_FILE}: the summary or a record is not plain JSON data: "
                         f"{error}") from None
    return text + "\n"


def results_path(path: Path) -> Path:
    """The results file of a report folder, or ``path`` itself when it names a file."""
    return path / RESULTS_FILE if path.is_dir() else path


def read_run(path: Path) -> StoredRun:
    """The run stored in a report folder or a results.json; ResultsFileError when unreadable."""
    found = results_path(path)
    try:
        data: Any = json.loads(found.read_text(encoding="utf-8"))
    except OSError as error:
        raise ResultsFileError(f"{found}: cannot read the results ({error.strerror}); run the "
                               f"benchmark with --legalbench-report") from None
    except ValueError as error:
        raise ResultsFileError(f"{found}: not JSON ({error})") from None
    try:
        header = dict(data.get("run") or {})
        # Files of the first layout have no header, and a summary without backend and
        # models: those stand alone at the top.
        summary = dict(data["summary"])
        summary.setdefault("backend", data.get("backend"))
        summary.setdefault("models", data.get("models") or {})
        header.setdefault("backend", data.get("backend"))
        header.setdefault("models", data.get("models") or {})
        header.setdefault("price_card", summary.get("price_card"))
        records = tuple(ItemRecord.from_dict(raw) for raw in data["records"])
        return StoredRun(
            header=RunHeader.from_dict({k: v for k, v in header.items() if v is not None}),
            records=tuple(sorted(records, key=lambda r: (r.question_id, r.mode))),
            summary=Summary.from_dict(summary),
            provisions={str(node): ProvisionPlace.from_dict(entry)
                        for node, entry in dict(data.get("provisions") or {}).items()},
            excerpts=Excerpts.from_dict(dict(data.get("texts") or {})),
            format_version=int(data.get("format_version", 1)))
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ResultsFileError(f"{found}: not a {RESULTS_FILE} ({type(error).__name__}: "
                               f"{error})") from None
