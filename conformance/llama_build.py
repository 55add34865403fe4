"""llama.cpp's ``llama-server``, built once from the pinned llama-cpp-python sdist.

The sdist on PyPI vendors llama.cpp, whose ``tools/server`` speaks the Anthropic Messages API
(``/v1/messages``, ``/v1/messages/count_tokens``). Only the ``llama-server`` target is built,
CPU only, Release, with no HTTPS, no web UI and no downloads at configure time, into
``<cache>/llama-server/<version>/bin/llama-server``. A stamp beside the binary records what it
was built from; a later call with the same stamp reuses it. A file lock keeps two processes
(xdist workers, a test and a benchmark) from building at once: the second waits and reuses.

Standard library and pip only: nothing is fetched from anywhere but the package registry.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

#: The llama-cpp-python release whose vendored llama.cpp (commit 0c1e570, October 2026) has
#: the server's /v1/messages, tool_choice conversion and /v1/messages/count_tokens.
LLAMA_CPP_PYTHON_VERSION = "0.3.36"
#: sha256 of ``llama_cpp_python-0.3.36.tar.gz`` as PyPI serves it.
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"

#: Only what the server needs: no HTTPS (LLAMA_OPENSSL), no web UI (neither built with npm
#: nor fetched prebuilt), no tests, examples or the unified app, static libraries so the
#: binary stands alone in the cache.
CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DGGML_CCACHE=OFF",
    # Not -march=native: on this project's virtual machines the CPU advertises AMX, whose
    # kernels then die with SIGILL (the guest may not use the tile registers). The portable
    # x86-64 set (AVX2, FMA, F16C) runs wherever the suite does.
    "-DGGML_NATIVE=OFF",
    "-DGGML_OPENMP=OFF",
)
TARGET = "llama-server"


class BuildUnavailable(RuntimeError):
    """The server cannot be built on this machine at all: no compiler or cmake, or the package
    registry refused the download. Anything else that goes wrong is a BuildFailed."""


class BuildFailed(RuntimeError):
    """Configuring or compiling failed; the message ends with the tail of the build log."""


@dataclass(frozen=True)
class ServerBuild:
    """A built server binary and how it came to be there."""

    binary: Path
    version: str
    built_now: bool
    """True when this call built it; False when an earlier build was reused."""
    seconds: float
    """Wall-clock seconds of this call (the whole build when ``built_now``)."""
    build_seconds: float
    """Seconds the recorded build took (download, configure, compile), whoever ran it."""


def default_cache_dir() -> Path:
    """``$LEGALBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/pytest-legalbench`` (as the plugin)."""
    configured = os.environ.get("LEGALBENCH_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-legalbench"


def build_root(cache_dir: Path, version: str = LLAMA_CPP_PYTHON_VERSION) -> Path:
    """The folder one version's build lives in."""
    return cache_dir / "llama-server" / version


def stamp_key(version: str = LLAMA_CPP_PYTHON_VERSION) -> dict[str, object]:
    """What a reusable build must match: the sources, the options and the architecture."""
    return {"version": version, "sdist_sha256": SDIST_SHA256, "options": list(CMAKE_OPTIONS),
            "target": TARGET, "machine": platform.machine()}


