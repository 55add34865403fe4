"""GANDR on the question set: what its retrieval finds, and the replayed run of all six systems.

Run: ``.venv/bin/python perf/gandr_replay.py [--workers 0 2]`` from the repository root
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). First the evidence recall and
payload of GANDR's retrieval (BM25 top 8, and B3's top-20 pool, over node passages): the
share of each question's evidence quotes lying inside one retrieved passage of its document.
Then ``pytest benchmarks --mode gandr:all`` replayed from the committed cassettes, timed, once
per worker count, and the GANDR summary of the last run. A measurement, not a test: the
numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import fmean

from measuring import corpus_dir

from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.gandr.passages import PassageIndex, node_passages
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.plugin.values import resolve_cache_dir
from pytest_legalbench.results.evidence import normalise
from pytest_legalbench.tokens import estimate_tokens

REPO = Path(__file__).resolve().parents[1]


def retrieval_recall(corpus: Path) -> None:
    """Print evidence recall and payload of BM25 over node passages at k = 8 and 20."""
    documents = load_documents(Selection(profile="transactions"), corpus_dir=corpus,
                               cache_dir=resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR")))
    index = PassageIndex(node_passages(build_indexes(documents, cache_dir=resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR"))),
                                       GandrSettings().passage_chars))
    questions = [q for q in load_question_set(question_sets_dir() / "transactions")
                 if q.evidence]
    print(f"{len(index.passages)} passages; {len(questions)} questions with evidence")
    for k in (GandrSettings().top_k, GandrSettings().b3_pool):
        recalls, payloads = [], []
        for question in questions:
            top = index.top(question.question, k)
            texts = [(p.doc_id, normalise(p.text)) for p in top]
            found = [any(doc == e.doc_id and normalise(e.quote) in text for doc, text in texts)
                     for e in question.evidence]
            recalls.append(sum(found) / len(found))
            payloads.append(sum(estimate_tokens(p.text) for p in top))
        print(f"BM25 top {k:2}: evidence recall {fmean(recalls):.3f}, all quotes found "
              f"{sum(r == 1.0 for r in recalls)}/{len(recalls)}, payload "
              f"{fmean(payloads):,.0f} tokens")


def replay(corpus: Path, workers: int) -> list[str]:
    """Replay every GANDR system once; print the wall time; return the output lines."""
    env = {**os.environ, "LEGALBENCH_CORPUS_DIR": str(corpus)}
    env.pop("ANTHROPIC_API_KEY", None)
    command = [sys.executable, "-m", "pytest", "benchmarks", "--mode=gandr:all",
               "-p", "no:cacheprovider", "-q", "-n", str(workers)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True,
                          check=False)
    elapsed = time.perf_counter() - started
    lines = done.stdout.splitlines()
    print(f"replay with -n {workers}: exit {done.returncode}, {elapsed:.1f} s wall; "
          f"{lines[-1] if lines else done.stderr[-300:]}")
    return lines


def main() -> int:
    """Measure retrieval, then time the replays and print the last summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 2])
    args = parser.parse_args()
    corpus = corpus_dir()
    retrieval_recall(corpus)
    lines: list[str] = []
    for workers in args.workers:
        lines = replay(corpus, workers)
    if "legalbench GANDR summary" in lines:
        print("\n".join(lines[lines.index("legalbench GANDR summary"):-1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
