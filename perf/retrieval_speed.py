"""How fast retrieval is: BM25 over the whole CUAD profile, one question warm on the
transactions profile, and the index and vector builds.

Run: ``.venv/bin/python perf/retrieval_speed.py [--skip-cuad] [--json OUT]`` (corpus from
$LEGALBENCH_CORPUS_DIR, else ../shared/corpus). Figures, measured in one run on this machine:

- BM25 over every CUAD unit (contextual text, stemmed): build time, and the median and worst
  query time of the sparse scorer over the CUAD span queries' wording, beside rank_bm25's
  ``BM25Okapi`` on the same texts for a few queries (its per-query walk is what this replaced);
- one question warm (everything built, the model loaded) for ``navembed:closure`` and
  ``navindex`` on the transactions profile, median and worst over the question set, with and
  without the time spent in model calls (navindex's scan: the reference backend's navigator
  offline, a language model for users with a key);
- the transactions index build and unit-vector build, cold, into a fresh cache folder.

A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from measuring import corpus_dir

from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.units import UnitContext, unit_nodes
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.plugin.values import resolve_cache_dir
from pytest_legalbench.run.query import query_session
from pytest_legalbench.vectors.bm25 import SparseBM25
from pytest_legalbench.vectors.lexical_index import stemmed


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def cuad_bm25(corpus: Path, cache: Path) -> dict[str, object]:
    """Build BM25 over every CUAD unit and time queries, ours and rank_bm25's."""
    from rank_bm25 import BM25Okapi

    from pytest_legalbench.spans.cuad_import import import_cuad

    documents = load_documents(Selection("cuad"), corpus_dir=corpus, cache_dir=cache)
    indexes = build_indexes(documents, cache_dir=cache)
    context = UnitContext(indexes)
    texts = [stemmed(context.text(n)) or ["\0"] for i in indexes for n in unit_nodes(i)]
    started = time.perf_counter()
    bm25 = SparseBM25(texts)
    built = time.perf_counter() - started
    benchmark, _ = import_cuad(corpus)
    queries = [stemmed(t.query) for t in benchmark.tests[::31][:200]]
    times = []
    for query in queries:
        started = time.perf_counter()
        bm25.scores(query)
        times.append(time.perf_counter() - started)
    reference = BM25Okapi(texts)
    reference_times = []
    for query in queries[:3]:
        started = time.perf_counter()
        reference.get_scores(query)
        reference_times.append(time.perf_counter() - started)
    return {"units": len(texts), "documents": len(indexes), "build_s": round(built, 2),
            "queries": len(times), "query_median_ms": _ms(statistics.median(times)),
            "query_max_ms": _ms(max(times)),
            "rank_bm25_query_median_ms": _ms(statistics.median(reference_times))}


def warm_latency(corpus: Path, cache: Path) -> dict[str, object]:
    """Per-question retrieval time with everything built, for the two default families."""
    documents = load_documents(Selection("transactions"), corpus_dir=corpus, cache_dir=cache)
    indexes = build_indexes(documents, cache_dir=cache)
    questions = [q for q in load_question_set(question_sets_dir() / "transactions")]
    found: dict[str, object] = {}
    for mode in ("navembed:closure", "navindex"):
        with query_session(documents, indexes, mode=mode, backend="reference", base_url=None,
                           settings=ModeSettings(), cache_dir=cache) as session:
            session.mode.retrieve(questions[0].question)  # the model and caches, loaded
            times = []
            own = []
            for question in questions:
                started = time.perf_counter()
                retrieval = session.mode.retrieve(question.question, question_id=question.id)
                elapsed = time.perf_counter() - started
                times.append(elapsed)
                # navindex's scan is a model call (here the reference backend's navigator
                # over loopback HTTP); what is left is this package's own retrieval work.
                own.append(elapsed - sum(call.latency_s for call in retrieval.calls))
        found[mode] = {"questions": len(times), "median_ms": _ms(statistics.median(times)),
                       "max_ms": _ms(max(times)),
                       "without_model_calls_median_ms": _ms(statistics.median(own)),
                       "without_model_calls_max_ms": _ms(max(own))}
    return found


def cold_builds(corpus: Path) -> dict[str, object]:
    """The transactions index and unit vectors built into an empty cache."""
    from pytest_legalbench.modes.base import Corpus
    from pytest_legalbench.modes.navembed import ClosureMode
    from pytest_legalbench.vectors.embedding import Embedder, resolve_model_path

    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch)
        documents = load_documents(Selection("transactions"), corpus_dir=corpus, cache_dir=cache)
        started = time.perf_counter()
        indexes = build_indexes(documents, cache_dir=cache)
        index_s = time.perf_counter() - started
        embedder = Embedder(resolve_model_path(None))
        embedder.max_seq_length()  # the model loads outside the timed build
        started = time.perf_counter()
        ClosureMode(Corpus(documents, indexes, cache), ModeSettings(), embedder)
        vectors_s = time.perf_counter() - started
    return {"index_build_s": round(index_s, 2), "unit_vectors_build_s": round(vectors_s, 1)}


def main() -> int:
    """Measure and print; save the JSON if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-cuad", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    corpus = corpus_dir()
    cache = resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR"))
    report: dict[str, object] = {}
    if not args.skip_cuad:
        report["cuad_bm25"] = cuad_bm25(corpus, cache)
        print(json.dumps({"cuad_bm25": report["cuad_bm25"]}), flush=True)
    report["warm_retrieval"] = warm_latency(corpus, cache)
    print(json.dumps({"warm_retrieval": report["warm_retrieval"]}), flush=True)
    report["cold_builds"] = cold_builds(corpus)
    print(json.dumps({"cold_builds": report["cold_builds"]}), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
