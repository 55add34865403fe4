"""Whether two checkouts write the same index files for the same corpus, byte for byte.

Run: ``.venv/bin/python perf/index_identity.py BEFORE AFTER [--profiles transactions,cuad]
[--json OUT]`` (corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). Each checkout
runs ``legalbench index --profile P --no-cache --out DIR`` in a child process importing
``pytest_legalbench`` from it, into a scratch folder; then every ``<doc>.index.json`` and
``<doc>.full.json`` is compared. A change meant to leave the index alone (a faster parser, say)
is checked this way on the real corpus. A measurement, not a test: nothing is asserted, the
differences are printed.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measuring import commit


def _index(checkout: Path, profile: str, out: Path) -> float:
    """Index ``profile`` with ``checkout``'s package into ``out``; return the seconds taken."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    started = time.perf_counter()
    # Run from the scratch folder: "python -m" puts the working directory first on sys.path,
    # so started from a checkout it would import that checkout's package, whatever PYTHONPATH
    # names.
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pytest_legalbench.commands.cli", "index", "--profile",
                    profile, "--no-cache", "--cache-dir", str(out.parent / "cache"), "--out",
                    str(out), "-q"], check=True, env=env, capture_output=True, text=True,
                   cwd=out.parent)
    return round(time.perf_counter() - started, 1)


def compare(before: Path, after: Path, profile: str, scratch: Path) -> dict[str, object]:
    """Index ``profile`` with both checkouts and compare the files they wrote."""
    first, second = scratch / "before" / profile, scratch / "after" / profile
    seconds = {"before": _index(before, profile, first), "after": _index(after, profile, second)}
    names = sorted({p.name for p in first.iterdir()} | {p.name for p in second.iterdir()})
    missing = [n for n in names if not (first / n).is_file() or not (second / n).is_file()]
    differing = [n for n in names if n not in missing
                 and not filecmp.cmp(first / n, second / n, shallow=False)]
    return {"profile": profile, "files": len(names), "identical": len(names) - len(missing)
            - len(differing), "differing": differing, "only_one_side": missing,
            "seconds": seconds}


def main() -> int:
    """Compare every profile asked for; print the result, and save it if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the checkout before the change")
    parser.add_argument("after", type=Path, help="the checkout after it")
    parser.add_argument("--profiles", default="transactions,cuad")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="legalbench-identity-") as scratch:
        found = [compare(args.before.resolve(), args.after.resolve(), profile.strip(),
                         Path(scratch)) for profile in args.profiles.split(",") if profile.strip()]
    report = {"before": str(args.before.resolve()), "after": str(args.after.resolve()),
              "commits": {"before": commit(args.before), "after": commit(args.after)},
              "profiles": found}
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
