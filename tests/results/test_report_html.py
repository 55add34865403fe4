"""report.html and the compare page in a real browser (headless Chromium through Playwright),
on the reports of two real runs replayed offline from the committed cassettes.

Expected counts are computed here from the runs' own results files, never from numbers of
today's cassettes. The tests skip only when no Chromium can be had.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_legalbench.commands.cli import main
from pytest_legalbench.files.record_json import to_builtins
from tests.support.replayed_runs import SELECTION, Runs

#: Flags Chromium needs to run headless here, as root, with no network.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    """Chromium from $LEGALBENCH_CHROMIUM, else Debian's, else one on the PATH."""
    for candidate in (os.environ.get("LEGALBENCH_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        pytest.skip("no browser: Chromium is not installed (apt-get install -y chromium, or "
                    "set LEGALBENCH_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="no browser driver: pip install playwright")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def results(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return data


def open_page(browser: Any, path: Path) -> tuple[Any, list[str], list[str]]:
    """A page showing ``path``, the URLs it requested and the script errors it raised."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    return page, requests, errors


def _passes(facts: dict[str, Any] | None) -> bool:
    return bool(facts and facts["correct"])


def expected_tags(record: dict[str, Any]) -> set[str]:
    """The outcome filter's tags of a record, derived here from the record alone."""
    verdict = record["verdict"] or "none"
    inject, mode = _passes(record["keyfacts_inject"]), _passes(record["keyfacts_mode"])
    cell = ("both_pass" if inject and mode else "inject_only" if inject
            else "mode_only" if mode else "both_fail")
    tags = {verdict, f"{verdict}:{cell}"}
    if verdict == "tie" and inject != mode:
        tags |= {"tie:differ", "audit"}
    if (verdict == "inject" and not inject) or (verdict == "mode" and not mode):
        tags |= {"failing_winner", "audit"}
    return tags


def test_every_item_is_a_row_and_the_filters_leave_the_right_count(browser: Any,
                                                                   runs: Runs) -> None:
    records = results(runs.b)["records"]
    assert records and all(SELECTION in r["question_id"] for r in records)
    page, _, errors = open_page(browser, runs.b / "report.html")
    rows = page.locator("#qa-table tr.item")
    assert rows.count() == len(records)
    assert page.inner_text("#qa-count") == f"{len(records)} of {len(records)} items"
    assert {rows.nth(n).get_attribute("data-id") for n in range(rows.count())} == \
        {f"{r['question_id']}|{r['mode']}" for r in records}
    options = page.eval_on_selector_all("#qa-outcome option", "els => els.map(e => e.value)")
    assert {"tie", "tie:both_pass", "tie:both_fail", "tie:differ", "failing_winner"} <= \
        set(options)
    for value in options[1:]:
        page.select_option("#qa-outcome", value)
        wanted = sum(value in expected_tags(r) for r in records)
        assert rows.count() == wanted, value
        assert page.inner_text("#qa-count") == f"{wanted} of {len(records)} items"
    page.select_option("#qa-outcome", "")
    kind = records[0]["kind"]
    page.select_option("#qa-kind", kind)
    assert rows.count() == sum(r["kind"] == kind for r in records)
    page.select_option("#qa-kind", "")
    page.fill("#qa-search", records[0]["question_id"])
    assert rows.count() == sum(r["question_id"] == records[0]["question_id"] for r in records)
    assert errors == []


def test_the_error_class_filter_and_column_and_the_statistics_block(browser: Any,
                                                                     runs: Runs) -> None:
    records = results(runs.b)["records"]
    page, _, errors = open_page(browser, runs.b / "report.html")
    rows = page.locator("#qa-table tr.item")
    options = page.eval_on_selector_all("#qa-error option", "els => els.map(e => e.value)")
    assert options == ["", "right", "retrieval_miss", "reading_miss", "unscored", "declined",
                       "not_declined"]
    seen = 0
    for value in options[1:]:
        page.select_option("#qa-error", value)
        wanted = sum(r["error_class"] == value for r in records)
        seen += wanted
        assert rows.count() == wanted, value
        labels = set(page.eval_on_selector_all(
            "#qa-table tr.item span[class^='error-']", "els => els.map(e => e.className)"))
        assert labels <= {f"error-{value}"}, value
    assert seen == len(records)  # every record falls in exactly one class
    page.select_option("#qa-error", "")
    statistics = page.inner_text("pre.statistics")
    assert statistics.startswith("statistics: ")
    assert " vs inject (" in statistics and "McNemar p = " in statistics
    assert errors == []


def test_a_column_sorts_its_rows(browser: Any, runs: Runs) -> None:
    page, _, _ = open_page(browser, runs.b / "report.html")
    page.click('#qa-table th[data-column="payload"]')
    column = list(page.eval_on_selector_all("#qa-table thead th",
                                            "els => els.map(e => e.dataset.column)"))
    cells = page.eval_on_selector_all(
        f"#qa-table tr.item td:nth-child({column.index('payload') + 1})",
        "els => els.map(e => e.textContent)")
    values = [int(text.replace(",", "")) for text in cells]
    assert values == sorted(values)
    page.click('#qa-table th[data-column="payload"]')
    assert page.get_attribute('#qa-table th[data-column="payload"]', "aria-sort") == "descending"


def _normalised(text: str) -> str:
    return " ".join(text.split()).lower()


def test_opening_an_item_shows_its_answers_and_highlights_its_evidence(browser: Any,
                                                                        runs: Runs) -> None:
    data = results(runs.b)
    marked = [r for r in data["records"] if any(q["marks"] for q in r["evidence"])]
    assert marked, "no item of the run found any evidence: nothing to highlight"
    record = max(marked, key=lambda r: sum(not q["found"] for q in r["evidence"]))
    page, _, errors = open_page(browser, runs.b / "report.html")
    page.click(f'#qa-table tr.item[data-id="{record["question_id"]}|{record["mode"]}"]')
    detail = page.locator("#qa-table tr.detail")
    assert detail.count() == 1
    assert _normalised(record["inject_answer"][:80]) in _normalised(
        detail.locator(".answer.inject").inner_text())
    assert _normalised(record["mode_answer"][:80]) in _normalised(
        detail.locator(".answer.mode").inner_text())
    highlights = detail.locator("mark.evidence")
    assert highlights.count() >= 1
    quotes = [_normalised(q["quote"]) for q in record["evidence"] if q["found"]]
    for number in range(highlights.count()):
        piece = _normalised(highlights.nth(number).inner_text())
        assert any(piece in quote for quote in quotes), piece
    missed = [q for q in record["evidence"] if not q["found"]]
    assert detail.locator("ul.missed li").count() == len(missed)
    assert detail.locator(".provision").count() == len(record["provisions"])
    assert detail.locator(".ledger tbody tr").count() == len(record["inject_calls"]) + \
        len(record["mode_calls"]) + len(record["judge_calls"])
    assert str(record["raw_forward"]) in detail.inner_text()
    # A second click closes it.
    page.click(f'#qa-table tr.item[data-id="{record["question_id"]}|{record["mode"]}"]')
    assert detail.count() == 0
    assert errors == []


def test_gandr_items_open_with_memo_trace_and_claim_labels(browser: Any, runs: Runs) -> None:
    gandr = json.loads((runs.b / "gandr-results.json").read_text(encoding="utf-8"))["records"]
    page, _, errors = open_page(browser, runs.b / "report.html")
    rows = page.locator("#gandr-table tr.item")
    assert rows.count() == len(gandr) > 0
    record = gandr[0]
    page.click(f'#gandr-table tr.item[data-id="{record["question_id"]}|{record["system"]}"]')
    detail = page.locator("#gandr-table tr.detail")
    memo = detail.locator(".answer.memo").first.inner_text()
    assert _normalised(record["repeats"][0]["answer"][:60]) in _normalised(memo)
    rounds = [e for e in record["repeats"][0]["trace"] if "round" in e]
    assert detail.locator(".trace-round").count() >= len(rounds) >= 1
    labels = {c["label"] for e in rounds if e["audit"] for c in e["audit"]["claims"]}
    for label in labels:
        assert detail.locator(f"td.label-{label}").count() >= 1
    assert errors == []


def test_the_page_is_self_contained_and_its_screenshot_is_not_blank(
        browser: Any, runs: Runs, tmp_path: Path) -> None:
    html = (runs.b / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|@import|url\(", html)
    page, requested, _ = open_page(browser, runs.b / "report.html")
    assert requested == [(runs.b / "report.html").as_uri()]
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=False)
    from PIL import Image

    with Image.open(shot) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colours is not None and len(colours) > 50
    # No single colour covers nearly everything (a blank or failed page would).
    assert max(count for count, _ in colours) < 0.97 * sum(count for count, _ in colours)


def test_each_provision_text_is_in_the_page_once(runs: Runs) -> None:
    html = (runs.b / "report.html").read_text(encoding="utf-8")
    island = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                       html, re.DOTALL)
    assert island is not None
    data = json.loads(island.group(1))["qa"]
    for doc_id, segments in data["texts"].items():
        bounds = sorted((s, e) for s, e, _ in segments)
        assert all(a[1] < b[0] for a, b in itertools.pairwise(bounds)), doc_id  # disjoint
    for place in data["provisions"].values():
        assert any(s <= place["start"] and place["end"] <= e
                   for s, e, _ in data["texts"][place["doc_id"]])
    assert all("text" not in str(item["provisions"]) for item in data["items"])


def test_legalbench_report_rebuilds_the_same_page_from_the_stored_run(
        runs: Runs, tmp_path: Path) -> None:
    out = tmp_path / "again.html"
    assert main(["report", str(runs.b / "results.json"), "--out", str(out), "-q"]) == 0
    assert out.read_text(encoding="utf-8") == \
        (runs.b / "report.html").read_text(encoding="utf-8")


def test_legalbench_compare_on_two_real_runs(browser: Any, runs: Runs, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    page_path = tmp_path / "compare.html"
    assert main(["compare", str(runs.a), str(runs.b), "--json", "--html", str(page_path),
                 "-q"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["warnings"] == []  # same backend, corpus and questions
    change, = found["modes"]
    assert (change["mode_a"], change["mode_b"]) == ("navembed:chunks", "navembed:hybrid")
    left = {r["question_id"]: r for r in results(runs.a)["records"]}
    right = {r["question_id"]: r for r in results(runs.b)["records"]}
    assert change["shared"] == len(set(left) & set(right)) == len(left)
    facts = change["paired_tests"][0]
    assert facts["outcome"] == "keyfacts_mode"
    assert facts["b_only_a"] == sum(_passes(left[q]["keyfacts_mode"])
                                    and not _passes(right[q]["keyfacts_mode"]) for q in left)
    assert facts["c_only_b"] == sum(_passes(right[q]["keyfacts_mode"])
                                    and not _passes(left[q]["keyfacts_mode"]) for q in left)
    flipped = {q for q in left if left[q]["verdict"] != right[q]["verdict"]
               or _passes(left[q]["keyfacts_mode"]) != _passes(right[q]["keyfacts_mode"])}
    assert {f["question_id"] for f in change["flips"]} == flipped
    recall = change["metrics"]["evidence_recall"]
    assert recall["a"] == results(runs.a)["summary"]["modes"]["navembed:chunks"][
        "evidence_recall"]
    page, requested, errors = open_page(browser, page_path)
    assert page.locator("li.flip").count() == len(flipped)
    assert "navembed:chunks (A) vs navembed:hybrid (B)" in page.inner_text("h2")
    assert requested == [page_path.as_uri()] and errors == []


def test_legalbench_report_of_a_gandr_only_folder_and_of_nothing(
        runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(runs.b / "gandr-results.json", tmp_path)
    assert main(["report", str(tmp_path), "-q"]) == 0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'id="gandr-items"' in html and 'id="qa-items"' not in html
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "no such report folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2
    assert "neither results.json nor gandr-results.json" in capsys.readouterr().err


def test_a_navagent_turn_shows_what_its_tool_results_named(browser: Any, tmp_path: Path) -> None:
    from dataclasses import replace

    from pytest_legalbench.llm.ledger import Call, ToolEvent, Usage
    from pytest_legalbench.llm.pricing import load_price_card
    from pytest_legalbench.results.results_file import read_run
    from pytest_legalbench.run.html_report import report_html
    from tests.support.item_records import PASS
    from tests.support.item_records import qa_record as make_record

    turn = Call("navagent.turn2", "m", Usage(input_tokens=50), 0.1, "reference",
                tool_results=(ToolEvent.of_result("search", '{"query":"rent"}', 80, data={
                    "hits": [{"node_id": "lease:2.1"}, {"node_id": "lease:5"}]}),
                    ToolEvent.of_result("read_provision", '{"node_id":"x:9"}', 20,
                                        message="no document is called 'x'")))
    record = replace(make_record(1, "tie", PASS, PASS), mode="navagent",
                     mode_calls=(Call("navagent.turn1", "m", Usage(input_tokens=40), 0.1,
                                      "reference"), turn))
    (tmp_path / "results.json").write_text(json.dumps({
        "format_version": 1, "backend": "reference", "models": {"answer": "m"},
        "records": [to_builtins(record)], "summary": {"price_card": "default v1", "modes": {}}}),
        encoding="utf-8")
    (tmp_path / "report.html").write_text(
        report_html(read_run(tmp_path), None, load_price_card()), encoding="utf-8")
    page, _, errors = open_page(browser, tmp_path / "report.html")
    page.click('#qa-table tr.item[data-id="q01|navagent"]')
    shown = page.locator("#qa-table tr.detail .ledger ul.tools li")
    assert shown.all_inner_texts() == [
        'search {"query":"rent"} \u2192 lease:2.1, lease:5',
        'read_provision {"node_id":"x:9"} \u2192 error: no document is called \'x\'']
    assert page.locator("#qa-table tr.detail .ledger tbody tr").count() == 3  # a row per call
    assert errors == []
