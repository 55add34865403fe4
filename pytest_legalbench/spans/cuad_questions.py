"""The ``cuad`` question profile, generated from CUAD's lawyer annotations.

For every contract family (the documents of one transaction set in the ``cuad`` manifest: an
agreement filed with its amendments, or a contract alone) and every one of the 41 categories
of ``cuad_categories``, one question in our words:

- **the category is present** (an excerpt was annotated, and for a Yes/No category the answer
  is Yes): the question's evidence is every annotated excerpt, located verbatim in the
  ingested text (``excerpt_location``) and quoted from it; its key facts come from CUAD's
  answer column (``cuad_facts``: "Yes", or the date, term, jurisdiction, title or parties the
  column gives, each kept only where the excerpts state it); its reference gives the answer
  and the excerpts;
- **the category is absent** (no excerpt; a Yes/No answer of No): the question is a control,
  kind ``out_of_scope``, whose right answer is that the contract has no such clause. The
  reference says so, ``absent_clause`` names the category, and the key facts check it: a
  yes/no question is answered by "No" (or the refusal sentence), any other by the refusal
  sentence alone.

A question that cannot be asked fairly is not generated and is reported with its reason: its
contract cannot be named apart from another, its excerpts could not be located, its answer
column yields no fact the excerpts state, or the documents of its family disagree. Every
excerpt is counted as located or reported as unlocated.

The output is deterministic: the same CSV, manifest and contract files give byte-identical
question files, and the SHA-256 digest of all of them (``set_digest``) names the set.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.files.locations import manifests_dir
from pytest_legalbench.files.record_json import derived, from_builtins, to_builtins
from pytest_legalbench.ingest.cuad_manifest import CONTRACTS_ROOT
from pytest_legalbench.ingest.decoding import read_document
from pytest_legalbench.ingest.document import CorpusError, ManifestEntry
from pytest_legalbench.ingest.manifest import load_manifest
from pytest_legalbench.ingest.questions import OUT_OF_SCOPE
from pytest_legalbench.spans.contract_names import (
    contract_name,
    distinct_names,
    listed,
    long_date,
    titled,
    usable_parties,
)
from pytest_legalbench.spans.cuad_categories import CATEGORIES, CuadCategory
from pytest_legalbench.spans.cuad_facts import (
    NO,
    YES,
    AnswerFacts,
    date_facts,
    duration_facts,
    expiry_facts,
    jurisdiction_facts,
    party_facts,
    title_facts,
)
from pytest_legalbench.spans.cuad_import import (
    UnlocatedExcerpt,
    fold_category,
    is_excerpt_column,
    parse_excerpts,
    read_clause_table,
)
from pytest_legalbench.spans.excerpt_location import locate_category
from pytest_legalbench.stats.stratified_sample import SampleUnit

#: The name of the profile the questions belong to.
PROFILE = "cuad"
#: Written beside the question files: what each question is (for sampling) and the report.
CATALOGUE_FILE = "catalogue.json"
REPORT_FILE = "generation_report.json"
#: A family's name longer than this is cut (and made unique by a digest) in question ids.
_LONGEST_FAMILY_ID = 60
#: The reference quotes at most this many excerpts, each cut to this many characters.
_QUOTED_EXCERPTS = 3
_QUOTE_CHARACTERS = 300
_ROLES_OF_BASES = ("base", "conformed")
_NOT_ID = re.compile(r"[^a-z0-9]+")
_PAIR = "\x00"


@dataclass(frozen=True)
class Family:
    """The documents of one transaction set: an agreement with what was filed with it."""

    name: str
    doc_ids: tuple[str, ...]
    base: ManifestEntry


@dataclass(frozen=True)
class CatalogueEntry:
    """What a generated question is, for sampling and reports."""

    id: str
    category: str
    family: str
    control: bool

    def sample_unit(self) -> SampleUnit:
        """The question as the stratified sampler sees it: stratum = category and whether the
        question is a control, so both proportions hold in a sample."""
        role = "control" if self.control else "answer"
        return SampleUnit(self.id, f"{self.category} / {role}", self.family)


#: Why a question is not generated: the kinds the report counts.
SKIP_KINDS = {
    "unannotated": "no row of master_clauses.csv annotates the family",
    "ambiguous_name": "the contract cannot be named apart from another",
    "few_parties": "fewer than two parties are named",
    "not_located": "its excerpts could not be located",
    "not_yes_no": "a Yes/No answer column holds something else",
    "answer_without_excerpt": "an answer but no excerpt",
    "excerpt_without_answer": "an excerpt but no (or a No) answer",
    "no_stated_fact": "the answer yields no fact the excerpts state",
    "family_disagrees": "the family's documents give different answers",
    "only_named_party": "only the party the question names was annotated",
}


@dataclass(frozen=True)
class SkippedQuestion:
    """A (family, category) question that was not generated, and why."""

    family: str
    category: str
    kind: str
    """A key of ``SKIP_KINDS``."""
    reason: str


@dataclass(frozen=True)
class _Skip:
    kind: str
    reason: str


@dataclass(frozen=True)
class CategoryCounts:
    """Per category: questions made, controls among them, questions skipped, excerpts."""

    questions: int = 0
    controls: int = 0
    skipped: int = 0
    excerpts: int = 0
    located: int = 0


@derived(unlocated_count="unlocated_count", skipped_count="skipped_count",
         skipped_by_kind="skipped_by_kind")
@dataclass(frozen=True)
class CuadQuestionReport:
    """What the generation read, made, skipped and could not locate (written, as
    ``generation_report.json``, with its counts of unlocated excerpts and skipped questions,
    and the skips per kind)."""

    contracts: int
    families: int
    questions: int
    controls: int
    excerpts: int
    located: int
    unlocated: tuple[UnlocatedExcerpt, ...]
    skipped: tuple[SkippedQuestion, ...]
    per_category: Mapping[str, CategoryCounts]
    notes: tuple[str, ...]
    digest: str = ""

    def summary_lines(self) -> list[str]:
        """The counts as short lines for a terminal."""
        share = self.located / self.excerpts if self.excerpts else 1.0
        reasons = self.skipped_by_kind
        lines = [
            (f"{self.questions} questions ({self.questions - self.controls} with evidence, "
             f"{self.controls} controls) over {self.families} families of {self.contracts} "
             f"contracts and {len(self.per_category)} categories"),
            (f"{self.excerpts} excerpts: {self.located} located ({share:.2%}), "
             f"{len(self.unlocated)} unlocated"),
            f"{len(self.skipped)} questions not generated"
            + (": " + "; ".join(f"{n} {SKIP_KINDS[kind]}" for kind, n in reasons.items())
               if reasons else ""),
        ]
        if self.digest:
            lines.append(f"set digest {self.digest}")
        return [*lines, *self.notes]

    @property
    def skipped_by_kind(self) -> dict[str, int]:
        """How many questions were not generated, per kind of reason, most first."""
        counts: dict[str, int] = {}
        for skipped in self.skipped:
            counts[skipped.kind] = counts.get(skipped.kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    @property
    def unlocated_count(self) -> int:
        """How many annotated excerpts could not be located."""
        return len(self.unlocated)

    @property
    def skipped_count(self) -> int:
        """How many questions were not generated."""
        return len(self.skipped)


@dataclass(frozen=True)
class GeneratedQuestionSet:
    """The question files (name -> YAML text), their catalogue and the report."""

    files: Mapping[str, str]
    catalogue: tuple[CatalogueEntry, ...]
    report: CuadQuestionReport

    @property
    def digest(self) -> str:
        """The SHA-256 digest of the whole set (``set_digest`` of its files)."""
        return self.report.digest


def set_digest(files: Mapping[str, str]) -> str:
    """SHA-256 over every file's name and text, in name order: the set's identity."""
    digest = hashlib.sha256()
    for name in sorted(files):
        for part in (name, files[name]):
            encoded = part.encode("utf-8")
            digest.update(len(encoded).to_bytes(8, "big"))
            digest.update(encoded)
    return digest.hexdigest()


def question_id(family: str, category: CuadCategory) -> str:
    """The id of a family's question on a category: ``<family>-<category slug>``."""
    slug = _NOT_ID.sub("-", family.lower()).strip("-")
    if len(slug) > _LONGEST_FAMILY_ID:
        cut = slug[:_LONGEST_FAMILY_ID].rsplit("-", 1)[0]
        slug = f"{cut}-{hashlib.sha256(family.encode()).hexdigest()[:6]}"
    return f"{slug}-{category.slug}"


