"""GANDR's part of report.html's data island: each item's memos, grades, audit trace and claim
labels as plain builtins. Passages are written once, keyed by id (every system of a question
reads the same ones); items name them."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.gandr.record import GandrRecord, Repeat
from pytest_legalbench.llm.pricing import PriceCard, price_calls
from pytest_legalbench.results.html_data import call_rows


def _repeat(repeat: Repeat, card: PriceCard) -> dict[str, object]:
    found: dict[str, object] = to_builtins(repeat)
    found.update(strict=repeat.strict, lenient=repeat.lenient,
                 calls=[row for c in repeat.calls for row in call_rows(
                     "judge" if c.stage.startswith("judge") else "system", [c], card)])
    return found


def outcome_tags(record: GandrRecord) -> list[str]:
    """What the page's outcome filter selects a GANDR item by (its seed-0 answer's grade)."""
    first = record.first
    if first.score is None:
        tags = ["no_score"]
    elif first.strict:
        tags = ["strict"]
    else:
        tags = ["lenient_only"] if first.lenient else ["incorrect"]
    if record.stable_correct:
        tags.append("stable")
    if first.passed is False:
        tags.append("not_passed")
    return tags


def gandr_data(records: Sequence[GandrRecord], card: PriceCard) -> dict[str, object]:
    """The data island's ``gandr`` entry."""
    passages: dict[str, str] = {}
    items = []
    for record in sorted(records, key=lambda r: (r.question_id, r.system)):
        passages.update(record.passages)
        first = record.first
        labels = first.audit_labels
        calls = [c for r in record.repeats for c in r.calls] + list(record.judge_calls)
        items.append({
            "id": f"{record.question_id}|{record.system}", "q": record.question_id,
            "system": record.system, "kind": record.kind, "area": record.practice_area,
            "question": record.question, "reference": record.reference,
            "passages": list(record.passage_ids), "stable": record.stable_correct,
            "score": first.score, "strict": first.strict, "lenient": first.lenient,
            "rounds": first.rounds, "passed": first.passed,
            "claims": (f"{labels.get('SUPPORTED', 0)}/{sum(labels.values())}"
                       if labels else None),
            "cost": float(price_calls(calls, card).total), "tags": outcome_tags(record),
            "repeats": [_repeat(r, card) for r in record.repeats],
            "equivalence": [list(pair) for pair in record.equivalence]})
    found = {"systems": sorted({r.system for r in records}),
             "kinds": sorted({r.kind for r in records}), "passages": passages, "items": items}
    # Keys sorted throughout, as gandr-results.json stores them: the page of a session and
    # the page rebuilt from its files are the same bytes.
    ordered: dict[str, object] = json.loads(json.dumps(found, sort_keys=True))
    return ordered
