"""Tests of a span run's per-test scores and its summaries overall and per tag."""

from __future__ import annotations

import pytest

from pytest_legalbench.spans.benchmark_file import Snippet
from pytest_legalbench.spans.scoring import SpanScore, wrong_document_share
from pytest_legalbench.spans.span_runs import (
    RunSummary,
    ScoredTest,
    score_test,
    summarise_by_tag,
    summarise_run,
)


def s(start: int, end: int, path: str = "a.txt") -> Snippet:
    return Snippet(path, start, end)


def test_the_wrong_document_share_counts_characters_from_files_without_gold() -> None:
    # 30 of 40 retrieved characters come from b.txt, which holds no gold span.
    assert wrong_document_share([s(0, 10), s(0, 30, "b.txt")], [s(0, 5)]) == 0.75
    assert wrong_document_share([s(0, 10)], [s(0, 5), s(0, 5, "b.txt")]) == 0.0
    assert wrong_document_share([], [s(0, 5)]) is None


def test_a_test_is_cut_at_the_budget_before_it_is_scored() -> None:
    scored = score_test([s(0, 10), s(100, 200, "b.txt"), s(10, 20)], [s(0, 20)],
                        budget_chars=60, tags=("Parties",))
    # 10 characters of a.txt, then 50 of b.txt fill the budget; the second a.txt span is cut.
    assert scored == ScoredTest(SpanScore(10 / 60, 0.5, 60, 20, 10), 50 / 60, ("Parties",))


def test_a_test_is_cut_at_k() -> None:
    scored = score_test([s(0, 10), s(10, 20)], [s(0, 20)], k=1)
    assert scored.score.recall == 0.5 and scored.wrong_document_share == 0.0


def test_exactly_one_cut_is_required() -> None:
    with pytest.raises(ValueError, match="exactly one of k and budget_chars"):
        score_test([], [s(0, 1)])
    with pytest.raises(ValueError, match="exactly one of k and budget_chars"):
        score_test([], [s(0, 1)], k=1, budget_chars=10)


def test_a_run_is_summarised_overall_and_per_tag() -> None:
    one = ScoredTest(SpanScore(0.5, 1.0, 40, 20, 20), 0.25, ("Parties",))
    two = ScoredTest(SpanScore(0.0, 0.0, 0, 20, 0), None, ("Parties", "Governing Law"))
    three = ScoredTest(SpanScore(0.1, 0.5, 100, 20, 10), 0.75, ("Governing Law",))
    overall = summarise_run([one, two, three])
    assert (overall.tests, overall.recall, overall.wrong_document_rate) == (3, 0.5, 0.5)
    assert overall.precision == pytest.approx(0.2) and overall.retrieved_chars == 140 / 3
    by_tag = summarise_by_tag([one, two, three])
    assert list(by_tag) == ["Governing Law", "Parties"]
    assert by_tag["Governing Law"].to_dict() == {"tests": 2, "recall": 0.25, "precision": 0.05,
                                                 "wrong_document_rate": 0.75,
                                                 "retrieved_chars_mean": 50.0}
    assert by_tag["Parties"].to_dict() == {"tests": 2, "recall": 0.5, "precision": 0.25,
                                           "wrong_document_rate": 0.25,
                                           "retrieved_chars_mean": 20.0}


def test_an_empty_run_summarises_to_zeros() -> None:
    assert summarise_run([]) == RunSummary(0, 0.0, 0.0, None, 0.0)
    assert summarise_by_tag([]) == {}
