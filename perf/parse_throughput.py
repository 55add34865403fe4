"""Throughput of parsing plus flag extraction over a folder of contracts, single process, and
of the full index build: serial, then on every available core (``build_parallel``), checked to
give the same indexes. The parallel build is also timed three times in a fresh process each
(documents read, then ``build_parallel``), as ``legalbench index`` runs it cold: in the
measuring process it follows the serial build, whose heap and warm caches make it read
seconds faster or slower from one run to the next.

Run: ``.venv/bin/python perf/parse_throughput.py [--docs DIR] [--json]`` (default: the CUAD
contracts under $LEGALBENCH_CORPUS_DIR or ../shared/corpus). A measurement, not a test: the
numbers are printed, never asserted.

``--compare BEFORE [--runs N] [--out FILE]`` compares this checkout's parser with another
checkout's (a ``git archive`` of the commit before a change, say): the serial parse and full
build are timed in fresh processes, alternately before and after, ``N`` times each (default 3),
in wall-clock and CPU seconds. On a shared machine the wall-clock times swing with the load;
the CPU seconds of the same process, and the median of alternating runs, are what compare.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from measuring import machine_load, peak_rss_mb

from pytest_legalbench.ingest.decoding import read_document
from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.flags import extract_flags
from pytest_legalbench.navindex.outline import build_outline
from pytest_legalbench.navindex.parallel_build import available_cores, build_parallel


def _default_docs() -> Path:
    corpus = os.environ.get("LEGALBENCH_CORPUS_DIR") or str(
        Path(__file__).resolve().parents[2] / "shared" / "corpus")
    return Path(corpus) / "cuad" / "contracts"


def _read(folder: Path) -> list[Document]:
    documents = []
    for path in sorted(folder.glob("*.txt")):
        decoded = read_document(path)
        documents.append(Document(doc_id=doc_id_for(path.name), title=path.stem,
                                  text=decoded.text, sha256=decoded.sha256))
    return documents


def _parse_and_flag(documents: list[Document]) -> int:
    leaves = 0
    for document in documents:
        for draft in build_outline(document.text).drafts:
            if not draft.children:
                extract_flags(document.text[draft.start:draft.end])
                leaves += 1
    return leaves


def _fresh_parallel_s(docs: Path, runs: int = 3) -> list[float]:
    """Seconds of ``build_parallel`` in ``runs`` fresh processes (reading not timed)."""
    seconds = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, __file__, "--docs", str(docs),
                               "--child-parallel"], capture_output=True, text=True, check=True)
        seconds.append(float(done.stdout.strip().splitlines()[-1]))
    return seconds


def _serial(documents: list[Document]) -> dict[str, float]:
    """Wall-clock and CPU seconds of the parse with flags, then of the full serial build."""
    wall, cpu = time.perf_counter(), time.process_time()
    leaves = _parse_and_flag(documents)
    parse = (time.perf_counter() - wall, time.process_time() - cpu)
    wall, cpu = time.perf_counter(), time.process_time()
    nodes = sum(len(i.nodes) for i in build_corpus(documents))
    build = (time.perf_counter() - wall, time.process_time() - cpu)
    return {"leaves": leaves, "nodes": nodes, "parse_and_flags_s": round(parse[0], 2),
            "parse_and_flags_cpu_s": round(parse[1], 2), "full_build_s": round(build[0], 2),
            "full_build_cpu_s": round(build[1], 2)}


def _compare(before: Path, docs: Path, runs: int) -> dict[str, object]:
    """Alternate fresh serial runs of ``before``'s package and this checkout's."""
    here = Path(__file__).resolve().parents[1]
    found: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for _ in range(runs):
        for side, checkout in (("before", before.resolve()), ("after", here)):
            env = {**os.environ, "PYTHONPATH": str(checkout)}
            done = subprocess.run([sys.executable, __file__, "--docs", str(docs),
                                   "--child-serial"], capture_output=True, text=True,
                                  check=True, env=env)
            found[side].append(json.loads(done.stdout.strip().splitlines()[-1]))
    keys = ("parse_and_flags_s", "parse_and_flags_cpu_s", "full_build_s", "full_build_cpu_s")
    medians = {side: {k: statistics.median(r[k] for r in rows) for k in keys}
               for side, rows in found.items()}
    return {"runs": found, "median": medians,
            "after_over_before": {k: round(medians["after"][k] / medians["before"][k], 3)
                                  for k in keys},
            "nodes": {side: rows[0]["nodes"] for side, rows in found.items()},
            "leaves": {side: rows[0]["leaves"] for side, rows in found.items()}}


def main() -> int:
    """Measure and print the throughput figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=Path, default=_default_docs())
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--compare", type=Path, metavar="BEFORE",
                        help="a checkout whose parser to compare with this one")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, help="with --compare: also write the JSON here")
    parser.add_argument("--child-parallel", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-serial", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare is not None:
        compared = {"command": " ".join(sys.argv), "load_before": machine_load(),
                    **_compare(args.compare, args.docs, args.runs),
                    "load_after": machine_load()}
        text = json.dumps(compared, indent=1)
        print(text)
        if args.out is not None:
            args.out.write_text(text + "\n", encoding="utf-8")
        return 0
    documents = _read(args.docs)
    if args.child_serial:
        print(json.dumps(_serial(documents)))
        return 0
    if args.child_parallel:
        started = time.perf_counter()
        build_parallel(documents)
        print(round(time.perf_counter() - started, 2))
        return 0
    size_mb = sum(len(d.text.encode("utf-8")) for d in documents) / 1e6
    started = time.perf_counter()
    leaves = _parse_and_flag(documents)
    parse_s = time.perf_counter() - started
    rss_before = peak_rss_mb()
    started = time.perf_counter()
    indexes = build_corpus(documents)
    build_s = time.perf_counter() - started
    peak_serial = peak_rss_mb()
    started = time.perf_counter()
    parallel = build_parallel(documents)
    parallel_s = time.perf_counter() - started
    result: dict[str, object] = {
        "documents": len(documents), "megabytes": round(size_mb, 2), "leaves": leaves,
        "nodes": sum(len(i.nodes) for i in indexes),
        "parse_and_flags_s": round(parse_s, 2), "parse_and_flags_mb_per_s": round(size_mb / parse_s, 2),
        "full_build_s": round(build_s, 2),
        "full_build_mb_per_s": round(size_mb / build_s, 2),
        "peak_rss_mb_after_reading_and_parsing": rss_before,
        "peak_rss_mb_after_full_build": peak_serial,
        "parallel_workers": available_cores(),
        "parallel_build_s": round(parallel_s, 2),
        "parallel_speedup": round(build_s / parallel_s, 2),
        "parallel_equals_serial": parallel == indexes,
        "peak_rss_mb_after_parallel_build": peak_rss_mb(),
        "peak_rss_mb_largest_worker": round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e3, 1),
    }
    fresh = _fresh_parallel_s(args.docs)
    result["parallel_build_fresh_process_s"] = fresh
    result["parallel_build_fresh_process_median_s"] = statistics.median(fresh)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:40} {value}")
        print("(full build = outline, references, defined terms, flags, keywords, summaries "
              "and tags of every document, all held in memory)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
