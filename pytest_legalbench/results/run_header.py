"""Who and what produced a run: backend, models, price card, corpus, modes, date, version.

It heads results.json and report.html, and ``legalbench compare`` reads it to warn before
comparing runs of different backends or corpora. Files written before the header existed
read back with ``unknown`` in its place (``results_file`` migrates them).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

#: What a field of a header read from an older file holds.
UNKNOWN = "unknown"
#: How the header note of a partial run begins (``partial: 20 of 34 items``).
PARTIAL_NOTE = "partial: "


@dataclass(frozen=True)
class CorpusIdentity:
    """The corpus a run read, by profile and by content."""

    profile: str
    documents: int
    digest: str
    """sha256 over every document's id and text digest, in id order: equal digests mean the
    same texts."""


def corpus_identity(profile: str, texts: Mapping[str, str]) -> CorpusIdentity:
    """The identity of a corpus given as doc id -> text."""
    digest = hashlib.sha256()
    for doc_id in sorted(texts):
        digest.update(doc_id.encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(texts[doc_id].encode("utf-8")).digest())
    return CorpusIdentity(profile, len(texts), digest.hexdigest())


@dataclass(frozen=True)
class QuestionSelection:
    """Which questions a run drew: its set (a generated set by its digest) and its sample."""

    origin: str
    """``packaged``, ``given`` (a folder named by the user) or ``generated``."""
    digest: str | None
    """A generated set's SHA-256 digest over every question file's name and text."""
    available: int
    """Questions in the set."""
    sample: int | None
    """The size of the stratified sample asked for (``--legalbench-sample``); None: all."""

    def text(self) -> str:
        """``generated set 3973d6f4..., a sample of 300 of 18,972``."""
        named = f"generated set {self.digest}" if self.digest else self.origin
        if self.sample is None:
            return f"{named}, all {self.available:,} questions"
        return f"{named}, a sample of {min(self.sample, self.available):,} of {self.available:,}"


@dataclass(frozen=True)
class RunHeader:
    """The facts a report opens with."""

    backend: str
    models: Mapping[str, str]
    """Role (``answer``, ``judge``) to the model names that played it."""
    price_card: str
    corpus: CorpusIdentity
    modes: tuple[str, ...]
    judge: str
    """The judging protocol asked for."""
    questions: str
    """Where the questions came from: ``packaged`` or the question folder."""
    date: str
    """When the report was written, ISO 8601 in UTC."""
    package_version: str
    notes: tuple[str, ...] = field(default=())
    """Caveats a reader needs (the reference backend is not a language model, ...)."""
    selection: QuestionSelection | None = None
    """The question set and sample the run drew; None when the run did not say."""

    @property
    def partial(self) -> bool:
        """Whether the run this header opens stopped before every item finished."""
        return any(note.startswith(PARTIAL_NOTE) for note in self.notes)


def report_date(environ: Mapping[str, str] = os.environ) -> str:
    """Now in UTC, to the second; ``$SOURCE_DATE_EPOCH`` pins it, for reproducible reports."""
    pinned = environ.get("SOURCE_DATE_EPOCH", "").strip()
    moment = (datetime.fromtimestamp(int(pinned), UTC) if pinned.isdigit()
              else datetime.now(UTC))
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def sorted_modes(modes: Iterable[str]) -> tuple[str, ...]:
    """Modes without repeats, in name order (as the summary lists them)."""
    return tuple(sorted(set(modes)))
