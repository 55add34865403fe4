"""What a record keeps of its retrieval: each quote found or missed, where a found one lies in
the provisions, and the provision table that writes each retrieved character once."""

from __future__ import annotations

import json

import pytest

from pytest_legalbench.files.record_json import from_builtins, to_builtins
from pytest_legalbench.ingest.questions import Evidence
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.evidence import Span, evidence_recall
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.provision_table import Excerpts, provision_table
from pytest_legalbench.results.retrieved import (
    ProvisionSpan,
    QuoteCheck,
    QuoteMark,
    check_quotes,
)

TEXT = ("1. GRANT\n\n1.1 The Licensor grants the Licensee a licence to use the Software.\n\n"
        "1.2 The licence is limited to the Territory.\n\n2. FEES\n\n2.1 The Licensee shall "
        "pay a fee of $5,000 per quarter.\n")
TEXTS = {"lic": TEXT}


def _provision(node: str, fragment: str) -> ProvisionSpan:
    start = TEXT.index(fragment)
    return ProvisionSpan("lic", node, node.split(":")[1], start, start + len(fragment))


FIRST = _provision("lic:1.1", "1.1 The Licensor grants the Licensee a licence to use the Software.")
SECOND = _provision("lic:1.2", "1.2 The licence is limited to the Territory.")
FEES = _provision("lic:2.1", "2.1 The Licensee shall pay a fee of $5,000 per quarter.")


def test_a_found_quote_is_marked_in_each_provision_it_crosses() -> None:
    quote = Evidence("lic", "use the  Software.\n1.2 THE licence")  # whitespace and case differ
    missed = Evidence("lic", "a fee of $5,000")
    checks = check_quotes([quote, missed], [FIRST, SECOND], TEXTS)
    assert [c.found for c in checks] == [True, False]
    marks = checks[0].marks
    assert [m.node_id for m in marks] == ["lic:1.1", "lic:1.2"]
    first_text = TEXT[FIRST.start:FIRST.end]
    assert first_text[marks[0].start:marks[0].end] == "use the Software."
    assert TEXT[SECOND.start:SECOND.end][marks[1].start:marks[1].end] == "1.2 The licence"
    assert checks[1].marks == ()
    # The share found is evidence recall, by the same rule.
    spans = [Span(p.doc_id, p.start, p.end) for p in (FIRST, SECOND)]
    assert evidence_recall([quote, missed], spans, TEXTS) == 0.5


def test_an_occurrence_outside_the_retrieved_run_is_not_marked() -> None:
    # "The Licensee" occurs in 1.1 (retrieved) and in 2.1 (not): only the first is marked.
    checks = check_quotes([Evidence("lic", "the Licensee")], [FIRST], TEXTS)
    assert checks[0].found and len(checks[0].marks) == 1
    assert checks[0].marks[0].node_id == "lic:1.1"


def test_checks_and_spans_round_trip_as_builtins() -> None:
    check = QuoteCheck("lic", "q", True, (QuoteMark("lic:1.1", 3, 9),))
    assert from_builtins(QuoteCheck, json.loads(json.dumps(to_builtins(check)))) == check
    assert from_builtins(ProvisionSpan, json.loads(json.dumps(to_builtins(FIRST)))) == FIRST


def _record(mode: str, provisions: tuple[ProvisionSpan, ...]) -> ItemRecord:
    facts = KeyFacts((), (), False, True)
    call = Call("x.answer", "m", Usage(input_tokens=1), 0.1, "reference")
    return ItemRecord(
        question_id="q", kind="lookup", practice_area="a", difficulty="easy", mode=mode,
        question="q?", reference="r", judge="keyfacts", inject_answer="a", mode_answer="b",
        raw_forward=None, raw_reverse=None, verdict="tie", keyfacts_inject=facts,
        keyfacts_mode=facts, evidence_recall=1.0, node_ids=tuple(p.node_id for p in provisions),
        payload_tokens=1, scan_tokens=0, inject_calls=(call,), mode_calls=(call,),
        judge_calls=(), mode_traits=builtin_traits(mode), provisions=provisions,
        evidence=(QuoteCheck("lic", "q", True, (QuoteMark("lic:1.1", 0, 3),)),))


def test_the_provision_table_writes_each_retrieved_character_once() -> None:
    whole = ProvisionSpan("lic", "lic:1", "1", 0, SECOND.end)  # holds 1.1 and 1.2
    records = [_record("navindex", (whole, FIRST)), _record("navembed:embed", (SECOND, FEES)),
               _record("inject", (ProvisionSpan("lic", "lic:root", "", 0, len(TEXT)),))]
    places, excerpts = provision_table(records, TEXTS)
    assert sorted(places) == ["lic:1", "lic:1.1", "lic:1.2", "lic:2.1"]  # inject's left out
    segments = excerpts.segments["lic"]
    assert [(s, e) for s, e, _ in segments] == [(0, SECOND.end), (FEES.start, FEES.end)]
    assert sum(len(t) for _, _, t in segments) < sum(p.end - p.start for p in places.values())
    for node, place in places.items():
        assert excerpts.text("lic", place.start, place.end) == TEXT[place.start:place.end], node
    assert from_builtins(Excerpts, json.loads(json.dumps(to_builtins(excerpts)))) == excerpts
    with pytest.raises(ValueError, match="retrieved with two spans"):
        provision_table([_record("a", (FIRST,)),
                         _record("b", (ProvisionSpan("lic", "lic:1.1", "", 0, 5),))], TEXTS)


def test_a_record_of_the_first_layout_reads_with_empty_provisions_and_evidence() -> None:
    record = _record("navindex", (FIRST,))
    data = to_builtins(record)
    assert data["provisions"][0]["node_id"] == "lic:1.1"  # type: ignore[index]
    assert from_builtins(ItemRecord, json.loads(json.dumps(data))) == record
    del data["provisions"], data["evidence"]
    old = from_builtins(ItemRecord, data)
    assert old.provisions == () and old.evidence == ()
