"""The cuad question set in the cache: generated once per input, found again by its inputs,
rebuilt when they change, whole or absent, and built once by racing workers."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.spans import cuad_question_set as cache_module
from pytest_legalbench.spans.cuad_question_set import SET_FILE, cuad_question_set, input_key
from pytest_legalbench.stats.stratified_sample import stratified_sample
from tests.support.cuad_corpus import ROWS, SERVICES, make_corpus


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every corpus folder a generation ran for."""
    made: list[Path] = []
    real = cache_module.generate_cuad_questions

    def counting(corpus_dir: Path, **kwargs: Any) -> Any:
        made.append(corpus_dir)
        return real(corpus_dir, **kwargs)

    monkeypatch.setattr(cache_module, "generate_cuad_questions", counting)
    return made


def test_generated_once_then_found(tmp_path: Path, builds: list[Path]) -> None:
    corpus, manifest = make_corpus(tmp_path / "corpus")
    cache = tmp_path / "cache"
    first = cuad_question_set(corpus, cache, manifest_path=manifest)
    again = cuad_question_set(corpus, cache, manifest_path=manifest)
    assert first == again and len(builds) == 1
    assert first.folder == cache / "questions" / "cuad" / first.digest
    assert len(load_question_set(first.folder)) == first.questions
    assert json.loads((first.folder / SET_FILE).read_text())["digest"] == first.digest


def test_changed_inputs_make_a_new_set(tmp_path: Path, builds: list[Path]) -> None:
    corpus, manifest = make_corpus(tmp_path / "one")
    cache = tmp_path / "cache"
    first = cuad_question_set(corpus, cache, manifest_path=manifest)
    changed = {**ROWS, SERVICES: {**ROWS[SERVICES], "Governing Law": (
        ["The laws of Quebec govern this agreement."], "Quebec")}}
    other_corpus, other_manifest = make_corpus(tmp_path / "two", changed)
    assert input_key(other_corpus, other_manifest) != input_key(corpus, manifest)
    second = cuad_question_set(other_corpus, cache, manifest_path=other_manifest)
    assert second.digest != first.digest and len(builds) == 2
    assert first.folder.is_dir() and second.folder.is_dir()


def test_a_set_without_its_set_file_is_rebuilt(tmp_path: Path, builds: list[Path]) -> None:
    corpus, manifest = make_corpus(tmp_path / "corpus")
    cache = tmp_path / "cache"
    first = cuad_question_set(corpus, cache, manifest_path=manifest)
    (first.folder / SET_FILE).unlink()
    again = cuad_question_set(corpus, cache, manifest_path=manifest)
    assert again == first and len(builds) == 2
    assert (again.folder / SET_FILE).is_file()


def test_racing_workers_build_once(tmp_path: Path, builds: list[Path]) -> None:
    corpus, manifest = make_corpus(tmp_path / "corpus")
    cache = tmp_path / "cache"
    found: list[object] = []
    threads = [threading.Thread(target=lambda: found.append(
        cuad_question_set(corpus, cache, manifest_path=manifest))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 3 and len(set(map(repr, found))) == 1
    assert len(builds) == 1
    # Nothing half-built is left beside the set.
    assert [p.name for p in (cache / "questions" / "cuad").iterdir()
            if p.name.startswith(".")] == []


def test_the_catalogue_feeds_the_stratified_sample(tmp_path: Path) -> None:
    from pytest_legalbench.spans.cuad_questions import read_catalogue

    corpus, manifest = make_corpus(tmp_path / "corpus")
    found = cuad_question_set(corpus, tmp_path / "cache", manifest_path=manifest)
    catalogue = read_catalogue(found.folder)
    units = [entry.sample_unit() for entry in catalogue]
    sample = stratified_sample(units, 10)
    assert len(sample) == 10 and sample == stratified_sample(units, 10)
    assert set(sample) <= {entry.id for entry in catalogue}
    assert {unit.stratum for unit in units} >= {"Non-Compete / answer", "Exclusivity / control"}
