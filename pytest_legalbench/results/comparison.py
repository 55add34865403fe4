"""Two stored runs compared, mode by mode: what changed, and whether the change is more than
chance on the items both runs share.

Aggregates (ties and wins, key facts, recall, payload, cost) are read from each run's own
summary, as reported. The paired tests read the records of the items both runs hold (same
question id, under the paired modes) and compare one binary outcome per item, run A against
run B, with the exact McNemar test on the discordant items (b: true in A only, c: true in B
only):

- ``keyfacts_mode``: the mode's answer passes the key-fact score;
- ``holds``: the mode holds its own against inject, a tie or a mode win, as opposed to an
  inject win; items unscored (or split) in either run are left out of this one;
- ``keyfacts_inject``: inject's answer passes the key-fact score (it moves only when the
  answering model, the corpus or the question changed).

Evidence recall is not binary: items whose recall rose are weighed against those whose recall
fell by the exact sign test (a two-sided binomial test at one half, ties left out). Modes are
paired by name; a pair can be named (``navembed:chunks=navembed:hybrid``), and when each run
has exactly one mode left unpaired those two are paired, with a note that says so. When no
pair can be made, nothing is compared: ``NothingToCompare`` names both runs' modes and the
pair to name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_legalbench.files.record_json import derived, renamed
from pytest_legalbench.results.comparison_checks import run_warnings
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.results_file import StoredRun
from pytest_legalbench.results.summary import Summary
from pytest_legalbench.stats.exact import binomial_test, mcnemar_exact

#: The paired binary outcomes, in report order, with what each means.
PAIRED_OUTCOMES = {
    "keyfacts_mode": "key facts of the mode's answer pass",
    "holds": "the mode holds against inject (tie or mode win, not an inject win)",
    "keyfacts_inject": "key facts of inject's answer pass",
}


@derived(meaning="meaning")
@dataclass(frozen=True)
class PairedTest:
    """One binary outcome on the items both runs share, and its exact McNemar test (written
    with what the outcome means)."""

    outcome: str
    """A key of ``PAIRED_OUTCOMES``."""
    items: int
    """Shared items the outcome is defined for in both runs."""
    only_a: int = field(metadata=renamed("b_only_a"))
    """b: true in run A only."""
    only_b: int = field(metadata=renamed("c_only_b"))
    """c: true in run B only."""
    p_value: float

    @property
    def meaning(self) -> str:
        """What the outcome is."""
        return PAIRED_OUTCOMES[self.outcome]


@dataclass(frozen=True)
class SignTest:
    """Items whose evidence recall rose or fell from run A to run B, with the exact sign test."""

    rose: int
    fell: int
    unchanged: int
    p_value: float


@dataclass(frozen=True)
class Flip:
    """A shared question whose key facts or verdict differ between the runs."""

    question_id: str
    keyfacts: tuple[str, str] | None
    """The mode's key facts in A and in B (``pass``/``fail``); None when unchanged."""
    verdict: tuple[str, str] | None
    """The combined verdict in A and in B; None when unchanged."""


@derived(change="change")
@dataclass(frozen=True)
class MetricChange:
    """One summary figure in run A and in run B (None where a run lacks it), written with
    its difference."""

    a: float | None
    b: float | None

    @property
    def change(self) -> float | None:
        """B - A, rounded to six places; None when either is missing."""
        return _change(self.a, self.b)


@dataclass(frozen=True)
class ModeChange:
    """One pair of modes, A's against B's."""

    mode_a: str
    mode_b: str
    items_a: int
    items_b: int
    shared: int
    """Questions both runs answered under the paired modes."""
    metrics: Mapping[str, MetricChange]
    """Metric name -> its value in A and in B, from each run's summary."""
    tests: tuple[PairedTest, ...] = field(metadata=renamed("paired_tests"))
    recall: SignTest = field(metadata=renamed("recall_sign_test"))
    flips: tuple[Flip, ...]


@dataclass(frozen=True)
class Comparison:
    """Run A against run B (``legalbench compare --json`` writes it)."""

    label_a: str = field(metadata=renamed("a"))
    label_b: str = field(metadata=renamed("b"))
    warnings: tuple[str, ...]
    """Reasons the runs may not be comparable, said before anything else."""
    notes: tuple[str, ...]
    modes: tuple[ModeChange, ...]
    unpaired: tuple[str, ...]
    """Modes of one run left without a partner."""


def _change(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 6)


def paired_test(outcome: str, pairs: Sequence[tuple[bool, bool]]) -> PairedTest:
    """The exact McNemar test of (A, B) outcome pairs."""
    only_a = sum(a and not b for a, b in pairs)
    only_b = sum(b and not a for a, b in pairs)
    return PairedTest(outcome, len(pairs), only_a, only_b, mcnemar_exact(only_a, only_b))


def sign_test(pairs: Sequence[tuple[float, float]]) -> SignTest:
    """The exact sign test of (A, B) value pairs: rises against falls, equal pairs left out."""
    rose = sum(b > a for a, b in pairs)
    fell = sum(b < a for a, b in pairs)
    return SignTest(rose, fell, len(pairs) - rose - fell,
                    binomial_test(min(rose, fell), rose + fell, 0.5))


def _passes(record: ItemRecord) -> bool:
    facts = record.keyfacts_inject if record.baseline_only else record.keyfacts_mode
    return bool(facts is not None and facts.correct)


def _holds(record: ItemRecord) -> bool | None:
    return {"tie": True, "mode": True, "inject": False}.get(record.verdict or "")


#: The headline numbers of a mode's summary that a comparison sets side by side.
METRICS = ("ties", "inject_wins", "mode_wins", "keyfacts_mode", "keyfacts_inject",
           "evidence_recall", "payload_tokens_mean", "cost_mode_usd", "cost_inject_usd",
           "cost_judge_usd")


