"""Tests of character-level span scoring: cuts at k and at a budget, precision, recall."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.spans.benchmark_file import Snippet
from pytest_legalbench.spans.scoring import (
    SpanScore,
    SpanSummary,
    cut_to_budget,
    cut_to_k,
    score_spans,
    summarise,
)


def s(start: int, end: int, path: str = "a.txt") -> Snippet:
    return Snippet(path, start, end)


# --- literal examples -----------------------------------------------------------------------

def test_half_overlapping_span_scores_a_half_each_way() -> None:
    assert score_spans([s(15, 25)], [s(10, 20)]) == SpanScore(0.5, 0.5, 10, 10, 5)


def test_same_offsets_in_another_file_do_not_overlap() -> None:
    assert score_spans([s(10, 20, "b.txt")], [s(10, 20)]) == SpanScore(0.0, 0.0, 10, 10, 0)


def test_retrieving_the_same_characters_twice_changes_nothing() -> None:
    once = score_spans([s(0, 10)], [s(5, 30)])
    assert score_spans([s(0, 10), s(0, 10), s(2, 8)], [s(5, 30)]) == once
    assert once == SpanScore(0.5, 0.2, 10, 25, 5)


def test_gold_spans_are_merged_before_counting() -> None:
    # Gold 0-10 and 5-15 cover 15 characters, not 20.
    assert score_spans([s(0, 15)], [s(0, 10), s(5, 15)]) == SpanScore(1.0, 1.0, 15, 15, 15)


def test_recall_over_several_files_and_gold_pieces() -> None:
    gold = [s(0, 10), s(100, 110), s(0, 20, "b.txt")]
    score = score_spans([s(5, 105), s(0, 5, "b.txt")], gold)
    assert (score.overlap_chars, score.gold_chars, score.retrieved_chars) == (15, 40, 105)
    assert score.recall == pytest.approx(15 / 40)
    assert score.precision == pytest.approx(15 / 105)


def test_nothing_retrieved_scores_zero_and_no_gold_is_fully_recalled() -> None:
    assert score_spans([], [s(0, 5)]) == SpanScore(0.0, 0.0, 0, 5, 0)
    assert score_spans([s(0, 5)], []) == SpanScore(0.0, 1.0, 5, 0, 0)
    assert score_spans([s(3, 3)], [s(3, 3)]) == SpanScore(0.0, 1.0, 0, 0, 0)


def test_cut_to_k_keeps_the_first_k() -> None:
    ranked = [s(0, 1), s(1, 2), s(2, 3)]
    assert cut_to_k(ranked, 2) == (s(0, 1), s(1, 2))
    assert cut_to_k(ranked, 0) == ()
    assert cut_to_k(ranked, 9) == tuple(ranked)
    with pytest.raises(ValueError, match="k must be >= 0, got -1"):
        cut_to_k(ranked, -1)


def test_cut_to_budget_truncates_the_last_snippet_and_counts_overlaps_twice() -> None:
    ranked = [s(0, 10), s(5, 15), s(40, 60, "b.txt"), s(0, 3)]
    assert cut_to_budget(ranked, 25) == (s(0, 10), s(5, 15), s(40, 45, "b.txt"))
    assert cut_to_budget(ranked, 20) == (s(0, 10), s(5, 15))
    assert cut_to_budget(ranked, 0) == ()
    assert cut_to_budget(ranked, 1000) == tuple(ranked)
    with pytest.raises(ValueError, match="budget_chars must be >= 0"):
        cut_to_budget(ranked, -5)


def test_summary_is_the_macro_average() -> None:
    scores = [SpanScore(1.0, 0.5, 4, 8, 4), SpanScore(0.0, 1.0, 3, 0, 0),
              SpanScore(0.5, 0.0, 2, 2, 1)]
    summary = summarise(scores)
    assert summary.tests == 3
    assert summary.precision == pytest.approx(0.5)
    assert summary.recall == pytest.approx(0.5)
    assert summarise([]) == SpanSummary(0, 0.0, 0.0)


# --- properties ----------------------------------------------------------------------------

paths = st.sampled_from(["a.txt", "b.txt", "c.txt"])
snippets = st.builds(lambda path, start, length: Snippet(path, start, start + length),
                     paths, st.integers(0, 200), st.integers(0, 60))
snippet_lists = st.lists(snippets, max_size=8)


def characters(spans: list[Snippet]) -> set[tuple[str, int]]:
    return {(x.file_path, i) for x in spans for i in range(x.start, x.end)}


@given(snippet_lists, snippet_lists)
def test_score_agrees_with_counting_characters_one_by_one(
        retrieved: list[Snippet], gold: list[Snippet]) -> None:
    score = score_spans(retrieved, gold)
    r, g = characters(retrieved), characters(gold)
    assert (score.retrieved_chars, score.gold_chars, score.overlap_chars) == (
        len(r), len(g), len(r & g))
    assert 0.0 <= score.precision <= 1.0
    assert 0.0 <= score.recall <= 1.0


@given(snippet_lists.filter(lambda gold: any(x.end > x.start for x in gold)))
def test_retrieving_exactly_the_gold_scores_one_and_one(gold: list[Snippet]) -> None:
    score = score_spans(list(reversed(gold)), gold)
    assert (score.precision, score.recall) == (1.0, 1.0)


@given(snippet_lists, snippet_lists, snippet_lists)
def test_retrieving_more_never_lowers_recall(
        retrieved: list[Snippet], extra: list[Snippet], gold: list[Snippet]) -> None:
    assert score_spans(retrieved + extra, gold).recall >= score_spans(retrieved, gold).recall


@given(snippet_lists, st.integers(0, 500))
def test_budget_cut_totals_the_budget_or_all_the_text(ranked: list[Snippet], budget: int) -> None:
    cut = cut_to_budget(ranked, budget)
    assert sum(x.end - x.start for x in cut) == min(budget, sum(x.end - x.start for x in ranked))
    # Every kept snippet but the last is unchanged; the last is a prefix of its original.
    assert list(cut[:-1]) == ranked[:max(len(cut) - 1, 0)]
    if cut:
        original = ranked[len(cut) - 1]
        assert (cut[-1].file_path, cut[-1].start) == (original.file_path, original.start)
        assert cut[-1].end <= original.end


@given(snippet_lists, st.integers(0, 10))
def test_cut_to_k_is_a_prefix_of_length_min_k(ranked: list[Snippet], k: int) -> None:
    assert cut_to_k(ranked, k) == tuple(ranked[:k])
    assert len(cut_to_k(ranked, k)) == min(k, len(ranked))
