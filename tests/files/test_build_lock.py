"""Concurrent builds on one cache: a second process waits for the first build and reads what
it stored instead of building again; a process killed while holding the lock blocks no one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from pytest_legalbench.files.build_lock import build_lock, lock_file
from pytest_legalbench.navindex.store import IndexCache

DEAL = Path(__file__).resolve().parents[2] / "conformance" / "tiny_deal"
#: Builds the tiny deal's indexes through the cache given as argv[1], printing progress.
BUILDER = """
import sys
from pathlib import Path
from pytest_legalbench.ingest.loading import load_folder
from pytest_legalbench.navindex.corpus import build_indexes

documents = load_folder(Path(sys.argv[2]))
build_indexes(documents, cache_dir=Path(sys.argv[1]), progress=lambda m: print(m, flush=True))
print("done", flush=True)
"""


def test_a_second_process_waits_for_the_build_and_builds_nothing(tmp_path: Path) -> None:
    cache, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    folder = IndexCache(cache).folder
    with build_lock(lock_file(cache, f"navindex-{folder.name}"), "the test's build") as waited:
        assert not waited
        second = subprocess.Popen([sys.executable, "-c", BUILDER, str(cache), str(DEAL)],
                                  stdout=subprocess.PIPE, text=True, env=os.environ.copy())
        assert second.stdout is not None
        first_line = second.stdout.readline().strip()
        assert first_line == f"waiting for another process building {folder}"
        # The build this process "does" while holding the lock: entries made elsewhere.
        subprocess.run([sys.executable, "-c", BUILDER, str(elsewhere), str(DEAL)], check=True,
                       capture_output=True)
        shutil.copytree(IndexCache(elsewhere).folder, folder, dirs_exist_ok=True)
    rest = second.stdout.read().splitlines()
    assert second.wait() == 0
    assert rest == ["2 indexes built by another process", "done"]


def test_a_killed_holder_leaves_the_lock_free(tmp_path: Path) -> None:
    holder = ("import os, sys\nfrom pathlib import Path\n"
              "from pytest_legalbench.files.build_lock import build_lock\n"
              "with build_lock(Path(sys.argv[1]), 'x'):\n    os.kill(os.getpid(), 9)\n")
    lock = lock_file(tmp_path, "x")
    killed = subprocess.run([sys.executable, "-c", holder, str(lock)], check=False)
    assert killed.returncode == -9 and lock.exists()
    with build_lock(lock, "x") as waited:
        assert not waited


def test_a_folder_that_cannot_hold_the_lock_is_built_without_one(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    with build_lock(lock_file(tmp_path / "file", "x"), "x") as waited:
        assert not waited
