"""A run's paired statistics from its records: which arms are paired on which questions, the
exact p-values and Holm's correction with literal numbers, clustering by transaction set, the
controls apart, and the summary's lines."""

from __future__ import annotations

import dataclasses
import math

import pytest

from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.run_statistics import run_statistics
from pytest_legalbench.results.statistics_lines import statistics_lines
from pytest_legalbench.stats.clustered import clustered_mean
from pytest_legalbench.stats.power import paired_minimum_detectable_effect
from tests.support.item_records import FAIL, PASS, qa_record

# mcnemar_exact(10, 2) = 2 * (1 + 12 + 66) / 2**12 (SPEC section 8 gives 0.0386).
P_10_VS_2 = 158 / 4096


def _record(number: int, mode: str, inject: KeyFacts, answer: KeyFacts | None, *,
            recall: float, inject_recall: float = 1.0, control: bool = False) -> ItemRecord:
    base = qa_record(number, "tie", inject, answer,
                     kind="out_of_scope" if control else "lookup")
    return dataclasses.replace(
        base, mode=mode, evidence_recall=None if control else recall,
        inject_recall=None if control else inject_recall,
        transaction_set=f"set{(number - 1) // 5}", inject_scope="set")


def _run() -> list[ItemRecord]:
    """Twenty document-bound questions in four sets of five, and two controls.

    Mode a is right on q01-q10 and q13-q17; inject and mode b are right on q11-q17. So a
    against either: 10 right only for a, 2 only for the other; b against inject: no
    discordance. a reads all the evidence, b half of it, inject all of it.
    """
    records = []
    for number in range(1, 21):
        a_right = number <= 10 or 13 <= number <= 17
        other_right = 11 <= number <= 17
        inject = PASS if other_right else FAIL
        records.append(_record(number, "a", inject, PASS if a_right else FAIL, recall=1.0))
        records.append(_record(number, "b", inject, inject, recall=0.5))
    for number in (21, 22):  # controls: a declines both, b one, inject neither
        records.append(_record(number, "a", FAIL, PASS, recall=0.0, control=True))
        records.append(_record(number, "b", FAIL, PASS if number == 21 else FAIL, recall=0.0,
                               control=True))
    return records


def test_every_pair_of_modes_then_each_mode_against_inject() -> None:
    found = run_statistics(_run(), ["b", "a"])
    assert found is not None
    assert (found.questions, found.controls, found.clusters) == (20, 2, 4)
    assert [arm.arm for arm in found.arms] == ["inject", "b", "a"]
    pairs = [(c.paired.first, c.paired.second) for c in found.comparisons]
    assert pairs == [("b", "a"), ("b", "inject"), ("a", "inject")]


def test_the_exact_p_values_and_holms_correction_with_literal_numbers() -> None:
    found = run_statistics(_run(), ["a", "b"])
    assert found is not None
    a_b, a_inject, b_inject = (c.paired for c in found.comparisons)
    for paired in (a_b, a_inject):
        counts = paired.keyfacts.counts
        assert (counts.n, counts.first_only, counts.second_only) == (20, 10, 2)
        assert paired.keyfacts.estimate == pytest.approx(0.4)
        assert paired.keyfacts.p_value == pytest.approx(P_10_VS_2)
        # Holm over three: 3p, max(3p, 2p), max(3p, 1): the two equal smallest take 3p.
        assert paired.keyfacts_p_holm == pytest.approx(3 * P_10_VS_2)
    assert b_inject.keyfacts.p_value == 1.0 and b_inject.keyfacts_p_holm == 1.0
    assert b_inject.discordance.rate == 0.0 and b_inject.minimum_detectable_effect is None
    # Recall: a is higher on all 20 questions against b (sign test 2 / 2**20), equal to
    # inject on all of them (no test to make: p = 1).
    assert a_b.recall is not None and a_inject.recall is not None
    assert a_b.recall.estimate == pytest.approx(0.5)
    assert (a_b.recall.first_higher, a_b.recall.second_higher) == (20, 0)
    assert a_b.recall.p_value == pytest.approx(2 / 2 ** 20)
    assert a_inject.recall.p_value == 1.0
    assert a_b.recall_p_holm == pytest.approx(3 * 2 / 2 ** 20)