def families_of(entries: Sequence[ManifestEntry]) -> tuple[Family, ...]:
    """The families of a manifest: documents sharing a transaction set, or each alone."""
    members: dict[str, list[ManifestEntry]] = {}
    for entry in entries:
        members.setdefault(entry.transaction_set or entry.doc_id, []).append(entry)
    found = []
    for name in sorted(members):
        group = sorted(members[name], key=lambda entry: entry.doc_id)
        base = next((e for e in group if e.role in _ROLES_OF_BASES), group[0])
        found.append(Family(name, tuple(e.doc_id for e in group), base))
    return tuple(found)


@dataclass
class _Annotations:
    """One document's annotation of one category: its answer, the located excerpts quoted from
    its text, and how many excerpts were annotated."""

    doc_id: str
    file: str
    answer: str
    quotes: list[str] = field(default_factory=list)
    excerpts: int = 0


def generate_cuad_questions(corpus_dir: Path, *, manifest_path: Path | None = None,
                            progress: Callable[[str], None] | None = None,
                            ) -> GeneratedQuestionSet:
    """Generate the cuad question set from a corpus folder (and the ``cuad`` manifest)."""
    manifest = load_manifest(manifest_path or manifests_dir() / f"{PROFILE}.yaml")
    table = read_clause_table(corpus_dir)
    excerpt_columns = {fold_category(c): c for c in table.header if is_excerpt_column(c)}
    answer_columns = _answer_columns(table.header)
    missing = [c.column for c in CATEGORIES if fold_category(c.column) not in excerpt_columns]
    if missing:
        raise CorpusError(f"{table.path}: no column for the categories {', '.join(missing)}")
    notes = [f"unmatched {u.kind} {u.name!r}: {u.reason}" for u in table.unmatched]
    entries = {entry.doc_id: entry for entry in manifest.documents}
    texts: dict[str, str] = {}
    rows: dict[str, tuple[int, dict[str, str]]] = {}
    contracts = corpus_dir / manifest.root
    for entry in manifest.documents:
        path = contracts / entry.path
        decoded = read_document(path, name=f"{CONTRACTS_ROOT}/{entry.path}")
        if entry.sha256 is not None and decoded.sha256 != entry.sha256:
            raise CorpusError(f"{path}: checksum mismatch: the cuad manifest expects sha256 "
                              f"{entry.sha256}, the file has {decoded.sha256}")
        texts[entry.doc_id] = decoded.text
        if entry.path in table.rows_by_file:
            rows[entry.doc_id] = table.rows_by_file[entry.path]
        else:
            notes.append(f"{entry.path}: no row of master_clauses.csv; it adds no annotation")
    families = families_of(manifest.documents)
    names = _names(families)
    files: dict[str, str] = {}
    catalogue: list[CatalogueEntry] = []
    skipped: list[SkippedQuestion] = []
    unlocated: list[UnlocatedExcerpt] = []
    counts: dict[str, Counter[str]] = {category.column: Counter() for category in CATEGORIES}
    for done, family in enumerate(families, start=1):
        for category in CATEGORIES:
            tally = counts[category.column]
            column = excerpt_columns[fold_category(category.column)]
            scope = family.doc_ids if category.scope == "family" else (family.base.doc_id,)
            annotations = []
            for doc_id in scope:
                if doc_id not in rows:
                    continue
                number, cells = rows[doc_id]
                where = f"{table.path} row {number} ({entries[doc_id].path}), column {column!r}"
                found = parse_excerpts(cells.get(column, ""), where)
                spans, missed = locate_category(found, texts[doc_id])
                answer_column = answer_columns.get(fold_category(category.column))
                answer = cells.get(answer_column, "").strip() if answer_column else ""
                text = texts[doc_id]
                annotations.append(_Annotations(
                    doc_id, entries[doc_id].path, answer,
                    list(dict.fromkeys(text[start:end] for start, end in spans)), len(found)))
                tally["excerpts"] += len(found)
                tally["located"] += len(found) - len(missed)
                unlocated += [UnlocatedExcerpt(entries[doc_id].path, category.column, e[:80], why)
                              for e, why in missed]
            made = _question(family, category, annotations, names, entries)
            if isinstance(made, _Skip):
                tally["skipped"] += 1
                skipped.append(SkippedQuestion(family.name, category.column, made.kind,
                                               made.reason))
                continue
            identifier = question_id(family.name, category)
            data = {"id": identifier, **made}
            file_name = f"{identifier}.yaml"
            if file_name in files:
                raise CorpusError(f"two questions would share the id {identifier!r}")
            files[file_name] = render_question(data)
            control = data["kind"] == OUT_OF_SCOPE
            catalogue.append(CatalogueEntry(identifier, category.column, family.name, control))
            tally["questions"] += 1
            tally["controls"] += control
        if progress is not None and (done % 50 == 0 or done == len(families)):
            progress(f"{done}/{len(families)} families, {len(files)} questions")
    per_category = {column: CategoryCounts(**tally) for column, tally in counts.items()}
    excerpts = sum(c.excerpts for c in per_category.values())
    report = CuadQuestionReport(
        contracts=len(manifest.documents), families=len(families), questions=len(files),
        controls=sum(c.controls for c in per_category.values()), excerpts=excerpts,
        located=excerpts - len(unlocated), unlocated=tuple(unlocated), skipped=tuple(skipped),
        per_category=per_category, notes=tuple(notes), digest=set_digest(files))
    return GeneratedQuestionSet(files, tuple(sorted(catalogue, key=lambda e: e.id)), report)


