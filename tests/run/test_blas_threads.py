"""The BLAS pool of a process that answers questions: one thread, unless the user sized it.
Each case runs in a child interpreter: the limit is process-wide."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pytest_legalbench.run.blas_threads import USER_VARIABLES

PROBE = """
import json
import numpy
from threadpoolctl import threadpool_info
from pytest_legalbench.run.blas_threads import one_blas_thread
applied = one_blas_thread()
pools = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
print(json.dumps({"applied": applied, "pools": pools}))
"""


def _probe(**variables: str) -> dict[str, object]:
    env = {name: value for name, value in os.environ.items() if name not in USER_VARIABLES}
    done = subprocess.run([sys.executable, "-c", PROBE], env={**env, **variables},
                          capture_output=True, text=True, check=True)
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_the_blas_pool_is_held_to_one_thread() -> None:
    probed = _probe()
    assert probed["applied"] is True
    assert probed["pools"] and set(probed["pools"]) == {1}  # type: ignore[arg-type]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one core: pools have one thread")
def test_a_pool_size_the_user_set_stands() -> None:
    probed = _probe(OPENBLAS_NUM_THREADS="2")
    assert probed == {"applied": False, "pools": [2] * len(probed["pools"])}  # type: ignore[arg-type]
    assert probed["pools"]
