"""The quick interpreter exit: survivors frozen once per process, garbage still finalised."""

from __future__ import annotations

import subprocess
import sys
import textwrap


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
