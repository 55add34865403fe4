"""The report files of a run: results.json, report.md, verdicts.csv, cost.png and cost curves."""

from __future__ import annotations

import csv
import json
import struct
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import from_builtins, to_builtins
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.cost_chart import INJECT_COLD, INJECT_WARM, cumulative_costs
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.report_files import _nested_lines, summary_markdown, write_report
from pytest_legalbench.results.results_file import RESULTS_LAYOUT
from pytest_legalbench.results.summarise import summarise
from pytest_legalbench.results.summary import Summary
from pytest_legalbench.results.verdicts_file import VERDICT_COLUMNS

CARD = load_price_card()  # input $3.00, cache write $3.75, cache read $0.30, output $15 per M
MODELS = {"answer": "claude-sonnet-4-6", "judge": "claude-opus-4-7"}
NAVEMBED = "navembed:hybrid"
NAVINDEX = "navindex"
#: Nested builtins, as report.md's summary renderer takes them.
NESTED: dict[str, object] = {
    "tally": {NAVEMBED: {"inject": 1, "mode": 0, "tie": 1, "unscored": 1}},
    "controls": {"declined": [True, False]},
    "note": "two modes",
}


def _call(stage: str, question_id: str, *, uncached: int = 0, write: int = 0, read: int = 0,
          output: int = 0) -> Call:
    return Call(stage=stage, model="claude-sonnet-4-6", latency_s=1.25, backend="reference",
                question_id=question_id,
                usage=Usage(input_tokens=uncached, cache_creation_input_tokens=write,
                            cache_read_input_tokens=read, output_tokens=output))


def _facts(found: int, missing: int, *, declined: bool = False) -> KeyFacts:
    return KeyFacts(tuple(f"fact {i}" for i in range(found)),
                    tuple(f"gap {i}" for i in range(missing)), declined, missing == 0)


# Inject costs by hand: alpha 0.0003 + 0.75 + 0.0075 = 0.7578 (writes the cache);
# beta 0.0003 + 0.06 + 0.006 = 0.0663; zeta 0.0006 + 0.06 + 0.0006 = 0.0612.
INJECT = {
    "alpha-fee": (_call("inject.answer", "alpha-fee", uncached=100, write=200_000, output=500),),
    "beta-term": (_call("inject.answer", "beta-term", uncached=100, read=200_000, output=400),),
    "zeta-control": (_call("inject.answer", "zeta-control", uncached=200, read=200_000,
                           output=40),),
}
# A million judge input tokens cost $3: any leak into a cost curve shows.
JUDGE = (_call("judge.forward", "x", uncached=1_000_000), _call("judge.reverse", "x", output=10))


def _record(question_id: str, mode: str, *, verdict: str | None,
            raw: tuple[str | None, str | None], mode_calls: tuple[Call, ...],
            kind: str = "fact", mode_facts: KeyFacts | None = None,
            recall: float | None = None, answer: str | None = "mode answer") -> ItemRecord:
    control = kind == "out_of_scope"
    return ItemRecord(
        question_id=question_id, kind=kind, practice_area="finance", difficulty="medium",
        mode=mode, question=f"What does {question_id} say?",
        reference=None if control else f"reference for {question_id}", judge="reference-anchored",
        inject_answer=f"inject answer to {question_id}", mode_answer=answer,
        raw_forward=raw[0], raw_reverse=raw[1], verdict=verdict,
        keyfacts_inject=_facts(0, 0, declined=True) if control else _facts(2, 0),
        keyfacts_mode=mode_facts, evidence_recall=recall, node_ids=("n1", "n2"),
        payload_tokens=1234, scan_tokens=0, inject_calls=INJECT[question_id],
        mode_calls=mode_calls, judge_calls=JUDGE, mode_traits=builtin_traits(mode))


