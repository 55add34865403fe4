"""The run's statistics (``results.run_statistics``) as lines: a header, each arm's accuracy
with its clustered error, then a compact block per comparison. The terminal summary, report.md
and report.html print the same lines."""

from __future__ import annotations

from pytest_legalbench.results.run_statistics import ArmAccuracy, ArmComparison, RunStatistics
from pytest_legalbench.stats.clustered import MIN_TRUSTED_CLUSTERS, ClusteredMean


def _points(share: float) -> str:
    return f"{100 * share:+.1f}"


def _p(value: float) -> str:
    return f"{value:.4g}"


def _count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 question``, ``2 questions``."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def _deff(found: ClusteredMean, scale: float, unit: str) -> str:
    """``SE 5.2 points, clustered 5.4 (design effect 1.08)``."""
    effect = found.design_effect
    shown = "-" if effect is None else f"{effect:.2f}"
    return (f"SE {scale * found.naive_se:.{_places(scale)}f}{unit}, clustered "
            f"{scale * found.clustered_se:.{_places(scale)}f} (design effect {shown})")


def _places(scale: float) -> int:
    return 1 if scale == 100 else 3


def statistics_lines(found: RunStatistics) -> list[str]:
    """The statistics block of a run's summary."""
    many = len(found.comparisons) > 1
    corrected = (f"; Holm-corrected over {len(found.comparisons)} comparisons" if many
                 else "")
    lines = [(f"statistics: {_count(found.questions, 'document-bound question')} in "
              f"{_count(found.clusters, 'transaction set')}, "
              f"{_count(found.controls, 'control')}; {found.confidence:.0%} intervals, exact "
              f"p-values{corrected}")]
    if found.clusters < MIN_TRUSTED_CLUSTERS:
        lines.append(f"  (only {_count(found.clusters, 'transaction set')}: the clustered "
                     f"errors are shown, not to be trusted; {MIN_TRUSTED_CLUSTERS} or more are "
                     f"needed)")
    width = max((len(arm.arm) for arm in found.arms), default=0)
    lines.append("  accuracy by arm (standard errors plain and clustered by transaction set):")
    lines.extend(_arm_line(arm, width) for arm in found.arms)
    for comparison in found.comparisons:
        lines.extend(_comparison_lines(comparison, many, found.power))
    return lines


def _arm_line(arm: ArmAccuracy, width: int) -> str:
    facts = arm.keyfacts
    right = round(facts.mean * facts.n)
    line = (f"    {arm.arm:<{width}}  key facts {right}/{facts.n} {100 * facts.mean:.1f}%, "
            f"{_deff(facts, 100, ' points')}")
    if arm.recall is not None:
        line += f"; recall {arm.recall.mean:.3f}, {_deff(arm.recall, 1, '')}"
    return line


def _comparison_lines(comparison: ArmComparison, many: bool, power: float) -> list[str]:
    paired = comparison.paired
    facts, counts = paired.keyfacts, paired.keyfacts.counts
    lines = [f"  {paired.first} vs {paired.second} ({_count(counts.n, 'question')} both scored"
             + (f", {paired.keyfacts_dropped} not" if paired.keyfacts_dropped else "") + "):"]
    holm = (f", Holm p = {_p(paired.keyfacts_p_holm)}"
            if many and paired.keyfacts_p_holm is not None else "")
    lines.append(f"    key facts {_points(facts.estimate)} points [{_points(facts.interval.low)}, "
                 f"{_points(facts.interval.high)}], McNemar p = {_p(facts.p_value)}{holm} "
                 f"({counts.first_only} vs {counts.second_only} discordant)")
    detectable = paired.minimum_detectable_effect
    if detectable is not None:
        mde = f"detectable with power {power:g}: {100 * detectable:.1f} points"
    elif paired.discordance.n and paired.discordance.rate == 0:
        mde = "no difference is detectable (the arms never disagree)"
    else:
        mde = "no difference is detectable at this n"
    lines.append(f"      {_deff(paired.keyfacts_clustered, 100, ' points')}; {mde}")
    recall = paired.recall
    if recall is not None and paired.recall_clustered is not None:
        holm = (f", Holm p = {_p(paired.recall_p_holm)}"
                if many and paired.recall_p_holm is not None else "")
        lines.append(f"    recall {recall.estimate:+.3f} [{recall.interval.low:+.3f}, "
                     f"{recall.interval.high:+.3f}] (paired bootstrap), sign test p = "
                     f"{_p(recall.p_value)}{holm} ({recall.first_higher} vs "
                     f"{recall.second_higher} higher)")
        lines.append(f"      {_deff(paired.recall_clustered, 1, '')}")
    controls = comparison.controls
    if controls is not None:
        cells = controls.counts
        first = cells.both + cells.first_only
        second = cells.both + cells.second_only
        lines.append(f"    controls declined {first}/{cells.n} vs {second}/{cells.n}: "
                     f"{_points(controls.estimate)} points [{_points(controls.interval.low)}, "
                     f"{_points(controls.interval.high)}], McNemar p = {_p(controls.p_value)}"
                     + (" (not corrected)" if many else ""))
    return lines
