"""How indexing and unit embedding scale on a long one-line document.

Run: ``.venv/bin/python perf/pathological_inputs.py [--index-mb 1,2.5,5] [--embed-kb 50,100,200]
[--sources agreement,definitions] [--json OUT]`` (corpus from $LEGALBENCH_CORPUS_DIR, else
../shared/corpus). Each input is a real corpus agreement with its line breaks replaced by
spaces, repeated to the size asked (in characters): ``agreement`` is stonepoint's second
amendment (7 KB of ordinary clauses), ``definitions`` the stonepoint revolving credit agreement
(358 KB, nearly two hundred "means" definitions). Every measurement runs in its own child
process, the file in a folder of its own:

- index: ``load_folder`` and ``build_corpus`` of the folder, what ``legalbench index --docs DIR
  --no-cache`` does after its imports (start-up left out, so the ratios are the build's own);
  then the cutting of navembed's units (context line and own words) into the model's windows:
  the tokeniser over each whole unit and each window tokenised again (``Embedder.windows``),
  timed apart from the model, with the number of windows;
- embed: the same units built into a ``DenseIndex`` without a cache (cutting and the model),
  model load left out, at smaller sizes: a CPU encodes tens of windows a second at best, so
  the 5 MB figure is the windows counted above at the rate measured here.

For each step up in size, the time ratio per doubling of the input: 2.0 is linear, 4.0
quadratic. The script imports ``pytest_legalbench`` from $PYTHONPATH, so the same file
measures another checkout (``PYTHONPATH=/tmp/robust-base``). A measurement, not a test: the
numbers are printed, never asserted.
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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_legalbench.navindex.node import DocumentIndex

SOURCES = {
    "agreement": "transactions/stonepoint/01_second_amendment.txt",
    "definitions": "transactions/stonepoint/02_revolving_credit_agreement_conformed.txt",
}


def _corpus_dir() -> Path:
    configured = os.environ.get("LEGALBENCH_CORPUS_DIR")
    return (Path(configured) if configured
            else Path(__file__).resolve().parents[2] / "shared" / "corpus")


def one_line(source: str, characters: int) -> str:
    """The source document on one line (breaks as spaces), repeated to ``characters``."""
    text = (_corpus_dir() / SOURCES[source]).read_text(encoding="utf-8").replace("\n", " ")
    copies = characters // (len(text) + 1) + 1
    return (" ".join([text] * copies))[:characters]


def measure(step: str, source: str, characters: int) -> dict[str, object]:
    """Index (and for ``embed`` also embed) the one-line input in this process."""
    from pytest_legalbench.ingest.loading import load_folder
    from pytest_legalbench.navindex.build import build_corpus

    with tempfile.TemporaryDirectory(prefix="legalbench-oneline-") as scratch:
        folder = Path(scratch) / "doc"
        folder.mkdir()
        (folder / f"{source}.txt").write_text(one_line(source, characters), encoding="utf-8")
        started = time.perf_counter()
        indexes = build_corpus(load_folder(folder))
        index_s = time.perf_counter() - started
    result: dict[str, object] = {"step": step, "source": source, "characters": characters,
                                 "nodes": len(indexes[0].nodes), "index_s": round(index_s, 2)}
    result.update(_embed(indexes, encode=step == "embed"))
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return result


def _embed(indexes: tuple[DocumentIndex, ...], *, encode: bool) -> dict[str, object]:
    from pytest_legalbench.modes.node_ranking import contextual_group
    from pytest_legalbench.modes.units import UnitContext, unit_nodes
    from pytest_legalbench.vectors.dense_index import DenseIndex
    from pytest_legalbench.vectors.embedding import Embedder, packaged_model_path

    embedder = Embedder(packaged_model_path())
    embedder.embed(["a clause"])  # the model loads outside the timed build
    context = UnitContext(indexes)
    groups = [contextual_group(unit_nodes(index), context) for index in indexes]
    texts = [piece.own_text for group in groups for piece in group if piece.own_text.strip()]
    started = time.perf_counter()
    windows = sum(len(embedder.windows(text)) for text in texts)
    cut_s = time.perf_counter() - started
    found: dict[str, object] = {"units": len(texts), "windows": windows,
                                "cut_windows_s": round(cut_s, 2)}
    if encode:
        started = time.perf_counter()
        DenseIndex.build(embedder, groups, None)
        embed_s = time.perf_counter() - started
        found.update(embed_s=round(embed_s, 2), windows_per_s=round(windows / embed_s, 1))
    return found


def per_doubling(rows: list[dict[str, object]], key: str) -> None:
    """Add to each row after the first its time ratio per doubling of the input."""
    for before, after in itertools.pairwise(rows):
        size = float(str(after["characters"])) / float(str(before["characters"]))
        seconds = float(str(after[key])) / max(float(str(before[key])), 1e-9)
        after[f"{key}_per_doubling"] = round(2 ** (math.log(seconds) / math.log(size)), 2)


def _child(step: str, source: str, characters: int) -> dict[str, object]:
    done = subprocess.run([sys.executable, __file__, "--child", step, source, str(characters)],
                          capture_output=True, text=True, check=True)
    row: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(row), flush=True)
    return row


def _sizes(text: str, unit: int) -> list[int]:
    return [int(float(part) * unit) for part in text.split(",") if part.strip()]


def main() -> int:
    """Measure every source at every size, each in a child process; print; save if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-mb", default="1,2.5,5", help="index sizes, in millions of "
                        "characters (default: 1,2.5,5)")
    parser.add_argument("--embed-kb", default="50,100,200", help="embedding sizes, in "
                        "thousands of characters (default: 50,100,200; empty: none)")
    parser.add_argument("--sources", default=",".join(SOURCES))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        step, source, characters = args.child
        print(json.dumps(measure(step, source, int(characters))), flush=True)
        return 0
    import pytest_legalbench

    report: dict[str, object] = {
        "package": str(Path(pytest_legalbench.__file__).resolve().parent),
        "commit": _commit(Path(pytest_legalbench.__file__).resolve().parents[1]),
        "cpus": len(os.sched_getaffinity(0)), "load_before": os.getloadavg()}
    for source in [s.strip() for s in args.sources.split(",") if s.strip()]:
        index = [_child("index", source, n) for n in _sizes(args.index_mb, 1_000_000)]
        per_doubling(index, "index_s")
        per_doubling(index, "cut_windows_s")
        embed = [_child("embed", source, n) for n in _sizes(args.embed_kb, 1_000)]
        per_doubling(embed, "embed_s")
        rate = (sum(float(str(row["windows"])) for row in embed)
                / max(sum(float(str(row["embed_s"])) for row in embed), 1e-9))
        for row in index:
            # The model's cost is per window; this size is not encoded, only projected.
            row["embed_s_projected"] = round(float(str(row["windows"])) / rate, 1) \
                if embed else None
        report[source] = {"index": index, "embed": embed}
    report["load_after"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


def _commit(checkout: Path) -> str:
    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False)
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--",
                            "pytest_legalbench"], capture_output=True, text=True,
                           check=False).stdout
    return done.stdout.strip() + ("+uncommitted" if dirty.strip() else "")


if __name__ == "__main__":
    raise SystemExit(main())
