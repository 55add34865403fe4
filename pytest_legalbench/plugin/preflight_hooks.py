"""The checks before spending, wired: the question set and corpus when the benchmark's items
are made (``--legalbench-skip-invalid`` keeps the valid questions). The checks themselves live
in ``run.preflight``; the report folder is checked when the session starts
(``plugin.session_start``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_legalbench.ingest.document import CorpusError, Document
from pytest_legalbench.plugin.settings import Settings
from pytest_legalbench.run.items import Case, InvalidQuestion
from pytest_legalbench.run.preflight import check_evidence, check_question_files, problems_text

if TYPE_CHECKING:
    from pytest_legalbench.run.question_source import QuestionSource

#: The documents the checks read, kept for the session's fixtures (one read per process).
DOCUMENTS_KEY = pytest.StashKey[tuple[Document, ...]]()


def checked_cases(config: pytest.Config, settings: Settings,
                  source: QuestionSource) -> tuple[list[Case], list[InvalidQuestion]]:
    """The items (question x mode) after checking every question file (of the sample, with
    --legalbench-sample) and, unless only collecting, the corpus and every evidence quote;
    problems are one collection error listing them all, or, with
    --legalbench-skip-invalid, one invalid entry per file."""
    from pytest_legalbench.run.question_source import sampled_files, sampled_questions

    files = sampled_files(source, settings.sample)
    checked = check_question_files(source.folder, files)
    problems = list(checked.problems)
    questions = list(checked.questions)
    if files is None and settings.sample is not None:
        # No catalogue: the sample is drawn from the questions read.
        questions = list(sampled_questions(questions, settings.sample,
                                           None if settings.docs_dir else settings.profile))
    if not config.option.collectonly and questions:
        texts = {d.doc_id: d.text for d in _documents(config, settings)}
        found = check_evidence(questions, texts)
        problems += found
        bad = {p.where.rsplit(":", 1)[0] for p in found}
        questions = [q for q in questions if q.path not in bad]
    if problems and (not settings.skip_invalid or not questions):
        raise pytest.Collector.CollectError(problems_text("legalbench question set", problems))
    invalid: dict[str, list[str]] = {}
    for problem in problems:
        invalid.setdefault(problem.where.rsplit(":", 1)[0], []).append(str(problem))
    return ([Case(q, mode) for q in questions for mode in settings.modes],
            [InvalidQuestion(path, tuple(lines)) for path, lines in invalid.items()])


def session_documents(config: pytest.Config, settings: Settings) -> tuple[Document, ...]:
    """The run's documents, read once per process (CorpusError names what is missing)."""
    # Imported here: the readers (decoding, HTML, manifests) load only for a benchmark.
    from pytest_legalbench.ingest.selection import Selection, load_documents

    if DOCUMENTS_KEY not in config.stash:
        docs = settings.docs_dir
        selection = (Selection(profile=None, docs=docs) if docs is not None
                     else Selection(profile=settings.profile))
        config.stash[DOCUMENTS_KEY] = load_documents(
            selection, corpus_dir=settings.corpus_dir, cache_dir=settings.cache_dir)
    return config.stash[DOCUMENTS_KEY]


def _documents(config: pytest.Config, settings: Settings) -> tuple[Document, ...]:
    try:
        return session_documents(config, settings)
    except CorpusError as error:
        problem = f"legalbench corpus: {error}"
    raise pytest.Collector.CollectError(problem)
