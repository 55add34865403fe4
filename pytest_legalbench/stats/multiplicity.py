"""Holm's step-down correction for a family of p-values (several modes compared at once).

Comparing k modes with one another and with inject makes many tests; at 5% each, some come out
"significant" by chance alone. Holm (1979, "A simple sequentially rejective multiple test
procedure", Scandinavian Journal of Statistics 6:65-70) controls the chance of any false
rejection at the nominal level without assuming the tests independent, and rejects at least
as much as Bonferroni. Its adjusted p-values: sort the m p-values ascending; the i-th smallest
(i from 1) becomes max over j <= i of min(1, (m - j + 1) * p_(j)). A test is rejected at level
alpha exactly when its adjusted p-value is at most alpha.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence


def holm_adjusted(p_values: Sequence[float]) -> tuple[float, ...]:
    """Holm's adjusted p-values, in the order given."""
    for position, value in enumerate(p_values):
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise TypeError(f"p_values[{position}] must be a number, got {value!r}")
        if not 0.0 <= value <= 1.0 or math.isnan(value):
            raise ValueError(f"p_values[{position}] must lie in [0, 1], got {value}")
    m = len(p_values)
    # A stable sort keeps tied p-values in their given order; their adjusted values agree.
    order = sorted(range(m), key=lambda index: p_values[index])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p_values[index])))
        adjusted[index] = running
    return tuple(adjusted)
