"""What the harness adds to a retriever of your own, per question: checking its passages,
locating those without offsets in their documents, citing each by the provision that holds
it, and cutting the retrieval to the payload budget (``modes.retriever_mode``).

Run: ``.venv/bin/python perf/retriever_overhead.py [--json OUT]`` (corpus from
$LEGALBENCH_CORPUS_DIR, else ../shared/corpus). On the transactions profile (its indexes from
the cache, built once when missing), each question of the packaged set gets the same kind of
retrieval from a retriever that only hands back what was prepared for it, so the time
measured is the harness's alone. The passages are the question's document's eight largest
leaf provisions (under the default 6,000-token budget), given four ways:

- ``spans``: with ``start``/``end`` (checked against the text, no search);
- ``exact``: without offsets, the text as it stands in the document;
- ``reflowed``: without offsets, each line break turned to a space and straight quotes
  curled, as text copied through a word processor arrives (the tolerant search);
- ``unlocatable``: text found in no document (the tolerant search reads the whole document
  and fails; the passages are still shown and counted).

Median and worst milliseconds per question over the set, and per passage. A measurement, not
a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from measuring import commit, corpus_dir, machine_load

from pytest_legalbench import Passage, RetrieverQuestion
from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.base import Corpus, ModeSettings
from pytest_legalbench.modes.retriever_mode import RetrieverMode
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.plugin.values import resolve_cache_dir

#: Passages per retrieval.
PASSAGES = 8
#: Timed repeats of each question's retrieval (the median is kept).
REPEATS = 5


class Prepared:
    """A retriever that hands back the passages prepared for each question id."""

    def __init__(self, by_question: dict[str, list[Passage]]) -> None:
        self.by_question = by_question

    def retrieve(self, question: RetrieverQuestion) -> Sequence[Passage]:
        return self.by_question[question.id]


def _leaves(index: DocumentIndex) -> list[tuple[int, int]]:
    """Spans of the document's largest leaf provisions, in document order."""
    leaves = [n for n in index.nodes if not n.children and n.kind != "document"
              and n.text.strip()]
    largest = sorted(leaves, key=lambda n: -(n.end - n.start))[:PASSAGES]
    return sorted((n.start, n.end) for n in largest)


def _curled(text: str) -> str:
    """Line breaks made spaces and straight double quotes curled, alternately."""
    out, opening = [], True
    for char in text.replace("\n", " "):
        if char == '"':
            out.append("\u201c" if opening else "\u201d")
            opening = not opening
        else:
            out.append(char)
    return "".join(out)


def _kinds(doc_id: str, text: str, spans: list[tuple[int, int]],
           ) -> dict[str, list[Passage]]:
    pieces = [(start, end, text[start:end].strip()) for start, end in spans]
    return {
        "spans": [Passage(doc_id, text[s:e], start=s, end=e) for s, e, _ in pieces],
        "exact": [Passage(doc_id, piece) for _, _, piece in pieces],
        "reflowed": [Passage(doc_id, _curled(piece)) for _, _, piece in pieces],
        "unlocatable": [Passage(doc_id, f"zq{n} " + piece[::-1]) for n, (_, _, piece)
                        in enumerate(pieces)],
    }


def _timed(call: Callable[[], object]) -> float:
    runs = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        call()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def measure(corpus_root: Path) -> dict[str, object]:
    """Per-question harness time for each kind of retrieval."""
    cache = resolve_cache_dir(None)
    documents = load_documents(Selection("transactions"), corpus_dir=corpus_root,
                               cache_dir=cache)
    indexes = build_indexes(documents, cache_dir=cache)
    corpus = Corpus(documents, indexes, cache)
    texts = {d.doc_id: d.text for d in documents}
    by_doc = {index.doc_id: index for index in indexes}
    questions = load_question_set(question_sets_dir() / "transactions")
    prepared: dict[str, dict[str, list[Passage]]] = {}
    for question in questions:
        doc_id = question.documents[0]
        for kind, passages in _kinds(doc_id, texts[doc_id], _leaves(by_doc[doc_id])).items():
            prepared.setdefault(kind, {})[question.id] = passages
    figures: dict[str, object] = {}
    for kind, by_question in prepared.items():
        # No timeout thread: the thread's start is the retriever's cost, not the harness's.
        mode = RetrieverMode(kind, Prepared(by_question), corpus, ModeSettings(),
                             timeout_s=None)
        times, located, shown = [], 0, 0
        for question in questions:
            retrieval = mode.retrieve(question.question, question_id=question.id)
            located += sum(not p.unlocated for p in retrieval.provisions)
            shown += len(retrieval.provisions)
            times.append(_timed(partial(mode.retrieve, question.question,
                                        question_id=question.id)))
        figures[kind] = {
            "questions": len(times), "passages_shown": shown, "passages_located": located,
            "median_ms": round(statistics.median(times) * 1000, 2),
            "max_ms": round(max(times) * 1000, 2),
            "per_passage_median_ms": round(statistics.median(times) * 1000
                                           / max(1, shown / len(times)), 3)}
    sizes = sorted(len(texts[q.documents[0]]) for q in questions)
    return {"commit": commit(), "load": machine_load(), "passages_per_retrieval": PASSAGES,
            "repeats": REPEATS, "document_chars_median": sizes[len(sizes) // 2],
            "document_chars_max": sizes[-1], "kinds": figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    figures = measure(corpus_dir())
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