def test_the_discordance_and_minimum_detectable_effect_of_a_comparison() -> None:
    found = run_statistics(_run(), ["a", "b"])
    assert found is not None
    paired = found.comparisons[0].paired
    assert paired.discordance.n == 20
    assert paired.discordance.rate == pytest.approx(0.6)
    # Connor's paired design at the run's n and observed discordance: a large difference.
    assert paired.minimum_detectable_effect == paired_minimum_detectable_effect(20, 0.6)
    assert paired.minimum_detectable_effect is not None
    assert 0.4 < paired.minimum_detectable_effect < 0.6


def test_accuracy_is_clustered_by_transaction_set() -> None:
    records = _run()
    found = run_statistics(records, ["a", "b"])
    assert found is not None
    inject = found.arms[0]
    outcomes = [1.0 if 11 <= n <= 17 else 0.0 for n in range(1, 21)]
    expected = clustered_mean(outcomes, [f"set{(n - 1) // 5}" for n in range(1, 21)])
    assert inject.keyfacts == expected
    assert inject.keyfacts.mean == pytest.approx(0.35)
    assert inject.keyfacts.clusters == 4
    # Inject's right answers fall in two of the four sets: clustering widens the error.
    assert inject.keyfacts.clustered_se > inject.keyfacts.naive_se
    assert inject.recall is not None and inject.recall.mean == 1.0
    # Records without a transaction set (stored before it was kept) are clusters of one.
    alone = run_statistics([dataclasses.replace(r, transaction_set="") for r in records])
    assert alone is not None and alone.clusters == 20


def test_controls_are_compared_apart_and_left_uncorrected() -> None:
    found = run_statistics(_run(), ["a", "b"])
    assert found is not None
    a_b, a_inject, b_inject = (c.controls for c in found.comparisons)
    assert a_b is not None and a_inject is not None and b_inject is not None
    assert (a_b.counts.n, a_b.counts.first_only, a_b.counts.second_only) == (2, 1, 0)
    assert (a_inject.counts.first_only, a_inject.counts.second_only) == (2, 0)
    assert a_inject.estimate == pytest.approx(1.0)
    assert a_inject.p_value == pytest.approx(0.5)  # 2 * 0.5**2
    # The controls never enter the document-bound comparison.
    assert found.comparisons[0].paired.keyfacts.counts.n == 20


def test_an_unscored_answer_leaves_the_pair() -> None:
    records = [dataclasses.replace(r, keyfacts_mode=None)
               if r.mode == "a" and r.question_id == "q01" else r for r in _run()]
    found = run_statistics(records, ["a", "b"])
    assert found is not None
    paired = found.comparisons[0].paired
    assert (paired.keyfacts.counts.n, paired.keyfacts_dropped) == (19, 1)
    assert paired.keyfacts.counts.first_only == 9


def test_no_records_no_statistics() -> None:
    assert run_statistics([]) is None


def test_the_summary_lines() -> None:
    found = run_statistics(_run(), ["a", "b"])
    assert found is not None
    lines = statistics_lines(found)
    assert lines[0] == ("statistics: 20 document-bound questions in 4 transaction sets, "
                        "2 controls; 95% intervals, exact p-values; Holm-corrected over 3 "
                        "comparisons")
    assert lines[1] == ("  (only 4 transaction sets: the clustered errors are shown, not to be "
                        "trusted; 20 or more are needed)")
    text = "\n".join(lines)
    assert "  a vs b (20 questions both scored):" in text
    holm = f"{3 * P_10_VS_2:.4g}"
    assert ("    key facts +40.0 points [" in text
            and f"], McNemar p = {P_10_VS_2:.4g}, Holm p = {holm} (10 vs 2 discordant)" in text)
    assert "no difference is detectable (the arms never disagree)" in text
    assert "(paired bootstrap), sign test p = 1.907e-06, Holm p = 5.722e-06 (20 vs 0 higher)" \
        in text
    assert "    controls declined 2/2 vs 0/2: +100.0 points [" in text
    assert text.count("(not corrected)") == 3
    inject_line = next(line for line in lines if line.startswith("    inject "))
    assert inject_line.startswith("    inject  key facts 7/20 35.0%, SE ")
    assert "clustered" in inject_line and "design effect" in inject_line
    # One comparison: nothing to correct, and the count is singular where it is one.
    single = run_statistics([r for r in _run() if r.mode == "a"], ["a"])
    assert single is not None
    first = statistics_lines(single)[0]
    assert first.endswith("exact p-values") and "Holm" not in "\n".join(
        statistics_lines(single))
    assert math.isclose(single.comparisons[0].paired.keyfacts.p_value, P_10_VS_2)
