"""Evidence recall and the oracle payload, on hand-made documents and provisions."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.questions import Evidence, Question
from pytest_legalbench.modes.base import Provision
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.results.evaluation import (
    QuestionScore,
    Scorer,
    summarise,
    summarise_by_kind,
    wrong_document_share,
)
from pytest_legalbench.results.evidence import (
    EvidenceNotFound,
    Span,
    covered_runs,
    evidence_recall,
    normalise,
    oracle_nodes,
    oracle_tokens,
)
from pytest_legalbench.tokens import estimate_tokens

TEXT = """LICENCE AGREEMENT

1. GRANT

1.1 The Licensor grants the Licensee a licence to use the Software.

1.2 The licence is limited to the Territory.

2. FEES

2.1 The Licensee shall pay a fee of $5,000 per quarter.

2.2 Late fees accrue interest at 2% per month.
"""
DOC = Document("lic", "Licence Agreement", TEXT)
TEXTS = {"lic": TEXT}


def _span(fragment: str) -> Span:
    start = TEXT.index(fragment)
    return Span("lic", start, start + len(fragment))


def test_a_quote_split_across_two_adjacent_retrieved_nodes_is_found() -> None:
    quote = Evidence("lic", "to use the Software.\n\n1.2 The licence is limited")
    first = _span("1.1 The Licensor grants the Licensee a licence to use the Software.")
    second = _span("1.2 The licence is limited to the Territory.")
    assert evidence_recall([quote], [first, second], TEXTS) == 1.0
    # Either node alone does not hold it.
    assert evidence_recall([quote], [first], TEXTS) == 0.0
    assert evidence_recall([quote], [second], TEXTS) == 0.0


def test_a_quote_in_an_unretrieved_node_is_not_found() -> None:
    quotes = [Evidence("lic", "a fee of $5,000 per quarter"),
              Evidence("lic", "interest at 2% per month")]
    retrieved = [_span("2.1 The Licensee shall pay a fee of $5,000 per quarter.")]
    assert evidence_recall(quotes, retrieved, TEXTS) == 0.5


def test_case_and_whitespace_are_ignored_but_documents_are_not() -> None:
    quote = Evidence("lic", "THE LICENSEE   SHALL pay\na fee")
    retrieved = [_span("2.1 The Licensee shall pay a fee of $5,000 per quarter.")]
    assert evidence_recall([quote], retrieved, TEXTS) == 1.0
    other = {"lic": TEXT, "other": TEXT}
    moved = [Span("other", s.start, s.end) for s in retrieved]
    assert evidence_recall([quote], moved, other) == 0.0


def test_runs_merge_only_across_whitespace_gaps() -> None:
    a = _span("1.1 The Licensor")
    b = _span("grants the Licensee")
    runs = covered_runs([a, b], TEXTS)
    assert runs == {"lic": ["1.1 the licensor grants the licensee"]}
    gap = _span("a licence to use")
    assert len(covered_runs([a, gap], TEXTS)["lic"]) == 2


def test_no_evidence_means_no_recall() -> None:
    assert evidence_recall([], [_span("1. GRANT")], TEXTS) is None


@given(st.text(alphabet="ab \n\t", max_size=40))
def test_normalise_is_idempotent_and_has_no_runs_of_space(text: str) -> None:
    once = normalise(text)
    assert normalise(once) == once and "  " not in once and once == once.strip()


def _index():  # type: ignore[no-untyped-def]
    return build_corpus((DOC,))[0]


def test_the_oracle_is_the_smallest_node_holding_each_quote() -> None:
    index = _index()
    quote = Evidence("lic", "a fee of $5,000 per quarter")
    nodes = oracle_nodes([quote], {"lic": index}, TEXTS)
    assert [n.clause_reference for n in nodes] == ["2.1"]
    assert oracle_tokens(nodes) == estimate_tokens(nodes[0].text)


def test_a_quote_across_two_clauses_costs_the_two_leaves_not_their_section() -> None:
    index = _index()
    quote = Evidence("lic", "to use the Software.\n\n1.2 The licence")
    nodes = oracle_nodes([quote], {"lic": index}, TEXTS)
    assert [n.clause_reference for n in nodes] == ["1.1", "1.2"]


def test_nested_oracle_nodes_are_counted_once() -> None:
    index = _index()
    quotes = [Evidence("lic", "1. GRANT\n\n1.1 The Licensor"), Evidence("lic", "use the Software")]
    nodes = oracle_nodes(quotes, {"lic": index}, TEXTS)
    assert len({n.node_id for n in nodes}) == len(nodes)
    for node in nodes:
        assert not any(o is not node and o.start <= node.start and node.end <= o.end
                       for o in nodes)


def test_a_quote_missing_from_its_document_is_an_error() -> None:
    with pytest.raises(EvidenceNotFound, match="not found in 'lic'"):
        oracle_nodes([Evidence("lic", "royalty of ten percent")], {"lic": _index()}, TEXTS)


def _question(kind: str = "lookup", evidence: tuple[Evidence, ...] = ()) -> Question:
    return Question(id="q", question="What is the fee?", reference="$5,000", kind=kind,
                    documents=("lic",), evidence=evidence, must_contain=("5,000",),
                    difficulty="easy", practice_area="licensing")


def test_the_scorer_scores_provisions_against_the_question() -> None:
    index = _index()
    scorer = Scorer(TEXTS, [index])
    fee = next(n for n in index.nodes if n.clause_reference == "2.1")
    question = _question(evidence=(Evidence("lic", "a fee of $5,000 per quarter"),))
    provision = Provision.from_node(fee)
    score = scorer.score(question, "navembed:embed", [provision], 40)
    assert score.recall == 1.0 and score.node_ids == (fee.node_id,)
    assert score.oracle_tokens == estimate_tokens(fee.text)
    assert score.oracle_ratio == pytest.approx(40 / estimate_tokens(fee.text))


def _score(kind: str, recall: float | None, payload: int, oracle: int | None) -> QuestionScore:
    return QuestionScore("q", kind, "m", recall, payload, oracle, 0, ())


def test_summaries_average_recall_payload_and_ratios() -> None:
    scores = [_score("lookup", 1.0, 100, 50), _score("lookup", 0.5, 300, 100),
              _score("definition", 0.0, 200, 200)]
    summary = summarise(scores, inject_tokens=10_000)
    assert summary.questions == 3
    assert summary.recall == pytest.approx(0.5)
    assert summary.complete == 1
    assert summary.payload_tokens == 200.0
    assert summary.footprint_ratio == 50.0
    assert summary.oracle_ratio == pytest.approx((2.0 + 3.0 + 1.0) / 3)
    kinds = summarise_by_kind([*scores, _score("out_of_scope", None, 400, None)], 10_000)
    assert list(kinds) == ["definition", "lookup", "out_of_scope"]
    assert kinds["lookup"].recall == 0.75
    assert kinds["out_of_scope"].recall is None and kinds["out_of_scope"].oracle_ratio is None
    assert to_builtins(summarise([], None))["recall"] is None


def _provision(doc_id: str, length: int) -> Provision:
    return Provision(doc_id=doc_id, node_id=f"{doc_id}:n{length}", clause="", start=0,
                     end=length, text="x" * length)


def test_the_wrong_document_share_is_the_characters_from_documents_without_evidence() -> None:
    # 300 of 1,000 characters come from "other", which holds none of the evidence.
    provisions = [_provision("lic", 500), _provision("other", 300), _provision("amend", 200)]
    assert wrong_document_share(provisions, {"lic", "amend"}) == 0.3
    assert wrong_document_share(provisions, {"other"}) == 0.7
    assert wrong_document_share([], {"lic"}) is None
    # A control has no evidence, so no document is the right one.
    assert wrong_document_share(provisions, set()) is None


def test_the_scorer_reports_the_wrong_document_share_and_summaries_average_it() -> None:
    index = _index()
    scorer = Scorer({**TEXTS, "elsewhere": "y" * 20}, [index])
    question = _question(evidence=(Evidence("lic", "a fee of $5,000 per quarter"),))
    score = scorer.score(question, "m", [_provision("lic", 60), _provision("elsewhere", 20)], 20)
    assert score.wrong_document_share == 0.25
    assert to_builtins(score)["wrong_document_share"] == 0.25
    control = scorer.score(_question("out_of_scope"), "m", [_provision("lic", 10)], 3)
    assert control.wrong_document_share is None
    summary = summarise([score, replace(score, wrong_document_share=0.75), control], None)
    assert summary.wrong_document_rate == 0.5
    assert to_builtins(summarise([control], None))["wrong_document_rate"] is None
