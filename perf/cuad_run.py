"""The cuad profile's judged benchmark at scale, offline: the cold build, then warm runs at
``-n 2`` and ``-n 0`` in one script, and the summary the run prints.

Run: ``nice -n 5 .venv/bin/python perf/cuad_run.py [--sample 300] [--cache DIR] [--cold]
[--pairs 1]`` (corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). The command timed is
the target's own::

    pytest benchmarks --legalbench-profile cuad --legalbench-sample 300 \\
        --mode navembed --mode navembed:chunks -n 2 --disable-recording

on the reference backend (no cassettes: ``--disable-recording``), with ``--cache DIR`` as its
cache folder (``LEGALBENCH_CACHE_DIR``).

- ``--cold`` expects an empty (or new) cache folder, and builds what
  the run needs in two timed steps: the chunk baseline's vectors of all 510 contracts (the
  mode built once, in this process), then one ``-n 0`` run of the command, which indexes the
  corpus, generates the question set and embeds the units of the contracts the sample's
  questions route to (``navembed:closure`` embeds a document when a question first needs it).
  The units it embedded are counted from the cache's new vector files, and what embedding
  the units of all 510 contracts would take is the measured pace (characters per second)
  times their characters: an extrapolation, labelled as one.
- ``--chunks`` (instead of ``--cold``) times the chunk baseline's build alone in the cache
  given, counting the vector groups it already held: with ``--cache`` the shared cache, whose
  unit vectors an earlier build made, this is the cold build of what was missing.
- ``--embedding-backend`` sets the backend of every build and run (default the package's).
- Then ``--pairs`` warm pairs: ``-n 2``, then ``-n 0``, each a fresh pytest process on the
  now-filled cache; the ratio is the median ``-n 0`` time over the median ``-n 2`` time.

Writes ``perf/output/cuad_run.json`` (timings, load, cache state, embedding backend) and
``perf/output/cuad_run_summary.txt`` (the first warm ``-n 2`` run's printed summary). The
committed files came from ``--chunks --cache ~/.cache/pytest-legalbench --embedding-backend
torch-bf16 --pairs 1`` (written as ``cuad_run.json``, renamed ``cuad_run_cold.json``: the chunk build, then a first
pair whose ``-n 2`` run embedded the questions' query vectors), then the same without
``--chunks`` and with ``--pairs 2`` into ``cuad_run.json``. A
measurement, not a test: numbers are printed, never asserted; ``uptime`` before and after each
step says what else the machine was doing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from measuring import OUTPUT, REPO, commit, corpus_dir, machine_load

from pytest_legalbench.defaults import DEFAULT_EMBEDDING_BACKEND

#: Where the runs keep compiled bytecode between them (as a user's Python would).
PYCACHE = Path(tempfile.gettempdir()) / "legalbench-cuad-run-pycache"
MODES = ("navembed", "navembed:chunks")


#: The embedding backend of every run and build (``--embedding-backend``).
BACKEND = [DEFAULT_EMBEDDING_BACKEND]


def _environment(cache: Path) -> dict[str, str]:
    env = {**os.environ, "LEGALBENCH_CORPUS_DIR": str(corpus_dir()),
           "LEGALBENCH_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1",
           "PYTHONPYCACHEPREFIX": str(PYCACHE), "LEGALBENCH_EMBEDDING_BACKEND": BACKEND[0]}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def vector_files(cache: Path) -> set[Path]:
    """The cached vector groups (one ``.npy`` per embedded document and kind)."""
    return set((cache / "embeddings").rglob("*.npy"))


def run_benchmark(cache: Path, sample: int, workers: int, log: Path) -> dict[str, Any]:
    """One run of the target command; its wall and CPU time, exit status and output."""
    command = [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:cacheprovider",
               "--legalbench-profile", "cuad", "--legalbench-sample", str(sample),
               *(part for mode in MODES for part in ("--mode", mode)),
               "-n", str(workers), "--disable-recording"]
    load = machine_load()
    vectors_before = vector_files(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=_environment(cache), capture_output=True,
                          text=True, check=False)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    log.write_text(done.stdout + "\n--- stderr ---\n" + done.stderr, encoding="utf-8")
    last = done.stdout.strip().splitlines()[-1:] or [""]
    return {"workers": workers, "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
            "cores_busy": round(cpu / seconds, 2), "rc": done.returncode,
            "last_line": last[0], "load_before": load, "load_after": machine_load(),
            # A warm run embeds nothing: its new vector groups say whether it was.
            "vector_groups_embedded": len(vector_files(cache) - vectors_before),
            "log": str(log)}


def summary_text(output: str) -> str:
    """The printed summary: from its title line to the report lines, pytest's own left out."""
    lines = output.splitlines()
    start = next((n for n, line in enumerate(lines) if line.strip() == "legalbench summary"),
                 len(lines))
    kept = [line for line in lines[start:] if not line.startswith("=")]
    return "\n".join(kept).rstrip() + "\n"


def build_chunks(cache: Path) -> dict[str, Any]:
    """Build the chunk baseline's vectors of every cuad contract in this process, timed."""
    os.environ.update(_environment(cache))
    from pytest_legalbench.ingest.selection import Selection, load_documents
    from pytest_legalbench.modes.base import Corpus, ModeSettings
    from pytest_legalbench.modes.registry import build_mode

    documents = load_documents(Selection(profile="cuad"), corpus_dir=corpus_dir(),
                               cache_dir=cache)
    load = machine_load()
    started = time.perf_counter()
    cached = len(vector_files(cache))
    mode = build_mode("navembed:chunks", Corpus(tuple(documents), (), cache),
                      ModeSettings(embedding_backend=BACKEND[0]), None)
    seconds = time.perf_counter() - started
    chunks = len(getattr(mode, "chunks", ()))
    characters = sum(len(d.text) for d in documents)
    return {"documents": len(documents), "chunks": chunks, "characters": characters,
            "vector_groups_before": cached,
            "vector_groups_embedded": len(vector_files(cache)) - cached,
            "seconds": round(seconds, 1),
            "characters_per_second": round(characters / seconds) if seconds else None,
            "load_before": load, "load_after": machine_load()}


