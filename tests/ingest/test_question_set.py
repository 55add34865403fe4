"""The question-file format, and the committed transactions question set checked against the
real documents."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.questions import (
    KINDS,
    Question,
    QuestionFileError,
    load_question,
    load_question_set,
)
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.results.evidence import normalise, oracle_nodes

VALID = {
    "id": "fee-amount", "question": "How much is the fee?", "reference": "$5,000 a quarter.",
    "kind": "lookup", "documents": ["lic"],
    "evidence": [{"doc_id": "lic", "quote": "a fee of $5,000 per quarter"}],
    "must_contain": ["$5,000"], "difficulty": "easy", "practice_area": "licensing",
}


def _write(folder: Path, data: object, name: str = "fee-amount.yaml") -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_a_valid_file_loads_into_a_question(tmp_path: Path) -> None:
    question = load_question(_write(tmp_path, VALID))
    assert question.id == "fee-amount" and question.kind == "lookup"
    assert question.evidence[0].quote == "a fee of $5,000 per quarter"
    assert question.reference == "$5,000 a quarter." and not question.out_of_scope


def test_a_question_without_reference_is_allowed(tmp_path: Path) -> None:
    data = {k: v for k, v in VALID.items() if k != "reference"}
    assert load_question(_write(tmp_path, data)).reference is None


@pytest.mark.parametrize(("change", "message"), [
    ({"kind": "trivia"}, "field 'kind' is 'trivia'; expected one of lookup"),
    ({"id": "Fee Amount"}, "field 'id' 'Fee Amount' must be lower-case"),
    ({"id": "other-id"}, "differs from the file name"),
    ({"documents": "lic"}, "field 'documents' must be a list"),
    ({"evidence": [{"doc_id": "elsewhere", "quote": "x"}]},
     "evidence[0].doc_id: 'elsewhere' is not one of the question's documents"),
    ({"evidence": [{"doc_id": "lic"}]}, "evidence[0]: expected exactly the keys"),
    ({"evidence": []}, "field 'evidence' must hold at least one quote"),
    ({"must_contain": []}, "field 'must_contain' must hold at least one fact"),
    ({"difficulty": "tricky"}, "field 'difficulty'"),
    ({"absent_terms": ["arbitration"]}, "only for out_of_scope"),
    ({"colour": "blue"}, "unknown field(s) colour"),
    ({"question": "  "}, "field 'question' must be non-empty text"),
])
def test_a_malformed_file_names_the_file_and_the_field(
        tmp_path: Path, change: dict[str, object], message: str) -> None:
    path = _write(tmp_path, {**VALID, **change})
    with pytest.raises(QuestionFileError) as raised:
        load_question(path)
    assert str(path) in str(raised.value) and message in str(raised.value)


def test_missing_fields_and_bad_yaml_are_named(tmp_path: Path) -> None:
    with pytest.raises(QuestionFileError, match="missing field.*must_contain"):
        load_question(_write(tmp_path, {k: v for k, v in VALID.items() if k != "must_contain"}))
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(QuestionFileError, match="broken.yaml: not valid YAML"):
        load_question(broken)


def test_a_control_has_absent_terms_and_no_evidence(tmp_path: Path) -> None:
    control = {**VALID, "kind": "out_of_scope", "evidence": [], "must_contain": [],
               "absent_terms": ["arbitration"]}
    assert load_question(_write(tmp_path, control)).out_of_scope
    with pytest.raises(QuestionFileError, match="must list the terms"):
        load_question(_write(tmp_path, {**control, "absent_terms": []}))
    with pytest.raises(QuestionFileError, match="has no 'evidence'"):
        load_question(_write(tmp_path, {**control, "evidence": VALID["evidence"]}))


def test_a_control_may_name_the_absent_clause_and_the_facts_of_its_answer(
        tmp_path: Path) -> None:
    # A yes/no question about a clause annotators found in no document: "No" answers it.
    control = {**VALID, "kind": "out_of_scope", "evidence": [], "must_contain": ["No"],
               "absent_clause": "Non-Compete"}
    question = load_question(_write(tmp_path, control))
    assert question.out_of_scope and question.must_contain == ("No",)
    assert question.absent_clause == "Non-Compete" and question.absent_terms == ()
    with pytest.raises(QuestionFileError, match="'absent_clause' is only for out_of_scope"):
        load_question(_write(tmp_path, {**VALID, "absent_clause": "Non-Compete"}))
    with pytest.raises(QuestionFileError, match="field 'absent_clause' must be non-empty"):
        load_question(_write(tmp_path, {**control, "absent_clause": " "}))


def test_a_set_rejects_duplicate_ids_and_empty_folders(tmp_path: Path) -> None:
    with pytest.raises(QuestionFileError, match="no question files"):
        load_question_set(tmp_path)
    _write(tmp_path, VALID)
    (tmp_path / "fee-amount.yml").write_text(yaml.safe_dump(VALID), encoding="utf-8")
    with pytest.raises(QuestionFileError, match="is also used by"):
        load_question_set(tmp_path)


# --- the committed set, against the real documents -------------------------------------


@pytest.fixture(scope="module")
def question_set() -> tuple[Question, ...]:
    return load_question_set(question_sets_dir() / "transactions")


@pytest.fixture(scope="module")
def texts(corpus_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    documents = load_documents(Selection("transactions"), corpus_dir=corpus_root,
                               cache_dir=tmp_path_factory.mktemp("cache"))
    return {d.doc_id: d.text for d in documents}


def _set_of(question: Question) -> str:
    return question.documents[0].split("-")[0]


def test_every_quote_is_verbatim_in_its_document(question_set: tuple[Question, ...],
                                                  texts: dict[str, str]) -> None:
    for question in question_set:
        assert set(question.documents) <= set(texts), question.path
        for evidence in question.evidence:
            assert evidence.quote in texts[evidence.doc_id], (question.path, evidence.quote)


def test_every_required_fact_is_in_the_evidence(question_set: tuple[Question, ...]) -> None:
    for question in question_set:
        joined = normalise(" ".join(e.quote for e in question.evidence))
        for fact in question.must_contain:
            assert normalise(fact) in joined, (question.path, fact)


def test_controls_are_absent_from_every_document(question_set: tuple[Question, ...],
                                                 texts: dict[str, str]) -> None:
    lowered = [text.lower() for text in texts.values()]
    for question in (q for q in question_set if q.out_of_scope):
        for term in question.absent_terms:
            assert not any(term.lower() in text for text in lowered), (question.path, term)


def test_the_set_has_the_promised_coverage(question_set: tuple[Question, ...]) -> None:
    kinds = Counter(q.kind for q in question_set)
    sets = Counter(_set_of(q) for q in question_set)
    assert len(question_set) >= 24
    assert set(kinds) == set(KINDS)
    assert kinds["definition"] >= 6 and kinds["crossref"] >= 4 and kinds["precedence"] >= 4
    assert kinds["out_of_scope"] >= 2
    assert set(sets) == {"stonepoint", "guerrilla", "netgear", "glufox"}
    assert min(sets.values()) >= 4
    # Single-fact and compound questions both appear.
    assert {len(q.must_contain) == 1 for q in question_set if not q.out_of_scope} == {True, False}


def test_precedence_questions_cite_a_later_instrument(question_set: tuple[Question, ...]) -> None:
    for question in (q for q in question_set if q.kind == "precedence"):
        cited = {e.doc_id for e in question.evidence}
        # The amended position is the answer, so an amendment must be among the evidence.
        assert any("amendment" in doc_id for doc_id in cited), question.path
        assert "amend" not in question.question.lower(), question.path


def test_every_question_has_an_oracle_payload(question_set: tuple[Question, ...],
                                              texts: dict[str, str], corpus_root: Path) -> None:
    documents = load_documents(Selection("transactions"), corpus_dir=corpus_root,
                               cache_dir=corpus_root / "__unused__")
    indexes = {i.doc_id: i for i in build_indexes(documents, cache_dir=None)}
    for question in (q for q in question_set if not q.out_of_scope):
        assert oracle_nodes(question.evidence, indexes, texts), question.path
