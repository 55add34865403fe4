"""``legalbench evaluate``: the question set through each mode's retrieval, scored without a
model: evidence recall, payload, footprint and oracle ratios, per mode and per kind, with the
fixed-chunk baseline beside every mode at that mode's own payload."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    add_backend_options,
    add_mode_sources,
    add_selectors,
    indexes_of,
    load_selection,
    mode_help,
    mode_registry,
    open_query,
    question_set,
    resolve_mode,
)
from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.questions import Question
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.results.evaluation import QuestionScore, Scorer, summarise, summarise_by_kind
from pytest_legalbench.tokens import estimate_tokens

#: What runs when no ``--mode`` is given: the two structure-aware families.
DEFAULT_MODES = ("navembed", "navindex")
#: The public baseline, always evaluated, and its name at another mode's payload.
BASELINE = "navembed:chunks"


def register(commands: Any) -> None:
    """Add the ``evaluate`` subcommand."""
    evaluate = commands.add_parser(
        "evaluate", help="score retrieval on the question set: evidence recall and payload")
    add_selectors(evaluate)
    evaluate.add_argument("--mode", action="append", dest="modes", metavar="MODE",
                          help=f"{mode_help()}; repeat for several (default: "
                               f"{' and '.join(DEFAULT_MODES)}); {BASELINE} is always added")
    evaluate.add_argument("--questions", type=Path,
                          help="folder of question YAML files (default: the packaged set of "
                               "the profile)")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")
    add_mode_sources(evaluate)
    add_backend_options(evaluate)
    evaluate.set_defaults(run=run_evaluate)


def run_evaluate(args: argparse.Namespace, progress: Progress) -> int:
    """Retrieve for every question with every mode and print the scores."""
    registry = mode_registry(args)
    modes = list(dict.fromkeys(resolve_mode(registry, m) for m in (args.modes or DEFAULT_MODES)))
    selection, documents = load_selection(args, progress)
    questions = question_set(args, selection.profile, documents)
    indexes = indexes_of(args, documents, progress)
    scorer = Scorer({d.doc_id: d.text for d in documents}, indexes)
    inject_tokens = sum(estimate_tokens(d.text) for d in documents)
    scores: dict[str, list[QuestionScore]] = {}
    for mode in [m for m in modes if m != BASELINE]:
        scores[mode] = _run_mode(args, progress, mode, questions, scorer, documents, indexes)
    with open_query(args, progress, BASELINE, documents, indexes) as session:
        baseline = session.mode
        scores[BASELINE] = _scored(baseline, BASELINE, questions, scorer, progress)
        equal = {mode: [_equal_payload(baseline, question, score, scorer)
                        for question, score in zip(questions, found)]
                 for mode, found in scores.items() if mode != BASELINE}
    report = _report(selection.describe(), questions, inject_tokens, scores, equal)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(_lines(report)))
    return 0


def _run_mode(args: argparse.Namespace, progress: Progress, mode: str,
              questions: Sequence[Question], scorer: Scorer, documents: tuple[Document, ...],
              indexes: tuple[DocumentIndex, ...]) -> list[QuestionScore]:
    with open_query(args, progress, mode, documents, indexes) as session:
        return _scored(session.mode, mode, questions, scorer, progress)


def _scored(mode: Any, name: str, questions: Sequence[Question], scorer: Scorer,
            progress: Progress) -> list[QuestionScore]:
    found = []
    for position, question in enumerate(questions, 1):
        retrieval = mode.retrieve(question.question, question_id=question.id)
        found.append(scorer.score(question, retrieval.mode, retrieval.provisions,
                                  retrieval.payload_tokens, retrieval.scan_tokens))
        progress(f"{name}: {position}/{len(questions)} {question.id}")
    return found


def _equal_payload(baseline: Any, question: Question, score: QuestionScore,
                   scorer: Scorer) -> QuestionScore:
    retrieval = baseline.within_budget(question.question, score.payload_tokens)
    return scorer.score(question, f"{BASELINE}@{score.mode}", retrieval.provisions,
                        retrieval.payload_tokens)


def _report(corpus: str, questions: Sequence[Question], inject_tokens: int,
            scores: dict[str, list[QuestionScore]],
            equal: dict[str, list[QuestionScore]]) -> dict[str, object]:
    def block(found: list[QuestionScore]) -> dict[str, object]:
        bound = [s for s in found if s.recall is not None]
        return {"overall": to_builtins(summarise(bound, inject_tokens)),
                "by_kind": {k: to_builtins(v)
                            for k, v in summarise_by_kind(found, inject_tokens).items()}}

    modes: dict[str, object] = {}
    for mode, found in scores.items():
        entry = block(found)
        if mode in equal:
            entry["chunks_at_equal_payload"] = block(equal[mode])
        modes[mode] = entry
    return {
        "corpus": corpus, "questions": len(questions),
        "controls": sum(q.out_of_scope for q in questions), "inject_tokens": inject_tokens,
        "note": ("overall figures cover document-bound questions; out-of-scope controls have "
                 "no evidence and appear only under by_kind"),
        "modes": modes,
        "per_question": [to_builtins(s) for found in [*scores.values(), *equal.values()]
                         for s in found],
    }


def _lines(report: dict[str, Any]) -> list[str]:
    header = ("mode", "recall", "complete", "payload", "p95", "max", "footprint", "oracle",
              "scan", "wrong doc")
    rows = []
    for mode, entry in report["modes"].items():
        rows.append(_row(mode, entry["overall"]))
        if "chunks_at_equal_payload" in entry:
            rows.append(_row(f"  {BASELINE} at equal payload",
                             entry["chunks_at_equal_payload"]["overall"]))
    lines = [(f"{report['questions']} questions ({report['controls']} out-of-scope controls) "
             f"over {report['corpus']}; inject payload {report['inject_tokens']:,} tokens"), ""]
    lines.extend(_table(header, rows))
    lines.extend(["", "recall by kind:"])
    kinds = sorted({k for e in report["modes"].values() for k in e["by_kind"]})
    kind_rows = [(mode, *(_number(e["by_kind"].get(k, {}).get("recall")) for k in kinds))
                 for mode, e in report["modes"].items()]
    lines.extend(_table(("mode", *kinds), kind_rows))
    lines.extend(["", ("recall: share of evidence quotes found; complete: questions with every "
                  "quote found; payload: mean tokens, p95 and max per question; footprint: "
                  "inject payload / payload; "
                  "oracle: payload / smallest node set holding the evidence; wrong doc: mean "
                  "share of retrieved characters from documents holding none of the evidence")])
    return lines


def _row(name: str, summary: dict[str, Any]) -> tuple[str, ...]:
    return (name, _number(summary["recall"]), f"{summary['complete']}/{summary['questions']}",
            f"{summary['payload_tokens']:,.0f}", f"{summary['payload_p95']:,.0f}",
            f"{summary['payload_max']:,}", _number(summary["footprint_ratio"], "x"),
            _number(summary["oracle_ratio"], "x"), f"{summary['scan_tokens']:,.0f}",
            _number(summary.get("wrong_document_rate")))


def _number(value: object, suffix: str = "") -> str:
    return "-" if not isinstance(value, (int, float)) else f"{value:.3f}{suffix}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths)))
            for row in [header, *rows]]