def embedded_units(new_files: set[Path], cache: Path) -> dict[str, Any]:
    """Which documents' unit vectors a run embedded, read from the new vector files' labels
    (node ids, ``<doc id>:<local id>``), and their characters."""
    from pytest_legalbench.ingest.selection import Selection, load_documents

    documents = {d.doc_id: d for d in load_documents(
        Selection(profile="cuad"), corpus_dir=corpus_dir(), cache_dir=cache)}
    embedded: set[str] = set()
    for path in new_files:
        sidecar = path.with_suffix(".json")
        try:
            labels = json.loads(sidecar.read_text(encoding="utf-8")).get("labels", [])
        except (OSError, ValueError):
            continue
        if labels and not str(labels[0]).split(":", 1)[-1].startswith("chunk-"):
            embedded.add(str(labels[0]).split(":", 1)[0])
    characters = sum(len(documents[d].text) for d in embedded if d in documents)
    return {"documents": len(embedded), "characters": characters,
            "corpus_characters": sum(len(d.text) for d in documents.values()),
            "corpus_documents": len(documents)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "legalbench-cuad-run-cache")
    parser.add_argument("--cold", action="store_true",
                        help="build the vectors first, timed, in an empty cache folder")
    parser.add_argument("--chunks", action="store_true",
                        help="build the chunk baseline's vectors of all 510 contracts first, "
                             "timed, in whatever cache is given (what was cached is counted)")
    parser.add_argument("--embedding-backend", default=DEFAULT_EMBEDDING_BACKEND,
                        help="the embedding backend of every run and build "
                             "($LEGALBENCH_EMBEDDING_BACKEND)")
    parser.add_argument("--pairs", type=int, default=1,
                        help="warm -n 2 / -n 0 pairs (0: the cold build alone)")
    parser.add_argument("--out", type=Path, default=OUTPUT / "cuad_run.json")
    parser.add_argument("--summary", type=Path, default=OUTPUT / "cuad_run_summary.txt")
    parser.add_argument("--logs", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    BACKEND[0] = args.embedding_backend
    args.cache.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "commit": commit(), "cpus": os.cpu_count(), "sample": args.sample,
        "modes": list(MODES), "embedding_backend": args.embedding_backend,
        "cache": str(args.cache), "machine_load_before": machine_load(),
        "command": (f"pytest benchmarks --legalbench-profile cuad --legalbench-sample "
                    f"{args.sample} --mode navembed --mode navembed:chunks -n 2 "
                    f"--disable-recording"),
    }
    if args.cold:
        if vector_files(args.cache):
            raise SystemExit(f"{args.cache} already holds vectors: --cold needs an empty cache")
        result["cold_chunks"] = build_chunks(args.cache)
        print(f"cold chunk vectors: {result['cold_chunks']}", file=sys.stderr)
        before = vector_files(args.cache)
        run = run_benchmark(args.cache, args.sample, 0, args.logs / "cuad-run-cold.log")
        units = embedded_units(vector_files(args.cache) - before, args.cache)
        pace = units["characters"] / run["seconds"] if run["seconds"] else 0.0
        run["units_embedded"] = units
        # An upper bound on the pace: the run's whole time is charged to the embedding.
        run["all_510_units_seconds_at_this_pace"] = (
            round(units["corpus_characters"] / pace) if pace else None)
        result["cold_run_n0"] = run
        print(f"cold run (-n 0): {run}", file=sys.stderr)
    elif args.chunks:
        result["chunks_build"] = build_chunks(args.cache)
        print(f"chunk vectors: {result['chunks_build']}", file=sys.stderr)
    warm: list[dict[str, Any]] = []
    if not args.pairs:
        result["machine_load_after"] = machine_load()
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        return 0
    for pair in range(args.pairs):
        for workers in (2, 0):
            log = args.logs / f"cuad-run-warm-{pair}-n{workers}.log"
            found = run_benchmark(args.cache, args.sample, workers, log)
            warm.append(found)
            print(f"warm run: {found}", file=sys.stderr)
            if pair == 0 and workers == 2:
                output = log.read_text(encoding="utf-8").split("\n--- stderr ---\n")[0]
                args.summary.write_text(summary_text(output), encoding="utf-8")
    n2 = statistics.median(r["seconds"] for r in warm if r["workers"] == 2)
    n0 = statistics.median(r["seconds"] for r in warm if r["workers"] == 0)
    result["warm_runs"] = warm
    result["warm_n2_seconds_median"] = n2
    result["warm_n0_seconds_median"] = n0
    result["speedup_n2_over_n0"] = round(n0 / n2, 2) if n2 else None
    result["targets"] = {"warm_n2_within_600_s": n2 <= 600,
                         "speedup_at_least_1_6": bool(n2) and n0 / n2 >= 1.6}
    result["machine_load_after"] = machine_load()
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("warm_n2_seconds_median",
                                             "warm_n0_seconds_median", "speedup_n2_over_n0",
                                             "targets")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
