"""Where a run's questions come from (a folder given, a packaged set, the generated cuad set)
and the sample drawn from them."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.questions import QuestionFileError, load_question_set
from pytest_legalbench.run import question_source as source_module
from pytest_legalbench.run.question_source import (
    GENERATED,
    GIVEN,
    PACKAGED,
    profile_sets,
    question_source,
    sample_units,
    sampled_files,
    sampled_questions,
)
from pytest_legalbench.spans.cuad_question_set import cuad_question_set
from pytest_legalbench.stats.stratified_sample import stratified_sample
from tests.support.cuad_corpus import make_corpus


def test_a_folder_given_is_read_as_it_is(tmp_path: Path) -> None:
    found = question_source("transactions", tmp_path, corpus_dir=None, cache_dir=tmp_path)
    assert (found.folder, found.origin, found.digest) == (tmp_path, GIVEN, None)
    assert found.label() == str(tmp_path)
    assert sampled_files(found, 5) is None  # no catalogue: the sample is drawn after reading


def test_the_packaged_set_of_a_profile(tmp_path: Path) -> None:
    found = question_source("transactions", None, corpus_dir=None, cache_dir=tmp_path)
    assert found.origin == PACKAGED and found.label() == "packaged"
    assert found.size == len(load_question_set(found.folder)) > 0


def test_a_profile_without_questions_or_corpus_is_named(tmp_path: Path) -> None:
    with pytest.raises(QuestionFileError, match="profile 'edgar1999' has no question set"):
        question_source("edgar1999", None, corpus_dir=None, cache_dir=tmp_path)
    with pytest.raises(CorpusError, match="set --legalbench-corpus-dir or "
                                          r"\$LEGALBENCH_CORPUS_DIR"):
        question_source("cuad", None, corpus_dir=None, cache_dir=tmp_path)


def test_the_cuad_set_is_generated_and_sampled_from_its_catalogue(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus, manifest = make_corpus(tmp_path / "corpus")
    # The packaged manifest lists the real 510 contracts; this corpus has its own.
    monkeypatch.setattr(source_module, "cuad_question_set",
                        functools.partial(cuad_question_set, manifest_path=manifest))
    found = question_source("cuad", None, corpus_dir=corpus, cache_dir=tmp_path / "cache")
    assert found.origin == GENERATED and found.digest is not None
    assert found.label() == f"generated set {found.digest}"
    questions = load_question_set(found.folder)
    assert found.catalogue is not None and found.size == len(questions) > 10
    assert {unit.id for unit in found.catalogue} == {q.id for q in questions}
    files = sampled_files(found, 10)
    assert files is not None and len(files) == 10 and all(f.is_file() for f in files)
    assert [f.stem for f in files] == list(stratified_sample(found.catalogue, 10))
    assert sampled_files(found, None) is None


def test_a_read_set_is_sampled_by_kind_and_transaction_set() -> None:
    folder = question_source("transactions", None, corpus_dir=None,
                             cache_dir=Path(".")).folder
    questions = load_question_set(folder)
    sets = profile_sets("transactions")
    assert sets and profile_sets("no-such-profile") == {} and profile_sets(None) == {}
    units = sample_units(questions, sets)
    assert [u.id for u in units] == [q.id for q in questions]
    assert {u.stratum for u in units} == {q.kind for q in questions}
    chosen = sampled_questions(questions, 8, "transactions")
    assert len(chosen) == 8
    assert {q.id for q in chosen} == set(stratified_sample(units, 8))
    assert sampled_questions(questions, 8, "transactions") == chosen  # deterministic
    assert sampled_questions(questions, None, "transactions") == tuple(questions)
