"""The two EDGAR question sets, checked against the real documents of their profiles.

``edgar2023`` is a held-out test split: retrieval rules are never tuned on it. ``edgar2023-tune``
is the QA tuning split rules may be decided on, so the two share no filing. These checks are
about the files (every quote verbatim, every fact in its evidence, every control answerless,
the promised coverage), never about what a retrieval mode finds.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.manifest import profile_manifest
from pytest_legalbench.ingest.questions import KINDS, Question, load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.judging.keyfacts import contains_fact
from pytest_legalbench.judging.keyfacts import normalise as fact_form
from pytest_legalbench.llm.prompts import REFUSAL
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.results.evidence import normalise, oracle_nodes

HELD_OUT = "edgar2023"
TUNE = "edgar2023-tune"

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module", params=[HELD_OUT, TUNE])
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def question_set(profile: str) -> tuple[Question, ...]:
    return load_question_set(question_sets_dir() / profile)


@pytest.fixture(scope="module")
def sets(profile: str) -> dict[str, str]:
    """Transaction set of every document of the profile."""
    return {entry.doc_id: entry.transaction_set or "" for entry in
            profile_manifest(profile).documents}


@pytest.fixture(scope="module")
def texts(profile: str, corpus_root: Path,
          tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    documents = load_documents(Selection(profile), corpus_dir=corpus_root,
                               cache_dir=tmp_path_factory.mktemp("cache"))
    return {d.doc_id: d.text for d in documents}


def _accession(path: str) -> str:
    return path.partition("/")[0]


def test_no_filing_or_exhibit_is_shared_between_the_splits(corpus_root: Path) -> None:
    tune, held_out = profile_manifest(TUNE), profile_manifest(HELD_OUT)
    assert not ({_accession(e.path) for e in tune.documents}
                & {_accession(e.path) for e in held_out.documents})
    # The same exhibit is sometimes filed twice under two accessions: compare the bytes too.
    root = corpus_root / "edgar2023"

    def digests(entries: object) -> set[str]:
        return {hashlib.sha256((root / e.path).read_bytes()).hexdigest()
                for e in entries}  # type: ignore[attr-defined]

    assert not digests(tune.documents) & digests(held_out.documents)
    held_names = {Path(e.path).name for e in held_out.documents}
    assert not {Path(e.path).name for e in tune.documents} & held_names


def test_every_question_stays_inside_one_transaction_set(question_set: tuple[Question, ...],
                                                         sets: dict[str, str]) -> None:
    for question in question_set:
        assert set(question.documents) <= set(sets), question.path
        named = {sets[doc_id] for doc_id in question.documents}
        assert len(named) == 1, question.path
        # The id says which set the question is about.
        assert question.id.startswith(f"{named.pop()}-"), question.path


def test_every_quote_is_verbatim_in_its_document(question_set: tuple[Question, ...],
                                                  texts: dict[str, str]) -> None:
    # Whitespace-tolerant, as the evidence check of the scorer is: the HTML conversion puts
    # line breaks where the filing had blocks, and a quote is written on one line.
    normalised = {doc_id: normalise(text) for doc_id, text in texts.items()}
    for question in question_set:
        for evidence in question.evidence:
            assert evidence.doc_id in question.documents, question.path
            assert normalise(evidence.quote) in normalised[evidence.doc_id], \
                (question.path, evidence.quote[:80])


def test_every_required_fact_is_in_the_evidence(question_set: tuple[Question, ...]) -> None:
    # The same matcher the key-fact score applies to an answer.
    for question in question_set:
        joined = fact_form(" ".join(e.quote for e in question.evidence))
        for fact in question.must_contain:
            assert contains_fact(joined, fact_form(fact)), (question.path, fact)


def test_controls_decline_and_their_terms_are_absent(question_set: tuple[Question, ...],
                                                     texts: dict[str, str]) -> None:
    controls = [q for q in question_set if q.out_of_scope]
    assert controls
    for question in controls:
        assert question.reference == REFUSAL, question.path
        assert question.absent_terms, question.path
        for doc_id in question.documents:
            lowered = texts[doc_id].lower()
            for term in question.absent_terms:
                assert term.lower() not in lowered, (question.path, term, doc_id)


def test_precedence_questions_quote_more_than_one_provision(
        question_set: tuple[Question, ...]) -> None:
    for question in (q for q in question_set if q.kind == "precedence"):
        assert len(question.evidence) >= 2, question.path
        # The question must not hand the reader the answer's instrument.
        assert "amend" not in question.question.lower(), question.path


def test_the_set_has_the_promised_coverage(profile: str, question_set: tuple[Question, ...],
                                           sets: dict[str, str]) -> None:
    kinds = Counter(q.kind for q in question_set)
    per_set = Counter(sets[q.documents[0]] for q in question_set)
    assert set(kinds) == set(KINDS)
    assert set(per_set) == set(sets.values()) and min(per_set.values()) >= 4
    quoted = {e.doc_id for q in question_set for e in q.evidence}
    if profile == HELD_OUT:
        assert 40 <= len(question_set) <= 60
        assert 4 <= kinds["out_of_scope"] <= 6
        assert min(kinds[k] for k in KINDS if k != "out_of_scope") >= 6
        # Every document is quoted somewhere, and questions needing several provisions abound.
        assert quoted == set(sets)
        assert sum(len(q.evidence) >= 2 for q in question_set) >= len(question_set) // 2
    else:
        assert 30 <= len(question_set) <= 55
        assert 3 <= kinds["out_of_scope"] <= 6
        # Every set is quoted, and most of its documents are.
        assert {sets[d] for d in quoted} == set(sets.values())
        assert len(quoted) >= len(sets) - 2


def test_every_question_has_an_oracle_payload(profile: str, question_set: tuple[Question, ...],
                                              texts: dict[str, str],
                                              corpus_root: Path) -> None:
    documents = load_documents(Selection(profile), corpus_dir=corpus_root,
                               cache_dir=corpus_root / "__unused__")
    indexes = {i.doc_id: i for i in build_indexes(documents, cache_dir=None)}
    for question in (q for q in question_set if not q.out_of_scope):
        assert oracle_nodes(question.evidence, indexes, texts), question.path
