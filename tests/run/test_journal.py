"""The run journal's parts: lines written and read back, torn lines, the settings fingerprint,
where a run keeps its journal, and what a partial run's first line says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.run.fingerprint import Fingerprint, folder_digest
from pytest_legalbench.run.journal import (
    ItemEntry,
    JournalWriter,
    PlanEntry,
    journal_line,
    read_journal,
)
from pytest_legalbench.run.journal_session import JournalSession, join_run, open_run
from pytest_legalbench.run.progress import Progress
from pytest_legalbench.run.run_folder import (
    RunPlace,
    remove_superseded_partial,
    run_place,
    set_aside,
)

_SCALARS = st.none() | st.booleans() | st.integers() | st.text() | st.floats(
    allow_nan=False, allow_infinity=False)
_JSON = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(), inner, max_size=4), max_leaves=20)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1), st.dictionaries(st.text(), _JSON, max_size=5)),
                max_size=6))
def test_every_record_written_reads_back_equal(tmp_path_factory: pytest.TempPathFactory,
                                               entries: list[tuple[str, dict[str, Any]]],
                                               ) -> None:
    path = tmp_path_factory.mktemp("journal") / "journal.jsonl"
    writer = JournalWriter(path)
    for item, record in entries:
        writer.append(journal_line(ItemEntry("run1", item, "d1", {"product": "qa",
                                                              "record": record})))
    contents = read_journal(path)
    assert [(e.item, e.envelope) for e in contents.items] == \
        [(item, {"product": "qa", "record": record}) for item, record in entries]
    assert contents.torn == 0


def test_a_torn_line_is_skipped_and_the_next_write_starts_a_fresh_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    writer = JournalWriter(path)
    writer.append(journal_line(ItemEntry("r", "a", "d", {"product": "qa", "record": {}})))
    with path.open("ab") as handle:  # a writer killed halfway through its line
        handle.write(b'{"v": 1, "kind": "item", "run": "r", "item": "b", "dig')
    writer.append(journal_line(ItemEntry("r", "c", "d", {"product": "qa", "record": {}})))
    writer.append({"kind": "something else"})
    contents = read_journal(path)
    assert [e.item for e in contents.items] == ["a", "c"]
    assert contents.torn == 2


def test_records_are_taken_by_fingerprint_and_skips_count_in_their_run_only(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    writer = JournalWriter(path)
    writer.append(journal_line(PlanEntry("r2", ("a", "b", "c", "d"))))
    for line in (ItemEntry("r1", "a", "same", {"product": "qa", "record": {"n": 1}}),
                 ItemEntry("r1", "b", "other", {"product": "qa", "record": {"n": 2}}),
                 ItemEntry("r1", "c", "same", None, "no cross-encoder"),
                 ItemEntry("r2", "d", "same", None, "no cross-encoder"),
                 ItemEntry("r2", "a", "same", {"product": "qa", "record": {"n": 3}})):
        writer.append(journal_line(line))
    contents = read_journal(path)
    assert contents.records("same") == {"a": {"product": "qa", "record": {"n": 3}}}
    assert contents.finished("r2", "same") == {"a", "d"}
    assert contents.plans == {"r2": frozenset({"a", "b", "c", "d"})}


def test_a_partial_run_is_labelled_with_its_counts() -> None:
    assert Progress(6, 6).label == "" and not Progress(6, 6).partial
    assert Progress(2, 6).label == "partial: 2 of 6 items"
    assert Progress(3, 6, stopped="stopped at cost limit").label == \
        "partial: 3 of 6 items, stopped at cost limit"


def test_the_fingerprint_names_each_part_that_differs() -> None:
    now = Fingerprint({"modes": "navindex", "judge": "forced", "corpus": "abc"})
    assert now.differences({"modes": "navindex", "judge": "preference", "corpus": "abc"}) == \
        ["judge: preference -> forced"]
    assert now.differences(now.parts) == []
    assert now.digest != Fingerprint({**now.parts, "corpus": "abd"}).digest
    assert len(now.digest) == 16


def test_a_folder_digest_follows_the_bytes_not_the_dates(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("id: a\n", encoding="utf-8")
    (tmp_path / ".hidden.yaml").write_text("ignored\n", encoding="utf-8")
    before = folder_digest(tmp_path, ("*.yaml",))
    (tmp_path / "a.yaml").write_text("id: a\n", encoding="utf-8")
    (tmp_path / ".hidden.yaml").write_text("changed\n", encoding="utf-8")
    assert folder_digest(tmp_path, ("*.yaml",)) == before
    (tmp_path / "a.yaml").write_text("id: b\n", encoding="utf-8")
    assert folder_digest(tmp_path, ("*.yaml",)) != before


def test_the_run_folder_is_the_resumed_one_then_the_report_then_a_new_one_in_the_cache(
        tmp_path: Path) -> None:
    cache, report, old = tmp_path / "cache", tmp_path / "report", tmp_path / "old"
    assert run_place(report_dir=report, resume_dir=old, cache_dir=cache) == RunPlace(old, True)
    assert run_place(report_dir=report, resume_dir=None, cache_dir=cache) == \
        RunPlace(report, False)
    fresh = run_place(report_dir=None, resume_dir=None, cache_dir=cache)
    assert fresh.folder.parent == cache / "runs" and not fresh.resumed


def test_an_earlier_journal_is_set_aside_under_the_next_free_number(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    assert set_aside(journal) is None
    for text in ("first", "second"):
        journal.write_text(text, encoding="utf-8")
        set_aside(journal)
    assert (tmp_path / "journal.1.jsonl").read_text(encoding="utf-8") == "first"
    assert (tmp_path / "journal.2.jsonl").read_text(encoding="utf-8") == "second"
    assert not journal.exists()


def test_only_a_partial_report_is_removed_as_superseded(tmp_path: Path) -> None:
    assert remove_superseded_partial(tmp_path) is None  # no partial/ at all
    (tmp_path / "partial").mkdir()
    (tmp_path / "partial" / "notes.txt").write_text("mine", encoding="utf-8")
    assert remove_superseded_partial(tmp_path) is None  # not a report: left alone
    assert (tmp_path / "partial" / "notes.txt").exists()
    for name in ("results.json", "gandr-results.json"):
        (tmp_path / "partial" / "nested").mkdir(parents=True)
        (tmp_path / "partial" / name).write_text("{}", encoding="utf-8")
        assert remove_superseded_partial(tmp_path) == tmp_path / "partial"
        assert not (tmp_path / "partial").exists() and tmp_path.is_dir()


def test_a_run_writes_nothing_until_it_begins_and_starts_once_for_all_its_processes(
        tmp_path: Path) -> None:
    print_ = Fingerprint({"modes": "navindex"})
    session = open_run(RunPlace(tmp_path / "run", False), print_, report=True)
    assert not (tmp_path / "run").exists()
    worker = join_run(json.loads(json.dumps(session.handed_over())))
    assert worker == session
    for process in (session, worker):
        process.begin(["q1-navindex", "q2-navindex"])
    session.finished("q1-navindex", {"product": "qa", "record": {}})
    contents = read_journal(session.journal)
    assert len(contents.starts) == 1 and contents.starts[0].report
    assert session.progress() == Progress(1, 2)


def test_a_resume_takes_the_records_of_the_same_settings_only(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    first = open_run(RunPlace(folder, False), Fingerprint({"modes": "navindex"}), report=False)
    first.begin(["a", "b"])
    first.finished("a", {"product": "qa", "record": {"n": 1}})
    again = open_run(RunPlace(folder, True), Fingerprint({"modes": "navindex"}), report=False)
    assert isinstance(again, JournalSession)
    assert again.resumed == {"a": {"product": "qa", "record": {"n": 1}}}
    assert join_run(again.handed_over()).resumed == again.resumed
    with pytest.raises(ValueError, match=r"other settings \(modes: navindex -> inject\)"):
        open_run(RunPlace(folder, True), Fingerprint({"modes": "inject"}), report=False)
