"""A deterministic sample of questions, stratified by category and spread over families.

The rule (``--legalbench-sample N``):

1. **Whole set.** N at least the set's size takes every question; N = 0 takes none.
2. **Allocation.** Each stratum (a question category; callers may fold more into it, such as
   whether the question is a control) gets a share of N proportional to its size, by the
   largest-remainder method: every stratum first gets the floor of N * size / total, and the
   questions left over go one each to the strata with the largest remainders (ties: the larger
   stratum, then the stratum's name). A stratum never gets more than it holds.
3. **Selection.** The strata then take turns, in name order, each picking one question per turn
   until its allocation is filled. A stratum picks, among its questions not yet taken, one
   whose family has been picked least often so far, ties broken by a fixed pseudo-random key
   (SHA-256 of the seed and the question id). Families are thus covered as evenly as the
   strata allow, and no family is favoured by its name or its place in the input.

The sample depends only on the questions' ids, strata and families, N and the seed: not on the
order the questions are given in. It is returned sorted by id.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

#: The default seed of the selection's tie-breaking key.
SAMPLE_SEED = "legalbench-sample-1"


@dataclass(frozen=True)
class SampleUnit:
    """What the sampler knows of a question: its id, its stratum and its family."""

    id: str
    stratum: str
    family: str


def _key(seed: str, identifier: str) -> bytes:
    return hashlib.sha256(f"{seed}\0{identifier}".encode()).digest()


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Split ``n`` over strata of the given sizes in proportion, by largest remainders."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    quotas = {name: n * size / total for name, size in sizes.items()}
    shares = {name: math.floor(quota) for name, quota in quotas.items()}
    left = n - sum(shares.values())
    order = sorted(sizes, key=lambda name: (-(quotas[name] - shares[name]), -sizes[name], name))
    for name in order[:left]:
        shares[name] += 1
    return shares


def stratified_sample(units: Sequence[SampleUnit], n: int, *,
                      seed: str = SAMPLE_SEED) -> tuple[str, ...]:
    """The ids of a deterministic sample of ``n`` units, stratified and spread over families."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"the sample size must be an integer, got {n!r}")
    if n < 0:
        raise ValueError(f"the sample size must not be negative, got {n}")
    seen: set[str] = set()
    for unit in units:
        if unit.id in seen:
            raise ValueError(f"question id {unit.id!r} appears twice")
        seen.add(unit.id)
    if n >= len(units):
        return tuple(sorted(seen))
    strata: dict[str, list[SampleUnit]] = {}
    for unit in units:
        strata.setdefault(unit.stratum, []).append(unit)
    for members in strata.values():
        members.sort(key=lambda unit: _key(seed, unit.id))
    wanted = allocate({name: len(members) for name, members in strata.items()}, n)
    picked_per_family: Counter[str] = Counter()
    chosen: list[str] = []
    remaining = dict(wanted)
    while any(remaining.values()):
        for name in sorted(strata):
            if not remaining[name]:
                continue
            members = strata[name]
            # The members are in key order, so min() keeps the first of equally-picked families.
            best = min(range(len(members)), key=lambda i: picked_per_family[members[i].family])
            unit = members.pop(best)
            picked_per_family[unit.family] += 1
            chosen.append(unit.id)
            remaining[name] -= 1
    return tuple(sorted(chosen))
