"""The file: mode: precomputed retrievals, one JSON line per question id (or a line
``legalbench retrieve --json`` printed), read and checked when the mode is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.file_retriever import FileRetriever, RetrievalFile, RetrievalFileError
from pytest_legalbench.modes.registry import default_registry
from pytest_legalbench.modes.retriever_api import Passage, RetrieverQuestion
from pytest_legalbench.modes.retriever_failures import RetrieverFailed, RetrieverProblem
from tests.support.modes_samples import LEASE, LEASE_TEXT, lease_corpus

RENT = "The Lessee shall pay Monthly Rent of $42,500 for the Equipment"


def _write(path: Path, *lines: object) -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line)
                              for line in lines) + "\n", encoding="utf-8")
    return path


def test_each_question_gets_the_passages_of_its_line(tmp_path: Path) -> None:
    start = LEASE_TEXT.index(RENT)
    path = _write(tmp_path / "mine.jsonl",
                  {"id": "rent", "passages": [{"doc_id": LEASE, "text": RENT, "score": 2.5},
                                              {"doc_id": LEASE, "text": RENT, "start": start,
                                               "end": start + len(RENT),
                                               "meta": {"clause": "2.1"}}]},
                  "",
                  {"id": "law", "passages": []})
    found = RetrievalFile.read(path)
    retriever = FileRetriever(found)
    first, second = retriever.retrieve(RetrieverQuestion("rent", "What is the rent?"))
    assert first == Passage(LEASE, RENT, score=2.5)
    assert (second.start, second.end, second.meta) == (start, start + len(RENT),
                                                       {"clause": "2.1"})
    assert retriever.retrieve(RetrieverQuestion("law", "?")) == ()
    with pytest.raises(RetrieverProblem, match=f"^{path} has no line for question 'other'$"):
        retriever.retrieve(RetrieverQuestion("other", "?"))
    assert len(found.digest) == 16


def test_the_lines_legalbench_retrieve_prints_are_read_as_passages(tmp_path: Path) -> None:
    path = _write(tmp_path / "retrieved.jsonl", {
        "id": "rent", "question": "What is the rent?", "mode": "navindex",
        "provisions": [{"doc_id": LEASE, "node_id": "lease:7", "clause": "2.1", "start": 10,
                        "end": 20, "text": LEASE_TEXT[10:20], "path": "Lease > 2.1"},
                       {"doc_id": LEASE, "node_id": "lease@unlocated-2", "clause": "",
                        "start": 0, "end": 0, "text": "rent is low", "path": "",
                        "unlocated": True}],
        "payload_tokens": 3, "scan_tokens": 0, "dropped": {}, "notes": []})
    located, unlocated = RetrievalFile.read(path).passages["rent"]
    assert (located.start, located.end) == (10, 20)
    assert located.meta == {"clause": "2.1", "path": "Lease > 2.1", "node_id": "lease:7"}
    assert unlocated.start is None and unlocated.text == "rent is low"


@pytest.mark.parametrize(("lines", "problem"), [
    (["{not json"], ":1: not JSON"),
    ([["a list"]], ':1: expected an object {"id", "passages"}'),
    ([{"passages": []}], ':1: "id" must name a question'),
    ([{"id": "q", "passages": []}, {"id": "q", "passages": []}],
     ":2: question 'q' again (first on line 1)"),
    ([{"id": "q"}], ':1: no "passages" (nor the "provisions" of a legalbench retrieve line)'),
    ([{"id": "q", "passages": [{"doc_id": LEASE}]}],
     ":1: passage 1: Passage.text must be a string, got NoneType"),
    ([{"id": "q", "passages": [{"doc_id": LEASE, "text": "x", "start": 4}]}],
     ":1: passage 1: Passage.start and Passage.end are given together or not at all"),
])
def test_a_malformed_line_is_refused_naming_the_file_and_line(
        tmp_path: Path, lines: list[object], problem: str) -> None:
    path = _write(tmp_path / "bad.jsonl", *lines)
    with pytest.raises(RetrievalFileError) as refused:
        RetrievalFile.read(path)
    assert str(refused.value).startswith(f"{path}{problem}")


def test_a_file_that_is_not_text_or_not_there_is_refused(tmp_path: Path) -> None:
    (tmp_path / "binary.jsonl").write_bytes(b"\xff\xfe{}")
    with pytest.raises(RetrievalFileError, match="binary.jsonl: not UTF-8 text"):
        RetrievalFile.read(tmp_path / "binary.jsonl")
    with pytest.raises(RetrievalFileError, match="missing.jsonl: cannot read the retrieval file"):
        RetrievalFile.read(tmp_path / "missing.jsonl")


def test_through_the_registry_a_missing_line_fails_its_item_naming_the_file(
        tmp_path: Path) -> None:
    path = _write(tmp_path / "mine.jsonl", {"id": "rent", "passages": [
        {"doc_id": LEASE, "text": RENT}]})
    registry = default_registry()
    name = registry.resolve(f"file:{path}")
    mode = registry.build(name, lease_corpus(), ModeSettings(), None)
    assert mode.retrieve("What is the rent?", question_id="rent").provisions[0].clause == "2.1"
    with pytest.raises(RetrieverFailed, match=f"question 'law': {path} has no line for "
                                              f"question 'law'"):
        mode.retrieve("Which law?", question_id="law")