def _records() -> list[ItemRecord]:
    """Three questions under navembed and two under navindex, deliberately out of order."""
    return [
        _record("zeta-control", NAVEMBED, kind="out_of_scope", verdict="unscored",
                raw=(None, "tie"), mode_facts=_facts(0, 0, declined=False),
                mode_calls=(_call("navembed.answer", "zeta-control", uncached=2000, output=20),),
                answer="An answer, with a comma,\nand a second line — “quoted”."),
        _record("beta-term", NAVINDEX, verdict=None, raw=(None, None), mode_facts=_facts(1, 1),
                recall=1.0, mode_calls=(
                    _call("navindex.scan", "beta-term", read=10_000, output=50),
                    _call("navindex.answer", "beta-term", uncached=1000, output=100))),
        _record("alpha-fee", NAVEMBED, verdict="inject", raw=("A", "B"),
                mode_facts=_facts(1, 1), recall=2 / 3,
                mode_calls=(_call("navembed.answer", "alpha-fee", uncached=4000, output=300),)),
        _record("beta-term", NAVEMBED, verdict="tie", raw=("tie", "tie"),
                mode_facts=_facts(2, 0), recall=0.5,
                mode_calls=(_call("navembed.answer", "beta-term", uncached=6000, output=200),)),
        _record("alpha-fee", NAVINDEX, verdict="mode", raw=("B", "A"), mode_facts=_facts(2, 0),
                recall=1.0, mode_calls=(
                    _call("navindex.scan", "alpha-fee", write=10_000, output=50),
                    _call("navindex.answer", "alpha-fee", uncached=3000, output=250))),
    ]


def _summary(records: list[ItemRecord]) -> Summary:
    return summarise(records, CARD, backend="reference", models=MODELS)


@pytest.fixture
def written(tmp_path: Path) -> list[Path]:
    return write_report(tmp_path / "report", records=_records(), summary=_summary(_records()),
                        backend="reference", models=MODELS, card=CARD)


def test_writes_the_five_files_and_nothing_else(written: list[Path], tmp_path: Path) -> None:
    folder = tmp_path / "report"
    assert written == [folder / name
                       for name in ("results.json", "report.md", "verdicts.csv", "cost.png",
                                    "recall_payload.png")]
    # No temporary file of the atomic writes is left behind.
    assert sorted(path.name for path in folder.iterdir()) == sorted(p.name for p in written)


def test_results_json_round_trips_every_record_in_order(written: list[Path]) -> None:
    data = json.loads(written[0].read_text(encoding="utf-8"))
    assert set(data) == {"schema_version", "backend", "models", "run", "records", "provisions",
                         "texts", "summary"}
    assert data["schema_version"] == RESULTS_LAYOUT.version == 3
    assert (data["backend"], data["models"], data["summary"]) == (
        "reference", MODELS, to_builtins(_summary(_records())))
    records = [from_builtins(ItemRecord, item) for item in data["records"]]
    assert records == sorted(_records(), key=lambda r: (r.question_id, r.mode))
    assert data["records"][0]["inject_calls"][0]["latency_s"] == 1.25


def test_verdicts_csv_has_one_row_per_judged_record(written: list[Path]) -> None:
    with written[2].open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == VERDICT_COLUMNS
    # beta-term under navindex was not judged (verdict None), so it has no row.
    assert [row[:2] + row[6:] for row in rows[1:]] == [
        ["alpha-fee", NAVEMBED, "A", "B", "inject", "pass", "fail", "inject only", "", "", ""],
        ["alpha-fee", NAVINDEX, "B", "A", "mode", "pass", "pass", "both pass", "", "", ""],
        ["beta-term", NAVEMBED, "tie", "tie", "tie", "pass", "pass", "both pass", "", "", ""],
        ["zeta-control", NAVEMBED, "", "tie", "unscored", "pass", "pass", "both pass", "", "",
         ""],
    ]
    alpha = rows[1]
    assert alpha[2:6] == ["What does alpha-fee say?", "reference for alpha-fee",
                          "inject answer to alpha-fee", "mode answer"]
    # A control has no reference; commas, line breaks and non-ASCII survive the quoting.
    assert rows[4][3] == ""
    assert rows[4][5] == "An answer, with a comma,\nand a second line — “quoted”."


