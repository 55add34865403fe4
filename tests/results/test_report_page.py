"""report.html's parts without a browser: the data island, the recall chart, the header of a
results file of the first layout, the page of an empty run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.html_page import data_island, page
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.recall_chart import recall_points, recall_svg
from pytest_legalbench.results.results_file import read_run
from pytest_legalbench.results.run_header import UNKNOWN, report_date
from pytest_legalbench.run.html_report import report_html
from tests.support.item_records import PASS
from tests.support.item_records import qa_record as make_record


def test_the_data_island_cannot_close_its_script_element() -> None:
    text = data_island({"answer": "</script><script>alert(1)</script>\u2028"})
    assert "</script" not in text and "\u2028" not in text
    assert json.loads(text) == {"answer": "</script><script>alert(1)</script>\u2028"}
    html = page("t <b>", "<p>body</p>", {"x": 1}, script=False)
    assert "<title>t &lt;b&gt;</title>" in html and "<script>\n" not in html


def _record(mode: str, recall: float | None, payload: int) -> ItemRecord:
    return replace(make_record(1, "tie", PASS, PASS), mode=mode, evidence_recall=recall,
                   payload_tokens=payload, mode_traits=builtin_traits(mode))


def test_the_recall_chart_leaves_out_inject_and_items_without_evidence() -> None:
    records = [_record("navindex", 1.0, 4000), _record("navindex", 0.0, 2000),
               _record("navindex", None, 9000), _record("inject", 1.0, 160_000)]
    series, = recall_points(records)
    assert series.mode == "navindex" and series.points == ((4000, 1.0), (2000, 0.0))
    assert series.mean == (3000, 0.5)
    svg = recall_svg([series])
    assert svg.count("<circle") == 2 and "mean 0.500 at 3,000" in svg
    assert recall_svg(recall_points([_record("navindex", None, 1)])) == ""


def test_a_results_file_of_the_first_layout_reads_with_an_unknown_corpus(tmp_path: Path) -> None:
    record = to_builtins(_record("navindex", 0.5, 100))
    del record["provisions"], record["evidence"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"format_version": 1, "backend": "reference",
                                "models": {"answer": "m"}, "records": [record],
                                "summary": {"price_card": "default v1", "modes": {}}}),
                    encoding="utf-8")
    run = read_run(tmp_path)
    assert (run.header.backend, run.header.price_card) == ("reference", "default v1")
    assert run.header.corpus.digest == UNKNOWN and run.provisions == {}
    html = report_html(run, None, load_price_card())
    assert 'id="qa-items"' in html


def test_an_empty_run_says_so_and_the_date_can_be_pinned() -> None:
    assert "No items were recorded." in report_html(None, None, load_price_card())
    assert report_date({"SOURCE_DATE_EPOCH": "0"}) == "1970-01-01T00:00:00Z"
    assert report_date({}).endswith("Z")
