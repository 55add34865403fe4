"""Atomic writes: the content lands whole, with the permissions of an ordinary file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_legalbench.files.atomic_write import write_bytes_atomic, write_text_atomic


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def test_a_written_file_gets_the_umask_permissions_not_owner_only(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "report.json"
    write_text_atomic(target, "{}\n")
    assert target.read_text(encoding="utf-8") == "{}\n"
    assert target.stat().st_mode & 0o777 == 0o666 & ~_umask()
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]  # no temporary left


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "cache.bin"
    write_bytes_atomic(target, b"old")

    def refuse(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["cache.bin"]
