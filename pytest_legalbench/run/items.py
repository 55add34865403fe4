"""The benchmark's items: every scored question of a profile under every mode of the run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.questions import Question, QuestionFileError, load_question_set


@dataclass(frozen=True)
class Case:
    """One item: a question under one mode."""

    question: Question
    mode: str

    @property
    def id(self) -> str:
        """The item's stable id, ``<question_id>-<mode>``."""
        return f"{self.question.id}-{self.mode}"


@dataclass(frozen=True)
class InvalidQuestion:
    """A question file the run could not use, with what is wrong with it (file:line: what)."""

    path: str
    problems: tuple[str, ...]

    @property
    def id(self) -> str:
        """The error item's id, ``invalid-<file name>``."""
        return f"invalid-{Path(self.path).stem}"


def benchmark_cases(profile: str, modes: Sequence[str],
                    folder: Path | None = None) -> list[Case]:
    """One case per question and mode, questions in id order, modes in the order given;
    the questions from ``folder``, else the profile's packaged set."""
    folder = folder or question_sets_dir() / profile
    if not folder.is_dir():
        raise QuestionFileError(f"profile {profile!r} has no question set (looked in {folder})")
    questions = load_question_set(folder)
    return [Case(question, mode) for question in questions for mode in modes]
