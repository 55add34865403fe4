"""The quick interpreter exit: survivors frozen once per process, garbage still finalised."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, check=True, timeout=60)
    return done.stdout


def test_survivors_are_frozen_at_exit_and_registered_once() -> None:
    out = _run("""
        import atexit, gc
        calls = []
        freeze = gc.freeze
        gc.freeze = lambda: calls.append(1) or freeze()
        # Registered first, so it runs last: after the freeze.
        atexit.register(lambda: print(len(calls), gc.get_freeze_count()))
        from pytest_legalbench.run.process_exit import exit_quickly
        exit_quickly()
        exit_quickly()
        kept = [[n] for n in range(1000)]
        """)
    freezes, frozen = map(int, out.split())
    assert freezes == 1
    assert frozen >= 1000


def test_garbage_left_at_exit_is_still_finalised() -> None:
    out = _run("""
        import gc
        from pytest_legalbench.run.process_exit import exit_quickly

        class Flushing:
            def __del__(self):
                print("finalised", flush=True)

        gc.disable()  # the cycle stays uncollected until exit
        exit_quickly()
        node = Flushing()
        node.self = node
        del node
        """)
    assert out.splitlines() == ["finalised"]


_FREEZE_PROBE = """
import gc
from pathlib import Path

def pytest_configure(config):
    config.frozen_at_start = gc.get_freeze_count()

def pytest_unconfigure(config):
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    grew = gc.get_freeze_count() > config.frozen_at_start
    Path(config.rootpath, f"frozen-{worker}").write_text(str(grew))
"""


@pytest.fixture
def probe(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester folder whose conftest records, per process, whether the heap was frozen."""
    # pytester runs in a temp dir, where a relative corpus folder would not resolve; these
    # sessions read no corpus.
    monkeypatch.delenv("LEGALBENCH_CORPUS_DIR", raising=False)
    pytester.makeconftest(_FREEZE_PROBE)
    return pytester


def test_an_xdist_worker_settles_its_heap_at_session_end(probe: pytest.Pytester) -> None:
    probe.makepyfile("def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    # A benchmark session (asked for by its flag): only there does the plugin act.
    probe.runpytest("-n", "2", "--legalbench-profile=transactions").assert_outcomes(passed=2)
    for worker in ("gw0", "gw1"):
        assert (probe.path / f"frozen-{worker}").read_text() == "True"
    # The controller runs in this process, which outlives the session: never frozen.
    assert (probe.path / "frozen-main").read_text() == "False"


def test_a_session_without_workers_freezes_nothing_before_exit(
        probe: pytest.Pytester) -> None:
    probe.makepyfile("def test_one():\n    pass\n")
    probe.runpytest().assert_outcomes(passed=1)
    assert (probe.path / "frozen-main").read_text() == "False"
