"""Build a span benchmark from CUAD: one test per contract and clause category with excerpts."""

from __future__ import annotations

import ast
import csv
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from pytest_legalbench.ingest.cuad_manifest import (
    CLAUSES_CSV,
    CONTRACTS_ROOT,
    ClauseRow,
    Unmatched,
    match_rows,
    split_parties,
)
from pytest_legalbench.ingest.decoding import read_document
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.spans.benchmark_file import (
    Snippet,
    SpanBenchmark,
    SpanTest,
)
from pytest_legalbench.spans.excerpt_location import locate_category

DESCRIPTIONS_CSV = "cuad/category_descriptions.csv"
#: Skipped: the query names each contract by this very answer, so the question would carry
#: its own answer and measure nothing.
SKIPPED_CATEGORIES = ("Document Name",)
#: Beyond this many parties a query names the first few and counts the rest.
MAX_NAMED_PARTIES = 4

_FILENAME, _TITLE, _PARTIES = "Filename", "Document Name-Answer", "Parties-Answer"
_SPACES = re.compile(r"\s+")
# A parenthesis holding a quoted defined name: `Acme Inc. ("Acme")`.
_DEFINED_NAME = re.compile(r"\s*\([^)]*[\"“”'‘’][^)]*\)")
_PREFIXED = re.compile(r"^\s*(?:category|description)\s*:\s*", re.IGNORECASE)
_CATEGORY_LEAD = re.compile(r"^this (?:category )?includes\s+", re.IGNORECASE)


@dataclass(frozen=True)
class ClauseTable:
    """master_clauses.csv read and paired with the contract files it annotates."""

    path: Path
    header: tuple[str, ...]
    rows_by_file: Mapping[str, tuple[int, dict[str, str]]]
    """Contract file name -> (its row's number in the CSV, the header being row 1; the row's
    cells by column name)."""
    unmatched: tuple[Unmatched, ...]


@dataclass(frozen=True)
class UnlocatedExcerpt:
    """An excerpt that was not found in its contract's text."""

    contract: str
    category: str
    excerpt: str  # its first 80 characters
    reason: str


