"""Finding documents in a folder: extensions, hidden parts, id collisions, empty folders."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.folder import relative_name, scan_folder


def touch(root: Path, relative: str, text: str = "Agreement text.") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_finds_text_and_html_recursively_in_sorted_order(tmp_path: Path) -> None:
    for name in ["b/2.txt", "b/1.HTM", "a.Html", "c/d/e.txt", "z.TXT"]:
        touch(tmp_path, name)
    found = [relative_name(p, tmp_path) for p in scan_folder(tmp_path)]
    assert found == ["a.Html", "b/1.HTM", "b/2.txt", "c/d/e.txt", "z.TXT"]


def test_skips_other_files_and_underscore_or_dot_parts(tmp_path: Path) -> None:
    touch(tmp_path, "kept.txt")
    for name in ["_originals/x.htm", ".git/y.txt", "deal/_draft.txt", "deal/.note.txt",
                 "notes.md", "scan.pdf", "deal/_old/z.txt", "legalbench.yaml"]:
        touch(tmp_path, name)
    (tmp_path / "folder.txt").mkdir()  # a folder with a document's extension is not a document
    assert [relative_name(p, tmp_path) for p in scan_folder(tmp_path)] == ["kept.txt"]


def test_two_files_with_one_doc_id_are_named(tmp_path: Path) -> None:
    touch(tmp_path, "Deal One.txt")
    touch(tmp_path, "deal-one.htm")
    with pytest.raises(CorpusError) as caught:
        scan_folder(tmp_path)
    message = str(caught.value)
    assert "'Deal One.txt'" in message and "'deal-one.htm'" in message
    assert "deal-one" in message


@pytest.mark.parametrize("setup", ["empty", "only_hidden", "absent"])
def test_folder_without_documents_is_an_error(tmp_path: Path, setup: str) -> None:
    root = tmp_path / "docs"
    if setup != "absent":
        root.mkdir()
    if setup == "only_hidden":
        touch(root, "_archive/a.txt")
        touch(root, "readme.md")
    with pytest.raises(CorpusError, match=str(root)):
        scan_folder(root)


_NAME = st.text(alphabet="abAB _-.12", min_size=1, max_size=6)
_SUFFIX = st.sampled_from([".txt", ".htm", ".html", ".TXT", ".md", ".pdf"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(_NAME, max_size=2), _NAME, _SUFFIX), max_size=8))
def test_scan_agrees_with_the_rules(files: list[tuple[list[str], str, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for parents, stem, suffix in files:
            parts = [*parents, stem + suffix]
            if any(part.strip(".") == "" for part in parts):
                continue  # "." and ".." are not names a file can take
            touch(root, "/".join(parts))
        expected = sorted(
            relative_name(path, root)
            for path in root.rglob("*")
            if path.is_file()
            and path.suffix.lower() in (".txt", ".htm", ".html")
            and not any(p.startswith(("_", ".")) for p in path.relative_to(root).parts)
        )
        ids = []
        for relative in expected:
            try:
                ids.append(doc_id_for(relative))
            except ValueError:
                ids.append("")
        if not expected or len(set(ids)) < len(ids) or "" in ids:
            with pytest.raises(CorpusError):
                scan_folder(root)
        else:
            assert [relative_name(p, root) for p in scan_folder(root)] == expected


@pytest.mark.corpus
def test_transactions_folder_has_ten_documents(corpus_root: Path) -> None:
    found = scan_folder(corpus_root / "transactions")
    assert len(found) == 10
    assert not any("_html" in path.parts for path in found)
    assert all(path.suffix == ".txt" for path in found)
