"""Checks made before any model call is paid for: every question file valid, every evidence
quote located in its document, the report folder writable. Each check collects every problem
(file and line) instead of stopping at the first, so one message lists all there is to fix.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_legalbench.ingest.questions import (
    Evidence,
    Question,
    QuestionFileError,
    load_question,
)
from pytest_legalbench.results.evidence import quote_spans

_FIELD = re.compile(r"field(?:\(s\))? '?(\w+)")
_ID_LINE = r"^id\s*:"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: where (``file:line``) and what."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


@dataclass(frozen=True)
class QuestionSet:
    """The question files of a folder that could be read, and the problems of the others."""

    questions: tuple[Question, ...]
    problems: tuple[Problem, ...]
    invalid: tuple[str, ...] = ()
    """The files that gave no question."""


def _line_of(path: Path, pattern: str) -> int:
    """The 1-based line of ``path`` where ``pattern`` first matches, else 1."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    found = re.compile(pattern)
    return next((number for number, line in enumerate(lines, 1) if found.search(line)), 1)


def check_question_files(folder: Path, files: Sequence[Path] | None = None) -> QuestionSet:
    """Read every ``*.yaml`` question of ``folder`` (or only ``files``, a sample of it);
    every invalid file and every id used twice is a problem, the valid questions are kept
    (ordered by id)."""
    if not folder.is_dir():
        return QuestionSet((), (Problem(str(folder), "not a folder of question files"),))
    paths = sorted(folder.glob("*.y*ml")) if files is None else sorted(files)
    if not paths:
        return QuestionSet((), (Problem(str(folder), "no question files (*.yaml) here"),))
    questions: list[Question] = []
    problems: list[Problem] = []
    invalid: list[str] = []
    seen: dict[str, str] = {}
    for path in paths:
        try:
            question = load_question(path)
        except QuestionFileError as error:
            what = str(error).removeprefix(f"{path}: ")
            field = _FIELD.search(what)
            line = _line_of(path, rf"^{field.group(1)}\s*:") if field else 1
            problems.append(Problem(f"{path}:{line}", what))
            invalid.append(str(path))
            continue
        if question.id in seen:
            line = _line_of(path, _ID_LINE)
            problems.append(Problem(f"{path}:{line}",
                                    f"id {question.id!r} is also used by {seen[question.id]}"))
            invalid.append(str(path))
            continue
        seen[question.id] = str(path)
        questions.append(question)
    return QuestionSet(tuple(sorted(questions, key=lambda q: q.id)), tuple(problems),
                       tuple(invalid))


def check_evidence(questions: Sequence[Question], texts: Mapping[str, str]) -> list[Problem]:
    """Every evidence quote that names a document the corpus lacks, or is not in its text."""
    problems = []
    for question in questions:
        for evidence in question.evidence:
            if evidence.doc_id not in texts:
                problems.append(Problem(_where(question, evidence),
                                        f"evidence names document {evidence.doc_id!r}, "
                                        f"which the corpus does not hold"))
            elif not quote_spans(evidence, texts[evidence.doc_id]):
                problems.append(Problem(_where(question, evidence),
                                        f"evidence quote {evidence.quote[:60]!r} is not "
                                        f"in document {evidence.doc_id!r}"))
    return problems


def _where(question: Question, evidence: Evidence) -> str:
    """The file and line of an evidence entry, found only for a problem (it reads the file)."""
    words = evidence.quote.split()
    # Its first words, which a folded YAML scalar keeps on one line.
    line = _line_of(Path(question.path), r"\s+".join(map(re.escape, words[:4])) if words
                    else r"^evidence\s*:")
    return f"{question.path}:{line}"


def check_report_folder(folder: Path) -> Problem | None:
    """Whether ``folder`` can take a report: created if missing, and written to once."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".legalbench-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return Problem(str(folder), f"the report folder cannot be written ({reason}); choose "
                                    f"another --legalbench-report")
    return None


def problems_text(title: str, problems: Sequence[Problem]) -> str:
    """One message: a title line, then one indented line per problem."""
    return "\n".join([f"{title} ({len(problems)} problem{'s' * (len(problems) != 1)}):",
                      *(f"  {problem}" for problem in problems)])
