"""Character-level recall and precision on the CUAD span benchmark (all 510 contracts), at
4,000 and 32,000 characters of payload, for every strategy that runs offline and navindex.

Run: ``.venv/bin/python perf/cuad_spans.py [--sample N] [--modes M ...] [--json OUT]``
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus; the embedding cache from
$LEGALBENCH_CACHE_DIR, else ~/.cache/pytest-legalbench). The benchmark is imported from
CUAD's master_clauses.csv first (one test per contract and clause category); each mode then
retrieves over all 510 contracts for every test's query, which names its contract, and the
first 4,000 or 32,000 characters of what it returns, in rank order, are scored. ``--sample N``
scores N tests spread evenly over the file (the same tests for every mode); the output says
how many were scored. The published LegalBench-RAG baselines recall roughly 62-76% at 64
chunks of 500 characters (32,000 characters) on comparable corpora. A measurement, not a
test: the numbers are printed, never asserted. Embedding all of CUAD takes tens of minutes on
a CPU the first time; later runs read the cache.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from measuring import corpus_dir

from pytest_legalbench.commands.cli import main as legalbench
from pytest_legalbench.spans.benchmark_file import benchmark_to_json
from pytest_legalbench.spans.cuad_import import import_cuad

MODES = ("navembed:embed", "navembed:embed+xref", "navembed:hybrid", "navembed:chunks",
         "navembed:titles", "navindex")
BUDGETS = (4_000, 32_000)


def _spans(benchmark: Path, corpus: Path, mode: str, budget: int,
           sample: int | None) -> dict[str, object]:
    args = ["spans", str(benchmark), "--profile", "cuad", "--corpus-dir", str(corpus),
            "--mode", mode, "--budget-chars", str(budget), "--json"]
    if sample:
        args += ["--sample", str(sample)]
    out = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out):
        status = legalbench(args)
    elapsed = time.perf_counter() - started
    if status != 0:
        return {"mode": mode, "budget_chars": budget, "error": f"exit status {status}",
                "seconds": round(elapsed, 1)}
    result: dict[str, object] = json.loads(out.getvalue())
    result["seconds"] = round(elapsed, 1)
    return result


def main() -> int:
    """Import the CUAD benchmark, score every mode at both budgets, print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, help="score N tests per mode (default: all)")
    parser.add_argument("--modes", nargs="+", default=list(MODES))
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    corpus = corpus_dir()
    started = time.perf_counter()
    benchmark, report = import_cuad(corpus)
    print(f"imported in {time.perf_counter() - started:.1f} s: "
          + "; ".join(report.summary_lines()[:2]), file=sys.stderr)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "cuad_spans.json"
        path.write_text(benchmark_to_json(benchmark), encoding="utf-8")
        for mode in args.modes:
            for budget in BUDGETS:
                result = _spans(path, corpus, mode, budget, args.sample)
                results.append(result)
                print(json.dumps(result), file=sys.stderr, flush=True)
    print(f"{'mode':22} {'budget':>7} {'tests':>6} {'recall':>7} {'precision':>9} {'seconds':>8}")
    for r in results:
        if "error" in r:
            print(f"{r['mode']!s:22} {r['budget_chars']!s:>7} {r['error']}")
            continue
        print(f"{r['mode']!s:22} {r['budget_chars']!s:>7} {r['tests']!s:>6} "
              f"{float(str(r['recall'])):7.4f} {float(str(r['precision'])):9.4f} "
              f"{r['seconds']!s:>8}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
