"""A run's paired comparison of two arms: the parts agree with the functions they come from,
unscored questions leave the pairs, and Holm corrects key facts and recall as two families."""

from __future__ import annotations

import json

import pytest

from pytest_legalbench.files.record_json import from_builtins, to_builtins
from pytest_legalbench.stats.clustered import clustered_difference
from pytest_legalbench.stats.multiplicity import holm_adjusted
from pytest_legalbench.stats.paired_binary import PairedCounts, paired_difference
from pytest_legalbench.stats.paired_comparison import (
    PairedComparison,
    compare_arms,
    holm_family,
)
from pytest_legalbench.stats.paired_scores import score_difference
from pytest_legalbench.stats.power import paired_minimum_detectable_effect

# Twelve questions in three transaction sets; q12 unscored for the second arm.
FIRST = {f"q{i:02d}": right for i, right in enumerate(
    [True, True, True, False, True, True, False, True, True, True, False, True], start=1)}
SECOND = {**{f"q{i:02d}": right for i, right in enumerate(
    [True, False, True, False, False, True, False, True, False, True, True], start=1)},
    "q12": None}
RECALL_FIRST = {key: 1.0 if right else 0.5 for key, right in FIRST.items()}
RECALL_SECOND = {key: 0.5 for key in FIRST}
SETS = {f"q{i:02d}": "abc"[(i - 1) // 4] for i in range(1, 13)}


def test_the_parts_are_the_building_blocks_on_the_shared_questions() -> None:
    result = compare_arms("navembed", "navembed:chunks", keyfacts_first=FIRST,
                          keyfacts_second=SECOND, recall_first=RECALL_FIRST,
                          recall_second=RECALL_SECOND, clusters=SETS)
    keys = [f"q{i:02d}" for i in range(1, 12)]
    # Both right 5, first only 3 (q02, q05, q09), second only 1 (q11), neither 2 (q04, q07).
    assert result.keyfacts == paired_difference(PairedCounts(5, 3, 1, 2))
    assert result.keyfacts_dropped == 1
    first = [float(FIRST[k]) for k in keys]
    second = [float(bool(SECOND[k])) for k in keys]
    assert result.keyfacts_clustered == clustered_difference(first, second,
                                                             [SETS[k] for k in keys])
    assert (result.discordance.n, result.discordance.first_only,
            result.discordance.second_only) == (11, 3, 1)
    assert result.minimum_detectable_effect == paired_minimum_detectable_effect(11, 4 / 11)
    all_keys = sorted(FIRST)
    assert result.recall == score_difference([RECALL_FIRST[k] for k in all_keys],
                                             [RECALL_SECOND[k] for k in all_keys])
    assert result.recall_dropped == 0
    record = to_builtins(result)
    assert record["first"] == "navembed" and record["keyfacts_p_holm"] is None
    assert record["keyfacts"]["counts"] == {"both": 5, "first_only": 3, "second_only": 1,
                                            "neither": 2, "n": 11, "discordant": 4}
    assert record["discordance"]["rate"] == pytest.approx(4 / 11)
    assert record["keyfacts_clustered"]["trusted"] is False
    assert from_builtins(PairedComparison, json.loads(json.dumps(record))) == result


def test_no_recall_on_either_side_gives_none() -> None:
    result = compare_arms("a", "b", keyfacts_first={"q": True}, keyfacts_second={"q": False},
                          recall_first={"q": None}, recall_second={"q": 1.0}, clusters={})
    assert result.recall is None and result.recall_clustered is None
    assert result.recall_dropped == 1
    assert result.keyfacts.estimate == pytest.approx(1.0)


def test_holm_corrects_each_metric_as_its_own_family() -> None:
    def arm(rights: list[bool]) -> dict[str, bool | None]:
        return {f"q{i}": right for i, right in enumerate(rights)}

    base = arm([True] * 30)
    weaker = arm([True] * 18 + [False] * 12)
    similar = arm([True] * 28 + [False] * 2)
    recall = {f"q{i}": 1.0 for i in range(30)}
    lower = {f"q{i}": 0.0 if i < 10 else 1.0 for i in range(30)}
    first = compare_arms("a", "b", keyfacts_first=base, keyfacts_second=weaker,
                         recall_first=recall, recall_second=lower, clusters={})
    second = compare_arms("a", "c", keyfacts_first=base, keyfacts_second=similar,
                          recall_first=recall, recall_second={}, clusters={})
    corrected = holm_family([first, second])
    assert [c.keyfacts_p_holm for c in corrected] == list(
        holm_adjusted([first.keyfacts.p_value, second.keyfacts.p_value]))
    # Only the first has recall, so its recall family has one member: unadjusted.
    assert first.recall is not None
    assert corrected[0].recall_p_holm == first.recall.p_value
    assert corrected[1].recall_p_holm is None
    assert corrected[0].keyfacts == first.keyfacts