def _metrics(summary: Summary, mode: str) -> dict[str, float | None]:
    """``METRICS`` of ``mode`` in ``summary``; None for those it lacks (every one when the
    summary has no such mode)."""
    try:
        entry = summary.mode(mode)
    except KeyError:
        return dict.fromkeys(METRICS, None)
    bound = entry.document_bound
    wins = [None if bound is None else ReportedRate.of(getattr(bound, outcome),
                                                        bound.scored()).share
            for outcome in ("tie", "inject", "mode")]
    keyfacts, cost = entry.keyfacts, entry.cost
    found = [*wins, None if keyfacts.mode is None else keyfacts.mode.share,
             keyfacts.inject.share, entry.evidence_recall, entry.payload_tokens_mean,
             float(cost.mode), float(cost.inject), float(cost.judge)]
    return dict(zip(METRICS, found, strict=True))


def compare_modes(a: StoredRun, b: StoredRun, mode_a: str, mode_b: str) -> ModeChange:
    """A's ``mode_a`` against B's ``mode_b``."""
    left = {r.question_id: r for r in a.records if r.mode == mode_a}
    right = {r.question_id: r for r in b.records if r.mode == mode_b}
    shared = sorted(set(left) & set(right))
    pairs = [(left[q], right[q]) for q in shared]

    def outcome(read: Callable[[ItemRecord], bool | None]) -> list[tuple[bool, bool]]:
        found = [(read(x), read(y)) for x, y in pairs]
        return [(x, y) for x, y in found if x is not None and y is not None]

    tests = (paired_test("keyfacts_mode", outcome(_passes)),
             paired_test("holds", outcome(_holds)),
             paired_test("keyfacts_inject", outcome(lambda r: r.keyfacts_inject.correct)))
    recalls = [(x.evidence_recall, y.evidence_recall) for x, y in pairs
               if x.evidence_recall is not None and y.evidence_recall is not None]
    flips = []
    for question, (x, y) in zip(shared, pairs, strict=True):
        facts = (_word(_passes(x)), _word(_passes(y)))
        verdicts = (x.verdict or "none", y.verdict or "none")
        if facts[0] != facts[1] or verdicts[0] != verdicts[1]:
            flips.append(Flip(question, facts if facts[0] != facts[1] else None,
                              verdicts if verdicts[0] != verdicts[1] else None))
    before, after = _metrics(a.summary, mode_a), _metrics(b.summary, mode_b)
    return ModeChange(mode_a, mode_b, len(left), len(right), len(shared),
                      {name: MetricChange(before[name], after[name]) for name in before}, tests,
                      sign_test([(float(x), float(y)) for x, y in recalls]), tuple(flips))


class NothingToCompare(ValueError):
    """No mode of run A pairs with one of run B; the message names the modes and a pair."""


def nothing_pairs(modes_a: Sequence[str], modes_b: Sequence[str]) -> str:
    """Why two runs cannot be compared as they stand, and the ``--pair`` that would do it."""
    if not modes_a or not modes_b:
        empty = "A" if not modes_a else "B"
        return f"nothing to compare: run {empty} holds no item records"
    return (f"nothing to compare: the runs share no mode name (A ran {', '.join(modes_a)}; "
            f"B ran {', '.join(modes_b)}); name the pairs to compare, e.g. --pair "
            f"{modes_a[0]}={modes_b[0]} (one --pair per pair)")


def _word(passes: bool) -> str:
    return "pass" if passes else "fail"


def pair_modes(modes_a: Sequence[str], modes_b: Sequence[str],
               named: Sequence[tuple[str, str]] = ()
               ) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """(pairs, notes, unpaired): the named pairs, then modes of the same name, then the one
    mode each run has left, if that is all that is left."""
    for mode_a, mode_b in named:
        if mode_a not in modes_a or mode_b not in modes_b:
            raise ValueError(f"cannot pair {mode_a}={mode_b}: run A has "
                             f"{', '.join(modes_a) or 'no modes'}, run B "
                             f"{', '.join(modes_b) or 'no modes'}")
    pairs = list(named)
    left = [m for m in modes_a if m not in {x for x, _ in pairs}]
    right = [m for m in modes_b if m not in {y for _, y in pairs}]
    pairs += [(m, m) for m in left if m in right]
    left = [m for m in left if m not in right]
    right = [m for m in right if m not in {y for _, y in pairs}]
    notes = []
    if len(left) == 1 and len(right) == 1:
        pairs.append((left[0], right[0]))
        notes.append(f"paired the one mode left in each run: A's {left[0]} with B's "
                     f"{right[0]}")
        left, right = [], []
    unpaired = [f"A's {m}" for m in left] + [f"B's {m}" for m in right]
    notes += [f"not compared: {m}" for m in unpaired]
    if left and right:
        notes.append(f"modes of different names are compared when named: --pair "
                     f"{left[0]}={right[0]}")
    return pairs, notes, unpaired


def compare_runs(a: StoredRun, b: StoredRun, *, label_a: str = "A", label_b: str = "B",
                 named: Sequence[tuple[str, str]] = ()) -> Comparison:
    """Run A against run B, every pair of modes; NothingToCompare when no pair can be made."""
    modes_a = sorted({r.mode for r in a.records})
    modes_b = sorted({r.mode for r in b.records})
    pairs, pairing_notes, unpaired = pair_modes(modes_a, modes_b, named)
    if not pairs:
        raise NothingToCompare(nothing_pairs(modes_a, modes_b))
    warnings, notes = run_warnings(a, b)
    return Comparison(label_a, label_b, warnings, (*notes, *pairing_notes),
                      tuple(compare_modes(a, b, x, y) for x, y in pairs), tuple(unpaired))
