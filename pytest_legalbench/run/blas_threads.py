"""numpy's BLAS held to one thread in a process that answers questions.

Retrieval's linear algebra is a query against a few thousand unit vectors at a time: one
thread does each product faster than a pool that wakes for it, and OpenBLAS's idle threads
spin on every core between calls. Measured on the full offline replay at ``-n 0`` on 2 cores,
three runs each way, interleaved: 9.8-13.7 CPU seconds with one thread against 19.4-21.8 with
the default pool of two, wall time within the machine's noise (9.7-13.7 s against 12.2-13.2
s); on a busy machine the spinning thread takes a core from other work. Torch's own thread
pool (embedding) is another library and keeps its threads.
"""

from __future__ import annotations

import os

#: Variables by which a user sizes the BLAS pool; when one is set, the user's choice stands.
USER_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS",
                  "GOTO_NUM_THREADS")


def one_blas_thread() -> bool:
    """Limit the BLAS libraries loaded in this process to one thread, unless the user sized
    them; True when the limit was applied."""
    if any(name in os.environ for name in USER_VARIABLES):
        return False
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # a declared dependency; without it the pools keep their size
        return False
    import numpy  # noqa: F401  (loads the BLAS library the limit is for)

    threadpool_limits(limits=1, user_api="blas")
    return True
