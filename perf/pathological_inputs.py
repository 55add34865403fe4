"""How indexing and unit embedding scale on a long one-line document.

Run: ``.venv/bin/python perf/pathological_inputs.py [--checkouts A,B] [--index-mb 1,2.5,5]
[--embed-kb 50,100,200] [--repeats 2] [--sources agreement,definitions] [--json OUT]``
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). Each input is a real corpus
agreement with its line breaks replaced by spaces, repeated to the size asked (in characters):
``agreement`` is stonepoint's second amendment (7 KB of ordinary clauses), ``definitions`` the
stonepoint revolving credit agreement (358 KB, nearly two hundred "means" definitions). Every
measurement runs in a child process of its own that imports ``pytest_legalbench`` from one
checkout (``--checkouts``: several are measured back to back, interleaved, so they share the
machine's load), the file in a folder of its own:

- index: ``load_folder`` and ``build_corpus`` of the folder, what ``legalbench index --docs DIR
  --no-cache`` does after its imports (start-up left out, so the ratios are the build's own);
  the best of ``--repeats`` runs;
- cut: the cutting of navembed's units (context line and own words) into the model's windows
  at the same sizes: the tokeniser over each whole unit and each window tokenised again
  (``Embedder.windows``), timed apart from the model, with the number of windows;
- embed: the same units built into a ``DenseIndex`` without a cache (cutting and the model),
  model load left out, at smaller sizes: a CPU encodes a few to a few tens of windows a
  second, so the large sizes' embedding time is projected from their windows at the rate
  measured here (``embed_s_projected``).

For each step up in size, the time ratio per doubling of the input: 2.0 is linear, 4.0
quadratic. A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from measuring import commit, corpus_dir

if TYPE_CHECKING:
    from pytest_legalbench.navindex.node import DocumentIndex

SOURCES = {
    "agreement": "transactions/stonepoint/01_second_amendment.txt",
    "definitions": "transactions/stonepoint/02_revolving_credit_agreement_conformed.txt",
}
Row = dict[str, Any]


def one_line(source: str, characters: int) -> str:
    """The source document on one line (breaks as spaces), repeated to ``characters``."""
    text = (corpus_dir() / SOURCES[source]).read_text(encoding="utf-8").replace("\n", " ")
    copies = characters // (len(text) + 1) + 1
    return (" ".join([text] * copies))[:characters]


def measure(step: str, source: str, characters: int) -> Row:
    """Index the one-line input in this process; for ``cut`` and ``embed`` go on as named."""
    from pytest_legalbench.ingest.loading import load_folder
    from pytest_legalbench.navindex.build import build_corpus

    with tempfile.TemporaryDirectory(prefix="legalbench-oneline-") as scratch:
        folder = Path(scratch) / "doc"
        folder.mkdir()
        (folder / f"{source}.txt").write_text(one_line(source, characters), encoding="utf-8")
        started = time.perf_counter()
        indexes = build_corpus(load_folder(folder))
        index_s = time.perf_counter() - started
    result: Row = {"step": step, "source": source, "characters": characters,
                   "nodes": len(indexes[0].nodes), "index_s": round(index_s, 2)}
    if step != "index":
        result.update(_windows(indexes, encode=step == "embed"))
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return result


def _windows(indexes: tuple[DocumentIndex, ...], *, encode: bool) -> Row:
    """Cut the units into windows (timed); with ``encode``, also build their vectors."""
    from pytest_legalbench.modes.unit_space import contextual_group
    from pytest_legalbench.modes.units import UnitContext, unit_nodes
    from pytest_legalbench.vectors.dense_index import DenseIndex
    from pytest_legalbench.vectors.embedding import Embedder, packaged_model_path

    embedder = Embedder(packaged_model_path())
    embedder.embed(["a clause"])  # the model loads outside the timed steps
    context = UnitContext(indexes)
    groups = [contextual_group(unit_nodes(index), context) for index in indexes]
    texts = [piece.own_text for group in groups for piece in group if piece.own_text.strip()]
    started = time.perf_counter()
    windows = sum(len(embedder.windows(text)) for text in texts)
    cut_s = time.perf_counter() - started
    found: Row = {"units": len(texts), "windows": windows, "cut_windows_s": round(cut_s, 2)}
    if encode:
        started = time.perf_counter()
        DenseIndex.build(embedder, groups, None)
        embed_s = time.perf_counter() - started
        found.update(embed_s=round(embed_s, 2), windows_per_s=round(windows / embed_s, 1))
    return found


def per_doubling(sizes: list[int], seconds: list[float]) -> list[float | None]:
    """The time ratio per doubling of the input between each size and the one before."""
    ratios: list[float | None] = [None]
    for (size_a, time_a), (size_b, time_b) in itertools.pairwise(zip(sizes, seconds,
                                                                     strict=True)):
        exponent = math.log(max(time_b, 1e-9) / max(time_a, 1e-9)) / math.log(size_b / size_a)
        ratios.append(round(2 ** exponent, 2))
    return ratios


def _child(checkout: Path, step: str, source: str, characters: int) -> Row:
    """One measurement in a child process importing ``pytest_legalbench`` from ``checkout``."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, __file__, "--child", step, source, str(characters)],
                          capture_output=True, text=True, check=True, env=env)
    row: Row = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps({"checkout": str(checkout), **row}), flush=True)
    return row


