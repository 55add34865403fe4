"""How fast unit vectors are built, per embedding backend, and whether the backends agree.

Run: ``.venv/bin/python perf/embedding_speed.py [--every 10]
[--backends torch,torch-bf16,onnx-int8] [--json OUT]`` (corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). Measured in one
run, each backend in its own process (so each reports its own peak memory), on the same texts:

- the CUAD profile's units (each with its context line, children pooled, exactly what
  navembed embeds), every ``--every``-th contract (1: all 510), built cold into an empty
  vector cache: seconds, texts and tokens per second, windows, peak resident memory, and the
  one-time model load (for onnx-int8, the export when the cache lacks it) timed apart;
- agreement of each backend with the first: cosine of every unit's two vectors;
- evidence recall of the embedding strategies on the transactions question set under each
  backend (``legalbench evaluate --embedding-backend``), so a faster backend is checked to
  rank as well as the model as shipped.

A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from measuring import corpus_dir

from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.unit_space import contextual_group
from pytest_legalbench.modes.units import UnitContext, unit_nodes
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.plugin.values import resolve_cache_dir
from pytest_legalbench.tokens import estimate_tokens
from pytest_legalbench.vectors.dense_index import DenseIndex, Piece
from pytest_legalbench.vectors.embedding import Embedder, packaged_model_path

RECALL_MODES = ("navembed:closure", "navembed:hybrid", "navembed:embed")


def cuad_groups(every: int) -> list[list[Piece]]:
    """navembed's pieces for every ``every``-th CUAD contract, one group per contract."""
    cache = resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR"))
    documents = load_documents(Selection("cuad"), corpus_dir=corpus_dir(), cache_dir=cache)
    indexes = build_indexes(documents, cache_dir=cache)[::every]
    context = UnitContext(indexes)
    return [contextual_group(unit_nodes(index), context) for index in indexes]


def one_backend(backend: str, every: int, vectors_out: Path,
                into_cache: bool = False) -> dict[str, object]:
    """Build the sample's vectors with ``backend`` into an empty cache (in this process), or
    into the configured cache folder with ``into_cache`` (so later runs read them)."""
    groups = cuad_groups(every)
    cache = resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR"))
    embedder = Embedder(packaged_model_path(), backend, cache)
    started = time.perf_counter()
    embedder.embed(["a clause"])  # loads the model (or exports it) outside the timed build
    load_s = time.perf_counter() - started
    texts = [piece.own_text for group in groups for piece in group]
    with tempfile.TemporaryDirectory(prefix="legalbench-embed-") as scratch:
        started = time.perf_counter()
        built = DenseIndex.build(embedder, groups, cache if into_cache else Path(scratch))
        build_s = time.perf_counter() - started
    np.save(vectors_out, built.vectors)
    tokens = sum(estimate_tokens(text) for text in texts)
    return {"backend": backend, "documents": len(groups), "texts": len(texts),
            "characters": sum(len(t) for t in texts), "estimated_tokens": tokens,
            "windowed": built.windowed, "groups_already_cached": built.groups_cached,
            "load_or_export_s": round(load_s, 1),
            "build_s": round(build_s, 1), "texts_per_s": round(len(texts) / build_s, 1),
            "tokens_per_s": round(tokens / build_s), "threads": _threads(backend),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def _threads(backend: str) -> int:
    if backend.startswith("torch"):
        import torch

        return int(torch.get_num_threads())
    return len(os.sched_getaffinity(0))


def recall(backend: str) -> dict[str, object]:
    """``legalbench evaluate`` of the embedding strategies under ``backend``."""
    command = [sys.executable, "-m", "pytest_legalbench.commands.cli", "evaluate", "-q",
               "--json", "--corpus-dir", str(corpus_dir()), "--embedding-backend", backend,
               *(part for mode in RECALL_MODES for part in ("--mode", mode))]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    return {mode: {key: summary["overall"][key]
                   for key in ("recall", "complete", "payload_tokens", "payload_max")}
            for mode, summary in report["modes"].items() if mode in RECALL_MODES}


def main() -> int:
    """Measure each backend in a child process, compare, print; save the JSON if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=10,
                        help="every N-th CUAD contract (1: all 510). Default: 10")
    parser.add_argument("--backends", default="torch,torch-bf16,onnx-int8")
    parser.add_argument("--skip-recall", action="store_true")
    parser.add_argument("--into-cache", action="store_true",
                        help="build into the configured cache folder (later runs read the "
                             "vectors; a cold figure only when it holds none of them)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--vectors", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one_backend(args.child, args.every, args.vectors, args.into_cache)),
              flush=True)
        return 0
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    report: dict[str, object] = {"cpus": len(os.sched_getaffinity(0)),
                                 "load_before": os.getloadavg(), "builds": []}
    builds: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="legalbench-vectors-") as scratch:
        for backend in backends:
            out = Path(scratch) / f"{backend}.npy"
            done = subprocess.run([sys.executable, __file__, "--every", str(args.every),
                                   "--child", backend, "--vectors", str(out),
                                   *(["--into-cache"] if args.into_cache else [])],
                                  capture_output=True, text=True, check=True)
            builds.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(builds[-1]), flush=True)
        first = np.load(Path(scratch) / f"{backends[0]}.npy")
        for backend, build in zip(backends[1:], builds[1:]):
            cosines = (first * np.load(Path(scratch) / f"{backend}.npy")).sum(axis=1)
            build[f"cosine_with_{backends[0]}"] = {
                "mean": round(float(cosines.mean()), 4), "min": round(float(cosines.min()), 4),
                "p01": round(float(np.quantile(cosines, 0.01)), 4)}
            build["speedup_over_" + backends[0]] = round(
                float(str(builds[0]["build_s"])) / float(str(build["build_s"])), 2)
    report["builds"] = builds
    if not args.skip_recall:
        report["recall"] = {backend: recall(backend) for backend in backends}
        print(json.dumps({"recall": report["recall"]}), flush=True)
    report["load_after"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