def find_build(cache_dir: Path) -> ServerBuild | None:
    """The reusable build in ``cache_dir``, or None when there is none (or it is stale)."""
    root = build_root(cache_dir)
    binary = root / "bin" / TARGET
    try:
        stamp = json.loads((root / "stamp.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("key") != stamp_key() or not binary.is_file():
        return None
    seconds = stamp.get("build_seconds")
    return ServerBuild(binary, LLAMA_CPP_PYTHON_VERSION, False, 0.0,
                       float(seconds) if isinstance(seconds, (int, float)) else 0.0)


def check_toolchain() -> None:
    """Raise BuildUnavailable when cmake or a C++ compiler is missing."""
    missing = [tool for tool in ("cmake",) if shutil.which(tool) is None]
    if not any(shutil.which(cxx) for cxx in ("c++", "g++", "clang++")):
        missing.append("a C++ compiler (c++, g++ or clang++)")
    if missing:
        raise BuildUnavailable(f"cannot build llama-server: {' and '.join(missing)} not found")


def ensure_server(cache_dir: Path | None = None, *, jobs: int | None = None,
                  log: Path | None = None) -> ServerBuild:
    """The server binary, built now when no reusable build exists (under the build lock)."""
    cache = default_cache_dir() if cache_dir is None else cache_dir
    started = time.monotonic()
    found = find_build(cache)
    if found is not None:
        return found
    check_toolchain()
    root = build_root(cache)
    root.mkdir(parents=True, exist_ok=True)
    with file_lock(root.parent / f"{LLAMA_CPP_PYTHON_VERSION}.lock"):
        found = find_build(cache)  # another process may have built it while we waited
        if found is not None:
            return ServerBuild(found.binary, found.version, False,
                               time.monotonic() - started, found.build_seconds)
        built = _build(root, jobs or os.cpu_count() or 1, log or root / "build.log")
    elapsed = time.monotonic() - started
    return ServerBuild(built, LLAMA_CPP_PYTHON_VERSION, True, elapsed, elapsed)


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) for the duration."""
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(root: Path, jobs: int, log: Path) -> Path:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="llama-build-", dir=root) as scratch:
        work = Path(scratch)
        sdist = download_sdist(work)
        source = _unpack(sdist, work)
        build = work / "build"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        with open(log, "w", encoding="utf-8") as out:
            _run(["cmake", "-S", str(source), "-B", str(build), *generator, *CMAKE_OPTIONS],
                 out, log)
            _run(["cmake", "--build", str(build), "--target", TARGET, "-j", str(jobs)],
                 out, log)
        made = next((p for p in build.rglob(TARGET) if p.is_file() and os.access(p, os.X_OK)),
                    None)
        if made is None:
            raise BuildFailed(f"the build finished but produced no {TARGET} binary; see {log}")
        (root / "bin").mkdir(exist_ok=True)
        target = root / "bin" / TARGET
        shutil.copy2(made, target.with_suffix(".partial"))
        os.replace(target.with_suffix(".partial"), target)
    stamp = {"key": stamp_key(), "build_seconds": round(time.monotonic() - started, 1),
             "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "jobs": jobs}
    (root / "stamp.json").write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
    return target


def download_sdist(folder: Path) -> Path:
    """The pinned sdist, fetched with pip from the package registry and checked by hash."""
    return pip_download(f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}", folder,
                        ("--no-binary", ":all:"), "llama_cpp_python-*.tar.gz", SDIST_SHA256)


def pip_download(requirement: str, folder: Path, formats: tuple[str, ...], pattern: str,
                 sha256: str) -> Path:
    """One pinned file fetched into ``folder`` with pip (no dependencies), checked against
    ``sha256``; BuildUnavailable when pip cannot fetch it, BuildFailed when it differs."""
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
               *formats, "--no-deps", "--dest", str(folder), requirement]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    found = sorted(folder.glob(pattern))
    if done.returncode != 0 or not found:
        raise BuildUnavailable(f"pip download of {requirement} failed "
                               f"(exit {done.returncode}): {done.stderr.strip()[-600:]}")
    digest = hashlib.sha256(found[0].read_bytes()).hexdigest()
    if digest != sha256:
        raise BuildFailed(f"{found[0].name} has sha256 {digest}, expected {sha256}")
    return found[0]


def _unpack(sdist: Path, work: Path) -> Path:
    with tarfile.open(sdist) as archive:
        # Only the vendored llama.cpp is needed; the filter refuses links out of the folder.
        members = [m for m in archive.getmembers() if "/vendor/llama.cpp/" in m.name + "/"]
        archive.extractall(work / "src", members=members, filter="data")
    found = sorted((work / "src").glob("*/vendor/llama.cpp"))
    if not found or not (found[0] / "tools" / "server").is_dir():
        raise BuildFailed(f"{sdist.name} holds no vendor/llama.cpp/tools/server")
    return found[0]


def _run(command: list[str], out: IO[str], log: Path) -> None:
    out.write(f"$ {' '.join(command)}\n")
    out.flush()
    done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise BuildFailed(f"{command[0]} {command[1]} ... exited {done.returncode}:\n{tail}")

