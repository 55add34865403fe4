"""Live runs at scale, measured on the default benchmark: a batch run against the interactive
run, a batch run interrupted after its batches were submitted and then resumed, and the
benchmark on two workers that are not this process's (execnet socket servers on loopback)
against one process.

Run: ``.venv/bin/python perf/batch_runs.py [--out perf/output/batch_runs.json]`` (corpus from
$LEGALBENCH_CORPUS_DIR, else ../shared/corpus; about three minutes).

* **batch**: ``pytest benchmarks -p no:xdist --disable-recording`` against a reference backend
  this script serves (``--legalbench-base-url``, so its request counters can be read), once
  interactively and once with ``--legalbench-batch``. Compared: the summary lines without
  dollars (verdicts, key facts, recall, footprints), and every dollar amount of the batch run
  against half the interactive one, on lines that say "batch"; at the server, each request
  counted once (the submissions against the run journal's requests, nothing sent to
  ``POST /v1/messages``).
* **resume**: the batch run sent SIGINT (Ctrl-C) as soon as its journal holds a batch, then
  ``--legalbench-resume`` of that run folder, against a fresh server: the requests submitted
  across both sessions against the journal's (none twice), the items finished, and the
  summary against the uninterrupted batch run.
* **remote workers**: the replayed benchmark (committed cassettes) in a staging folder holding
  what a worker host needs (``benchmarks/``, ``cassettes/``, the ini), sent by ``--rsyncdir``
  to two ``python -m execnet.script.socketserver`` processes, each in its own working folder
  with its own cache (``LEGALBENCH_CACHE_DIR``), as ``--tx socket=127.0.0.1:PORT``; against
  the same staging folder at ``-n 0``.

A measurement, not a test: the numbers are printed and written, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from measuring import OUTPUT, REPO, commit, corpus_dir, machine_load

from pytest_legalbench.reference_backend import ReferenceBackend

#: The lines with dollars: what a batch run prices differently.
PRICED = re.compile(r"^  (cost|crossover|token footprint.*; cost)")


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("ANTHROPIC_BASE_URL", "LEGALBENCH_BACKEND", "LEGALBENCH_CACHE_DIR")}
    env.update(LEGALBENCH_CORPUS_DIR=str(corpus_dir()), HF_HUB_OFFLINE="1",
               ANTHROPIC_API_KEY="not-a-key")
    return env


def summary(stdout: str) -> list[str]:
    """The summary lines of a session's output, without paths (the report's, the kept output
    lengths')."""
    lines = stdout.splitlines()
    start = lines.index("legalbench summary") if "legalbench summary" in lines else len(lines)
    return [re.sub(r"(kept for the next plan): .*", r"\1", line) for line in lines[start:]
            if not line.startswith(("report:", "=", "run journal"))
            and not line.startswith("legalbench batch:")
            and not re.match(r"\d+ (passed|failed|error|skipped)", line)]


def live_args(server: ReferenceBackend, report: Path) -> list[str]:
    return [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:xdist", "-q", "-p",
            "no:randomly", "--disable-recording", "--legalbench-backend=anthropic",
            f"--legalbench-base-url={server.base_url}", "--legalbench-server-kind=reference",
            f"--legalbench-report={report}"]


def session(command: list[str], cwd: Path = REPO,
            env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    began = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env or environment(), capture_output=True,
                          text=True, check=False)
    return done, round(time.monotonic() - began, 1)


