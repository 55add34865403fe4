"""What a run can and cannot show: its arms compared on the same questions, with clustered
errors, the smallest difference it detects, and Holm's correction over its comparisons.

The arms are inject and every mode of the run. Each question is answered once by inject
(shared by every mode paired with it) and once by each mode, so every two arms answered the
same questions. The comparisons are every pair of modes, in the order the run named them, then
every mode against inject; each is ``stats.paired_comparison.compare_arms`` over the
document-bound questions (key-fact accuracy and evidence recall), with the controls' key facts
compared apart (``controls``: declining a question whose answer is in no document). Key facts
and recall are each Holm-corrected as one family over the run's comparisons; the controls'
test is reported uncorrected, as a secondary outcome.

Questions are clustered by transaction set (``ItemRecord.transaction_set``): questions about
the same documents tend to fail together. Each arm's accuracy is given with its plain and
clustered standard errors and the design effect between them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.modes.registry import BASELINE
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.stats.clustered import ClusteredMean, clustered_mean
from pytest_legalbench.stats.paired_binary import (
    PairedDifference,
    paired_counts,
    paired_difference,
)
from pytest_legalbench.stats.paired_comparison import PairedComparison, compare_arms, holm_family
from pytest_legalbench.stats.paired_items import pair_items
from pytest_legalbench.stats.power import ALPHA, POWER

#: The baseline arm every mode is compared with, named as the registry names it.
INJECT = BASELINE
#: The intervals' confidence.
CONFIDENCE = 0.95


@dataclass(frozen=True)
class ArmAccuracy:
    """One arm's key-fact accuracy and evidence recall on the document-bound questions, each
    with its plain and clustered standard errors."""

    arm: str
    keyfacts: ClusteredMean
    """The mean of the key-fact outcomes (1 right, 0 wrong) of the scored questions."""
    recall: ClusteredMean | None
    """Mean evidence recall; None when no question has the arm's recall."""


@dataclass(frozen=True)
class ArmComparison:
    """Two arms on the same questions: the document-bound comparison, and the controls'."""

    paired: PairedComparison
    controls: PairedDifference | None
    """Controls declined by the first arm minus by the second, with the exact McNemar p
    (not Holm-corrected); None when the run has no control both arms scored."""


@dataclass(frozen=True)
class RunStatistics:
    """Every paired comparison of a run, and each arm's accuracy with clustered errors."""

    questions: int
    """Document-bound questions in the run."""
    controls: int
    """Out-of-scope controls in the run."""
    clusters: int
    """Transaction sets the document-bound questions fall in."""
    arms: tuple[ArmAccuracy, ...]
    """Inject first, then the modes in the run's order."""
    comparisons: tuple[ArmComparison, ...]
    """Every pair of modes, then every mode against inject, Holm-corrected."""
    confidence: float = CONFIDENCE
    alpha: float = ALPHA
    power: float = POWER
    """The power the minimum detectable effects are computed for."""


@dataclass(frozen=True)
class _Arm:
    """One arm's outcomes keyed by question id."""

    keyfacts: dict[str, bool | None]
    recall: dict[str, float | None]
    controls: dict[str, bool | None]


def _arms(records: Sequence[ItemRecord], order: Sequence[str]) -> dict[str, _Arm]:
    """Inject's and each mode's outcomes, inject first, the modes in ``order`` (then any
    other in name order)."""
    # The baseline's own items carry its traits; every other record names a mode paired
    # with it.
    baseline = {r.mode for r in records if r.baseline_only} | {INJECT}
    modes = [m for m in order if m not in baseline]
    modes += sorted({r.mode for r in records} - set(modes) - baseline)
    arms = {name: _Arm({}, {}, {}) for name in (INJECT, *modes)}
    for record in records:
        key = record.question_id
        inject = arms[INJECT]
        # Inject's answer to a question is one, shared by every mode paired with it.
        if record.out_of_scope:
            inject.controls[key] = record.keyfacts_inject.correct
        else:
            inject.keyfacts[key] = record.keyfacts_inject.correct
            inject.recall[key] = record.inject_recall
        if record.baseline_only:
            continue
        arm = arms[record.mode]
        facts = record.keyfacts_mode
        correct = None if facts is None else facts.correct
        if record.out_of_scope:
            arm.controls[key] = correct
        else:
            arm.keyfacts[key] = correct
            arm.recall[key] = record.evidence_recall
    return arms


def _accuracy(name: str, arm: _Arm, clusters: Mapping[str, str]) -> ArmAccuracy:
    facts = sorted((key, value) for key, value in arm.keyfacts.items() if value is not None)
    recalls = sorted((key, value) for key, value in arm.recall.items() if value is not None)
    return ArmAccuracy(
        arm=name,
        keyfacts=clustered_mean([float(v) for _, v in facts],
                                [clusters.get(k, k) for k, _ in facts]),
        recall=(clustered_mean([v for _, v in recalls], [clusters.get(k, k) for k, _ in recalls])
                if recalls else None))


def _controls(first: _Arm, second: _Arm) -> PairedDifference | None:
    paired = pair_items(first.controls, second.controls)
    if not len(paired):
        return None
    return paired_difference(paired_counts(zip(paired.first, paired.second, strict=True)),
                             CONFIDENCE)


def run_statistics(records: Iterable[ItemRecord],
                   order: Sequence[str] = ()) -> RunStatistics | None:
    """The run's paired statistics (modes in ``order``, the order the run named them); None
    for a run without records."""
    found = list(records)
    if not found:
        return None
    arms = _arms(found, order)
    bound = {r.question_id: r for r in found if not r.out_of_scope}
    clusters = {key: record.transaction_set or key for key, record in bound.items()}
    pairs = [(a, b) for i, a in enumerate(arms) if a != INJECT
             for b in list(arms)[i + 1:]]
    pairs += [(name, INJECT) for name in arms if name != INJECT]
    compared = [compare_arms(a, b, keyfacts_first=arms[a].keyfacts,
                             keyfacts_second=arms[b].keyfacts, recall_first=arms[a].recall,
                             recall_second=arms[b].recall, clusters=clusters,
                             confidence=CONFIDENCE)
                for a, b in pairs]
    corrected = holm_family(compared)
    return RunStatistics(
        questions=len(bound),
        controls=len({r.question_id for r in found if r.out_of_scope}),
        clusters=len(set(clusters.values())),
        arms=tuple(_accuracy(name, arm, clusters) for name, arm in arms.items()),
        comparisons=tuple(ArmComparison(paired, _controls(arms[a], arms[b]))
                          for paired, (a, b) in zip(corrected, pairs, strict=True)))
