"""Baseline evidence recall on the held-out edgar2023 question set, overall and per transaction
set, with the retrieval of the commit measured (nothing tuned on these questions).

Run: ``nice -n 5 .venv/bin/python perf/edgar2023_baseline.py`` (corpus from
$LEGALBENCH_CORPUS_DIR, else ../shared/corpus). It runs ``legalbench evaluate --profile
edgar2023`` with its default modes (navembed, i.e. navembed:closure, and navindex, each beside
navembed:chunks at equal payload) and the default payload budget, once for the printed table and
once for the JSON report, then splits the per-question scores by the transaction set of the
documents each question names. It writes ``perf/output/edgar2023_recall_baseline.{json,txt}``.
A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import contextlib
import io
import json
import platform
import time
from collections import defaultdict
from statistics import fmean
from typing import Any

from measuring import OUTPUT, commit, corpus_dir, machine_load

from pytest_legalbench.commands.cli import main as legalbench
from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.manifest import profile_manifest
from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.modes.base import ModeSettings

PROFILE = "edgar2023"
STEM = "edgar2023_recall_baseline"
#: The default payload budget the modes run under (no --payload-budget is given).
BUDGET = ModeSettings().payload_budget_tokens


def _evaluate(*extra: str) -> str:
    """Run ``legalbench evaluate`` in this process and return what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = legalbench(["evaluate", "--profile", PROFILE, "--corpus-dir",
                             str(corpus_dir()), "-q", *extra])
    if status != 0:
        raise SystemExit(f"legalbench evaluate exited with {status}")
    return out.getvalue()


def per_set(report: dict[str, Any]) -> dict[str, dict[str, dict[str, object]]]:
    """Recall, complete questions and mean payload per mode and transaction set."""
    set_of_doc = {e.doc_id: e.transaction_set or "" for e in profile_manifest(PROFILE).documents}
    set_of_question = {q.id: set_of_doc[q.documents[0]]
                       for q in load_question_set(question_sets_dir() / PROFILE)}
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for score in report["per_question"]:
        if score["recall"] is not None:
            grouped[score["mode"]][set_of_question[score["question_id"]]].append(score)
    return {mode: {name: {"questions": len(scores),
                          "recall": round(fmean(s["recall"] for s in scores), 4),
                          "complete": sum(s["recall"] == 1.0 for s in scores),
                          "quotes_found": sum(q["found"] for s in scores for q in s["quotes"]),
                          "quotes": sum(len(s["quotes"]) for s in scores),
                          "payload_tokens": round(fmean(s["payload_tokens"] for s in scores))}
                   for name, scores in sorted(by_set.items())}
            for mode, by_set in grouped.items()}


def set_lines(table: dict[str, dict[str, dict[str, object]]]) -> list[str]:
    """The per-set table: one row per set, recall and complete count per mode."""
    modes = list(table)
    names = sorted({name for by_set in table.values() for name in by_set})
    header = ["set", "questions", *modes]
    rows = [[name, str(next(iter(table.values()))[name]["questions"]),
             *(f"{table[m][name]['recall']:.3f} ({table[m][name]['complete']}/"
               f"{table[m][name]['questions']})" for m in modes)] for name in names]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths)))
            for row in [header, *rows]]


def main() -> int:
    """Measure, print and write the baseline."""
    started = time.perf_counter()
    table = _evaluate()
    report = json.loads(_evaluate("--json"))
    sets = per_set(report)
    header = {"profile": PROFILE, "commit": commit(), "date": time.strftime("%Y-%m-%d"),
              "payload_budget": BUDGET, "python": platform.python_version(),
              "load": machine_load(), "seconds": round(time.perf_counter() - started, 1)}
    title = (f"edgar2023 held-out question set, baseline at commit {header['commit']} "
             f"({header['date']}); default payload budget {BUDGET:,} tokens")
    caption = ("recall by transaction set (mean recall over document-bound questions; "
               "complete / questions in brackets):")
    lines = [title, "", table.rstrip("\n"), "", caption, *set_lines(sets), "",
             f"measured in {header['seconds']} s; load: {header['load']}"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / f"{STEM}.txt").write_text(text, encoding="utf-8")
    (OUTPUT / f"{STEM}.json").write_text(
        json.dumps({**header, "per_set": sets, "evaluate": report}, indent=2) + "\n",
        encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