def test_report_markdown_tables(written: list[Path]) -> None:
    lines = written[1].read_text(encoding="utf-8").splitlines()
    assert lines[0] == ("# legalbench report: backend `reference`, models answer "
                        "`claude-sonnet-4-6`, judge `claude-opus-4-7`")
    assert any("price card default v1" in line for line in lines)
    navembed = lines.index(f"## {NAVEMBED}")
    assert lines[navembed + 2].startswith("| question | kind | verdict | key facts (inject) |")
    assert lines[navembed + 4:navembed + 8] == [
        "| alpha-fee | fact | inject | 2/2 | 1/2 | — | 67% | 1,234 | $0.0165 | $0.7578 |",
        "| beta-term | fact | tie | 2/2 | 2/2 | — | 50% | 1,234 | $0.0210 | $0.0663 |",
        ("| zeta-control | out_of_scope | unscored | declined | not declined | — | — | 1,234 "
         "| $0.0063 | $0.0612 |"),
        "| **total** | | | | | | | | $0.0438 | $0.8853 |",
    ]
    navindex = lines.index(f"## {NAVINDEX}")
    assert navindex > navembed
    # 0.00825 and 0.05925 round half-even to four places: $0.0082 and $0.0592.
    assert lines[navindex + 4:navindex + 7] == [
        "| alpha-fee | fact | mode | 2/2 | 2/2 | — | 100% | 1,234 | $0.0510 | $0.7578 |",
        "| beta-term | fact | — | 2/2 | 1/2 | — | 100% | 1,234 | $0.0082 | $0.0663 |",
        "| **total** | | | | | | | | $0.0592 | $0.8241 |",
    ]


def test_report_markdown_renders_the_summary_as_nested_lists(written: list[Path]) -> None:
    text = written[1].read_text(encoding="utf-8")
    summary = text[text.index("## Summary"):].splitlines()
    assert summary[2:] == summary_markdown(_summary(_records()))
    assert summary[2:5] == ["- **backend**: reference",
                            "- **models**:", "  - **answer**: claude-sonnet-4-6"]
    assert f"  - **{NAVEMBED}**:" in summary and "    - **items**: 3" in summary
    assert _nested_lines(NESTED) == [
        "- **tally**:",
        f"  - **{NAVEMBED}**:",
        "    - **inject**: 1",
        "    - **mode**: 0",
        "    - **tie**: 1",
        "    - **unscored**: 1",
        "- **controls**:",
        "  - **declined**: [true, false]",
        "- **note**: two modes",
    ]


def test_cumulative_costs_by_hand() -> None:
    series = cumulative_costs(_records(), CARD)
    assert list(series) == [NAVEMBED, NAVINDEX, INJECT_WARM, INJECT_COLD]
    # navembed: 4000*3 + 300*15 = 0.0165; 6000*3 + 200*15 = 0.021; 2000*3 + 20*15 = 0.0063.
    assert series[NAVEMBED] == [Decimal("0.0165"), Decimal("0.0375"), Decimal("0.0438")]
    # navindex alpha: 10000*3.75 + 50*15 + 3000*3 + 250*15 = 0.051;
    # beta: 10000*0.30 + 50*15 + 1000*3 + 100*15 = 0.00825.
    assert series[NAVINDEX] == [Decimal("0.051"), Decimal("0.05925")]
    # Each question's inject answer counted once, though navembed and navindex share it.
    assert series[INJECT_WARM] == [Decimal("0.7578"), Decimal("0.8241"), Decimal("0.8853")]
    # Cold: the 200,000 cache-read tokens of beta and zeta are priced as writes (0.75 each):
    # beta 0.0003 + 0.75 + 0.006 = 0.7563; zeta 0.0006 + 0.75 + 0.0006 = 0.7512.
    assert series[INJECT_COLD] == [Decimal("0.7578"), Decimal("1.5141"), Decimal("2.2653")]


def test_cost_chart_is_a_png(written: list[Path]) -> None:
    data = written[3].read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (800, 500)


