"""How long the project's own test suite takes at ``-n 2``: the default run (tests marked slow
skipped) and, with ``--slow``, the whole suite as CI runs it; with each run's slowest tests.

Run: ``.venv/bin/python perf/suite_time.py [--skip-slow] [--json OUT]``. A measurement,
not a test: the numbers are printed, never asserted; ``uptime`` before and after says what else
the machine was doing. The corpus comes from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from measuring import corpus_dir, machine_load

HERE = Path(__file__).resolve().parents[1]
#: pytest's --durations line: "12.34s call     tests/test_x.py::test_y".
_DURATION = re.compile(r"^(\d+\.\d+)s (setup|call|teardown)\s+(\S+)$")


def run_suite(extra: list[str]) -> dict[str, object]:
    """One ``pytest -n 2`` of the suite with ``extra`` arguments: wall time, counts, slowest."""
    command = [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider",
               "--durations=8", *extra]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=HERE, capture_output=True, text=True, check=False,
                          env={**os.environ, "LEGALBENCH_CORPUS_DIR": str(corpus_dir())})
    seconds = time.perf_counter() - started
    lines = done.stdout.splitlines()
    slowest = [{"seconds": float(m[1]), "phase": m[2], "test": m[3]}
               for m in map(_DURATION.match, lines) if m]
    return {"command": " ".join(["pytest", *command[3:]]), "rc": done.returncode,
            "wall_s": round(seconds, 1), "minutes": round(seconds / 60, 2),
            "last_line": lines[-1] if lines else "", "slowest": slowest,
            "failed": [line for line in lines if line.startswith(("FAILED ", "ERROR "))]}


def main() -> int:
    """Time the default run and (unless --skip-slow) the whole suite; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-slow", action="store_true",
                        help="time only the default run")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    result: dict[str, object] = {"cpus": os.cpu_count(), "load_before": machine_load(),
                                 "default": run_suite([])}
    if not args.skip_slow:
        result["whole_suite"] = run_suite(["--slow"])
    result["load_after"] = machine_load()
    text = json.dumps(result, indent=1)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
