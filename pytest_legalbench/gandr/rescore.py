"""Re-scoring stored GANDR answers without regenerating them: grounding (strict and under
citation-form normalisation) and Stable & Correct@k recomputed from what the report holds.

The judge's scores and the equivalence verdicts are kept as recorded; only the checks that
read the answer text are run again, so a change to the citation rules can be measured on old
runs at no model cost.
"""

from __future__ import annotations

import dataclasses

from pytest_legalbench.gandr.citations import grounding, normalised_grounding
from pytest_legalbench.gandr.judging import stable_and_correct
from pytest_legalbench.gandr.record import GandrRecord


def rescore(record: GandrRecord) -> GandrRecord:
    """``record`` with every repeat's grounding checked again against its passages."""
    ids = record.passage_ids
    repeats = tuple(dataclasses.replace(
        repeat, grounded=grounding(repeat.answer, ids).grounded,
        normalised_grounded=normalised_grounding(repeat.answer, ids).grounded)
        for repeat in record.repeats)
    stable = stable_and_correct([r.strict for r in repeats],
                                [verdict for _, _, verdict in record.equivalence])
    return dataclasses.replace(record, repeats=repeats, stable_correct=stable)
