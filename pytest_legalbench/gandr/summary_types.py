"""The GANDR session summary as frozen value objects. They are the layout
``gandr-results.json`` stores the summary in (``files.record_json``), so the field names and
rounding below are part of that file's layout (``report.GANDR_RESULTS_LAYOUT``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated

from pytest_legalbench.files.record_json import OMIT_EMPTY, OMIT_NONE, KeyedBy, derived, renamed
from pytest_legalbench.stats.exact import wilson

#: The results-file key of the paired tests (named for the comparator, ``systems.COMPARATOR``).
MCNEMAR_KEY = "mcnemar_vs_b2"


@dataclass(frozen=True)
class WilsonRate:
    """``k`` of ``n`` with its share and 95% Wilson interval, each rounded to four places."""

    k: int
    """How many counted (correct, grounded, passed...)."""
    n: int
    """How many were looked at; unscored items are not among them."""
    share: float | None
    """``k / n``; None when ``n`` is 0."""
    low: float
    """Lower end of the Wilson interval (0 when ``n`` is 0)."""
    high: float
    """Upper end of the Wilson interval (1 when ``n`` is 0)."""

    @classmethod
    def of(cls, k: int, n: int) -> WilsonRate:
        """The rate of ``k`` in ``n``, rounded as the summary stores it."""
        interval = wilson(k, n)
        return cls(k=k, n=n, share=round(k / n, 4) if n else None,
                   low=round(interval.low, 4), high=round(interval.high, 4))


@dataclass(frozen=True)
class StableCorrect(WilsonRate):
    """Stable & Correct@k: items whose every repeat is strict-correct and judged equivalent.
    Its rate (stable-and-correct items among the decided ones) is its own fields."""

    repeats: int
    """The k: the most repeats any item of the system had."""
    undecided: int
    """Items left out: a grade or an equivalence verdict missing and nothing failed."""

    @classmethod
    def over(cls, stable: int, decided: int, *, repeats: int, undecided: int) -> StableCorrect:
        """``stable`` of ``decided`` items, with the Wilson rate of ``WilsonRate.of``."""
        rate = WilsonRate.of(stable, decided)
        return cls(rate.k, rate.n, rate.share, rate.low, rate.high, repeats=repeats,
                   undecided=undecided)

    @property
    def rate(self) -> WilsonRate:
        """The stable-and-correct items among the decided ones."""
        return WilsonRate(self.k, self.n, self.share, self.low, self.high)


@dataclass(frozen=True)
class AuditSummary:
    """What only a system with a commit loop (GANDR itself) reports, over every repeat, not
    only seed 0."""

    rounds: Mapping[str, int]
    """Repeats by the number of rounds they used; the counts are text keys in text order, as
    the results file has always stored them."""
    passed: WilsonRate
    """Repeats whose loop committed a draft (a repeat with no verdict counts as not)."""
    audit_labels: Mapping[str, int]
    """Claim labels over every audited round, in ``AUDIT_LABELS`` order, zeros included."""


@dataclass(frozen=True)
class SystemSummary:
    """One system's figures. The rates read each item's seed-0 repeat. A system with a
    commit loop also has the ``AuditSummary`` figures, as three fields of its own."""

    system: str
    """The system name (``gandr``, ``gandr:b1``...)."""
    items: int
    """Records (questions) of the system."""
    unscored: int
    """Items whose seed-0 grade gave no score; they are in no accuracy denominator."""
    strict: WilsonRate
    """Lenient and grounded."""
    lenient: WilsonRate
    """Judge score of at least 4, grounding aside."""
    normalised_strict: WilsonRate
    """Lenient and grounded once citation forms are normalised."""
    grounded: WilsonRate
    """Seed-0 answers that pass the citation check, over every item (scored or not)."""
    normalised_grounded: WilsonRate
    """As ``grounded``, under citation-form normalisation."""
    by_area: Mapping[str, WilsonRate]
    """Strict accuracy per practice area, areas in alphabetical order."""
    stable_correct: StableCorrect
    """Stable & Correct@k over all the repeats."""
    calls: int
    """Every model call the system's records made, judges included."""
    cost_usd: str
    """Those calls priced and formatted (``$0.4863``)."""
    rounds: Mapping[str, int] | None = field(default=None, metadata=OMIT_NONE)
    """``AuditSummary.rounds``; None (and not written) for a system without a loop."""
    passed: WilsonRate | None = field(default=None, metadata=OMIT_NONE)
    """``AuditSummary.passed``; None (and not written) for a system without a loop."""
    audit_labels: Mapping[str, int] | None = field(default=None, metadata=OMIT_NONE)
    """``AuditSummary.audit_labels``; None (and not written) for a system without a loop."""

    @property
    def audit(self) -> AuditSummary | None:
        """Rounds, passes and labels; None when no repeat has a pass verdict (the baselines,
        which run no loop)."""
        if self.rounds is None or self.passed is None or self.audit_labels is None:
            return None
        return AuditSummary(self.rounds, self.passed, self.audit_labels)


@dataclass(frozen=True)
class McNemarTest:
    """Exact McNemar on seed-0 strict correctness over the items two systems both scored."""

    pairs: int
    """Items both systems scored."""
    b: int
    """Items this system got right and the comparator wrong."""
    c: int
    """Items the comparator got right and this system wrong."""
    p: float
    """Two-sided exact p-value, rounded to six places."""


@derived(p_bonferroni="p_bonferroni")
@dataclass(frozen=True)
class Comparison(McNemarTest):
    """One system's test against the comparator (its own fields, uncorrected),
    Bonferroni-corrected over the comparisons the session made."""

    system: str
    """The system compared with the comparator (the key it is written under)."""
    bonferroni: int
    """How many comparisons the session made: the factor the p-value is multiplied by."""

    @classmethod
    def of(cls, system: str, test: McNemarTest, bonferroni: int) -> Comparison:
        """``test`` of ``system``, one of ``bonferroni`` comparisons."""
        return cls(test.pairs, test.b, test.c, test.p, system=system, bonferroni=bonferroni)

    @property
    def test(self) -> McNemarTest:
        """The uncorrected test."""
        return McNemarTest(self.pairs, self.b, self.c, self.p)

    @property
    def p_bonferroni(self) -> float:
        """The corrected p-value, capped at 1 and rounded to six places."""
        return round(min(1.0, self.p * self.bonferroni), 6)


@dataclass(frozen=True)
class GandrSummary:
    """The whole session: each system that ran, and the tests against the comparator."""

    systems: Annotated[tuple[SystemSummary, ...], KeyedBy("system")]
    """One summary per system, in ``SYSTEMS`` order; written keyed by system."""
    comparisons: Annotated[tuple[Comparison, ...], KeyedBy("system", keep=False)] = field(
        default=(), metadata=renamed(MCNEMAR_KEY, OMIT_EMPTY))
    """Every other system against the comparator, in ``SYSTEMS`` order; empty (and not
    written) when the comparator or every other system is missing."""

    @classmethod
    def empty(cls) -> GandrSummary:
        """A summary of no records."""
        return cls(systems=(), comparisons=())

    def system(self, name: str) -> SystemSummary:
        """The summary of the system called ``name``; KeyError when it did not run."""
        for entry in self.systems:
            if entry.system == name:
                return entry
        raise KeyError(name)
