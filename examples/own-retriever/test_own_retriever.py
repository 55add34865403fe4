"""The benchmark: one item per question and mode, answered by the mode and by inject, judged."""

from pytest_legalbench.run.protocol import Record


def test_question(legalbench_item: Record) -> None:
    """The item answered, judged and scored everything it should."""
    assert legalbench_item.problems() == ()