def journal(folder: Path, kind: str) -> list[dict[str, Any]]:
    lines = (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    return [entry for entry in map(json.loads, lines) if entry["kind"] == kind]


def journaled_requests(folder: Path) -> tuple[Counter[str], int, int]:
    """Each request (by digest) as often as the journal's batches hold it; the calls; the
    distinct custom ids."""
    calls = [call for entry in journal(folder, "batch") for call in entry["calls"]]
    return (Counter(str(c["request"]) for c in calls), len(calls),
            len({c["custom_id"] for c in calls}))


def dollars(line: str) -> list[float]:
    return [float(amount) for amount in re.findall(r"\$([0-9.]+)", line)]


def halved(batch: list[str], interactive: list[str]) -> dict[str, Any]:
    """Whether every priced line of the batch run says batch and costs half."""
    ours = [line for line in batch if PRICED.match(line)]
    theirs = [line for line in interactive if PRICED.match(line)]
    ratios = [a / b for line_a, line_b in zip(ours, theirs, strict=False)
              for a, b in zip(dollars(line_a), dollars(line_b), strict=False) if b]
    return {"priced_lines": len(ours), "all_say_batch": all("batch" in line for line in ours),
            "ratio_min": round(min(ratios), 4) if ratios else None,
            "ratio_max": round(max(ratios), 4) if ratios else None}


def unpriced(lines: list[str]) -> list[str]:
    return [line.replace("  token footprint (batch)", "  token footprint")
            for line in lines if not PRICED.match(line)]


def server_counts(server: ReferenceBackend) -> dict[str, int]:
    submitted = server.batches.submitted
    return {"batch_requests_submitted": sum(submitted.values()),
            "distinct_requests_submitted": len(submitted),
            "batch_requests_processed": sum(server.batches.processed.values()),
            "answered_in_all": sum(server.answered.values())}


def measure_batch(scratch: Path) -> tuple[dict[str, Any], list[str]]:
    with ReferenceBackend(batch_delay_s=1.0) as server:
        interactive, interactive_s = session(live_args(server, scratch / "interactive"))
        answered_interactive = sum(server.answered.values())
    with ReferenceBackend(batch_delay_s=1.0) as server:
        batch, batch_s = session([*live_args(server, scratch / "batch"), "--legalbench-batch"])
        counts = server_counts(server)
        requests, calls, ids = journaled_requests(scratch / "batch")
        same_as_journal = server.batches.submitted == requests
    ours, theirs = summary(batch.stdout), summary(interactive.stdout)
    return {
        "interactive": {"exit_status": interactive.returncode, "wall_s": interactive_s,
                        "requests_answered": answered_interactive},
        "batch": {"exit_status": batch.returncode, "wall_s": batch_s, "server": counts,
                  "journaled_calls": calls, "distinct_custom_ids": ids,
                  "submissions_match_the_journal": same_as_journal,
                  "nothing_sent_interactively":
                      counts["answered_in_all"] == counts["batch_requests_submitted"]},
        "summary_lines": len(theirs),
        "same_summary_without_dollars": unpriced(ours) == unpriced(theirs),
        "dollars_batch_over_interactive": halved(ours, theirs),
        "batch_report_lines": [line for line in batch.stdout.splitlines()
                               if line.startswith("legalbench batch:")],
    }, ours


def interrupted(command: list[str], folder: Path) -> tuple[int, str, float]:
    """``command`` sent SIGINT once ``folder``'s journal holds a batch: its exit status, its
    output and how long after it started the signal went."""
    began = time.monotonic()
    with subprocess.Popen(command, cwd=REPO, env=environment(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as process:
        sent = None
        while process.poll() is None:
            path = folder / "journal.jsonl"
            if sent is None and path.exists() and '"kind":"batch"' in path.read_text().replace(
                    " ", ""):
                process.send_signal(signal.SIGINT)
                sent = time.monotonic() - began
            time.sleep(0.02)
        output = process.stdout.read() if process.stdout else ""
    return process.returncode, output, round(sent or -1.0, 2)


def measure_resume(scratch: Path, whole: list[str]) -> dict[str, Any]:
    folder = scratch / "resumed"
    with ReferenceBackend(batch_delay_s=3.0) as server:
        command = [*live_args(server, folder), "--legalbench-batch"]
        status, output, after_s = interrupted(command, folder)
        first = server_counts(server)
        resumed, resumed_s = session([*command, f"--legalbench-resume={folder}"])
        counts = server_counts(server)
        requests, calls, ids = journaled_requests(folder)
        same_as_journal = server.batches.submitted == requests
        twice = sum(1 for digest, n in server.batches.submitted.items()
                    if n > requests[digest])
    items = {entry["item"] for entry in journal(folder, "item")}
    ours = summary(resumed.stdout)
    tail = output.splitlines()[-12:]
    return {
        "interrupted": {"exit_status": status, "sigint_after_s": after_s,
                        "server_after_it": first,
                        "printed_the_resume_command": "--legalbench-resume" in output,
                        "output_tail": tail},
        "resumed": {"exit_status": resumed.returncode, "wall_s": resumed_s,
                    "collected_from_the_journal":
                        "collected from the journal's batches" in resumed.stdout},
        "server_in_all": counts, "journaled_calls": calls, "distinct_custom_ids": ids,
        "submissions_match_the_journal": same_as_journal,
        "requests_submitted_more_often_than_the_journal_holds": twice,
        "items_finished": len(items),
        "same_summary_as_the_uninterrupted_batch_run": ours == whole,
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def measure_remote(scratch: Path) -> dict[str, Any]:
    staging = scratch / "project"
    staging.mkdir()
    for name in ("benchmarks", "cassettes"):
        shutil.copytree(REPO / name, staging / name)
    shutil.copy(REPO / "pyproject.toml", staging / "pyproject.toml")
    env = environment()
    del env["ANTHROPIC_API_KEY"]
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    one, one_s = session([*base, "-p", "no:xdist", f"--legalbench-cache-dir={scratch / 'cache'}",
                          "benchmarks"], staging, env)
    servers = []
    hosts = []
    try:
        for name in ("host-a", "host-b"):
            folder = scratch / name
            folder.mkdir()
            port = free_port()
            servers.append(subprocess.Popen(
                [sys.executable, "-m", "execnet.script.socketserver", f"127.0.0.1:{port}"],
                cwd=folder, env={**env, "LEGALBENCH_CACHE_DIR": str(folder / "cache")},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            hosts.append((port, folder))
        for port, _ in hosts:
            for _ in range(600):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
        remote, remote_s = session(
            [*base, *(f"--tx=socket=127.0.0.1:{port}" for port, _ in hosts), "--dist=load",
             f"--rsyncdir={staging}", "-W", "ignore::DeprecationWarning",
             f"--legalbench-report={scratch / 'remote-report'}",
             str(staging / "benchmarks")], staging,
            # the controller keeps the run's output lengths in a cache of its own
            {**env, "LEGALBENCH_CACHE_DIR": str(scratch / "controller-cache")})
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    items = {entry["item"] for entry in journal(scratch / "remote-report", "item")}
    return {
        "one_process": {"exit_status": one.returncode, "wall_s": one_s},
        "two_socket_workers": {
            "exit_status": remote.returncode, "wall_s": remote_s,
            "items_journaled_on_this_host": len(items),
            "cache_files_per_host": [sum(1 for p in (folder / "cache").rglob("*") if p.is_file())
                                     for _, folder in hosts],
            "output_tail": remote.stdout.splitlines()[-3:]},
        "same_summary": summary(one.stdout) == summary(remote.stdout),
        "summary_lines": len(summary(one.stdout)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUTPUT / "batch_runs.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        scratch = Path(name)
        batch, whole = measure_batch(scratch)
        resume = measure_resume(scratch, whole)
        remote = measure_remote(scratch)
    found = {
        "measured": "the default benchmark: batch against interactive on the reference "
                    "backend; a batch run interrupted and resumed; two loopback socket "
                    "workers against one process",
        "commit": commit(), "machine_load": machine_load(),
        "batch": batch, "resume": resume, "remote_workers": remote,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()