def _answer_columns(header: Sequence[str]) -> dict[str, str]:
    """Each category's folded name -> its answer column ("<Category>-Answer", or "- Answer")."""
    found = {}
    for column in header:
        stripped = column.rstrip()
        if stripped.endswith("Answer"):
            category = stripped[: -len("Answer")].rstrip().removesuffix("-").rstrip()
            found[fold_category(category)] = column
    return found


def _names(families: Sequence[Family]) -> dict[str, Mapping[str, str | None]]:
    """The names each kind of template calls a family by, told apart where they coincide."""
    by_name = {family.name: family for family in families}
    keys = [family.name for family in families]

    def parties_of(key: str) -> tuple[str, ...]:
        return usable_parties(by_name[key].base.parties)

    def dated(key: str) -> str | None:
        return long_date(by_name[key].base.date)

    def contract(key: str, with_date: bool) -> str | None:
        when = dated(key)
        if with_date and when is None:
            return None
        return contract_name(by_name[key].base.title, by_name[key].base.parties,
                             when if with_date else None)

    def between(key: str, with_date: bool) -> str | None:
        names, when = parties_of(key), dated(key)
        if len(names) < 2 or (with_date and when is None):
            return None
        return listed(names) + (f" (their agreement dated {when})" if with_date else "")

    def title_and_party(key: str, with_date: bool) -> str | None:
        names, when = parties_of(key), dated(key)
        if len(names) < 2 or (with_date and when is None):
            return None
        # One string, so that the pair is told apart as a whole; split again by the template.
        return f"{names[0]}{_PAIR}{titled(by_name[key].base.title, when if with_date else None)}"

    return {
        "contract": distinct_names(keys, lambda k: contract(k, False),
                                   lambda k: contract(k, True)),
        "parties": distinct_names(keys, lambda k: between(k, False),
                                  lambda k: between(k, True)),
        "title": distinct_names(keys, lambda k: title_and_party(k, False),
                                lambda k: title_and_party(k, True)),
    }


