"""Where a run's questions come from, and the sample it draws from them.

A run reads the question folder it is given (``--legalbench-questions``), else its profile's
packaged set, else the set generated for its profile: the ``cuad`` profile's questions are
generated from CUAD's annotations into the cache (``spans.cuad_question_set``), named by
the SHA-256 digest of their files, which the run header repeats.

``--legalbench-sample N`` runs a deterministic sample of N questions, stratified and spread
over families by ``stats.stratified_sample``. A generated set's catalogue says what each
question is (category, control or not, contract family) without reading its file, so only
the sampled files are read. For any other set the sample is drawn from its read questions:
the stratum is the question's kind, the family its transaction set (from the profile's
manifest; the documents it names where there is none).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_legalbench.files.locations import manifests_dir, question_sets_dir
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.manifest import load_manifest
from pytest_legalbench.ingest.questions import Question, QuestionFileError
from pytest_legalbench.spans.cuad_question_set import cuad_question_set
from pytest_legalbench.spans.cuad_questions import PROFILE as CUAD_PROFILE
from pytest_legalbench.spans.cuad_questions import read_catalogue
from pytest_legalbench.stats.stratified_sample import SampleUnit, stratified_sample

#: Where a run's questions came from.
GIVEN = "given"
PACKAGED = "packaged"
GENERATED = "generated"


@dataclass(frozen=True)
class QuestionSource:
    """A run's question folder, where it came from, and (for a generated set) its digest
    and catalogue."""

    folder: Path
    origin: str
    """``given`` (a folder named by the user), ``packaged`` or ``generated``."""
    digest: str | None = None
    """A generated set's SHA-256 digest (of every question file's name and text)."""
    catalogue: tuple[SampleUnit, ...] | None = None
    """A generated set's questions as the sampler sees them, known without reading them."""

    @property
    def size(self) -> int:
        """The number of questions the set holds (its question files)."""
        if self.catalogue is not None:
            return len(self.catalogue)
        return len(question_files(self.folder))

    def label(self) -> str:
        """How the run header and the summary name the set."""
        if self.origin == GENERATED:
            return f"generated set {self.digest}"
        return PACKAGED if self.origin == PACKAGED else str(self.folder)


def question_files(folder: Path) -> list[Path]:
    """The question files of ``folder``, in name order."""
    return sorted(folder.glob("*.y*ml"))


def question_source(profile: str, questions_dir: Path | None, *, corpus_dir: Path | None,
                    cache_dir: Path,
                    progress: Callable[[str], None] | None = None) -> QuestionSource:
    """The questions a run of ``profile`` reads: the folder given, the profile's packaged set,
    or its generated set (generated into ``cache_dir`` on first use). CorpusError when a
    generated set cannot be made, QuestionFileError when the profile has no set at all."""
    if questions_dir is not None:
        return QuestionSource(questions_dir, GIVEN)
    packaged = question_sets_dir() / profile
    if packaged.is_dir():
        return QuestionSource(packaged, PACKAGED)
    if profile != CUAD_PROFILE:
        raise QuestionFileError(f"profile {profile!r} has no question set (looked in "
                                f"{packaged}); give a folder with --legalbench-questions")
    if corpus_dir is None:
        raise CorpusError("the cuad questions are generated from the corpus mirror's CUAD "
                          "folder: set --legalbench-corpus-dir or $LEGALBENCH_CORPUS_DIR")
    found = cuad_question_set(corpus_dir, cache_dir, progress=progress)
    units = tuple(entry.sample_unit() for entry in read_catalogue(found.folder))
    return QuestionSource(found.folder, GENERATED, found.digest, units)


def sampled_files(source: QuestionSource, sample: int | None) -> list[Path] | None:
    """The question files of a generated set's sample, drawn from its catalogue; None when
    the whole folder is read (no sample, or a set without a catalogue)."""
    if sample is None or source.catalogue is None:
        return None
    chosen = stratified_sample(source.catalogue, sample)
    return [source.folder / f"{question_id}.yaml" for question_id in chosen]


def sample_units(questions: Sequence[Question],
                 transaction_sets: Mapping[str, str]) -> list[SampleUnit]:
    """Read questions as the sampler sees them: the stratum is the kind, the family the
    transaction set(s) of the documents named (``transaction_sets``: doc id -> set)."""
    return [SampleUnit(question.id, question.kind,
                       "+".join(sorted({transaction_sets.get(doc, doc)
                                        for doc in question.documents})))
            for question in questions]


def sampled_questions(questions: Sequence[Question], sample: int | None,
                      profile: str | None) -> tuple[Question, ...]:
    """``questions`` cut to their stratified sample of ``sample`` (all when None), families
    read from ``profile``'s manifest when there is one."""
    if sample is None:
        return tuple(questions)
    chosen = set(stratified_sample(sample_units(questions, profile_sets(profile)), sample))
    return tuple(question for question in questions if question.id in chosen)


def profile_sets(profile: str | None) -> dict[str, str]:
    """Doc id -> transaction set of a packaged profile's manifest (empty without one)."""
    path = manifests_dir() / f"{profile}.yaml"
    if profile is None or not path.is_file():
        return {}
    return {entry.doc_id: entry.transaction_set for entry in load_manifest(path).documents
            if entry.transaction_set}
