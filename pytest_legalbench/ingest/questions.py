"""The scored question set: one YAML file per question, validated field by field.

A question names the documents in scope, the verbatim evidence a reader needs, and the short
facts a correct answer states. Adding a question is adding one file; a malformed file is
rejected with its path and the field at fault.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from pytest_legalbench.files.yaml_text import load_yaml

KINDS = ("lookup", "definition", "crossref", "precedence", "out_of_scope")
DIFFICULTIES = ("easy", "medium", "hard")
#: The kind of a control question: its answer is in no document, so the right answer declines.
OUT_OF_SCOPE = "out_of_scope"

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_REQUIRED = ("id", "question", "kind", "documents", "evidence", "must_contain", "difficulty",
             "practice_area")
_OPTIONAL = ("reference", "absent_terms", "absent_clause", "notes")


class QuestionFileError(ValueError):
    """A question file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Evidence:
    """A verbatim quote from one document."""

    doc_id: str
    quote: str


@dataclass(frozen=True)
class Question:
    """One scored question."""

    id: str
    question: str
    reference: str | None
    """The verified answer; None when the question is judged without one (preference)."""
    kind: str
    documents: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    must_contain: tuple[str, ...]
    difficulty: str
    practice_area: str
    absent_terms: tuple[str, ...] = ()
    """For controls: terms that would appear if the answer were in the documents."""
    absent_clause: str = ""
    """For controls: the clause category that annotators found in none of the documents (it
    attests the control where no term list can)."""
    notes: str = ""
    path: str = ""

    @property
    def out_of_scope(self) -> bool:
        """Whether this is a control whose answer is in no document."""
        return self.kind == OUT_OF_SCOPE


def load_question(path: Path) -> Question:
    """Read and validate one question file."""
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise QuestionFileError(f"{path}: cannot read ({error.strerror})") from None
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise QuestionFileError(f"{path}: not valid YAML: {error}") from None
    return parse_question(data, path)


def parse_question(data: object, path: Path) -> Question:
    """Validate the parsed YAML of ``path`` into a Question."""
    if not isinstance(data, dict):
        raise QuestionFileError(f"{path}: expected a mapping of fields, got "
                                f"{type(data).__name__}")
    missing = [name for name in _REQUIRED if name not in data]
    if missing:
        raise QuestionFileError(f"{path}: missing field(s) {', '.join(missing)}")
    unknown = sorted(set(map(str, data)) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise QuestionFileError(f"{path}: unknown field(s) {', '.join(unknown)}")

    def text(name: str, *, optional: bool = False) -> str | None:
        value = data.get(name)
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value.strip():
            raise QuestionFileError(f"{path}: field {name!r} must be non-empty text")
        return value.strip()

    def choice(name: str, allowed: tuple[str, ...]) -> str:
        value = text(name)
        if value not in allowed:
            raise QuestionFileError(f"{path}: field {name!r} is {value!r}; expected one of "
                                    f"{', '.join(allowed)}")
        return value

    identifier = text("id")
    assert identifier is not None
    if not _ID.fullmatch(identifier):
        raise QuestionFileError(f"{path}: field 'id' {identifier!r} must be lower-case words "
                                f"joined by hyphens")
    if path.suffix in (".yaml", ".yml") and identifier != path.stem:
        raise QuestionFileError(f"{path}: field 'id' {identifier!r} differs from the file "
                                f"name {path.stem!r}")
    kind = choice("kind", KINDS)
    documents = _texts(data.get("documents"), path, "documents")
    evidence = _evidence(data.get("evidence"), path, documents)
    must_contain = _texts(data.get("must_contain"), path, "must_contain", allow_empty=True)
    absent = _texts(data.get("absent_terms", []), path, "absent_terms", allow_empty=True)
    absent_clause = text("absent_clause", optional=True) or ""
    if kind == OUT_OF_SCOPE:
        # A control's must_contain, if any, lists what a correct answer states instead of the
        # refusal sentence (a "No" for a yes/no question about a clause no document has).
        if evidence:
            raise QuestionFileError(f"{path}: an out_of_scope control has no 'evidence' (its "
                                    f"answer is in no document)")
        if not absent and not absent_clause:
            raise QuestionFileError(f"{path}: field 'absent_terms' must list the terms whose "
                                    f"absence shows the answer is not in the documents (or "
                                    f"'absent_clause' name the clause annotators found absent)")
    else:
        if absent_clause:
            raise QuestionFileError(f"{path}: field 'absent_clause' is only for out_of_scope "
                                    f"controls")
        if not evidence:
            raise QuestionFileError(f"{path}: field 'evidence' must hold at least one quote")
        if not must_contain:
            raise QuestionFileError(f"{path}: field 'must_contain' must hold at least one fact")
        if absent:
            raise QuestionFileError(f"{path}: field 'absent_terms' is only for out_of_scope "
                                    f"controls")
    question = text("question")
    difficulty = choice("difficulty", DIFFICULTIES)
    area = text("practice_area")
    assert question is not None and area is not None
    return Question(id=identifier, question=question, reference=text("reference", optional=True),
                    kind=kind, documents=documents, evidence=evidence,
                    must_contain=must_contain, difficulty=difficulty, practice_area=area,
                    absent_terms=absent, absent_clause=absent_clause,
                    notes=text("notes", optional=True) or "",
                    path=str(path))


def load_question_set(folder: Path) -> tuple[Question, ...]:
    """Every ``*.yaml`` question in ``folder``, ordered by id; ids must be unique."""
    if not folder.is_dir():
        raise QuestionFileError(f"{folder}: not a folder of question files")
    questions = [load_question(path) for path in sorted(folder.glob("*.y*ml"))]
    if not questions:
        raise QuestionFileError(f"{folder}: no question files (*.yaml) here")
    seen: dict[str, str] = {}
    for question in questions:
        if question.id in seen:
            raise QuestionFileError(f"{question.path}: id {question.id!r} is also used by "
                                    f"{seen[question.id]}")
        seen[question.id] = question.path
    return tuple(sorted(questions, key=lambda q: q.id))


def _texts(value: object, path: Path, name: str, *, allow_empty: bool = False,
           ) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise QuestionFileError(f"{path}: field {name!r} must be a list of non-empty texts")
    if not value and not allow_empty:
        raise QuestionFileError(f"{path}: field {name!r} must not be empty")
    return tuple(v.strip() for v in value)


def _evidence(value: object, path: Path, documents: Iterable[str]) -> tuple[Evidence, ...]:
    if not isinstance(value, list):
        raise QuestionFileError(f"{path}: field 'evidence' must be a list of "
                                f"{{doc_id, quote}} entries")
    in_scope = set(documents)
    found = []
    for number, entry in enumerate(value):
        where = f"{path}: evidence[{number}]"
        if not isinstance(entry, dict) or set(entry) != {"doc_id", "quote"}:
            raise QuestionFileError(f"{where}: expected exactly the keys doc_id and quote")
        doc_id, quote = entry["doc_id"], entry["quote"]
        if not isinstance(doc_id, str) or doc_id not in in_scope:
            raise QuestionFileError(f"{where}.doc_id: {doc_id!r} is not one of the question's "
                                    f"documents")
        # Quotes are kept exactly as written: they are checked verbatim against the text.
        if not isinstance(quote, str) or not quote.strip():
            raise QuestionFileError(f"{where}.quote: must be non-empty text")
        found.append(Evidence(doc_id, quote))
    return tuple(found)