def test_inject_only_run(tmp_path: Path) -> None:
    records = [_record(question, "inject", verdict=None, raw=(None, None), mode_calls=(),
                       answer=None) for question in ("beta-term", "alpha-fee")]
    paths = write_report(tmp_path, records=records, summary=_summary(records),
                         backend="reference", models=MODELS, card=CARD)
    assert list(cumulative_costs(records, CARD)) == [INJECT_WARM, INJECT_COLD]
    assert paths[2].read_text(encoding="utf-8").splitlines() == [",".join(VERDICT_COLUMNS)]
    report = paths[1].read_text(encoding="utf-8").splitlines()
    assert "| alpha-fee | fact | — | 2/2 | — | — | — | 1,234 | — | $0.7578 |" in report
    assert report[report.index("## Summary") + 2:] == summary_markdown(_summary(records))


def test_empty_run_still_writes_every_file(tmp_path: Path) -> None:
    paths = write_report(tmp_path, records=[], summary=_summary([]), backend="reference",
                         models={}, card=CARD)
    assert cumulative_costs([], CARD) == {INJECT_WARM: [], INJECT_COLD: []}
    assert all(path.is_file() for path in paths)
    assert "No items were recorded." in paths[1].read_text(encoding="utf-8")
    assert paths[3].read_bytes()[:4] == b"\x89PNG"


def test_duplicate_item_is_an_error(tmp_path: Path) -> None:
    records = _records()
    with pytest.raises(ValueError, match="two records for question 'alpha-fee' under mode "
                                         "'navindex'"):
        write_report(tmp_path, records=[*records, records[-1]], summary=_summary(records),
                     backend="reference", models=MODELS, card=CARD)
    assert not list(tmp_path.iterdir())


def _unwritable(summary: Summary, kind: str) -> Summary:
    if kind == "object":
        return replace(summary, models={"answer": object()})  # type: ignore[dict-item]
    return replace(summary, modes=(replace(summary.modes[0], evidence_recall=float("nan")),
                                   *summary.modes[1:]))


@pytest.mark.parametrize("kind", ["object", "nan"])
def test_summary_that_is_not_json_is_an_error(tmp_path: Path, kind: str) -> None:
    summary = _unwritable(_summary(_records()), kind)
    with pytest.raises(ValueError, match=r"results\.json: the summary or a record is not plain"):
        write_report(tmp_path, records=_records(), summary=summary, backend="reference",
                     models=MODELS, card=CARD)


_COUNTS = st.integers(min_value=0, max_value=5_000_000)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_COUNTS, _COUNTS, _COUNTS, _COUNTS), min_size=1, max_size=8))
def test_cost_curves_grow_and_cold_never_undercuts_warm(
        usages: list[tuple[int, int, int, int]]) -> None:
    records = []
    for number, (uncached, write, read, output) in enumerate(usages):
        question_id = f"q{number:02d}"
        calls = (_call("inject.answer", question_id, uncached=uncached, write=write, read=read,
                       output=output),)
        for mode in (NAVEMBED, NAVINDEX):
            record = _record("alpha-fee", mode, verdict="tie", raw=("tie", "tie"),
                             mode_calls=calls)
            records.append(from_builtins(ItemRecord, {**to_builtins(record), "question_id": question_id,
                                                 "inject_calls": [to_builtins(c) for c in calls]}))
    series = cumulative_costs(records, CARD)
    warm, cold = series[INJECT_WARM], series[INJECT_COLD]
    assert len(warm) == len(cold) == len(usages)
    # The inject arm of two modes counts once: it equals either mode's identical curve.
    assert warm == series[NAVEMBED] == series[NAVINDEX]
    for curve in (warm, cold):
        assert curve == sorted(curve)
    # A cache write costs more than a read on the default card, so cold >= warm throughout.
    assert all(w <= c for w, c in zip(warm, cold, strict=True))
    extra = sum((read for _, _, read, _ in usages), 0) * (Decimal("3.45") / 1_000_000)
    assert cold[-1] - warm[-1] == extra
