"""``examples/own-retriever/`` run as its README says, in a copy of the folder, offline on the
reference backend: through its conftest (the summary lines the README shows are printed), and,
slow, as a service and as a file of retrievals, each scoring as the conftest's run does."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "own-retriever"
#: The README's sample summary: a fenced ``text`` block under "Read the summary".
_SAMPLE = re.compile(r"## Read the summary\n\n```text\n(.*?)\n```", re.DOTALL)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    folder = tmp_path / "own-retriever"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__", "report"))
    return folder


@pytest.fixture
def env(corpus_root: Path, shared_cache: Path) -> dict[str, str]:
    found = {name: value for name, value in os.environ.items()
             if not name.startswith(("PYTEST_", "LEGALBENCH_", "ANTHROPIC_"))}
    found.update(HF_HUB_OFFLINE="1", LEGALBENCH_CORPUS_DIR=str(corpus_root),
                 LEGALBENCH_CACHE_DIR=str(shared_cache))
    return found


def _pytest(folder: Path, env: dict[str, str], *modes: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", *(f"--mode={m}" for m in modes),
                           "-n", "2", "--disable-recording", "--legalbench-report=report",
                           "-p", "no:cacheprovider"],
                          cwd=folder, env=env, capture_output=True, text=True, check=False,
                          timeout=600)
    printed = done.stdout + done.stderr
    assert done.returncode == 0, printed
    return printed


def _recall(folder: Path) -> dict[tuple[str, str], tuple[float, int]]:
    results = json.loads((folder / "report" / "results.json").read_text(encoding="utf-8"))
    return {(r["mode"], r["question_id"]): (r["evidence_recall"], r["payload_tokens"])
            for r in results["records"]}


def test_the_example_runs_through_its_conftest_as_its_readme_shows(
        example: Path, env: dict[str, str]) -> None:
    printed = _pytest(example, env, "paragraphs")
    assert "3 passed" in printed
    lines = printed.splitlines()
    found = _SAMPLE.search((EXAMPLE / "README.md").read_text(encoding="utf-8"))
    assert found is not None, "the README's sample summary"
    for shown in found.group(1).splitlines():
        # The README shortens lines at "..."; what it shows before that is printed.
        head = shown.split("...")[0].rstrip()
        assert any(line.startswith(head) for line in lines), (shown, printed)
    assert {mode for mode, _ in _recall(example)} == {"paragraphs"}
    assert (example / "report" / "report.html").is_file()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def service(example: Path, env: dict[str, str]) -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen([sys.executable, "serve.py", str(port)], cwd=example, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        ready = process.stdout.readline()
        assert "serving 10 documents" in ready, ready
        yield f"http://127.0.0.1:{port}/retrieve"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.slow
def test_as_a_service_and_as_a_file_the_retriever_scores_the_same(
        example: Path, env: dict[str, str], service: str) -> None:
    """Slow: the retrieve command and a benchmark session of nine items (about 40 s)."""
    legalbench = str(Path(sys.executable).with_name("legalbench"))
    done = subprocess.run([legalbench, "retrieve", "--conftest", "conftest.py", "--mode",
                           "paragraphs", "--questions", "questions", "-q"],
                          cwd=example, env=env, capture_output=True, text=True, check=False,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    (example / "mine.jsonl").write_text(done.stdout, encoding="utf-8")
    printed = _pytest(example, env, "paragraphs", service, "file:mine.jsonl")
    assert "9 passed" in printed, printed
    scores = _recall(example)
    questions = {question for _, question in scores}
    assert len(questions) == 3
    for question in questions:
        through_conftest = scores["paragraphs", question]
        assert scores[service, question] == through_conftest, question
        assert scores["file:mine.jsonl", question] == through_conftest, question
