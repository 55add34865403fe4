"""Two real benchmark runs replayed offline from copies of the committed cassettes, made once
per test session and shared by the xdist workers: run A under navembed:chunks, run B under
navembed:hybrid and GANDR, both on the NETGEAR questions, each with --legalbench-report.

The runs happen in a temporary folder holding the benchmark module and a copy of the
cassettes, so nothing a run might record lands in the checkout.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: Settings the surrounding environment could hold; the runs choose their own.
FOREIGN_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "LEGALBENCH_BACKEND",
               "LEGALBENCH_JUDGE", "LEGALBENCH_PROFILE", "LEGALBENCH_ANSWER_MODEL",
               "LEGALBENCH_JUDGE_MODEL", "LEGALBENCH_CACHE_DIR", "PYTEST_ADDOPTS")
SELECTION = "netgear"
RUN_A = ("navembed:chunks",)
RUN_B = ("navembed:hybrid", "gandr")


@dataclass(frozen=True)
class Runs:
    """The report folders of the two runs and what each printed."""

    a: Path
    b: Path
    output_a: str
    output_b: str


def _run(folder: Path, report: str, modes: tuple[str, ...], corpus: Path,
         cache: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
    env.update(LEGALBENCH_CORPUS_DIR=str(corpus), LEGALBENCH_CACHE_DIR=str(cache),
               HF_HUB_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "-k", SELECTION, f"--legalbench-report={report}", *(f"--mode={m}" for m in modes)],
        cwd=folder, env=env, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the replayed run {modes} failed ({done.returncode}):\n"
                           f"{done.stdout[-4000:]}\n{done.stderr[-2000:]}")
    return done.stdout


def replayed_runs(shared: Path, corpus: Path, cache: Path) -> Runs:
    """The two runs under ``shared`` (made by whichever worker gets there first)."""
    shared.mkdir(parents=True, exist_ok=True)
    folder = shared / "replayed-runs"
    with (shared / "replayed-runs.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / "done"
        if not done.exists():
            if folder.exists():
                shutil.rmtree(folder)  # a run that died half-way
            folder.mkdir()
            (folder / "pytest.ini").write_text("[pytest]\nlegalbench_repeats = 2\n",
                                               encoding="utf-8")
            shutil.copy(REPO / "benchmarks" / "test_legalbench.py", folder)
            shutil.copytree(REPO / "cassettes", folder / "cassettes")
            out_a = _run(folder, "A", RUN_A, corpus, cache)
            out_b = _run(folder, "B", RUN_B, corpus, cache)
            (folder / "output-a.txt").write_text(out_a, encoding="utf-8")
            (folder / "output-b.txt").write_text(out_b, encoding="utf-8")
            done.write_text("", encoding="utf-8")
    return Runs(folder / "A", folder / "B",
                (folder / "output-a.txt").read_text(encoding="utf-8"),
                (folder / "output-b.txt").read_text(encoding="utf-8"))
