"""results.json: everything a run measured, self-sufficient for ``legalbench report`` and
``legalbench compare``.

It holds its ``schema_version``, the run header, every record, the summary, a ``provisions``
table (each provision any record retrieved, keyed by node id: its document, citation and
span) and ``texts``, the retrieved stretches of each document, each character once (see
``provision_table``). The top-level ``backend`` and ``models`` repeat the header's for
readers of the first layout. The file is ``StoredRun``'s JSON layout (``files.record_json``),
and its JSON Schema is generated from it (``commands.schema``).

Version 1 (``format_version``, before the layout was published) and version 2 (before the
paired statistics, the arms' scopes, the error classes and ``mode_traits``) are read by
migrating them; files of the first layout, with no header, read back with ``unknown`` in its
fields.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pytest_legalbench.files.record_json import (
    RecordError,
    VersionedFile,
    derived,
    from_builtins,
    renamed,
    to_builtins,
)
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.provision_table import EXCERPTS_FORM, Excerpts, ProvisionPlace
from pytest_legalbench.results.run_header import UNKNOWN, RunHeader
from pytest_legalbench.results.summary import Summary

RESULTS_FILE = "results.json"


class ResultsFileError(ValueError):
    """A results file that cannot be read; the message names it and the problem."""


@derived(backend="backend", models="models")
@dataclass(frozen=True)
class StoredRun:
    """A QA run as results.json holds it."""

    header: RunHeader = field(metadata=renamed("run"))
    records: tuple[ItemRecord, ...]
    """In (question_id, mode) order."""
    summary: Summary
    """The run's summary."""
    provisions: Mapping[str, ProvisionPlace]
    """Node id -> where each provision a record retrieved lies."""
    excerpts: Annotated[Excerpts, EXCERPTS_FORM] = field(
        default_factory=lambda: Excerpts({}), metadata=renamed("texts"))
    """The retrieved text, each character once."""

    @property
    def backend(self) -> str:
        """The header's backend (written at the top too, for readers of the first layout)."""
        return self.header.backend

    @property
    def models(self) -> Mapping[str, str]:
        """The header's models (written at the top too, for readers of the first layout)."""
        return self.header.models

    def provision_text(self, node_id: str) -> str | None:
        """The text of a retrieved provision; None when the run did not keep it."""
        place = self.provisions.get(node_id)
        return None if place is None else self.excerpts.text(place.doc_id, place.start,
                                                              place.end)


#: Header fields a file of the first layout lacks.
_HEADER_FIELDS = ("backend", "price_card", "judge", "questions", "date", "package_version")
#: Mode-summary fields version 1 left out when nothing was judged.
_UNJUDGED = ("document_bound", "controls", "document_bound_split", "controls_split",
             "crossover")


def _from_version_1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 in version 2's layout: the header and the summary get the backend and
    models the first layout kept at the top, what a header lacks reads ``unknown``, and the
    fields version 1 left out when empty are written out."""
    layout = dict(data)
    summary = dict(layout.get("summary") or {})
    summary.setdefault("backend", layout.get("backend"))
    summary.setdefault("models", layout.get("models") or {})
    modes = summary.get("modes")
    if isinstance(modes, Mapping):
        summary["modes"] = {name: {**dict.fromkeys(_UNJUDGED), "judges": [], **entry}
                            if isinstance(entry, Mapping) else entry
                            for name, entry in modes.items()}
    header = {key: value for key, value in dict(layout.get("run") or {}).items()
              if value is not None}
    header.setdefault("backend", layout.get("backend") or UNKNOWN)
    header.setdefault("models", layout.get("models") or {})
    header.setdefault("price_card", summary.get("price_card") or UNKNOWN)
    for name in _HEADER_FIELDS:
        header.setdefault(name, UNKNOWN)
    header.setdefault("corpus", {})
    if isinstance(header["corpus"], Mapping):
        header["corpus"] = {"profile": UNKNOWN, "documents": 0, "digest": UNKNOWN,
                            **header["corpus"]}
    header.setdefault("modes", [])
    provisions = layout.get("provisions") or {}
    if isinstance(provisions, Mapping):
        provisions = {node: {"clause": "", **place} if isinstance(place, Mapping) else place
                      for node, place in provisions.items()}
    return {**layout, "run": header, "summary": summary, "provisions": provisions,
            "texts": layout.get("texts") or {}}


def with_mode_traits(entry: object) -> object:
    """A record or mode summary of version 2 with the ``mode_traits`` version 3 holds: the
    built-in mode's of its name (every mode of a version 2 file was built in)."""
    if not isinstance(entry, Mapping) or "mode_traits" in entry:
        return entry
    traits = builtin_traits(str(entry.get("mode")))
    return {**entry, "mode_traits": {"shown": traits.shown, "crossover": traits.crossover}}


def _from_version_2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2 in version 3's layout: what version 3 added reads as not measured (no
    statistics, no scopes or error classes per mode; each record's inject read the corpus,
    its question a cluster of its own, inject's recall unknown), and every record and mode
    summary says what its mode showed the answering model and how its cost crosses over
    (``mode_traits``)."""
    layout = dict(data)
    records = layout.get("records")
    if isinstance(records, list):
        layout["records"] = [with_mode_traits(record) for record in records]
    summary = dict(layout.get("summary") or {})
    summary.setdefault("statistics", None)
    modes = summary.get("modes")
    if isinstance(modes, Mapping):
        summary["modes"] = {name: with_mode_traits({"scopes": None, "errors": None, **entry})
                            if isinstance(entry, Mapping) else entry
                            for name, entry in modes.items()}
    layout["summary"] = summary
    header = layout.get("run")
    if isinstance(header, Mapping):
        layout["run"] = {"selection": None, **header}
    return layout


#: The layout this build writes (version 3) and the older ones it reads.
RESULTS_LAYOUT = VersionedFile(RESULTS_FILE, 3, {1: _from_version_1, 2: _from_version_2},
                               legacy_key="format_version", unversioned=1)


def results_json(run: StoredRun) -> str:
    """The text of results.json for ``run``."""
    try:
        data = RESULTS_LAYOUT.stamped(to_builtins(run))
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{RESULTS_FILE}: the summary or a record is not plain JSON data: "
                         f"{error}") from None
    return text + "\n"


def results_path(path: Path) -> Path:
    """The results file of a report folder, or ``path`` itself when it names a file."""
    return path / RESULTS_FILE if path.is_dir() else path


def read_run(path: Path) -> StoredRun:
    """The run stored in a report folder or a results.json; ResultsFileError when unreadable
    (a file of a version this build does not read is refused, naming both)."""
    found = results_path(path)
    try:
        data: Any = json.loads(found.read_text(encoding="utf-8"))
    except OSError as error:
        raise ResultsFileError(f"{found}: cannot read the results ({error.strerror}); run the "
                               f"benchmark with --legalbench-report") from None
    except ValueError as error:
        raise ResultsFileError(f"{found}: not JSON ({error})") from None
    try:
        layout = RESULTS_LAYOUT.current(data, str(found))
    except RecordError as error:
        raise ResultsFileError(str(error)) from None
    run = from_builtins(StoredRun, layout, what=f"{found}: not a {RESULTS_FILE}",
                        error=ResultsFileError)
    return dataclasses.replace(
        run, records=tuple(sorted(run.records, key=lambda r: (r.question_id, r.mode))))
