"""Item records the results tests share: key facts that pass or fail, and one QA record."""

from __future__ import annotations

from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts

PASS = KeyFacts(("x",), (), False, True)
FAIL = KeyFacts((), ("x",), False, False)


def qa_record(number: int, verdict: str | None, inject: KeyFacts, mode: KeyFacts | None, *,
            kind: str = "lookup") -> ItemRecord:
    call = Call("navembed.answer", "m", Usage(input_tokens=10, output_tokens=1), 0.1,
                "reference")
    return ItemRecord(
        question_id=f"q{number:02d}", kind=kind, practice_area="finance", difficulty="easy",
        mode="navembed:hybrid", question="q?", reference="r", judge="reference-anchored",
        inject_answer="a", mode_answer="b", raw_forward="tie", raw_reverse="tie",
        verdict=verdict, keyfacts_inject=inject, keyfacts_mode=mode, evidence_recall=0.5,
        node_ids=(), payload_tokens=100, scan_tokens=0,
        inject_calls=(Call("inject.answer", "m", Usage(input_tokens=1000), 0.1, "reference"),),
        mode_calls=(call,), judge_calls=(), mode_traits=builtin_traits("navembed:hybrid"))
