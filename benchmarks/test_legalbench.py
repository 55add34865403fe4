"""The benchmark: every scored question of the profile, under every mode of the run, answered
by the mode and by inject and judged as a pair; GANDR systems answer k seeded times and are
graded against the reference answer (see the README for options).

Items fail only on errors; the result of a run is the summary printed at the end.
"""

from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.results.item_record import ItemRecord


def test_question(legalbench_item: ItemRecord | GandrRecord) -> None:
    """Both arms answered and every score was computed (GANDR systems: every repeat answered
    and every pair of repeats judged)."""
    if isinstance(legalbench_item, GandrRecord):
        assert all(repeat.answer for repeat in legalbench_item.repeats)
        k = len(legalbench_item.repeats)
        assert len(legalbench_item.equivalence) == k * (k - 1) // 2
        return
    assert legalbench_item.inject_answer
    assert legalbench_item.keyfacts_inject is not None
    if legalbench_item.mode != "inject":
        assert legalbench_item.mode_answer is not None
        assert legalbench_item.verdict is not None
