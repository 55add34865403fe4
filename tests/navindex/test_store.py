"""The dual navindex files on disk and the content-hash cache of built indexes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.schema import FORMAT_VERSION, FormatVersionError, IndexFormatError
from pytest_legalbench.navindex.store import (
    CacheEntryWarning,
    IndexCache,
    cache_key,
    load_document,
    save_document,
)
from tests.support.index_samples import document_indexes, realistic_agreement, small_agreement

KEY = cache_key(builder_version="test-1", source_sha256="0" * 64, doc_id="sa")


def test_save_writes_the_dual_files_and_load_rebuilds(tmp_path: Path) -> None:
    index = small_agreement()
    index_file, full_file = save_document(index, tmp_path)
    assert (index_file.name, full_file.name) == ("sa.index.json", "sa.full.json")
    surface = json.loads(index_file.read_text(encoding="utf-8"))
    assert surface["rung"] == "D4" and surface["formatVersion"] == FORMAT_VERSION
    assert "Fee clause ends here" not in index_file.read_text(encoding="utf-8")
    assert "Fee clause ends here" in full_file.read_text(encoding="utf-8")
    assert load_document(tmp_path, "sa") == index


def test_the_rung_is_recorded_and_any_rung_rebuilds(tmp_path: Path) -> None:
    index = small_agreement()
    index_file, _ = save_document(index, tmp_path, "D1")
    surface = json.loads(index_file.read_text(encoding="utf-8"))
    assert surface["rung"] == "D1" and "hasMoney" not in surface["documentIndex"]
    assert load_document(tmp_path, "sa") == index


def test_saving_twice_gives_identical_bytes(tmp_path: Path) -> None:
    index = realistic_agreement()
    first = save_document(index, tmp_path / "one")
    second = save_document(index, tmp_path / "two")
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes()


def test_another_interpreter_with_another_hash_seed_writes_the_same_bytes(tmp_path: Path) -> None:
    here = save_document(realistic_agreement(), tmp_path / "here")
    script = ("import sys; from pathlib import Path; from tests.support.index_samples import realistic_agreement;"
              "from pytest_legalbench.navindex.store import save_document;"
              "save_document(realistic_agreement(), Path(sys.argv[1]))")
    tests_dir = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONHASHSEED": "12345",
           "PYTHONPATH": os.pathsep.join(filter(None, [tests_dir, os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "there")], env=env, check=True)
    for path in here:
        assert (tmp_path / "there" / path.name).read_bytes() == path.read_bytes()


def test_loading_names_the_missing_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="sa.index.json"):
        load_document(tmp_path, "sa")
    _, full_file = save_document(small_agreement(), tmp_path)
    full_file.write_text('{"formatVersion": 1, "nodes": ', encoding="utf-8")
    with pytest.raises(IndexFormatError, match=r"sa\.full\.json: not valid JSON"):
        load_document(tmp_path, "sa")
    full_file.write_bytes(b"\xff\xfe")
    with pytest.raises(IndexFormatError, match=r"sa\.full\.json: not UTF-8"):
        load_document(tmp_path, "sa")


def test_another_format_version_is_refused_with_both_versions(tmp_path: Path) -> None:
    index_file, _ = save_document(small_agreement(), tmp_path)
    surface = json.loads(index_file.read_text(encoding="utf-8"))
    index_file.write_text(json.dumps({**surface, "formatVersion": 7}), encoding="utf-8")
    with pytest.raises(FormatVersionError, match=rf"sa\.index\.json.*version 7 found, "
                                                 rf"version {FORMAT_VERSION} expected"):
        load_document(tmp_path, "sa")


def test_files_of_two_builds_do_not_mix(tmp_path: Path) -> None:
    index = small_agreement()
    save_document(index, tmp_path / "old")
    save_document(replace(index, sha256="1" * 64), tmp_path / "new")
    (tmp_path / "new" / "sa.full.json").replace(tmp_path / "old" / "sa.full.json")
    with pytest.raises(IndexFormatError, match="disagree on sourceSha256"):
        load_document(tmp_path / "old", "sa")


@pytest.mark.parametrize("doc_id", ["", "../up", "a/b", ".hidden"])
def test_doc_ids_that_cannot_name_a_file_are_refused(tmp_path: Path, doc_id: str) -> None:
    with pytest.raises(ValueError, match="cannot name a navindex file"):
        save_document(replace(small_agreement(), doc_id=doc_id), tmp_path)


@settings(max_examples=40, deadline=None)
@given(document_indexes())
def test_random_documents_survive_the_files(index: DocumentIndex) -> None:
    with tempfile.TemporaryDirectory() as folder:
        save_document(index, Path(folder), "D5")
        assert load_document(Path(folder), index.doc_id) == index


def test_cache_key_covers_every_input() -> None:
    base = {"builder_version": "b1", "source_sha256": "a" * 64, "doc_id": "amend",
            "options": {"summaries": "extractive", "max": 3}, "dependencies": {"base": "b" * 64}}
    key = cache_key(**base)  # type: ignore[arg-type]
    assert len(key) == 64 and key == cache_key(**base)  # type: ignore[arg-type]
    reordered = {**base, "options": {"max": 3, "summaries": "extractive"}}
    assert cache_key(**reordered) == key  # type: ignore[arg-type]
    for name, other in [("builder_version", "b2"), ("source_sha256", "c" * 64),
                        ("doc_id", "base"), ("options", {"summaries": "llm", "max": 3}),
                        ("dependencies", {"base": "d" * 64}), ("dependencies", {})]:
        assert cache_key(**{**base, name: other}) != key, name  # type: ignore[arg-type]


def test_cache_misses_then_hits_under_the_versioned_folder(tmp_path: Path) -> None:
    cache = IndexCache(tmp_path)
    index = small_agreement()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.get(KEY) is None
        cache.put(KEY, index)
        assert cache.get(KEY) == index
    entry = tmp_path / "navindex" / f"v{FORMAT_VERSION}" / KEY
    assert sorted(path.name for path in entry.iterdir()) == ["sa.full.json", "sa.index.json"]
    with pytest.raises(ValueError, match="sha256"):
        cache.get("../escape")


def _break_full_file(entry: Path) -> None:
    (entry / "sa.full.json").write_text("{ half a file", encoding="utf-8")


def _stamp_other_version(entry: Path) -> None:
    data = json.loads((entry / "sa.index.json").read_text(encoding="utf-8"))
    data["formatVersion"] = FORMAT_VERSION + 1
    (entry / "sa.index.json").write_text(json.dumps(data), encoding="utf-8")


def _add_second_document(entry: Path) -> None:
    (entry / "sb.index.json").write_text("{}", encoding="utf-8")


def _remove_full_file(entry: Path) -> None:
    (entry / "sa.full.json").unlink()


@pytest.mark.parametrize("damage", [_break_full_file, _stamp_other_version, _add_second_document,
                                    _remove_full_file])
def test_a_damaged_entry_is_a_miss_with_a_warning_and_is_rebuilt(
    tmp_path: Path, damage: Callable[[Path], None],
) -> None:
    cache = IndexCache(tmp_path)
    index = small_agreement()
    cache.put(KEY, index)
    damage(cache.entry_folder(KEY))
    with pytest.warns(CacheEntryWarning, match=KEY):
        assert cache.get(KEY) is None
    builds: list[DocumentIndex] = []

    def build() -> DocumentIndex:
        builds.append(index)
        return index

    with pytest.warns(CacheEntryWarning):
        assert cache.get_or_build(KEY, build) == index
    assert builds == [index]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.get_or_build(KEY, lambda: pytest.fail("built twice")) == index


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["sa.index.json", "sa.full.json"]), st.data())
def test_any_truncation_is_a_miss_never_a_crash(name: str, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as root:
        cache = IndexCache(Path(root))
        cache.put(KEY, small_agreement())
        path = cache.entry_folder(KEY) / name
        content = path.read_bytes()
        path.write_bytes(content[: data.draw(st.integers(0, len(content) - 2))])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert cache.get(KEY) is None
        assert [warning.category for warning in caught] == [CacheEntryWarning]


@pytest.mark.filterwarnings("error::pytest_legalbench.navindex.store.CacheEntryWarning")
def test_parallel_writers_never_show_a_reader_half_an_entry(tmp_path: Path) -> None:
    index = realistic_agreement()
    # Each key's first write is the moment an entry is incomplete, so there are several.
    keys = [cache_key(builder_version=f"race-{n}", source_sha256=index.sha256,
                      doc_id=index.doc_id) for n in range(6)]
    failures: list[BaseException] = []
    seen: list[bool] = []

    def write() -> None:
        for key in keys:
            IndexCache(tmp_path).put(key, index)

    def read() -> None:
        try:
            for _ in range(10):
                for key in keys:
                    found = IndexCache(tmp_path).get(key)
                    assert found is None or found == index
                    seen.append(found is not None)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            failures.append(exc)

    threads = [threading.Thread(target=work) for work in (write, write, read, read, read)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert all(IndexCache(tmp_path).get(key) == index for key in keys)
    assert len(seen) == 3 * 10 * len(keys)


def test_a_build_is_keyed_by_the_text_it_reads_not_only_the_source_bytes(tmp_path: Path) -> None:
    # The same bytes read another way (a reader fix in ingest/) give another text; an index
    # built from the old text must not be served for the new one, nor for an amendment of it.
    from pytest_legalbench.ingest.document import Document
    from pytest_legalbench.navindex.corpus import build_indexes

    base = Document(doc_id="deal", title="Credit Agreement", sha256="1" * 64,
                    text="1. Loans. The Lender lends.\n\n2. Maturity. The loans mature in 2024 2025.")
    amendment = Document(doc_id="first", title="First Amendment", sha256="2" * 64,
                         role="amendment", amends=("deal",),
                         text="1. Section 2 of the Credit Agreement is restated.")
    messages: list[str] = []
    first = build_indexes([base, amendment], cache_dir=tmp_path, progress=messages.append)
    assert "all 2 indexes found in the cache" not in messages
    assert build_indexes([base, amendment], cache_dir=tmp_path, progress=messages.append) == first
    assert messages[-1] == "all 2 indexes found in the cache"
    reread = replace(base, text="1. Loans. The Lender lends.\n\n2. Maturity. The loans mature in 2025.")
    messages.clear()
    second = build_indexes([reread, amendment], cache_dir=tmp_path, progress=messages.append)
    assert "all 2 indexes found in the cache" not in messages
    assert second[0].nodes[-1].end == len(reread.text) != first[0].nodes[-1].end
    # Both were built again (two entries more): the amendment's key holds its base's text.
    entries = [entry for entry in IndexCache(tmp_path).folder.iterdir() if entry.is_dir()]
    assert len(entries) == 4
