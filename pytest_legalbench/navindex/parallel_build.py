"""Building a large corpus's indexes on every core: documents are split into families (an
amendment always with the documents it amends), and each batch of families is built by
``build_corpus`` in its own process.

The result is the serial build's, in the input's order: a family holds everything a document's
linking reads, so where it was built cannot change what it holds.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.node import DocumentIndex

#: Below this many characters the serial build finishes before worker processes would start.
MIN_PARALLEL_CHARS = 2_000_000
#: Batches per worker: enough to even out unequal documents, few enough to keep transfers small.
_BATCHES_PER_WORKER = 4


def available_cores() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)


def families(documents: Sequence[Document]) -> list[list[Document]]:
    """Group ``documents`` so that each amendment shares a group with the documents it amends
    (those present); groups and their members keep the input's order."""
    position = {d.doc_id: n for n, d in enumerate(documents)}
    root = list(range(len(documents)))

    def find(n: int) -> int:
        while root[n] != n:
            root[n] = root[root[n]]
            n = root[n]
        return n

    for n, document in enumerate(documents):
        for parent in document.amends:
            if parent in position:
                a, b = find(n), find(position[parent])
                root[max(a, b)] = min(a, b)
    grouped: dict[int, list[Document]] = {}
    for n, document in enumerate(documents):
        grouped.setdefault(find(n), []).append(document)
    return list(grouped.values())


def _batches(groups: list[list[Document]], count: int) -> list[list[Document]]:
    """Deal the families, largest first, to ``count`` batches of about equal size."""
    batches: list[list[Document]] = [[] for _ in range(count)]
    sizes = [0] * count
    for size, group in sorted(((sum(len(d.text) for d in g), g) for g in groups),
                              key=lambda pair: -pair[0]):
        smallest = sizes.index(min(sizes))
        batches[smallest].extend(group)
        sizes[smallest] += size
    return [batch for batch in batches if batch]


def build_parallel(documents: Sequence[Document], *, workers: int | None = None,
                   min_chars: int = MIN_PARALLEL_CHARS,
                   progress: Callable[[str], None] | None = None) -> tuple[DocumentIndex, ...]:
    """Every document's index, as ``build_corpus`` gives it, built by up to ``workers``
    processes (default: the available cores) when the corpus has ``min_chars`` or more."""
    groups = families(documents)
    count = min(workers if workers is not None else available_cores(), len(groups))
    if count < 2 or sum(len(d.text) for d in documents) < min_chars:
        return build_corpus(documents, progress=progress)
    batches = _batches(groups, min(len(groups), count * _BATCHES_PER_WORKER))
    built: dict[str, DocumentIndex] = {}
    # Spawned, not forked: the caller may hold threads (torch, OpenMP) a fork would copy.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(count, mp_context=context) as pool:
        pending = [pool.submit(build_corpus, batch) for batch in batches]
        for future in as_completed(pending):
            built.update((index.doc_id, index) for index in future.result())
            if progress is not None:
                progress(f"built {len(built)}/{len(documents)} indexes on {count} processes")
    return tuple(built[d.doc_id] for d in documents)
