"""Which reports carry an item's record: the call report always (the summary reads it), the
teardown report only for --junitxml (which writes properties from it), never the setup
report. Under xdist every report travels to the controller, so each copy costs."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

CONFTEST = """
import json
from pathlib import Path

import pytest

@pytest.fixture
def recorded(request):
    # As legalbench_item does: the record is attached while the fixture sets up. (A string
    # stands in for it: the session summary reads only dicts.)
    request.node.user_properties.append(("legalbench_record", "a record"))
    request.node.user_properties.append(("other", 1))

def pytest_runtest_logreport(report):
    with open(Path(__file__).with_name("reports.jsonl"), "a", encoding="utf-8") as out:
        out.write(json.dumps([report.when, report.user_properties]) + "\\n")
"""


@pytest.fixture(autouse=True)
def absolute_corpus(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    """The corpus by absolute path: pytester runs in its own folder."""
    monkeypatch.setenv("LEGALBENCH_CORPUS_DIR", str(corpus_root))


def _carried(pytester: pytest.Pytester, *args: str) -> dict[str, list[str]]:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_item="def test_one(recorded):\n    pass\n")
    pytester.runpytest_inprocess("-p", "no:randomly", *args).assert_outcomes(passed=1)
    lines = (pytester.path / "reports.jsonl").read_text(encoding="utf-8").splitlines()
    return {when: [name for name, _ in properties]
            for when, properties in map(json.loads, lines)}


def test_only_the_call_report_carries_the_record_without_junitxml(
        pytester: pytest.Pytester) -> None:
    assert _carried(pytester) == {"setup": ["other"], "call": ["legalbench_record", "other"],
                                  "teardown": ["other"]}


def test_junitxml_keeps_the_record_on_the_teardown_report(pytester: pytest.Pytester) -> None:
    carried = _carried(pytester, "--junitxml=junit.xml")
    assert carried["setup"] == ["other"]
    assert carried["call"] == carried["teardown"] == ["legalbench_record", "other"]
    names = [prop.get("name") for prop in
             ElementTree.parse(pytester.path / "junit.xml").iter("property")]
    assert names == ["legalbench_record", "other"]