def _question(family: Family, category: CuadCategory, annotations: Sequence[_Annotations],
              names: Mapping[str, Mapping[str, str | None]],
              entries: Mapping[str, ManifestEntry]) -> dict[str, Any] | _Skip:
    """The question's fields (all but its id), or why it is not generated."""
    if not annotations:
        return _Skip("unannotated", SKIP_KINDS["unannotated"])
    text = _template_text(family, category, names)
    if isinstance(text, _Skip):
        return text
    question, contract = text
    located = [a for a in annotations if a.quotes]
    annotated = [a for a in annotations if a.excerpts]
    if annotated and not located:
        return _Skip("not_located", "its excerpts could not be located in the text")
    answers = {a.answer for a in annotations}
    if category.answer == "yes_no":
        said = {answer.casefold() for answer in answers}
        if not said <= {"yes", "no"}:
            return _Skip("not_yes_no", f"answer column holds {sorted(answers)!r}")
        if "yes" in said and not located:
            return _Skip("answer_without_excerpt", "answer Yes but no excerpt was annotated")
        if located and "yes" not in said:
            return _Skip("excerpt_without_answer", "excerpts annotated but the answer is No")
    elif not located and any(answers):
        return _Skip("answer_without_excerpt",
                     f"answer {sorted(a for a in answers if a)!r} but no excerpt was annotated")
    notes = _notes(category, annotations)
    documents = list(family.doc_ids)
    if not located:
        return _control(category, question, contract, documents, notes)
    if category.answer == "parties":
        # The question names the first party; its mentions are no evidence of the answer.
        located = _without_party(located, usable_parties(family.base.parties)[0])
        if not located:
            return _Skip("only_named_party", SKIP_KINDS["only_named_party"])
    evidence = [{"doc_id": a.doc_id, "quote": quote} for a in located for quote in a.quotes]
    facts = _facts(category, located, family)
    if isinstance(facts, _Skip):
        return facts
    if facts.problem:
        return _Skip("no_stated_fact", facts.problem)
    quotes = [quote for a in located for quote in a.quotes][:_QUOTED_EXCERPTS]
    cut = [q if len(q) <= _QUOTE_CHARACTERS else q[:_QUOTE_CHARACTERS].rstrip() + " …"
           for q in quotes]
    reading = " … ".join(f"“{_one_line(q)}”" for q in cut)
    if category.answer == "yes_no":
        reference = f"Yes: {contract} contains {category.subject}. The annotated text: {reading}"
    else:
        reference = f"{_capital(facts.rendered)}. The annotated text: {reading}"
    return {
        "question": question, "reference": reference, "kind": category.kind,
        "documents": documents, "evidence": evidence, "must_contain": list(facts.facts),
        "difficulty": category.difficulty, "practice_area": category.practice_area,
        "notes": notes,
    }


