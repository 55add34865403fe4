"""Generate the ``cuad`` profile manifest from CUAD's contract folder and its master_clauses.csv."""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.ingest.decoding import read_document
from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import ROLES, CorpusError
from pytest_legalbench.ingest.roles import infer_role

#: Folder of the contract texts, relative to the corpus directory (the manifest's root).
CONTRACTS_ROOT = "cuad/contracts"
#: CUAD's annotation table, relative to the corpus directory.
CLAUSES_CSV = "cuad/master_clauses.csv"
CUAD_LICENSE = "CC BY 4.0 (The Atticus Project, CUAD v1)"

_FILENAME = "Filename"
_TITLE = "Document Name-Answer"
_PARTIES = "Parties-Answer"
_DATE = "Agreement Date-Answer"
_REQUIRED_COLUMNS = (_FILENAME, _TITLE, _PARTIES, _DATE)

_HEADER = (
    "# Generated; do not edit by hand. Regenerate with\n"
    "#   legalbench cuad-manifest --corpus-dir DIR --out corpus/cuad.yaml\n"
)
# A document extension, possibly followed by stray punctuation ("AGREEMENT.PDF'").
_DOC_SUFFIX = re.compile(r"\.(?:pdf|txt|html?|docx?)[\W_]*$")
_NON_ALNUM = re.compile(r"[\W_]+")
_SPACES = re.compile(r"\s+")
# The filing and exhibit a CUAD file name starts with, in CUAD's two naming schemes:
# "<Filer>_<yyyymmdd>_<form>_EX-<n>_<id>_EX-<n>_<type>" and "<FILER>_<mm>_<dd>_<yyyy>-EX-<n>-<title>".
_EXHIBIT_KEYS = (re.compile(r"^(?P<key>.+?_\d{8}_[^_]+_EX-[^_]+_\d+)_EX-"),
                 re.compile(r"^(?P<key>.+?_\d{2}_\d{2}_\d{4}-EX-[^-]+)-"))
# CUAD writes dates as m/d/yy; strptime's %y maps 69-99 to the 1900s and 00-68 to the 2000s,
# which covers every EDGAR filing. Answers with unknown parts ("[]/[]/2019") stay undated.
_DATE_FORMATS = ("%m/%d/%y", "%m/%d/%Y", "%Y-%m-%d")


@dataclass(frozen=True)
class ClauseRow:
    """What one row of master_clauses.csv says about a contract."""

    filename: str
    title: str
    parties: tuple[str, ...]
    date: str | None


@dataclass(frozen=True)
class Unmatched:
    """A CSV row that names no contract file, or a contract file no row names."""

    kind: str  # "csv_row" or "file"
    name: str
    reason: str


@dataclass(frozen=True)
class RowMatches:
    """The outcome of pairing CSV rows with contract files."""

    by_file: Mapping[str, ClauseRow]
    exact: int  # rows whose name, given a .txt extension, is a file name as it stands
    normalised: tuple[tuple[str, str], ...]  # (CSV name, file name) matched only by name_key
    unmatched: tuple[Unmatched, ...]


def name_key(name: str) -> str:
    """Reduce a file name to the key that CSV names and folder names are matched on."""
    # NFKC joins decomposed accents; casefold and the separator collapse absorb the `&`/`_`/`'`
    # substitutions and stray spaces that file systems and spreadsheets introduce.
    folded = unicodedata.normalize("NFKC", name).casefold().strip()
    folded = _DOC_SUFFIX.sub("", folded)
    return _NON_ALNUM.sub(" ", folded).strip()


def iso_date(answer: str) -> str | None:
    """Return a CUAD date answer as ``YYYY-MM-DD``, or None when it does not parse."""
    text = answer.strip()
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def split_parties(answer: str) -> tuple[str, ...]:
    """Split a CUAD parties answer on ``;`` into cleaned, non-empty party strings."""
    return tuple(p for p in (_clean(part) for part in answer.split(";")) if p)


def exhibit_key(file_name: str) -> str:
    """The filing exhibit a CUAD contract file belongs to: its name up to the exhibit number
    (filer, filing date, exhibit), or its whole stem when the name follows neither scheme."""
    for pattern in _EXHIBIT_KEYS:
        match = pattern.match(file_name)
        if match:
            return match.group("key")
    return PurePosixPath(file_name).stem


