"""Standard errors of a mean when questions come in clusters (the questions of one transaction
set), beside the plain ones, and the design effect between them.

Questions written about the same documents succeed or fail together more often than
independent questions would: a mode that cannot find one set's amendment misses every question
that needs it. The plain standard error assumes independence and is then too small. Following
Miller (2024, "Adding Error Bars to Evals", arXiv 2411.00640), the clustered variance of a
mean adds to the plain one the products of the deviations of every two distinct questions in
the same cluster:

    SE_clustered^2 = SE^2 + (1 / n^2) * sum over clusters c of
                     sum over i != j in c of (s_i - mean) * (s_j - mean)

where SE^2 = s^2 / n with s^2 the sample variance (divisor n - 1). With every question its own
cluster the two agree. The design effect is SE_clustered^2 / SE^2: how many times the plain
variance the clustering costs (1 for independent questions; above 1 when clusters move
together). A mean of 0/1 outcomes is a proportion; a mean of per-question differences between
two arms is their paired difference.

Clustered standard errors need many clusters to be trusted: with a handful (the four
transaction sets of the default profile) the clustered variance is itself very noisy.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from pytest_legalbench.files.record_json import derived

#: Below this many clusters a clustered standard error is too noisy to lean on (a common rule
#: of thumb for cluster-robust variances; with fewer, report it but do not trust it).
MIN_TRUSTED_CLUSTERS = 20


@derived(design_effect="design_effect", trusted="trusted")
@dataclass(frozen=True)
class ClusteredMean:
    """A mean with its plain and its cluster-robust standard error (written with the design
    effect and whether there are clusters enough to trust it)."""

    n: int
    clusters: int
    mean: float
    naive_se: float
    clustered_se: float

    @property
    def design_effect(self) -> float | None:
        """Clustered variance over plain variance; None when the plain variance is 0."""
        if self.naive_se == 0.0:
            return None
        return (self.clustered_se / self.naive_se) ** 2

    @property
    def trusted(self) -> bool:
        """Whether there are enough clusters for the clustered standard error to mean much."""
        return self.clusters >= MIN_TRUSTED_CLUSTERS


def clustered_mean(values: Sequence[float], clusters: Sequence[Hashable]) -> ClusteredMean:
    """The mean of ``values`` with plain and clustered standard errors (Miller 2024)."""
    if len(values) != len(clusters):
        raise ValueError(f"{len(values)} values but {len(clusters)} cluster keys")
    # A bool is a 0/1 outcome here (right or wrong), so it counts as a number.
    for position, value in enumerate(values):
        if not isinstance(value, numbers.Real):
            raise TypeError(f"values[{position}] must be a number, got {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"values[{position}] must be finite, got {value}")
    n = len(values)
    groups = len(set(clusters))
    if n == 0:
        return ClusteredMean(n=0, clusters=0, mean=0.0, naive_se=0.0, clustered_se=0.0)
    mean = math.fsum(values) / n
    deviations = [float(value) - mean for value in values]
    squares = math.fsum(d * d for d in deviations)
    if n == 1:
        # One question gives no variance estimate; report 0 rather than divide by zero.
        return ClusteredMean(n=1, clusters=1, mean=mean, naive_se=0.0, clustered_se=0.0)
    naive_variance = squares / (n - 1) / n
    sums: dict[Hashable, float] = {}
    for cluster, deviation in zip(clusters, deviations, strict=True):
        sums[cluster] = sums.get(cluster, 0.0) + deviation
    # sum over i != j in a cluster of d_i d_j = (sum of d)^2 - sum of d^2, per cluster.
    cross = math.fsum(total * total for total in sums.values()) - squares
    clustered_variance = max(0.0, naive_variance + cross / (n * n))
    return ClusteredMean(n=n, clusters=groups, mean=mean, naive_se=math.sqrt(naive_variance),
                         clustered_se=math.sqrt(clustered_variance))


def clustered_difference(first: Sequence[float], second: Sequence[float],
                         clusters: Sequence[Hashable]) -> ClusteredMean:
    """The mean paired difference ``first - second`` with plain and clustered errors."""
    if len(first) != len(second):
        raise ValueError(f"the arms score different numbers of questions: {len(first)} and "
                         f"{len(second)}")
    return clustered_mean([a - b for a, b in zip(first, second, strict=True)], clusters)
