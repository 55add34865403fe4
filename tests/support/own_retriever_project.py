"""A user's own project for pytester: the lease as a folder of documents, its questions, the
benchmark module, and a retriever written in a few lines (paragraphs ranked by the words they
share with the question), registered by a conftest hook exactly as the docs show it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.lease_project import lease_project

REPO = Path(__file__).resolve().parents[2]

#: The retriever, as a user writes it (also importable as a module: ``own_paragraphs``).
PARAGRAPHS = '''
import re

from pytest_legalbench import Passage


def words(text):
    return set(re.findall(r"[a-z0-9$,.-]+", text.lower()))


class Paragraphs:
    """Paragraphs ranked by the words they share with the question."""

    def __init__(self, corpus):
        self.docs = corpus.documents

    def retrieve(self, question):
        asked = words(question.text)
        scored = [(len(asked & words(para)), d, para)
                  for d in self.docs for para in d.text.split("\\n\\n") if para.strip()]
        scored.sort(key=lambda found: -found[0])
        best = [(d, para) for score, d, para in scored[:3] if score]
        return [Passage(doc_id=d.doc_id, text=para) for d, para in best]
'''

#: The conftest that registers it through the hook.
HOOK_CONFTEST = PARAGRAPHS + '''

def pytest_legalbench_modes():
    return {"paragraphs": Paragraphs}
'''


@dataclass(frozen=True)
class OwnProject:
    """Where the project's parts are, and the arguments every run of it shares."""

    docs: Path
    questions: Path
    doc_id: str
    cache: Path

    def args(self, *modes: str, workers: int = 2, record_mode: str | None = None) -> list[str]:
        """A benchmark run of the project under ``modes``: offline, the reference backend;
        recording nothing, or recording and replaying cassettes by ``record_mode``."""
        recording = (["--disable-recording"] if record_mode is None
                     else [f"--record-mode={record_mode}"])
        return [f"--legalbench-docs={self.docs}", f"--legalbench-questions={self.questions}",
                f"--legalbench-cache-dir={self.cache}", "--legalbench-backend=reference",
                *recording, "-p", "no:cacheprovider",
                *(["-n", str(workers)] if workers else []),
                *(f"--mode={mode}" for mode in modes)]


def own_project(pytester: pytest.Pytester, cache: Path, *, ini: str = "") -> OwnProject:
    """The project in ``pytester``'s folder: documents, questions, the benchmark module."""
    (pytester.path / "project").mkdir()
    docs, questions, doc_id = lease_project(pytester.path / "project")
    shutil.copy(REPO / "benchmarks" / "test_legalbench.py", pytester.path / "test_bench.py")
    pytester.makeini(f"[pytest]\n{ini}")
    return OwnProject(docs, questions, doc_id, cache)