def _without_party(located: Sequence[_Annotations], party: str) -> list[_Annotations]:
    """The annotations with every quote that is (part of) ``party``'s name left out."""
    named = " ".join(party.casefold().split())
    kept = []
    for annotation in located:
        quotes = [q for q in annotation.quotes if " ".join(q.casefold().split()) not in named]
        if quotes:
            kept.append(_Annotations(annotation.doc_id, annotation.file, annotation.answer,
                                     quotes, annotation.excerpts))
    return kept


def _template_text(family: Family, category: CuadCategory,
                   names: Mapping[str, Mapping[str, str | None]]) -> tuple[str, str] | _Skip:
    """The question's text and the contract's name in it, or why it cannot be named."""
    ambiguous = _Skip("ambiguous_name",
                      "the contract cannot be named apart from another contract in the corpus")
    contract = names["contract"][family.name]
    if contract is None:
        return ambiguous
    if category.answer in ("title", "parties"):
        if len(usable_parties(family.base.parties)) < 2:
            return _Skip("few_parties", "CUAD's parties column names fewer than two parties")
        if category.answer == "title":
            parties = names["parties"][family.name]
            return ambiguous if parties is None else (
                category.template.format(parties=parties), contract)
        both = names["title"][family.name]
        if both is None:
            return ambiguous
        party, title = both.split(_PAIR, 1)
        return category.template.format(party=party, title=title), contract
    return category.template.format(contract=contract), contract


