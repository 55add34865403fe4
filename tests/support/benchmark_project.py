"""A pytester project that runs the repository's benchmark module over a few questions of the
transactions set, replaying the committed reference cassettes it is given."""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from pytest_legalbench.llm.cassettes import cassette_file
from pytest_legalbench.vectors.vector_record import VECTOR_RECORD_FOLDER

REPO = Path(__file__).resolve().parents[2]
MODULE = "test_legalbench"


def benchmark_project(pytester: pytest.Pytester, questions: Sequence[str],
                      cassettes: Iterable[tuple[str, str]]) -> Path:
    """Copy the benchmark module, ``questions`` and the reference cassettes named by
    (group, item) into ``pytester``'s folder; return its questions folder."""
    shutil.copy(REPO / "benchmarks" / f"{MODULE}.py", pytester.path)
    pytester.makeini("[pytest]\n")
    folder = pytester.path / "questions"
    folder.mkdir()
    for question in questions:
        shutil.copy(REPO / "benchmarks" / "questions" / "transactions" / f"{question}.yaml",
                    folder)
    for group, name in cassettes:
        source = cassette_file(REPO / "cassettes", "reference", group, name)
        target = cassette_file(pytester.path / "cassettes", "reference", group, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    seed_vector_record(pytester.path)
    return folder


def seed_vector_record(project: Path) -> None:
    """Copy the committed vector record into ``project``'s cassette folder, as a clone has it:
    its embedding modes read the recorded vectors instead of embedding the corpus cold."""
    shutil.copytree(REPO / "cassettes" / VECTOR_RECORD_FOLDER,
                    project / "cassettes" / VECTOR_RECORD_FOLDER, dirs_exist_ok=True)
