"""A matrix of unit vectors over labelled texts, built through the on-disk cache, and cosine
scores of a question against it.

A text may be a subtree: then only its own words (the text outside its children) are
embedded, and its vector is the token-weighted mean of its own vector and its children's,
recursively. That is the same pooling a long text gets over its windows, with the windows
cut at the children's boundaries, and it embeds every character of a document once rather
than once per ancestor.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from pytest_legalbench.files.build_lock import build_lock, lock_file
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.vectors.embedding import (
    POOLING_SIGNATURE,
    EmbeddedTexts,
    Embedder,
    text_digest,
    unit,
)
from pytest_legalbench.vectors.ranking import SCORE_PRECISION
from pytest_legalbench.vectors.vector_cache import VectorCache
from pytest_legalbench.vectors.vector_record import VectorRecord


@dataclass(frozen=True)
class Piece:
    """One labelled text to embed: its own words, and the pieces nested inside it."""

    label: str
    own_text: str
    """The words outside ``children``; whitespace-only when a node is all children."""
    children: tuple[str, ...] = ()
    """Labels of pieces of the same group whose vectors pool into this one; each comes
    after this piece in its group."""


#: One cache entry's worth of pieces (one document's).
Group = Sequence[Piece]


def flat_group(texts: Sequence[tuple[str, str]]) -> list[Piece]:
    """Pieces of independent texts (chunks): ``(label, text)`` pairs, nothing nested."""
    return [Piece(label, text) for label, text in texts]


def subtree_group(nodes: Sequence[Node]) -> list[Piece]:
    """Pieces of one document's nodes, in document order: each node's own words, with the
    nodes of ``nodes`` nested in it as children (a left-out child's words stay its
    parent's own)."""
    chosen = {node.node_id for node in nodes}
    by_id = {node.node_id: node for node in nodes}
    pieces = []
    for node in nodes:
        children = tuple(c for c in node.children if c in chosen)
        own, cursor = [], node.start
        for child in sorted((by_id[c] for c in children), key=lambda n: n.start):
            own.append(node.text[cursor - node.start:child.start - node.start])
            cursor = max(cursor, child.end)
        own.append(node.text[cursor - node.start:])
        pieces.append(Piece(node.node_id, "\n".join(p.strip() for p in own if p.strip()),
                            children))
    return pieces


def group_digest(group: Group) -> str:
    """The content key of one group's vectors (in the cache and the vector record)."""
    # Labels and nesting are part of what the vectors mean, not only the words.
    parts = [f"{p.label}\0{','.join(p.children)}\0{p.own_text}" for p in group]
    return text_digest(parts, salt=POOLING_SIGNATURE)


def _pool(group: Group, own: NDArray[np.float32], weights: Sequence[int]) -> NDArray[np.float32]:
    """Each piece's vector: the weighted mean of its own vector and its children's sums."""
    position = {piece.label: n for n, piece in enumerate(group)}
    sums = own.astype(np.float64) * np.asarray(weights, dtype=np.float64)[:, None]
    # Children come after their parent, so a reverse pass finishes every child first.
    for n in range(len(group) - 1, -1, -1):
        for child in group[n].children:
            sums[n] += sums[position[child]]
    return np.stack([unit(row.astype(np.float32)) for row in sums]).astype(np.float32)


#: Pieces embedded per batch: large enough for the model to batch well, small enough that
#: progress shows and the cache fills steadily on a corpus of hundreds of documents.
BATCH_PIECES = 2000


def _batches(numbers: Sequence[int], groups: Sequence[Group]) -> list[list[int]]:
    """Consecutive runs of group numbers holding about ``BATCH_PIECES`` pieces each."""
    batches: list[list[int]] = []
    size = 0
    for number in numbers:
        if not batches or size >= BATCH_PIECES:
            batches.append([])
            size = 0
        batches[-1].append(number)
        size += len(groups[number])
    return batches


@dataclass(frozen=True, eq=False)
class DenseIndex:
    """Unit vectors of labelled pieces, row ``i`` for ``labels[i]``."""

    embedder: Embedder
    labels: tuple[str, ...]
    vectors: NDArray[np.float32]
    windowed: int
    """How many own texts were longer than the model's window (embedded in windows)."""
    groups_cached: int
    """How many groups were read from the cache or the vector record rather than embedded."""

    @classmethod
    def build(cls, embedder: Embedder, groups: Sequence[Group], cache_dir: Path | None, *,
              progress: Callable[[str], None] | None = None, what: str = "texts",
              record_dir: Path | None = None) -> DenseIndex:
        """Embed every group's pieces, reading and filling the cache when one is given, and
        reading the vector record in ``record_dir`` (never written here) after the cache."""
        cache = VectorCache(cache_dir) if cache_dir is not None else None
        found: dict[int, EmbeddedTexts] = {}
        digests = [group_digest(group) for group in groups]
        if cache is not None:
            for number, (group, digest) in enumerate(zip(groups, digests)):
                cached = cache.get(embedder.digest, digest, len(group)) if group else None
                if cached is not None:
                    found[number] = cached
        if record_dir is not None:
            _read_record(VectorRecord(record_dir, embedder.digest), groups, digests, found,
                         progress, what)
        missing = [n for n, group in enumerate(groups) if group and n not in found]
        with contextlib.ExitStack() as held:
            if cache_dir is not None and cache is not None and missing and held.enter_context(
                    build_lock(lock_file(cache_dir, f"embeddings-{embedder.digest}"),
                               str(cache.folder / embedder.digest), progress)):
                # Another process embedded while this one waited: take what it stored.
                for number in missing:
                    cached = cache.get(embedder.digest, digests[number], len(groups[number]))
                    if cached is not None:
                        found[number] = cached
                missing = [n for n in missing if n not in found]
            cls._embed_missing(embedder, groups, missing, digests, found, cache, progress, what)
        labels = tuple(piece.label for group in groups for piece in group)
        parts = [found[n].vectors for n in sorted(found)]
        vectors = (np.concatenate(parts).astype(np.float32) if parts
                   else np.zeros((0, 1), dtype=np.float32))
        return cls(embedder, labels, vectors, sum(e.windowed for e in found.values()),
                   len(found) - len(missing))

    @classmethod
    def _embed_missing(cls, embedder: Embedder, groups: Sequence[Group], missing: list[int],
                       digests: Sequence[str], found: dict[int, EmbeddedTexts],
                       cache: VectorCache | None, progress: Callable[[str], None] | None,
                       what: str) -> None:
        done = pieces = 0
        total = sum(len(groups[n]) for n in missing)
        started = time.monotonic()
        for batch in _batches(missing, groups):
            # Embedded a batch of documents at a time, each stored as soon as it is done, so
            # an interrupted build of a large corpus keeps what it finished.
            found.update(cls._embed(embedder, [groups[n] for n in batch], batch))
            if cache is not None:
                for number in batch:
                    cache.put(embedder.digest, digests[number], found[number],
                              model=str(embedder.folder),
                              labels=tuple(p.label for p in groups[number]))
            done += len(batch)
            pieces += sum(len(groups[n]) for n in batch)
            if progress is not None:
                progress(f"embedded {done}/{len(missing)} documents ({what})"
                         + _pace(pieces, total, time.monotonic() - started))

    @staticmethod
    def _embed(embedder: Embedder, groups: Sequence[Group],
               numbers: Sequence[int]) -> dict[int, EmbeddedTexts]:
        """Embed the own texts of several groups in one call (the model batches across
        them) and pool each group's subtrees."""
        indices = [(g, p) for g, group in enumerate(groups) for p, piece in enumerate(group)
                   if piece.own_text.strip()]
        embedded = embedder.embed_weighted([groups[g][p].own_text for g, p in indices])
        dimension = embedded.vectors.shape[1] if indices else 1
        own = [np.zeros((len(group), dimension), dtype=np.float32) for group in groups]
        weights = [[0] * len(group) for group in groups]
        windowed = [0] * len(groups)
        for row, (g, p) in enumerate(indices):
            own[g][p] = embedded.vectors[row]
            weights[g][p] = embedded.weights[row]
            windowed[g] += embedded.window_counts[row] > 1
        return {number: EmbeddedTexts(_pool(group, own[g], weights[g]), windowed[g])
                for g, (number, group) in enumerate(zip(numbers, groups))}

    def cosine(self, query: NDArray[np.float32]) -> NDArray[np.float64]:
        """Cosine of the unit vector ``query`` against every row, rounded to the fixed
        precision."""
        if not self.labels:
            return np.zeros(0, dtype=np.float64)
        scores: NDArray[np.float64] = self.vectors.astype(np.float64) @ query.astype(np.float64)
        return np.round(scores, SCORE_PRECISION)


def _pace(done: int, total: int, seconds: float) -> str:
    """The rate so far and the time left at that rate (empty when nothing is timed yet)."""
    if seconds <= 0 or done <= 0:
        return ""
    rate = done / seconds
    left = f", about {(total - done) / rate:.0f} s left" if done < total else ""
    return f": {rate:.0f} texts/s{left}"


def _read_record(record: VectorRecord, groups: Sequence[Group], digests: Sequence[str],
                 found: dict[int, EmbeddedTexts], progress: Callable[[str], None] | None,
                 what: str) -> None:
    """Take from ``record`` the groups the cache lacks; say when it lacks some of them
    (their texts, or the model, differ from when it was recorded)."""
    wanted = [n for n, group in enumerate(groups) if group and n not in found]
    if not wanted or not record.entries():
        return
    for number in wanted:
        recorded = record.get(digests[number], len(groups[number]))
        if recorded is not None:
            found[number] = recorded
    changed = sum(n not in found for n in wanted)
    if progress is not None:
        progress(f"{len(wanted) - changed} documents' {what} vectors from the record "
                 f"{record.path.name}" + (f"; {changed} changed since it was recorded, "
                                          f"embedding them" if changed else ""))
