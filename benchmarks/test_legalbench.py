"""The benchmark: every scored question of the profile, under every mode of the run, answered
by the mode and by inject and judged as a pair; GANDR systems answer k seeded times and are
graded against the reference answer (see the README for options).

Items fail only on errors; the result of a run is the summary printed at the end.
"""

from pytest_legalbench.run.protocol import Record


def test_question(legalbench_item: Record) -> None:
    """The item produced everything its product scores: both arms answered, key facts and a
    verdict (GANDR systems: every repeat answered and every pair of repeats judged)."""
    assert legalbench_item.problems() == ()
