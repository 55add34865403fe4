"""A process that builds batches of indexes for ``navindex.parallel_build``.

It reads pickled batches of documents from stdin and answers each with one frame on stdout,
``("ok", indexes)`` or ``("error", exception)``, until stdin closes. It is started with
``python -m`` so that it imports this package and nothing of its caller's: multiprocessing's
spawn would run the caller's main script again in every worker, and a script without a
``__main__`` guard that holds a cache lock would then wait on itself for ever.
"""

from __future__ import annotations

import pickle
import struct
import sys
from typing import IO

#: Each frame is its length (8 bytes, big-endian) and then a pickle.
_HEADER = struct.Struct(">Q")


def write_frame(stream: IO[bytes], value: object) -> None:
    """Write ``value`` as one frame and flush."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> object | None:
    """The next frame's value; None when the stream ends before a frame starts."""
    header = stream.read(_HEADER.size)
    if not header:
        return None
    if len(header) < _HEADER.size:
        raise EOFError("the stream ended inside a frame header")
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError(f"the stream ended {size - len(data)} bytes short of a frame")
    # Frames only ever come from this process's own parent or child, never from a file.
    value: object = pickle.loads(data)
    return value


def _answer(batch: object) -> tuple[str, object]:
    from pytest_legalbench.navindex.build import build_corpus

    try:
        return "ok", build_corpus(batch)  # type: ignore[arg-type]
    except Exception as error:  # noqa: BLE001 (sent back: the caller raises it, as serially)
        try:
            pickle.dumps(error)
        except Exception:  # noqa: BLE001 (an exception pickle cannot carry)
            return "error", RuntimeError(f"{type(error).__name__}: {error}")
        return "error", error


def main() -> int:
    """Answer batches from stdin on stdout until stdin closes."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    # stdout carries frames only: anything printed goes to stderr.
    sys.stdout = sys.stderr
    while (batch := read_frame(source)) is not None:
        write_frame(sink, _answer(batch))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
