"""Precomputed retrievals: a JSON Lines file with one line per question id, so a retriever
written in any language can be benchmarked offline and reproducibly.

A line is ``{"id": QUESTION_ID, "passages": [...]}`` (passages as ``passage_json`` reads
them), or a line ``legalbench retrieve --json`` printed (its ``provisions`` are read as
passages). Blank lines are skipped. The whole file is read and checked when the mode is
named, so a malformed line is a startup error naming the file and line; a question with no
line fails its item, naming the file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_legalbench.modes.passage_json import PassageFormatError, passages_from_json
from pytest_legalbench.modes.retriever_api import Passage, RetrieverQuestion
from pytest_legalbench.modes.retriever_failures import RetrieverProblem


class RetrievalFileError(ValueError):
    """A retrieval file that cannot be read; the message names the file (and line)."""


@dataclass(frozen=True)
class RetrievalFile:
    """The passages a retrieval file holds, by question id, and a digest of its bytes."""

    path: Path
    passages: Mapping[str, tuple[Passage, ...]]
    digest: str
    """sha256 of the file's bytes, hex, 16 characters: what a resumed run compares."""

    @classmethod
    def read(cls, path: Path) -> RetrievalFile:
        """Read and check every line of ``path``."""
        try:
            raw = path.read_bytes()
        except OSError as error:
            raise RetrievalFileError(f"{path}: cannot read the retrieval file "
                                     f"({error.strerror or error})") from None
        try:
            lines = raw.decode("utf-8").splitlines()
        except UnicodeDecodeError as error:
            raise RetrievalFileError(f"{path}: not UTF-8 text ({error.reason} at byte "
                                     f"{error.start})") from None
        found: dict[str, tuple[Passage, ...]] = {}
        first_line: dict[str, int] = {}
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                data = json.loads(line)
            except ValueError as error:
                raise RetrievalFileError(f"{where}: not JSON ({error})") from None
            if not isinstance(data, dict):
                raise RetrievalFileError(f'{where}: expected an object {{"id", "passages"}}')
            question_id = data.get("id")
            if not isinstance(question_id, str) or not question_id:
                raise RetrievalFileError(f'{where}: "id" must name a question (a non-empty '
                                         f"string)")
            if question_id in found:
                raise RetrievalFileError(f"{where}: question {question_id!r} again (first on "
                                         f"line {first_line[question_id]})")
            key = "passages" if "passages" in data else "provisions" if "provisions" in data \
                else None
            if key is None:
                raise RetrievalFileError(f'{where}: no "passages" (nor the "provisions" of a '
                                         f"legalbench retrieve line)")
            try:
                found[question_id] = passages_from_json(data[key], where)
            except PassageFormatError as error:
                raise RetrievalFileError(str(error)) from None
            first_line[question_id] = number
        return cls(path, found, hashlib.sha256(raw).hexdigest()[:16])


class FileRetriever:
    """Answers each question with the passages its line holds."""

    def __init__(self, retrievals: RetrievalFile) -> None:
        self.retrievals = retrievals

    def retrieve(self, question: RetrieverQuestion) -> tuple[Passage, ...]:
        """The line's passages; RetrieverProblem naming the file when it has none."""
        found = self.retrievals.passages.get(question.id)
        if found is None:
            raise RetrieverProblem(f"{self.retrievals.path} has no line for question "
                                   f"{question.id!r}")
        return found