def exhibit_families(file_names: Iterable[str]) -> dict[str, str]:
    """Map each file filed in one exhibit with others to that exhibit's transaction set name.

    CUAD splits an exhibit that holds several instruments (an agreement and its amendments,
    an agreement and its escrow agreement) into numbered files; filed together, they form one
    transaction set. A file alone in its exhibit gets no set (it is its own family).
    """
    members: dict[str, list[str]] = {}
    for name in sorted(set(file_names)):
        members.setdefault(exhibit_key(name), []).append(name)
    # The key has no extension, so one is added: doc_id_for would take "EX-10.7"'s ".7" for one.
    return {name: doc_id_for(f"{key}.txt") for key, names in members.items() if len(names) > 1
            for name in names}


def read_clause_rows(csv_path: Path) -> list[ClauseRow]:
    """Read title, parties and date per contract from CUAD's master_clauses.csv."""
    try:
        with csv_path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in _REQUIRED_COLUMNS if c not in (reader.fieldnames or ())]
            if missing:
                raise CorpusError(f"{csv_path}: missing column(s) {', '.join(missing)}")
            return [
                ClauseRow(
                    filename=row[_FILENAME] or "",
                    title=_clean(row[_TITLE] or ""),
                    parties=split_parties(row[_PARTIES] or ""),
                    date=iso_date(row[_DATE] or ""),
                )
                for row in reader
            ]
    except FileNotFoundError:
        raise CorpusError(f"{csv_path}: CUAD clause table not found") from None
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{csv_path}: not UTF-8 (bad byte at offset {exc.start})") from None
    except csv.Error as exc:
        raise CorpusError(f"{csv_path}: malformed CSV: {exc}") from None


def match_rows(rows: Sequence[ClauseRow], file_names: Iterable[str]) -> RowMatches:
    """Pair each CSV row with one contract file: by exact name first, then by name_key."""
    files = sorted(set(file_names))
    by_key: dict[str, list[str]] = {}
    for name in files:
        by_key.setdefault(name_key(name), []).append(name)
    by_file: dict[str, ClauseRow] = {}
    unmatched: list[Unmatched] = []
    # Exact names are claimed before any normalised match, so a loose key never takes a
    # file that another row names exactly.
    pending: list[ClauseRow] = []
    for row in rows:
        exact = _as_txt(row.filename)
        if exact in by_key.get(name_key(exact), ()) and exact not in by_file:
            by_file[exact] = row
        else:
            pending.append(row)
    exact_count = len(by_file)
    normalised: list[tuple[str, str]] = []
    for row in pending:
        if not row.filename.strip():
            unmatched.append(Unmatched("csv_row", row.filename, "empty Filename cell"))
            continue
        candidates = by_key.get(name_key(row.filename), [])
        free = [name for name in candidates if name not in by_file]
        if len(free) == 1:
            by_file[free[0]] = row
            normalised.append((row.filename, free[0]))
        elif len(free) > 1:
            reason = f"ambiguous: its normalised name fits {len(free)} files: {', '.join(free)}"
            unmatched.append(Unmatched("csv_row", row.filename, reason))
        elif candidates:
            reason = f"its file {candidates[0]} is already matched by another row"
            unmatched.append(Unmatched("csv_row", row.filename, reason))
        else:
            unmatched.append(Unmatched("csv_row", row.filename, "no contract file has this name"))
    for name in files:
        if name not in by_file:
            reason = "no row of master_clauses.csv names this file"
            unmatched.append(Unmatched("file", name, reason))
    return RowMatches(by_file, exact_count, tuple(normalised), tuple(unmatched))