@dataclass(frozen=True)
class CuadImportReport:
    """What an import read, located and could not locate; nothing is dropped unreported."""

    contracts: int
    categories: int
    excerpts: int
    located: int
    unlocated: tuple[UnlocatedExcerpt, ...]
    tests: int
    skipped_categories: tuple[str, ...]
    notes: tuple[str, ...]  # unmatched rows or files, decoding warnings, missing descriptions

    def summary_lines(self) -> list[str]:
        """The counts as short lines for a terminal."""
        share = self.located / self.excerpts if self.excerpts else 1.0
        return [
            (f"{self.contracts} contracts, {self.categories} categories "
             f"(skipped: {', '.join(self.skipped_categories) or 'none'}), {self.tests} tests"),
            (f"{self.excerpts} excerpts: {self.located} located ({share:.2%}), "
             f"{len(self.unlocated)} unlocated"),
            *self.notes,
        ]

    def to_json(self) -> str:
        """The full report as JSON, unlocated excerpts included."""
        body = asdict(self)
        body["unlocated_count"] = len(self.unlocated)
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def parse_excerpts(cell: str, where: str) -> list[str]:
    """Parse a ``<Category>`` cell (a Python list literal of strings); errors name ``where``."""
    if not cell.strip():
        return []
    try:
        value = ast.literal_eval(cell.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise CorpusError(f"{where}: not a list literal ({type(exc).__name__}): {cell[:60]!r}") \
            from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CorpusError(f"{where}: expected a list of strings, got {cell[:60]!r}")
    return value


def category_question(description: str) -> str:
    """Turn a CUAD category description into the question part of a query."""
    text = _SPACES.sub(" ", description).strip()
    if "?" in text:
        question, _, guidance = text.partition("?")
        return _lower_first(question.strip()) + "?" + (f" {guidance.strip()}" if guidance else "")
    phrase = _CATEGORY_LEAD.sub("", text.rstrip(". "))
    return f"which passages give {_lower_first(phrase)}?"


def party_name(party: str) -> str:
    """A party as CUAD lists it, without its defined short name: `Acme Inc. ("Acme")` -> Acme Inc."""
    return _SPACES.sub(" ", _DEFINED_NAME.sub("", party)).strip(" ,;")


def contract_query(title: str, parties: Sequence[str], question: str) -> str:
    """Phrase a question so that it names the contract by title and parties."""
    names = [n for n in (party_name(p) for p in parties) if n]
    if len(names) > MAX_NAMED_PARTIES:
        shown = MAX_NAMED_PARTIES - 1
        names = [*names[:shown], f"{len(names) - shown} other parties"]
    article = "" if title.casefold().startswith("the ") else "the "
    if len(names) > 1:
        who = f" between {', '.join(names[:-1])} and {names[-1]}"
    else:
        who = f" of {names[0]}" if names else ""
    return f"In {article}{title}{who}, {question}"


def read_category_descriptions(path: Path) -> dict[str, tuple[str, str]]:
    """Map each category's folded name to its (name, description) from category_descriptions.csv."""
    found: dict[str, tuple[str, str]] = {}
    for number, row in enumerate(_read_csv(path)[1:], start=2):
        if len(row) < 2 or not row[0].strip():
            raise CorpusError(f"{path} row {number}: expected a category and its description")
        name, description = (_PREFIXED.sub("", cell).strip() for cell in row[:2])
        found[fold_category(name)] = (name, description)
    return found


def read_clause_table(corpus_dir: Path) -> ClauseTable:
    """Read master_clauses.csv of a corpus folder and pair its rows with the contract files."""
    contracts = corpus_dir / CONTRACTS_ROOT
    if not contracts.is_dir():
        raise CorpusError(f"{contracts}: CUAD contracts folder not found")
    csv_path = corpus_dir / CLAUSES_CSV
    header, raw_rows = _read_clause_table(csv_path)
    clause_rows = [ClauseRow(raw[_FILENAME], _SPACES.sub(" ", raw[_TITLE]).strip(),
                             split_parties(raw[_PARTIES]), None) for raw in raw_rows]
    # match_rows hands back the very row objects it was given; identity ties each to its raw
    # CSV row (and its row number, the header being row 1) even when two rows are equal.
    raw_of = {id(row): (number, raw)
              for number, (row, raw) in enumerate(zip(clause_rows, raw_rows, strict=True), start=2)}
    files = [p.name for p in contracts.iterdir() if p.is_file() and p.suffix.lower() == ".txt"]
    matches = match_rows(clause_rows, files)
    return ClauseTable(csv_path, tuple(header),
                       {name: raw_of[id(row)] for name, row in sorted(matches.by_file.items())},
                       matches.unmatched)


def import_cuad(corpus_dir: Path, *, progress: Callable[[str], None] | None = None,
                ) -> tuple[SpanBenchmark, CuadImportReport]:
    """Build the CUAD span benchmark from a corpus folder and report what was (not) located."""
    table = read_clause_table(corpus_dir)
    contracts, csv_path = corpus_dir / CONTRACTS_ROOT, table.path
    descriptions = read_category_descriptions(corpus_dir / DESCRIPTIONS_CSV)
    columns = [name for name in table.header if is_excerpt_column(name)]
    skipped = {fold_category(name) for name in SKIPPED_CATEGORIES}
    used = [name for name in columns if fold_category(name) not in skipped]
    if not used:
        raise CorpusError(f"{csv_path}: no clause category columns")
    notes: list[str] = []
    questions = _category_questions(used, descriptions, notes)
    notes += [f"unmatched {u.kind} {u.name!r}: {u.reason}" for u in table.unmatched]
    tests: list[SpanTest] = []
    unlocated: list[UnlocatedExcerpt] = []
    excerpts = 0
    for done, (name, (number, raw)) in enumerate(table.rows_by_file.items(), start=1):
        path = f"{CONTRACTS_ROOT}/{name}"
        decoded = read_document(contracts / name, name=path)
        notes.extend(decoded.warnings)
        title, parties = _SPACES.sub(" ", raw[_TITLE]).strip(), split_parties(raw[_PARTIES])
        for column in used:
            where = f"{csv_path} row {number} ({raw[_FILENAME]}), column {column!r}"
            found = parse_excerpts(raw[column], where)
            spans, missed = locate_category(found, decoded.text)
            category, question = questions[column]
            excerpts += len(found)
            unlocated += [UnlocatedExcerpt(name, category, e[:80], why) for e, why in missed]
            if spans:
                query = contract_query(title or PurePosixPath(name).stem, parties, question)
                snippets = tuple(Snippet(path, start, end) for start, end in spans)
                tests.append(SpanTest(query, snippets, (category,)))
        if progress is not None and (done % 50 == 0 or done == len(table.rows_by_file)):
            progress(f"{done}/{len(table.rows_by_file)} contracts, {len(tests)} tests")
    report = CuadImportReport(
        contracts=len(table.rows_by_file), categories=len(used), excerpts=excerpts,
        located=excerpts - len(unlocated), unlocated=tuple(unlocated), tests=len(tests),
        skipped_categories=tuple(name for name in columns if name not in used), notes=tuple(notes),
    )
    return SpanBenchmark(tuple(tests)), report


def _category_questions(columns: Sequence[str], descriptions: dict[str, tuple[str, str]],
                        notes: list[str]) -> dict[str, tuple[str, str]]:
    """Map each excerpt column to its category name and the question asked about it."""
    questions: dict[str, tuple[str, str]] = {}
    for column in columns:
        category, description = descriptions.get(fold_category(column), (column, ""))
        if description:
            questions[column] = (category, category_question(description))
        else:
            notes.append(f"{DESCRIPTIONS_CSV}: no description of {column!r}; generic question")
            questions[column] = (category, f"which passages concern {category}?")
    return questions


def _read_clause_table(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of master_clauses.csv; missing cells read as empty."""
    header, *rows = _read_csv(path)
    missing = [c for c in (_FILENAME, _TITLE, _PARTIES) if c not in header]
    if missing:
        raise CorpusError(f"{path}: missing column(s) {', '.join(missing)}")
    return header, [dict(zip(header, [*row, *[""] * (len(header) - len(row))])) for row in rows]


def _read_csv(path: Path) -> list[list[str]]:
    """The non-blank rows of a UTF-8 CSV file, header first."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = [row for row in csv.reader(handle) if row]
    except FileNotFoundError:
        raise CorpusError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}: not UTF-8 (bad byte at offset {exc.start})") from None
    except csv.Error as exc:
        raise CorpusError(f"{path}: malformed CSV: {exc}") from None
    if not rows:
        raise CorpusError(f"{path}: empty CSV file")
    return rows


def is_excerpt_column(name: str) -> bool:
    """Whether a master_clauses.csv column holds a category's excerpts (not its answer)."""
    # Every category has an excerpt column and an `<Category>-Answer` column (sometimes
    # spelt `- Answer`); only the former locates text.
    return name.strip() not in ("", _FILENAME) and not name.rstrip().endswith("Answer")


def fold_category(name: str) -> str:
    """A category name folded for comparison: the two CSVs capitalise category names
    differently ("No-Solicit of" / "No-Solicit Of") and space them loosely."""
    return _SPACES.sub(" ", name).strip().casefold()


def _lower_first(text: str) -> str:
    # "Is there" reads "is there" mid-sentence; acronyms ("IP ...") keep their case.
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text
