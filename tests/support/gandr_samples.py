"""Hand-made GANDR records for the summary, report and claim-sheet tests."""

from __future__ import annotations

from pytest_legalbench.gandr.record import GandrRecord, Repeat
from pytest_legalbench.llm.ledger import Call, Usage


def call(stage: str) -> Call:
    """A reference-backend call of ``stage`` with a fixed usage."""
    return Call(stage=stage, model="legalbench-reference-extractive-1",
                usage=Usage(input_tokens=100, output_tokens=10), latency_s=0.01,
                backend="reference", question_id="q")


def audit_round(labels: list[str], round_number: int = 1) -> dict[str, object]:
    """A GANDR trace entry whose audit carries claims with ``labels``."""
    claims = [{"claim_id": i + 1, "block": "APPLICATION", "claim": f"claim {i + 1}",
               "cited_id": "doc:1", "supporting_span": "", "label": label, "reason": ""}
              for i, label in enumerate(labels)]
    counts = {name: labels.count(name)
              for name in ("SUPPORTED", "PARTIAL", "UNSUPPORTED", "MISCITED")}
    return {"round": round_number, "draft": "memo", "audit": {"claims": claims,
                                                              "labels": counts}}


def repeat(seed: int, score: int | None, grounded: bool, *, normalised: bool | None = None,
           passed: bool | None = None, rounds: int = 1,
           trace: tuple[dict[str, object], ...] = ()) -> Repeat:
    """One repeat with the grades given."""
    labels: dict[str, int] = {}
    for entry in trace:
        audit = entry.get("audit")
        if isinstance(audit, dict):
            for name, count in audit["labels"].items():
                labels[name] = labels.get(name, 0) + count
    return Repeat(seed=seed, answer=f"answer {seed}", passed=passed, rounds=rounds,
                  grounded=grounded,
                  normalised_grounded=grounded if normalised is None else normalised,
                  score=score, judged=score, rationale="r", audit_labels=labels, trace=trace,
                  calls=(call("gandr.draft"),))


def record(question_id: str, system: str, repeats: list[Repeat], *, area: str = "finance",
           equivalent: list[bool | None] | None = None,
           stable: bool | None = None) -> GandrRecord:
    """A record of ``repeats`` with pairwise verdicts ``equivalent``."""
    pairs = [(a, b) for a in range(len(repeats)) for b in range(a + 1, len(repeats))]
    verdicts = equivalent if equivalent is not None else [True] * len(pairs)
    return GandrRecord(
        question_id=question_id, kind="lookup", practice_area=area, system=system,
        question="Q?", reference="R.", passages=(("doc:1", "Text one."), ("doc:2", "Two.")),
        repeats=tuple(repeats),
        equivalence=tuple((a, b, v) for (a, b), v in zip(pairs, verdicts, strict=True)),
        stable_correct=stable, judge_calls=(call("judge.correctness"),))
