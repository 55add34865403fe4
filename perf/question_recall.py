"""Evidence recall, payload, footprint and oracle ratio of every retrieval mode and strategy
that runs offline, on the scored question set of a profile, beside the chunk baseline.

Run: ``.venv/bin/python perf/question_recall.py [--profile transactions] [--json OUT]``
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). It is ``legalbench evaluate``
with every mode named: navindex, navagent and navembed:titles run against the embedded
reference backend (a deterministic navigator, not a model), and navembed:rerank only when a
cross-encoder is given with ``--cross-encoder``. A measurement, not a test: the numbers are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
from pathlib import Path

from pytest_legalbench.commands.cli import main as legalbench

MODES = ("navembed:closure", "navembed:embed", "navembed:embed+xref", "navembed:hybrid",
         "navembed:titles",
         "navindex", "navagent")


def main() -> int:
    """Run ``legalbench evaluate`` over every offline mode; print the table, save the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="transactions")
    parser.add_argument("--cross-encoder", help="cross-encoder folder for navembed:rerank")
    parser.add_argument("--json", type=Path, help="also write the JSON report here")
    args = parser.parse_args()
    corpus = os.environ.get("LEGALBENCH_CORPUS_DIR") or str(
        Path(__file__).resolve().parents[2] / "shared" / "corpus")
    modes = [*MODES, *(["navembed:rerank"] if args.cross_encoder else [])]
    common = ["evaluate", "--profile", args.profile, "--corpus-dir", corpus, "-q",
              *(["--cross-encoder", args.cross_encoder] if args.cross_encoder else []),
              *(part for mode in modes for part in ("--mode", mode))]
    status = legalbench(common)
    if status == 0 and args.json:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = legalbench([*common, "--json"])
        args.json.write_text(out.getvalue(), encoding="utf-8")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
