"""How long the replayed benchmark takes in pytest: cold (an empty cache folder) and warm, at
``-n 0`` and ``-n 2``, for the default job and the full replay of the offline QA modes.

Run: ``.venv/bin/python perf/suite_speed.py [--tree DIR ...] [--full] [--no-default]
[--repeats N] [--json OUT]``. Each ``--tree`` is a checkout (a ``git worktree`` of another
commit) run with its package first on ``PYTHONPATH``, so two versions are timed back to back
in one run on the same load; the default is this checkout alone. With ``--repeats N``, N
warm -n 0 / -n 2 pairs follow per tree, the trees taking turns. Every run replays the
committed cassettes (corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus); the digest
of the summary it prints is kept, so identical results are seen as identical, and so are the
CPU seconds of all its processes (controller and workers: divided by the wall time, how many
cores the run kept busy). Compiled bytecode is written and reused, as Python does by default
(PYTHONDONTWRITEBYTECODE, set on some machines, is removed for the runs, and the bytecode
goes to one folder under the temp dir): otherwise every run would recompile and
assertion-rewrite every module, a cost no user with a normal Python pays. A measurement, not
a test: the numbers are printed, never asserted; ``uptime`` before and after says what else
the machine was doing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measuring import corpus_dir, machine_load

HERE = Path(__file__).resolve().parents[1]
#: The default job (README command 1): its own default modes.
DEFAULT_MODES: tuple[str, ...] = ()
#: Where the runs keep compiled bytecode between them.
PYCACHE = Path(tempfile.gettempdir()) / "legalbench-speed-pycache"
#: Every offline QA mode with committed cassettes but titles (which a model picks for).
FULL_MODES = ("navembed", "navembed:embed", "navembed:hybrid", "navembed:embed+xref",
              "navembed:chunks", "navindex", "navagent")


def _summary_digest(output: str) -> str:
    """A digest of the printed summary (the lines after pytest's 'legalbench' banner), timings
    and pytest's closing counts left out."""
    lines = output.splitlines()
    start = next((n for n, line in enumerate(lines) if line.startswith("legalbench:")
                  or "legalbench summary" in line.lower()), len(lines))
    kept = [line for line in lines[start:] if not line.startswith("=")
            and " in " not in line and "passed" not in line]
    return hashlib.sha256("\n".join(kept).encode("utf-8")).hexdigest()[:16]


def run_once(tree: Path, modes: tuple[str, ...], workers: int, cache: Path,
             log: Path | None = None) -> dict[str, object]:
    """One pytest run of the benchmark in ``tree`` with ``cache``; its time and summary."""
    command = [sys.executable, "-m", "pytest", "benchmarks", "-q", "-p", "no:cacheprovider",
               "-n", str(workers), *(f"--mode={m}" for m in modes)]
    env = {**os.environ, "LEGALBENCH_CORPUS_DIR": str(corpus_dir()),
           "LEGALBENCH_CACHE_DIR": str(cache), "PYTHONPATH": str(tree),
           "HF_HUB_OFFLINE": "1", "PYTHONPYCACHEPREFIX": str(PYCACHE)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True,
                          check=False)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Every process of the run (controller and workers): the work the cores did for it.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if log is not None:
        log.write_text(done.stdout + "\n--- stderr ---\n" + done.stderr, encoding="utf-8")
    tail = done.stdout.strip().splitlines()[-1:] or [""]
    return {"seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
            "cores_busy": round(cpu / seconds, 2), "rc": done.returncode, "last_line": tail[0],
            "summary_digest": _summary_digest(done.stdout),
            "stderr_tail": done.stderr.strip().splitlines()[-3:]}


def measure(tree: Path, modes: tuple[str, ...], label: str,
            logs: Path | None) -> dict[str, object]:
    """Cold then warm at -n 0 and -n 2 for one tree and one set of modes."""
    result: dict[str, object] = {"tree": str(tree), "job": label}
    with tempfile.TemporaryDirectory(prefix="legalbench-speed-") as folder:
        for workers in (0, 2):
            # One cache per worker count, so each "cold" starts empty.
            cache = Path(folder) / f"n{workers}"
            for phase in ("cold", "warm"):
                key = f"{phase}_n{workers}"
                log = logs / f"{tree.name}-{label}-{key}.log" if logs else None
                result[key] = run_once(tree, modes, workers, cache, log)
                print(json.dumps({label: {key: result[key]}}), flush=True)
        times = {key: value["seconds"] for key, value in result.items()
                 if isinstance(value, dict)}
        result["warm_n0_over_n2"] = round(times["warm_n0"] / times["warm_n2"], 2)
        result["cold_over_warm_n2"] = round(times["cold_n2"] / times["warm_n2"], 2)
    return result


def warm_pairs(trees: list[Path], modes: tuple[str, ...], label: str, repeats: int,
               runs: list[dict[str, object]]) -> None:
    """``repeats`` warm -n 0 / -n 2 pairs per tree, the trees taking turns within each
    repeat, added to each tree's run with their median ratio: the figure to read on a
    machine whose runs vary by a quarter and drift over minutes."""
    pairs: dict[Path, list[tuple[dict[str, object], dict[str, object]]]] = {t: [] for t in trees}
    with tempfile.TemporaryDirectory(prefix="legalbench-speed-") as folder:
        for tree in trees:  # fill each tree's cache first: the pairs are warm
            run_once(tree, modes, 0, Path(folder) / tree.name)
        for _ in range(repeats):
            for tree in trees:
                cache = Path(folder) / tree.name
                pair = (run_once(tree, modes, 0, cache), run_once(tree, modes, 2, cache))
                pairs[tree].append(pair)
                print(json.dumps({label: {tree.name: [p["seconds"] for p in pair]}}),
                      flush=True)
    for run in runs:
        tree = Path(str(run["tree"]))
        if run["job"] != label or tree not in pairs:
            continue
        timed = [(float(str(n0["seconds"])), float(str(n2["seconds"]))) for n0, n2 in pairs[tree]]
        ratios = [n0 / n2 for n0, n2 in timed]
        run["warm_pairs_n0_n2"] = timed
        run["warm_pair_cpu_seconds"] = [(n0["cpu_seconds"], n2["cpu_seconds"])
                                        for n0, n2 in pairs[tree]]
        run["warm_pair_ratios"] = [round(r, 2) for r in ratios]
        run["median_warm_pair_ratio"] = round(statistics.median(ratios), 2)
        run["best_warm_pair_ratio"] = round(max(ratios), 2)


def main() -> int:
    """Time the benchmark runs and print (and optionally store) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, action="append", default=None)
    parser.add_argument("--full", action="store_true", help="also the full offline replay")
    parser.add_argument("--no-default", action="store_true",
                        help="leave out the default job (with --full: the full replay alone)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--logs", type=Path, help="folder for each run's pytest output")
    parser.add_argument("--repeats", type=int, default=1,
                        help="warm -n 0 / -n 2 pairs to time after the first (median ratio)")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [HERE])]
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {"load_before": machine_load(), "cpus": os.cpu_count(),
                                 "bytecode": f"written and reused, in {PYCACHE}", "runs": []}
    print(report["load_before"], flush=True)
    runs: list[dict[str, object]] = []
    jobs = (([] if args.no_default else [("default", DEFAULT_MODES)])
            + ([("full", FULL_MODES)] if args.full else []))
    if not jobs:
        parser.error("--no-default without --full leaves nothing to time")
    for label, modes in jobs:
        for tree in trees:
            runs.append(measure(tree, modes, label, args.logs))
        if args.repeats > 1:
            warm_pairs(trees, modes, label, args.repeats, runs)
    report["runs"] = runs
    report["load_after"] = machine_load()
    print(report["load_after"], flush=True)
    for run in runs:
        print(json.dumps({k: v for k, v in run.items() if not isinstance(v, dict)}))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
