"""The GANDR session summary as frozen value objects. Each ``to_dict`` gives the plain
builtins ``gandr-results.json`` stores, so the field names, order and rounding below are part
of that file's layout (``report.FORMAT_VERSION``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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

    def to_dict(self) -> dict[str, object]:
        """The rate as plain builtins."""
        return {"k": self.k, "n": self.n, "share": self.share, "low": self.low,
                "high": self.high}


@dataclass(frozen=True)
class StableCorrect:
    """Stable & Correct@k: items whose every repeat is strict-correct and judged equivalent."""

    repeats: int
    """The k: the most repeats any item of the system had."""
    rate: WilsonRate
    """Stable-and-correct items among the decided ones."""
    undecided: int
    """Items left out: a grade or an equivalence verdict missing and nothing failed."""

    def to_dict(self) -> dict[str, object]:
        """The figure as plain builtins, the rate's fields inline."""
        return {"repeats": self.repeats, **self.rate.to_dict(), "undecided": self.undecided}


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

    def to_dict(self) -> dict[str, object]:
        """The audit figures as plain builtins."""
        return {"rounds": dict(self.rounds), "passed": self.passed.to_dict(),
                "audit_labels": dict(self.audit_labels)}


@dataclass(frozen=True)
class SystemSummary:
    """One system's figures. The rates read each item's seed-0 repeat."""

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
    audit: AuditSummary | None
    """Rounds, passes and labels; None when no repeat has a pass verdict (the baselines,
    which run no loop)."""

    def to_dict(self) -> dict[str, object]:
        """The system's figures as plain builtins; the audit fields only when audited."""
        data: dict[str, object] = {
            "system": self.system, "items": self.items, "unscored": self.unscored,
            "strict": self.strict.to_dict(), "lenient": self.lenient.to_dict(),
            "normalised_strict": self.normalised_strict.to_dict(),
            "grounded": self.grounded.to_dict(),
            "normalised_grounded": self.normalised_grounded.to_dict(),
            "by_area": {area: rate.to_dict() for area, rate in self.by_area.items()},
            "stable_correct": self.stable_correct.to_dict(),
            "calls": self.calls, "cost_usd": self.cost_usd}
        if self.audit is not None:
            data.update(self.audit.to_dict())
        return data


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

    def to_dict(self) -> dict[str, object]:
        """The test as plain builtins."""
        return {"pairs": self.pairs, "b": self.b, "c": self.c, "p": self.p}


@dataclass(frozen=True)
class Comparison:
    """One system's test against the comparator, Bonferroni-corrected over the comparisons
    the session made."""

    system: str
    """The system compared with the comparator."""
    test: McNemarTest
    """The uncorrected test."""
    bonferroni: int
    """How many comparisons the session made: the factor the p-value is multiplied by."""

    @property
    def p_bonferroni(self) -> float:
        """The corrected p-value, capped at 1 and rounded to six places."""
        return round(min(1.0, self.test.p * self.bonferroni), 6)

    def to_dict(self) -> dict[str, object]:
        """The test and its corrected p-value as plain builtins (the system is the key)."""
        return {**self.test.to_dict(), "p_bonferroni": self.p_bonferroni}


@dataclass(frozen=True)
class GandrSummary:
    """The whole session: each system that ran, and the tests against the comparator."""

    systems: tuple[SystemSummary, ...]
    """One summary per system, in ``SYSTEMS`` order."""
    comparisons: tuple[Comparison, ...]
    """Every other system against the comparator, in ``SYSTEMS`` order; empty when the
    comparator or every other system is missing."""

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

    def to_dict(self) -> dict[str, object]:
        """The summary as plain builtins, keyed by system; the tests only when made."""
        data: dict[str, object] = {"systems": {s.system: s.to_dict() for s in self.systems}}
        if self.comparisons:
            data[MCNEMAR_KEY] = {c.system: c.to_dict() for c in self.comparisons}
        return data
