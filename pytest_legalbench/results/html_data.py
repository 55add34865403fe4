"""The QA part of report.html's data island: plain builtins the page's script draws from.

Nothing is written twice. A question's text, reference, evidence quotes and inject answer (one
per question, shared by every mode) sit once under ``questions``; a provision's text sits
once, in ``texts``, the merged retrieved stretches of each document (``provisions`` maps a
node id to its document, citation and span); items name both by id. Each item carries the
tags the page's outcome filter selects on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.llm.pricing import PriceCard, price_calls
from pytest_legalbench.modes.registry import BASELINE
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.provision_table import Segments
from pytest_legalbench.results.results_file import StoredRun
from pytest_legalbench.results.verdict_split import audit_flag, keyfact_cell


def item_key(record: ItemRecord) -> str:
    """The id a page row and its link carry: ``question|mode``."""
    return f"{record.question_id}|{record.mode}"


def outcome_tags(record: ItemRecord) -> list[str]:
    """What the outcome filter can select the record by: its verdict (``none`` when not
    judged), the verdict with its key-fact cell, and the audit flags."""
    verdict = record.verdict or "none"
    cell = keyfact_cell(record)
    tags = [verdict, f"{verdict}:{cell}"]
    if verdict == "tie" and cell in ("inject_only", "mode_only"):
        tags.append("tie:differ")
    flag = audit_flag(record)
    if flag:
        tags.append("audit")
        if verdict in ("inject", "mode"):
            tags.append("failing_winner")
    return tags


#: The fields of a call in the data island, in the order each call's list holds them.
CALL_FIELDS = ("arm", "stage", "model", "input", "write", "read", "output", "latency", "valid",
               "cost", "tools")


def call_rows(arm: str, calls: Iterable[Call], card: PriceCard) -> list[list[object]]:
    """Each call as a list in ``CALL_FIELDS`` order (a list per call, not a keyed object:
    the keys would be repeated thousands of times)."""
    return [[arm, c.stage, c.model, c.usage.input_tokens, c.usage.cache_creation_input_tokens,
             c.usage.cache_read_input_tokens, c.usage.output_tokens, c.latency_s, c.valid,
             float(price_calls([c], card).total), _tools(c)] for c in calls]


def _tools(call: Call) -> list[list[object]] | None:
    """The tool results a turn carried, each ``[name, arguments, node ids, more ids, error
    message]``; None for a call that carried none."""
    if not call.tool_results:
        return None
    return [[e.name, e.arguments, list(e.node_ids), e.more_node_ids, e.message]
            for e in call.tool_results]


def _item(record: ItemRecord, card: PriceCard) -> dict[str, object]:
    paired = record.mode_answer is not None
    return {
        "id": item_key(record), "q": record.question_id, "mode": record.mode,
        "baseline": record.baseline_only,
        "kind": record.kind, "area": record.practice_area, "judge": record.judge,
        "fwd": record.raw_forward, "rev": record.raw_reverse, "verdict": record.verdict,
        "cell": keyfact_cell(record), "flag": audit_flag(record) if paired else "",
        "tags": outcome_tags(record), "error": record.error_class,
        "error_inject": record.inject_error_class,
        "kf_mode": None if record.keyfacts_mode is None else to_builtins(record.keyfacts_mode),
        "answer": record.mode_answer, "recall": record.evidence_recall,
        "payload": record.payload_tokens, "scan": record.scan_tokens,
        "cost_mode": float(price_calls(record.mode_calls, card).total) if paired else None,
        "cost_inject": float(price_calls(record.inject_calls, card).total),
        "cost_judge": float(price_calls(record.judge_calls, card).total),
        # Node ids only: the provision table holds each one's document, citation and span.
        "provisions": [p.node_id for p in record.provisions],
        # A user's passages found in no document: [rank, doc id, text]; and the budget cut.
        "unlocated": [[u.rank, u.doc_id, u.text] for u in record.unlocated],
        "cut": None if record.payload_cut is None else to_builtins(record.payload_cut),
        # Index-aligned with the question's quotes: found, and [node, start, end] marks.
        "evidence": [[q.found, [[m.node_id, m.start, m.end] for m in q.marks]]
                     for q in record.evidence],
        "calls": call_rows(record.mode, record.mode_calls, card)
        + call_rows("judge", record.judge_calls, card),
    }


def _questions(records: Sequence[ItemRecord], card: PriceCard) -> dict[str, dict[str, Any]]:
    questions: dict[str, dict[str, Any]] = {}
    for record in records:
        # Every mode paired with a question shares its one inject answer: the first suffices.
        questions.setdefault(record.question_id, {
            "question": record.question, "reference": record.reference, "kind": record.kind,
            "area": record.practice_area, "difficulty": record.difficulty,
            "inject_answer": record.inject_answer, "kf_inject": to_builtins(record.keyfacts_inject),
            "quotes": [[q.doc_id, q.quote] for q in record.evidence],
            "inject_calls": call_rows(BASELINE, record.inject_calls, card)})
    return questions


def qa_data(run: StoredRun, card: PriceCard) -> dict[str, object]:
    """The data island's ``qa`` entry for a stored run, costs priced by ``card``."""
    records = run.records
    return {"modes": sorted({r.mode for r in records}),
            "kinds": sorted({r.kind for r in records}),
            "questions": _questions(records, card),
            "provisions": {node: to_builtins(entry) for node, entry in run.provisions.items()},
            "texts": to_builtins(run.excerpts.segments, Segments),
            "items": [_item(record, card) for record in records]}
