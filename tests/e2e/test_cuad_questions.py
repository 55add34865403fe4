"""The cuad question profile generated from the real CUAD annotations: enough questions, every
excerpt located or reported, every file a valid question, evidence found in the documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.run.preflight import check_evidence, check_question_files
from pytest_legalbench.spans.cuad_categories import CATEGORIES
from pytest_legalbench.spans.cuad_questions import generate_cuad_questions, write_question_set
from pytest_legalbench.stats.stratified_sample import stratified_sample


@pytest.mark.corpus
@pytest.mark.slow
def test_the_real_cuad_set(corpus_root: Path, tmp_path: Path) -> None:
    generated = generate_cuad_questions(corpus_root)
    report = generated.report
    assert report.questions >= 500
    assert report.excerpts == report.located + len(report.unlocated)
    # Both kinds of question occur in every yes/no category, and every category is asked.
    assert all(counts.questions > 0 for counts in report.per_category.values())
    assert len(report.per_category) == len(CATEGORIES)
    assert 0 < report.controls < report.questions
    folder = tmp_path / "cuad"
    write_question_set(generated, folder)
    checked = check_question_files(folder)
    assert checked.problems == () and len(checked.questions) == report.questions
    # The evidence of a stratified sample is found verbatim in the ingested documents.
    chosen = set(stratified_sample([e.sample_unit() for e in generated.catalogue], 400))
    sample = [q for q in checked.questions if q.id in chosen]
    documents = load_documents(Selection("cuad"), corpus_dir=corpus_root,
                               cache_dir=tmp_path / "cache")
    assert check_evidence(sample, {d.doc_id: d.text for d in documents}) == []
