"""The benchmark: every scored question of the profile, under every mode of the run, answered
by the mode and by inject and judged as a pair (see the README for options).

Items fail only on errors; the result of a run is the summary printed at the end.
"""

from pytest_legalbench.item_record import ItemRecord


def test_question(legalbench_item: ItemRecord) -> None:
    """Both arms answered and every score was computed."""
    assert legalbench_item.inject_answer
    assert legalbench_item.keyfacts_inject is not None
    if legalbench_item.mode != "inject":
        assert legalbench_item.mode_answer is not None
        assert legalbench_item.verdict is not None
