"""The benchmark live against the reference backend under injected faults, beside the same run
without them: the summaries must be the same, every fault absorbed by a retry.

Run: ``.venv/bin/python perf/fault_soak.py [--faults SPEC] [--out perf/output/fault_soak.md]``
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). Both runs are
``pytest benchmarks -p no:xdist --disable-recording`` (no cassettes: every call reaches the
server; serial, so the emulated prompt cache is warmed in the same order)
with a report folder each; the faulted one adds ``--legalbench-faults SPEC``. The summaries
are compared line by line with the ``retries:`` line left out (the only line faults may
change). Absorbed faults are the retries the ledger recorded; a fault that was not absorbed
fails its item, so with every item passed the faults injected are the faults absorbed.

A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FAULTS = "429:0.2,529:0.1,500:0.05,timeout:0.05,reset:0.05,short:0.02,malformed:0.02"


def run(report: Path, extra: list[str]) -> tuple[list[str], float, int]:
    """One benchmark session: its summary lines, its wall time and its exit status."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.setdefault("LEGALBENCH_CORPUS_DIR", str(REPO.parent / "shared" / "corpus"))
    started = time.monotonic()
    done = subprocess.run(
        # Serial: under xdist, which worker warms which emulated prompt cache decides the
        # cache accounting, and that may differ between two runs.
        [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:xdist", "-q", "-p", "no:randomly",
         "--disable-recording", f"--legalbench-report={report}", *extra],
        cwd=REPO, env=env, capture_output=True, text=True, check=False)
    lines = done.stdout.splitlines()
    start = lines.index("legalbench summary") if "legalbench summary" in lines else len(lines)
    # The report's paths and pytest's own closing counts are no part of the summary.
    summary = [line for line in lines[start:] if not line.startswith(("report:", "="))
               and not re.match(r"\d+ (passed|failed|error)", line)]
    return summary, time.monotonic() - started, done.returncode


def absorbed(report: Path) -> Counter[str]:
    """The retried failures of every distinct call of a report's records, by kind."""
    records: list[dict[str, Any]] = json.loads(
        (report / "results.json").read_text(encoding="utf-8"))["records"]
    calls = [c for r in {r["question_id"]: r for r in records}.values()
             for c in r["inject_calls"]]
    calls += [c for r in records for c in (*r["mode_calls"], *r["judge_calls"])]
    return Counter(kind for call in calls for kind in call.get("retries", []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", default=DEFAULT_FAULTS)
    parser.add_argument("--out", type=Path, default=REPO / "perf" / "output" / "fault_soak.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        clean_dir, faulty_dir = Path(scratch) / "clean", Path(scratch) / "faulty"
        clean, clean_s, clean_rc = run(clean_dir, [])
        faulty, faulty_s, faulty_rc = run(faulty_dir, [f"--legalbench-faults={args.faults}"])
        kinds = absorbed(faulty_dir) if faulty_rc == 0 else Counter()
    compared = [line for line in faulty if not line.startswith("retries:")]
    same = compared == clean and clean_rc == 0 == faulty_rc
    reached = ("none reached an item (every item passed)." if faulty_rc == 0
               else "some item failed: see the exit status.")
    lines = [
        "# Fault soak: the benchmark live against the reference backend under faults", "",
        (f"Faults: `{args.faults}` (seeded, at most 3 in a row per request); "
        f"`pytest benchmarks -p no:xdist --disable-recording`, default modes."), "",
        "| run | exit status | wall time |", "|---|---:|---:|",
        f"| fault-free | {clean_rc} | {clean_s:.0f} s |",
        f"| under faults | {faulty_rc} | {faulty_s:.0f} s |", "",
        (f"Summary identical to the fault-free run (the retries line left out): "
        f"**{'yes' if same else 'no'}** ({len(clean)} lines)."), "",
        (f"Faults injected and absorbed by retries: {sum(kinds.values())} "
         f"({', '.join(f'{k} x{n}' for k, n in sorted(kinds.items())) or 'none'}); {reached}"),
        "",
        "The faulted run's retries line:", "",
        *[f"    {line}" for line in faulty if line.startswith("retries:")], ""]
    if not same:
        lines += ["Fault-free summary:", "", *[f"    {line}" for line in clean], "",
                  "Faulted summary:", "", *[f"    {line}" for line in faulty], ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