def _index_rows(source: str, checkouts: dict[str, Path], sizes: list[int],
                repeats: int) -> list[Row]:
    """Per size, each checkout's best index time of ``repeats`` (checkouts interleaved)."""
    rows: list[Row] = []
    for size in sizes:
        best: dict[str, Row] = {}
        for _ in range(repeats):
            for label, checkout in checkouts.items():
                row = _child(checkout, "index", source, size)
                if label not in best or row["index_s"] < best[label]["index_s"]:
                    best[label] = row
        rows.append({"characters": size,
                     "nodes": {label: row["nodes"] for label, row in best.items()},
                     "index_s": {label: row["index_s"] for label, row in best.items()},
                     "index_s_per_doubling": {}})
    for label in checkouts:
        ratios = per_doubling(sizes, [row["index_s"][label] for row in rows])
        for row, ratio in zip(rows, ratios, strict=True):
            row["index_s_per_doubling"][label] = ratio
    return rows


def measure_source(source: str, checkouts: dict[str, Path], index_sizes: list[int],
                   embed_sizes: list[int], repeats: int) -> Row:
    """Index times, window cutting at the same sizes and embedding at the small sizes."""
    cut: dict[str, list[Row]] = {}
    embed: dict[str, list[Row]] = {}
    for label, checkout in checkouts.items():
        cut[label] = [_child(checkout, "cut", source, n) for n in index_sizes]
        embed[label] = [_child(checkout, "embed", source, n) for n in embed_sizes]
        for row, ratio in zip(cut[label], per_doubling(
                index_sizes, [row["cut_windows_s"] for row in cut[label]]), strict=True):
            row["cut_windows_s_per_doubling"] = ratio
        for row, ratio in zip(embed[label], per_doubling(
                embed_sizes, [row["embed_s"] for row in embed[label]]), strict=True):
            row["embed_s_per_doubling"] = ratio
        if embed[label]:
            rate = (sum(row["windows"] for row in embed[label])
                    / sum(row["embed_s"] for row in embed[label]))
            for row in cut[label]:
                # The model's cost is per window; these sizes are projected, not encoded.
                row["embed_s_projected"] = round(row["windows"] / rate)
    return {"index": _index_rows(source, checkouts, index_sizes, repeats), "cut": cut,
            "embed": embed}


def _sizes(text: str, unit: int) -> list[int]:
    return [int(float(part) * unit) for part in text.split(",") if part.strip()]


def main() -> int:
    """Measure every source at every size, each in a child process; print; save if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkouts", default="", help="checkouts to measure back to back, "
                        "comma-separated (default: the one this process imports)")
    parser.add_argument("--index-mb", default="1,2.5,5", help="index and cutting sizes, in "
                        "millions of characters (default: 1,2.5,5)")
    parser.add_argument("--embed-kb", default="50,100,200", help="embedding sizes, in "
                        "thousands of characters (default: 50,100,200; empty: none)")
    parser.add_argument("--repeats", type=int, default=2, help="index timings per checkout "
                        "and size, the best kept (default: 2)")
    parser.add_argument("--sources", default=",".join(SOURCES))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        step, source, characters = args.child
        print(json.dumps(measure(step, source, int(characters))), flush=True)
        return 0
    import pytest_legalbench

    paths = [Path(p.strip()).resolve() for p in args.checkouts.split(",") if p.strip()] or \
        [Path(pytest_legalbench.__file__).resolve().parents[1]]
    checkouts = {commit(path): path for path in paths}
    report: Row = {"checkouts": {label: str(path) for label, path in checkouts.items()},
                   "cpus": len(os.sched_getaffinity(0)), "load_before": os.getloadavg()}
    for source in [s.strip() for s in args.sources.split(",") if s.strip()]:
        report[source] = measure_source(source, checkouts, _sizes(args.index_mb, 1_000_000),
                                        _sizes(args.embed_kb, 1_000), args.repeats)
    report["load_after"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
