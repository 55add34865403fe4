"""One run of a span benchmark: each test's score, and the run's summary overall and per tag.

A test is scored on what a mode ranked for its query, cut at ``k`` snippets or at a budget of
characters (``spans.scoring``). Beside precision and recall every test carries the share of
the retrieved characters that come from files holding none of its gold spans (Reuter et al.
2025's document-level retrieval mismatch), and the summary gives each of them per tag (a CUAD
test's tag is its clause category), so a rule that helps one kind of question and hurts
another shows as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from pytest_legalbench.spans.benchmark_file import Snippet
from pytest_legalbench.spans.scoring import (
    SpanScore,
    cut_to_budget,
    cut_to_k,
    score_spans,
    wrong_document_share,
)


@dataclass(frozen=True)
class ScoredTest:
    """How one test fared."""

    score: SpanScore
    wrong_document_share: float | None
    """None when nothing was retrieved."""
    tags: tuple[str, ...] = ()


def score_test(ranked: Sequence[Snippet], gold: Sequence[Snippet], *, k: int | None = None,
               budget_chars: int | None = None, tags: Sequence[str] = ()) -> ScoredTest:
    """Score a ranking against ``gold``, cut at ``k`` snippets or ``budget_chars``
    characters (exactly one of them)."""
    if (k is None) == (budget_chars is None):
        raise ValueError("give exactly one of k and budget_chars")
    kept = cut_to_k(ranked, k) if k is not None else cut_to_budget(ranked, budget_chars or 0)
    return ScoredTest(score_spans(kept, gold), wrong_document_share(kept, gold), tuple(tags))


@dataclass(frozen=True)
class RunSummary:
    """Means over a group of scored tests (the wrong-document rate over those that retrieved
    anything)."""

    tests: int
    recall: float
    precision: float
    wrong_document_rate: float | None
    retrieved_chars: float
    """Mean characters retrieved per test (overlaps counted once)."""

    def to_dict(self) -> dict[str, object]:
        """The summary as plain builtins, rates rounded to 4 places."""
        return {"tests": self.tests, "recall": round(self.recall, 4),
                "precision": round(self.precision, 4),
                "wrong_document_rate": (None if self.wrong_document_rate is None
                                        else round(self.wrong_document_rate, 4)),
                "retrieved_chars_mean": round(self.retrieved_chars, 1)}


def summarise_run(scored: Sequence[ScoredTest]) -> RunSummary:
    """The means of ``scored`` (all zero for no tests)."""
    if not scored:
        return RunSummary(0, 0.0, 0.0, None, 0.0)
    wrong = [t.wrong_document_share for t in scored if t.wrong_document_share is not None]
    return RunSummary(
        tests=len(scored), recall=fmean(t.score.recall for t in scored),
        precision=fmean(t.score.precision for t in scored),
        wrong_document_rate=fmean(wrong) if wrong else None,
        retrieved_chars=fmean(t.score.retrieved_chars for t in scored))


def summarise_by_tag(scored: Sequence[ScoredTest]) -> dict[str, RunSummary]:
    """One summary per tag, tags in name order; a test with several tags counts in each."""
    tags = sorted({tag for test in scored for tag in test.tags})
    return {tag: summarise_run([t for t in scored if tag in t.tags]) for tag in tags}
