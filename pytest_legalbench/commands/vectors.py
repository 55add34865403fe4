"""``legalbench record-vectors``: pack the vectors a run computed into the vector record that
lives beside the cassettes, so later replays of the same texts never load the model."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    UsageProblem,
    add_folder_options,
    cache_folder,
)


def register(commands: Any) -> None:
    """Add the ``record-vectors`` subcommand."""
    record = commands.add_parser(
        "record-vectors",
        help="write cassettes/vectors/<model digest>.npz from every vector of one model in a "
             "cache folder (run the benchmark on a fresh --legalbench-cache-dir first, so the "
             "record holds what that run used and nothing else)")
    add_folder_options(record)
    record.add_argument("--out", type=Path, default=Path("cassettes") / "vectors",
                        help="the record's folder (default: %(default)s)")
    record.add_argument("--embedding-model", metavar="FOLDER",
                        help="the model whose vectors to record (default: the packaged MiniLM)")
    record.add_argument("-q", "--quiet", action="store_true", help="print no progress")
    record.set_defaults(run=run_record)


def run_record(args: argparse.Namespace, progress: Progress) -> int:
    """Write the record; say how many entries and how large it is."""
    from pytest_legalbench.vectors.embedding import (
        PACKAGED_MODEL_PACKAGE,
        model_digest,
        resolve_model_path,
    )
    from pytest_legalbench.vectors.vector_cache import VectorCache
    from pytest_legalbench.vectors.vector_record import write_record

    folder = resolve_model_path(args.embedding_model)
    digest = model_digest(folder)
    entries = VectorCache(cache_folder(args)).entries(digest)
    if not entries:
        raise UsageProblem(f"{cache_folder(args)}: no vectors of model {digest} to record; run "
                           f"the benchmark with this --legalbench-cache-dir first")
    path = write_record(args.out, digest, args.embedding_model or PACKAGED_MODEL_PACKAGE,
                        entries)
    rows = sum(e.vectors.shape[0] for e in entries.values())
    progress(f"{path}: {len(entries)} entries, {rows} vectors, "
             f"{path.stat().st_size / 1e6:.2f} MB")
    return 0