def generate_cuad_manifest(corpus_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """Build the ``cuad`` manifest mapping from a corpus folder; also return report lines."""
    contracts = corpus_dir / CONTRACTS_ROOT
    if not contracts.is_dir():
        raise CorpusError(f"{contracts}: CUAD contracts folder not found")
    report: list[str] = []
    file_names: list[str] = []
    for entry in sorted(contracts.iterdir()):
        if entry.is_file() and entry.suffix.lower() == ".txt":
            file_names.append(entry.name)
        else:
            report.append(f"ignored {entry.name}: not a .txt contract file")
    if not file_names:
        raise CorpusError(f"{contracts}: no .txt contract files in the folder")
    matches = match_rows(read_clause_rows(corpus_dir / CLAUSES_CSV), file_names)
    families = exhibit_families(file_names)
    documents = [_entry(contracts / n, matches.by_file.get(n), report, families.get(n))
                 for n in file_names]
    _reject_duplicate_ids(documents, contracts)
    documents.sort(key=lambda doc: str(doc["doc_id"]))
    manifest: dict[str, Any] = {
        "format": 1,
        "profile": "cuad",
        "description": (
            f"The {len(documents)} contract texts of CUAD v1 (The Atticus Project), with title, "
            "parties and agreement date from CUAD's master_clauses.csv; files filed in one "
            "exhibit share a transaction set; millions of tokens, far beyond any context window."
        ),
        "root": CONTRACTS_ROOT,
        "documents": documents,
        "unmatched": [{"kind": u.kind, "name": u.name, "reason": u.reason}
                      for u in matches.unmatched],
    }
    sets = len(set(families.values()))
    report.append(f"{len(families)} files in {sets} multi-file exhibits share a transaction set")
    return manifest, _match_report(len(file_names), matches) + report


def render_manifest(manifest: Mapping[str, Any]) -> str:
    """Serialise a manifest mapping as the YAML text that is committed."""
    body = yaml.safe_dump(
        dict(manifest), sort_keys=False, allow_unicode=True, width=4096, default_flow_style=False
    )
    return _HEADER + body


def write_cuad_manifest(corpus_dir: Path, out: Path) -> list[str]:
    """Generate the ``cuad`` manifest from ``corpus_dir``, write it atomically to ``out``."""
    manifest, report = generate_cuad_manifest(corpus_dir)
    write_text_atomic(out, render_manifest(manifest))
    return report


def _match_report(file_count: int, matches: RowMatches) -> list[str]:
    """Summarise how CSV rows met files, then list every loose match and every miss."""
    rows_missed = sum(u.kind == "csv_row" for u in matches.unmatched)
    files_missed = sum(u.kind == "file" for u in matches.unmatched)
    return [
        (f"{file_count} contract files; CSV rows matched: {matches.exact} exactly, "
         f"{len(matches.normalised)} by normalised name, {rows_missed} unmatched; "
         f"{files_missed} files without a row"),
        *(f"matched by normalised name: {row!r} -> {name!r}" for row, name in matches.normalised),
        *(f"unmatched {u.kind} {u.name!r}: {u.reason}" for u in matches.unmatched),
    ]


def _entry(path: Path, row: ClauseRow | None, report: list[str],
           transaction_set: str | None) -> dict[str, Any]:
    """Describe one contract file as a manifest document entry."""
    decoded = read_document(path, name=f"{CONTRACTS_ROOT}/{path.name}")
    report.extend(decoded.warnings)
    title = row.title if row is not None else ""
    if not title:
        title = _clean(PurePosixPath(path.name).stem)
        if row is not None:
            report.append(f"{path.name}: empty {_TITLE}; title taken from the file name")
    role = infer_role(title, decoded.text).role
    if role not in ROLES:
        raise CorpusError(f"{path}: role inference returned {role!r}, not one of {ROLES}")
    try:
        doc_id = doc_id_for(path.name)
    except ValueError as exc:
        raise CorpusError(f"{path}: {exc}") from None
    entry: dict[str, Any] = {"doc_id": doc_id, "path": path.name, "title": title}
    if transaction_set is not None:
        entry["transaction_set"] = transaction_set
    entry["role"] = role
    if row is not None and row.date is not None:
        entry["date"] = row.date
    entry["parties"] = list(row.parties) if row is not None else []
    entry["source"] = {"kind": "cuad", "file": path.name}
    entry["license"] = CUAD_LICENSE
    entry["sha256"] = decoded.sha256
    return entry


def _reject_duplicate_ids(documents: Sequence[Mapping[str, Any]], folder: Path) -> None:
    seen: dict[str, str] = {}
    for doc in documents:
        doc_id, path = str(doc["doc_id"]), str(doc["path"])
        if doc_id in seen:
            raise CorpusError(f"{folder}: {seen[doc_id]!r} and {path!r} both yield doc id {doc_id}")
        seen[doc_id] = path


def _as_txt(csv_name: str) -> str:
    stem = csv_name[:-4] if csv_name.lower().endswith((".pdf", ".txt")) else csv_name
    return stem + ".txt"


def _clean(text: str) -> str:
    return _SPACES.sub(" ", text).strip()
