"""The reference backend's parts without HTTP: parsing, sentences, clauses, facts, judging."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.llm.prompts import REFUSAL, document_block, provisions_block
from pytest_legalbench.reference_backend.answering import Passage, rank
from pytest_legalbench.reference_backend.cache import PromptCache
from pytest_legalbench.reference_backend.clauses import ClauseMap
from pytest_legalbench.reference_backend.facts import Fact, citation_matches, extract_facts
from pytest_legalbench.reference_backend.judging import judge
from pytest_legalbench.reference_backend.lexical import content_terms, split_sentences, stem
from pytest_legalbench.reference_backend.prompt_parts import find_documents, find_provisions
from pytest_legalbench.reference_backend.request_parsing import parse_request
from pytest_legalbench.reference_backend.wire import WireError

AGREEMENT = """SUPPLY AGREEMENT

TABLE OF CONTENTS
1. Definitions 1
2. Supply 2
3. Payment 3

This agreement is made today between the parties.

1. DEFINITIONS

1.1 "Goods" means the tools listed in Schedule 1.

2. SUPPLY

2.1 The Supplier shall deliver:

(a) the Goods within 14 days of each order; and

(b) spare parts within 30 days.

2.2 Risk passes on delivery.
"""


# -- prompt parts ---------------------------------------------------------------------------
def test_documents_round_trip_through_the_prompt_block() -> None:
    title = 'Lease "A" & Annex <1>'
    block = document_block([("d-1", title, "Body line.\n\nSecond line."), ("d-2", "T", "X")])
    found = find_documents(block)
    assert [(d.doc_id, d.title, d.text) for d in found] == [
        ("d-1", title, "Body line.\n\nSecond line."), ("d-2", "T", "X")]


def test_provisions_round_trip_through_the_prompt_block() -> None:
    block = provisions_block([("d-1", "d-1:2.1", "Section 2.1", "Deal > 2. Terms > 2.1",
                               "Text of 2.1.")])
    [provision] = find_provisions(block)
    assert (provision.doc_id, provision.node_id, provision.clause, provision.text) == (
        "d-1", "d-1:2.1", "Section 2.1", "Text of 2.1.")


# -- sentences and terms --------------------------------------------------------------------
def test_sentences_split_at_full_stops_not_abbreviations() -> None:
    text = "Harbor Tools Inc. shall pay the fee. The Buyer may object within 5 days."
    assert [s.text for s in split_sentences(text)] == [
        "Harbor Tools Inc. shall pay the fee.", "The Buyer may object within 5 days."]


def test_run_in_headings_stay_with_their_sentence() -> None:
    text = "(e) Governing Law; Venue: This Agreement is governed by the laws of Ohio."
    assert len(split_sentences(text)) == 1


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab A.;:\n \t(1)\"")), max_size=200))
def test_sentence_spans_point_into_the_text(text: str) -> None:
    sentences = split_sentences(text)
    last = 0
    for sentence in sentences:
        assert sentence.start >= last
        assert " ".join(text[sentence.start:sentence.end].split()) == sentence.text
        assert sentence.text
        last = sentence.end


def test_stems_join_word_forms() -> None:
    assert stem("terminated") == stem("termination") == stem("terminates") == stem("terminate")
    assert stem("territories") == stem("territory")
    assert content_terms("What is the Territory?") == [stem("territory")]


# -- clauses --------------------------------------------------------------------------------
@pytest.mark.parametrize(("snippet", "clause"), [
    ("made today", "Preamble"),
    ("means the tools", "Section 1.1"),
    ("shall deliver", "Section 2.1"),
    ("the Goods within", "Section 2.1(a)"),
    ("spare parts", "Section 2.1(b)"),
    ("Risk passes", "Section 2.2"),
])
def test_clause_of_a_position(snippet: str, clause: str) -> None:
    assert ClauseMap(AGREEMENT).clause_at(AGREEMENT.index(snippet)) == clause


def test_table_of_contents_is_recognised() -> None:
    clauses = ClauseMap(AGREEMENT)
    assert clauses.in_contents(AGREEMENT.index("Definitions 1"))
    assert not clauses.in_contents(AGREEMENT.index("Risk passes"))


# -- ranking --------------------------------------------------------------------------------
def _passages(*texts: str) -> list[Passage]:
    return [Passage("doc", f"Section {n}", text, n) for n, text in enumerate(texts, 1)]


def test_rank_prefers_the_sentence_covering_the_question() -> None:
    passages = _passages("The Supplier shall deliver spare parts within 30 days.",
                         "Risk in the Goods passes to the Buyer on delivery.",
                         "The Buyer shall inspect every delivery of Goods on arrival.")
    assert rank("When does risk pass to the Buyer?", passages)[0].clause == "Section 2"


def test_rank_finds_nothing_for_unrelated_or_empty_questions() -> None:
    passages = _passages("The Supplier shall deliver spare parts within 30 days.")
    assert rank("Who won the football league?", passages) == []
    assert rank("What is it?", passages) == []


def test_rank_weighs_down_words_of_document_titles() -> None:
    passages = [Passage("supply", "Section 1", "This Supply Agreement binds both parties here.", 1),
                Passage("supply", "Section 4", "The Supplier shall pay a penalty of 5%.", 2)]
    chosen = rank("What is the penalty under the supply agreement?", passages,
                  {"supply": "Supply Agreement"})
    assert [p.clause for p in chosen] == ["Section 4"]


# -- facts ----------------------------------------------------------------------------------
def test_facts_are_normalised() -> None:
    assert extract_facts("a fee of $1.5 million") == extract_facts("a fee of $1,500,000")
    assert Fact("date", "1996-03-01") in extract_facts("effective March 1, 1996")
    assert Fact("date", "1996-03-01") in extract_facts("effective 1st March 1996")
    assert Fact("percent", "10") in extract_facts("ten percent (10%)")
    assert extract_facts("10 percent") == {Fact("percent", "10")}


def test_citations_are_facts_and_their_numbers_are_not() -> None:
    facts = extract_facts("See [acme-1] Section 2.1(a) and Section 7.")
    assert Fact("citation", "acme-1|2.1(a)") in facts
    assert Fact("citation", "|7") in facts
    assert not any(f.kind == "number" for f in facts)


def test_defined_terms_are_facts() -> None:
    facts = extract_facts('The Territory is the "Licensed Area" of Quill Retail.')
    assert {Fact("term", "territory"), Fact("term", "licensed area"),
            Fact("term", "quill retail")} <= facts


def test_citation_matching_allows_a_finer_clause() -> None:
    assert citation_matches("d|2.1", "d|2.1(a)")
    assert citation_matches("|2", "d|2.1")
    assert not citation_matches("d|2.1", "e|2.1")
    assert not citation_matches("d|2.1", "d|2.11")


# -- judging --------------------------------------------------------------------------------
REFERENCE = "The Buyer pays within 30 days of the invoice date [harbor] Section 2.2."


def test_more_key_facts_wins() -> None:
    full = "Within 30 days [harbor] Section 2.2."
    partial = "Within 30 days."
    assert judge("When?", REFERENCE, full, partial).verdict == "A"
    assert judge("When?", REFERENCE, partial, full).verdict == "B"
    assert judge("When?", REFERENCE, partial, partial).verdict == "tie"


def test_a_contradiction_counts_against() -> None:
    wrong = "Within 45 days [harbor] Section 2.2."
    silent = "[harbor] Section 2.2."
    verdict = judge("When?", REFERENCE, silent, wrong)
    assert verdict.verdict == "A"
    assert "contradict" in verdict.reason


def test_declining_wins_when_the_reference_declines() -> None:
    invented = "The fee is $500 [harbor] Section 9."
    assert judge("Fee?", REFUSAL, invented, REFUSAL).verdict == "B"
    assert judge("Fee?", REFUSAL, REFUSAL, invented).verdict == "A"
    assert judge("Fee?", REFUSAL, REFUSAL, REFUSAL).verdict == "tie"


def test_declining_loses_when_the_reference_answers() -> None:
    assert judge("When?", REFERENCE, REFUSAL, "Within 30 days.").verdict == "B"


def test_without_a_reference_the_question_supplies_the_facts() -> None:
    question = "Is the Territory limited to Ireland?"
    assert judge(question, None, "Yes, the Territory is Ireland.", "No.").verdict == "A"


_PIECES = ["30 days", "45 days", "$1,000", "$2,000", "5%", "March 1, 1996",
           "[harbor] Section 2.2", "[harbor] Section 3", "the Territory", REFUSAL, "and"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=6), st.lists(st.sampled_from(_PIECES),
                                                                 max_size=6),
       st.one_of(st.none(), st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4)))
def test_swapping_the_answers_swaps_the_verdict(a: list[str], b: list[str],
                                                reference: list[str] | None) -> None:
    ref = None if reference is None else " ".join(reference)
    forward = judge("When must the Buyer pay?", ref, " ".join(a), " ".join(b)).verdict
    reverse = judge("When must the Buyer pay?", ref, " ".join(b), " ".join(a)).verdict
    assert {"A": "B", "B": "A", "tie": "tie"}[forward] == reverse


# -- wire and cache -------------------------------------------------------------------------
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(["type", "text", "role", "content",
                                                        "model", "max_tokens", "messages",
                                                        "system", "cache_control", "tools",
                                                        "name", "tool_choice"]), inner,
                                       max_size=5), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_any_json_is_parsed_or_refused_with_a_wire_error(value: Any) -> None:
    try:
        parse_request(json.dumps(value).encode(), needs_max_tokens=True)
    except WireError as error:
        assert error.status == 400 and error.message


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=40), st.booleans()), min_size=1, max_size=6))
def test_usage_parts_add_up_to_the_input(blocks: list[tuple[str, bool]]) -> None:
    system = [{"type": "text", "text": text, **({"cache_control": {"type": "ephemeral"}}
                                                 if cached else {})} for text, cached in blocks]
    body = json.dumps({"model": "m", "max_tokens": 5, "system": system,
                       "messages": [{"role": "user", "content": "question"}]})
    request = parse_request(body.encode(), needs_max_tokens=True)
    cache = PromptCache(300.0, lambda: 0.0)
    for _ in range(2):
        usage = cache.usage(request)
        assert sum(usage.values()) == request.input_tokens
    assert usage["cache_creation_input_tokens"] == 0
