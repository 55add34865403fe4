"""Tests of the tuning/test split of a span benchmark by contract family."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.spans.benchmark_file import Snippet, SpanTest
from pytest_legalbench.spans.splits import (
    SPLIT_SALT,
    SpanSplit,
    default_split,
    family_of,
    hashed_split,
    visible_families,
)


def span_test(path: str, query: str = "q") -> SpanTest:
    return SpanTest(query, (Snippet(path, 0, 5),))


def test_a_family_is_the_filer_part_of_the_file_name() -> None:
    assert family_of("cuad/contracts/GluMobileInc_20070319_S-1A_EX-10.09_436630_EX-10.09_"
                     "Content License Agreement2.txt") == "glumobileinc"
    assert family_of("NETGEAR,INC_04_21_2003-EX-10.16-DISTRIBUTOR AGREEMENT.txt") == \
        "netgear,inc"
    assert family_of("a\\b\\Lease.txt") == "lease.txt"


def test_the_hash_split_is_fixed_by_the_salt() -> None:
    # Literal values: a change to the rule (or the salt) shows here first.
    assert SPLIT_SALT == "legalbench-span-split-1"
    assert [hashed_split(f) for f in ("glumobileinc", "netgear,inc", "cardlyticsinc",
                                      "acceleratedtechnologiesholdingcorp", "accurayinc")] \
        == ["test", "test", "tune", "tune", "test"]
    assert hashed_split("glumobileinc", salt="another") in ("tune", "test")


def test_an_agreement_and_its_amendments_land_in_one_split() -> None:
    split = SpanSplit()
    tests = [span_test(f"cuad/contracts/GluMobileInc_2007_EX-10.09_Content License "
                       f"Agreement{n}.txt") for n in range(1, 5)]
    assert len({split.of_test(t) for t in tests}) == 1


def test_pinned_families_are_always_tuning() -> None:
    assert hashed_split("glumobileinc") == "test"
    split = SpanSplit(pinned=frozenset({"glumobileinc"}))
    assert split.of_family("glumobileinc") == "tune"
    assert split.select([span_test("GluMobileInc_x.txt")], "test") == []


def test_the_default_split_pins_the_visible_question_sets_cuad_families() -> None:
    assert visible_families() == frozenset({"glumobileinc", "netgear,inc"})
    assert default_split().pinned == visible_families()


def test_select_names_an_unknown_split() -> None:
    try:
        SpanSplit().select([], "validation")
    except ValueError as error:
        assert "unknown split 'validation': choose one of tune, test" in str(error)
    else:
        raise AssertionError("an unknown split was accepted")


def test_describe_counts_tests_and_families_per_split() -> None:
    tests = [span_test("GluMobileInc_1.txt"), span_test("GluMobileInc_2.txt"),
             span_test("CardlyticsInc_1.txt"), span_test("NETGEAR,INC_1.txt")]
    assert SpanSplit().describe(tests) == {"tune": {"tests": 1, "families": 1},
                                           "test": {"tests": 3, "families": 2}}


@given(st.lists(st.text(alphabet="abcdefgh_,.", min_size=1, max_size=12), max_size=30))
def test_the_splits_partition_the_tests(names: list[str]) -> None:
    tests = [span_test(f"{name}.txt") for name in names]
    split = SpanSplit(pinned=frozenset(family_of(n) for n in names[:2]))
    tune, held = split.select(tests, "tune"), split.select(tests, "test")
    assert len(tune) + len(held) == len(tests)
    assert not {family_of(t.snippets[0].file_path) for t in tune} & \
        {family_of(t.snippets[0].file_path) for t in held}
