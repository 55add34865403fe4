"""Character-level precision and recall of retrieved spans against gold spans."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pytest_legalbench.spans.benchmark_file import Snippet

#: Half-open character intervals ``(start, end)``, sorted and pairwise disjoint.
Intervals = list[tuple[int, int]]


@dataclass(frozen=True)
class SpanScore:
    """One test's character-level score; the char counts are sizes of span unions."""

    precision: float
    recall: float
    retrieved_chars: int
    gold_chars: int
    overlap_chars: int


@dataclass(frozen=True)
class SpanSummary:
    """Macro averages of precision and recall over tests."""

    tests: int
    precision: float
    recall: float


def wrong_document_share(retrieved: Sequence[Snippet], gold: Sequence[Snippet]) -> float | None:
    """The share of retrieved characters from files holding no gold span (the document-level
    mismatch); None when nothing was retrieved."""
    files = {snippet.file_path for snippet in gold}
    total = sum(snippet.length for snippet in retrieved)
    if not total:
        return None
    return sum(s.length for s in retrieved if s.file_path not in files) / total


def cut_to_k(ranked: Sequence[Snippet], k: int) -> tuple[Snippet, ...]:
    """Return the first ``k`` snippets of a ranking."""
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    return tuple(ranked[:k])


def cut_to_budget(ranked: Sequence[Snippet], budget_chars: int) -> tuple[Snippet, ...]:
    """Take snippets in rank order until their lengths sum to the budget, truncating the last."""
    if budget_chars < 0:
        raise ValueError(f"budget_chars must be >= 0, got {budget_chars}")
    kept: list[Snippet] = []
    left = budget_chars
    # Lengths are summed without merging overlaps: the budget limits the payload sent,
    # and overlapping snippets are sent twice.
    for snippet in ranked:
        if left <= 0:
            break
        if snippet.length <= left:
            kept.append(snippet)
            left -= snippet.length
        else:
            kept.append(Snippet(snippet.file_path, snippet.start, snippet.start + left))
            left = 0
    return tuple(kept)


def score_spans(retrieved: Sequence[Snippet], gold: Sequence[Snippet]) -> SpanScore:
    """Score retrieved snippets against gold ones over the union of characters per file."""
    retrieved_by_file = _unions(retrieved)
    gold_by_file = _unions(gold)
    retrieved_chars = sum(_size(v) for v in retrieved_by_file.values())
    gold_chars = sum(_size(v) for v in gold_by_file.values())
    overlap = sum(
        _overlap(spans, gold_by_file[path])
        for path, spans in retrieved_by_file.items()
        if path in gold_by_file
    )
    return SpanScore(
        # Retrieving nothing earns no precision; a test with no gold text is fully recalled.
        precision=overlap / retrieved_chars if retrieved_chars else 0.0,
        recall=overlap / gold_chars if gold_chars else 1.0,
        retrieved_chars=retrieved_chars,
        gold_chars=gold_chars,
        overlap_chars=overlap,
    )


def summarise(scores: Sequence[SpanScore]) -> SpanSummary:
    """Average precision and recall over tests (0.0 for both when there are none)."""
    if not scores:
        return SpanSummary(tests=0, precision=0.0, recall=0.0)
    count = len(scores)
    return SpanSummary(
        tests=count,
        precision=sum(s.precision for s in scores) / count,
        recall=sum(s.recall for s in scores) / count,
    )


def _unions(snippets: Iterable[Snippet]) -> dict[str, Intervals]:
    """Group spans by file and merge each group into sorted disjoint non-empty intervals."""
    grouped: dict[str, list[tuple[int, int]]] = {}
    for s in snippets:
        if s.end > s.start:
            grouped.setdefault(s.file_path, []).append((s.start, s.end))
    merged: dict[str, Intervals] = {}
    for path, spans in grouped.items():
        spans.sort()
        out: Intervals = [spans[0]]
        for start, end in spans[1:]:
            last_start, last_end = out[-1]
            if start <= last_end:
                out[-1] = (last_start, max(last_end, end))
            else:
                out.append((start, end))
        merged[path] = out
    return merged


def _size(intervals: Intervals) -> int:
    return sum(end - start for start, end in intervals)


def _overlap(one: Intervals, other: Intervals) -> int:
    """Characters two sorted disjoint interval lists share (a linear merge walk)."""
    i = j = total = 0
    while i < len(one) and j < len(other):
        start = max(one[i][0], other[j][0])
        end = min(one[i][1], other[j][1])
        if end > start:
            total += end - start
        # Advance whichever interval ends first; it cannot meet anything later in the other list.
        if one[i][1] <= other[j][1]:
            i += 1
        else:
            j += 1
    return total