def _facts(category: CuadCategory, located: Sequence[_Annotations],
           family: Family) -> AnswerFacts | _Skip:
    """The key facts of a present category, from its answer column and its evidence."""
    evidence = "\n".join(quote for a in located for quote in a.quotes)
    if category.answer == "yes_no":
        return AnswerFacts((YES,), "Yes")
    if category.answer == "title":
        return title_facts(family.base.title, evidence)
    if category.answer == "parties":
        others = usable_parties(family.base.parties)[1:]
        return party_facts(others, evidence)
    read = {"date": date_facts, "expiry": expiry_facts, "duration": duration_facts,
            "jurisdiction": jurisdiction_facts}[category.answer]
    results = {a.answer: read(a.answer, evidence) for a in located if a.answer}
    if not results:
        return _Skip("excerpt_without_answer",
                     "excerpts annotated but the answer column is empty")
    if len({r.facts for r in results.values() if not r.problem}) > 1:
        return _Skip("family_disagrees", f"the family's documents give different answers: "
                                         f"{sorted(results)!r}")
    usable = [r for r in results.values() if not r.problem]
    return usable[0] if usable else next(iter(results.values()))


def _control(category: CuadCategory, question: str, contract: str, documents: list[str],
             notes: str) -> dict[str, Any]:
    """A question about a clause the contract does not have."""
    extra = " or in the documents filed with it" if len(documents) > 1 else ""
    if category.answer == "yes_no":
        reference = (f"No: {contract} does not contain {category.subject}. There is no "
                     f"provision in it of that kind, and CUAD's annotators found no "
                     f"'{category.column}' clause in it{extra}.")
        must_contain = [NO]
    else:
        reference = (f"{_capital(contract)} does not address {category.subject}: there is no "
                     f"provision in it on the point, and CUAD's annotators found no "
                     f"'{category.column}' clause in it{extra}.")
        must_contain = []
    return {
        "question": question, "reference": reference, "kind": OUT_OF_SCOPE,
        "documents": documents, "evidence": [], "must_contain": must_contain,
        "difficulty": category.difficulty, "practice_area": category.practice_area,
        "absent_clause": category.column, "notes": notes,
    }


def _notes(category: CuadCategory, annotations: Sequence[_Annotations]) -> str:
    said = "; ".join(f"{a.file}: answer {a.answer or '(empty)'!r}, {a.excerpts} excerpt(s)"
                     for a in annotations)
    return (f"Generated by legalbench cuad-questions from CUAD v1 (The Atticus Project, "
            f"CC BY 4.0), category {category.column!r}. {said}. Evidence quotes are the "
            f"annotated excerpts as located in the ingested text.")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def render_question(data: Mapping[str, Any]) -> str:
    """A question's fields as the YAML text of its file."""
    return yaml.safe_dump(dict(data), sort_keys=False, allow_unicode=True, width=100,
                          default_flow_style=False)


def write_question_set(generated: GeneratedQuestionSet, folder: Path) -> None:
    """Write the question files, the catalogue and the report into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in generated.files.items():
        (folder / name).write_text(text, encoding="utf-8")
    write_text_atomic(folder / CATALOGUE_FILE, catalogue_json(generated.catalogue))
    write_text_atomic(folder / REPORT_FILE, json.dumps(to_builtins(generated.report), indent=2,
                                                       ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class Catalogue:
    """``catalogue.json``: what each question of a generated set is, in id order."""

    profile: str
    questions: tuple[CatalogueEntry, ...]
    format: int = 1


def catalogue_json(catalogue: Sequence[CatalogueEntry]) -> str:
    """The catalogue as JSON: one object per question, in id order."""
    written = to_builtins(Catalogue(PROFILE, tuple(catalogue)))
    return json.dumps({"format": written.pop("format"), **written}, indent=1,
                      ensure_ascii=False) + "\n"


def read_catalogue(folder: Path) -> tuple[CatalogueEntry, ...]:
    """The catalogue written beside a generated question set."""
    path = folder / CATALOGUE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(f"{path}: no catalogue; regenerate the cuad question set") from None
    except ValueError as error:
        raise CorpusError(f"{path}: not a question catalogue ({error})") from None
    found = from_builtins(Catalogue, data, what=f"{path}: not a question catalogue",
                         error=CorpusError)
    return found.questions
