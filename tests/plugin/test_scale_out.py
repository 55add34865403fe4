"""Scaling out with pytest-xdist: two ``popen`` workers under ``--dist loadgroup`` sharing one
cache folder give the items and the summary of a serial run; each item is in its question's
xdist group (the mark for an xdist that carries it; the plugin's own question scheduling is
tested in test_question_scheduling.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.plugin_sessions import (
    MODES,
    QUESTION_IDS,
    bench,
    item_ids,
    junit_records,
    prepare,
    recording,
    summary_section,
)


def _timeless(value: Any) -> Any:
    """``value`` without the calls' measured latencies (the one field a rerun changes)."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k != "latency_s"}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _items(path: Path) -> dict[str, Any]:
    """Each item's record by test name (without the ``@group`` suffix loadgroup adds),
    latencies left out."""
    return {name.partition("@")[0]: _timeless(record)
            for name, record in junit_records(path).items()}


def _loadgroup_run(pytester: pytest.Pytester, factory: pytest.TempPathFactory,
                   corpus_root: Path) -> tuple[pytest.RunResult, Path]:
    """The three questions under navindex and inject on two popen workers, loadgroup, one
    cache; the serial recording's folder beside it."""
    serial = recording(factory, corpus_root)
    prepare(pytester, serial.cassettes)
    result = pytester.runpytest_subprocess(
        *bench(factory, corpus_root).args(*MODES), "--tx", "2*popen",
        "--dist", "loadgroup", "-v", "--junitxml=junit.xml", timeout=300)
    result.assert_outcomes(passed=6)
    assert summary_section(result.outlines) == summary_section(serial.lines)
    return result, serial.folder


def test_two_popen_workers_with_loadgroup_match_the_serial_run(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    _, serial = _loadgroup_run(pytester, tmp_path_factory, corpus_root)
    items = _items(pytester.path / "junit.xml")
    assert set(items) == item_ids(MODES)
    assert items == _items(serial / "junit.xml")


def test_each_item_is_in_its_questions_xdist_group(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    """What xdist's own loadgroup schedules by. (With pytest 9.2, xdist 3.8.0 cannot carry
    the groups: it renames Item._nodeid, which pytest no longer reads; see the README.)"""
    prepare(pytester)
    items, _ = pytester.inline_genitems(*bench(tmp_path_factory, corpus_root).args(*MODES))
    groups = {item.name: [m.args for m in item.iter_markers("xdist_group")] for item in items}
    assert groups == {f"test_question[{q}-{mode}]": [(q,)] for q in QUESTION_IDS
                      for mode in MODES}
