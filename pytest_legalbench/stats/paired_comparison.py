"""Everything a run can say about two arms answering the same questions, in one record.

For a pair of arms (two modes, or a mode and inject), from per-question outcomes keyed by
question id:

- key-fact accuracy: the paired difference with Newcombe's interval and the exact McNemar p
  (``paired_binary``), and the same difference's plain and clustered standard errors with the
  design effect (``clustered``: questions clustered by transaction set);
- evidence recall: the mean paired difference with a bootstrap interval and the exact sign
  test (``paired_scores``), clustered likewise;
- the discordance observed, and the minimum detectable difference of key-fact accuracy at
  this many questions (``power``: alpha 0.05, power 0.8, two-sided);
- Holm's adjusted p-values, once the comparisons of a run are corrected together
  (``holm_family``): key facts and recall are corrected as two separate families.

Only questions both arms scored are paired; the others are counted as dropped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.stats.clustered import ClusteredMean, clustered_difference
from pytest_legalbench.stats.multiplicity import holm_adjusted
from pytest_legalbench.stats.paired_binary import (
    PairedDifference,
    paired_counts,
    paired_difference,
)
from pytest_legalbench.stats.paired_items import pair_items
from pytest_legalbench.stats.paired_scores import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    ScoreDifference,
    score_difference,
)
from pytest_legalbench.stats.power import (
    ALPHA,
    POWER,
    Discordance,
    observed_discordance,
    paired_minimum_detectable_effect,
)


@dataclass(frozen=True)
class PairedComparison:
    """Two arms on the same questions: differences, intervals, tests, clustering, power."""

    first: str
    """The arm whose rate comes first in every difference (first minus second)."""
    second: str
    keyfacts: PairedDifference
    """Key-fact accuracy: the difference, Newcombe's interval and the exact McNemar p."""
    keyfacts_clustered: ClusteredMean
    """The same difference's plain and clustered standard errors."""
    discordance: Discordance
    minimum_detectable_effect: float | None
    """The smallest key-fact difference this many questions detect at the observed
    discordance (alpha 0.05, power 0.8); None when none is detectable."""
    keyfacts_dropped: int
    """Questions one arm lacks or left unscored, left out of the key-fact pairs."""
    recall: ScoreDifference | None
    """Evidence recall: the mean difference, its bootstrap interval and the sign test;
    None when no question has both arms' recall."""
    recall_clustered: ClusteredMean | None
    recall_dropped: int
    keyfacts_p_holm: float | None = None
    """Holm's adjusted key-fact p over the run's comparisons; None until corrected."""
    recall_p_holm: float | None = None



def _clusters_of(keys: Sequence[str], clusters: Mapping[str, str]) -> list[str]:
    # A question without a cluster is its own.
    return [clusters.get(key, key) for key in keys]


def compare_arms(first: str, second: str, *,
                 keyfacts_first: Mapping[str, bool | None],
                 keyfacts_second: Mapping[str, bool | None],
                 recall_first: Mapping[str, float | None],
                 recall_second: Mapping[str, float | None],
                 clusters: Mapping[str, str], confidence: float = 0.95,
                 alpha: float = ALPHA, power: float = POWER,
                 resamples: int = BOOTSTRAP_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED) -> PairedComparison:
    """Compare two arms over the questions both scored (outcomes keyed by question id)."""
    facts = pair_items(keyfacts_first, keyfacts_second)
    pairs = list(zip(facts.first, facts.second, strict=True))
    discordance = observed_discordance(pairs)
    detectable = (paired_minimum_detectable_effect(discordance.n, discordance.rate,
                                                   alpha=alpha, power=power)
                  if discordance.n else None)
    recalls = pair_items(recall_first, recall_second)
    return PairedComparison(
        first=first, second=second,
        keyfacts=paired_difference(paired_counts(pairs), confidence),
        keyfacts_clustered=clustered_difference(
            [float(v) for v in facts.first], [float(v) for v in facts.second],
            _clusters_of(facts.keys, clusters)),
        discordance=discordance, minimum_detectable_effect=detectable,
        keyfacts_dropped=facts.dropped,
        recall=(score_difference(recalls.first, recalls.second, confidence=confidence,
                                 resamples=resamples, seed=seed) if len(recalls) else None),
        recall_clustered=(clustered_difference(recalls.first, recalls.second,
                                               _clusters_of(recalls.keys, clusters))
                          if len(recalls) else None),
        recall_dropped=recalls.dropped,
    )


def holm_family(comparisons: Sequence[PairedComparison]) -> tuple[PairedComparison, ...]:
    """The comparisons with Holm's adjusted p-values, key facts and recall each as a family."""
    facts = holm_adjusted([c.keyfacts.p_value for c in comparisons])
    raw = [(i, c.recall.p_value) for i, c in enumerate(comparisons) if c.recall is not None]
    adjusted = holm_adjusted([p for _, p in raw])
    recall_of = {i: p for (i, _), p in zip(raw, adjusted, strict=True)}
    return tuple(dataclasses.replace(c, keyfacts_p_holm=facts[i], recall_p_holm=recall_of.get(i))
                 for i, c in enumerate(comparisons))
