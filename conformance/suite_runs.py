"""The suite's own commands against a running server, for conformance runs: ``legalbench ask``
and ``pytest benchmarks`` in subprocesses, with what each reported.

Every run gets a clean environment (no ``LEGALBENCH_``, ``ANTHROPIC_`` or ``PYTEST_``
settings of the caller's), a key for a server that checks none, its own cache folder, and
``--disable-recording``: nothing under ``cassettes/`` is read or written, which is checked.
Standard library only.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "conformance" / "tiny_deal"
QUESTION = "What price per tonne does Quillon Foods pay for the Products after the First Amendment?"
#: GANDR's limits for a 135M model on one CPU thread. It writes until max_tokens, at about
#: 15 tokens/s here, so the study's 2,048 tokens take longer than the client's 120 s timeout;
#: one round and 256 tokens keep a call near 20 s.
GANDR_LIMITS = ("max_rounds=1", "max_tokens=256", "tool_max_tokens=256", "judge_max_tokens=256")
_QA_FIELDS = ("question_id", "mode", "verdict", "raw_forward", "raw_reverse", "inject_answer",
              "mode_answer", "node_ids", "evidence_recall")


def environment(cache: Path) -> dict[str, str]:
    """The caller's environment without the suite's settings, pointed at ``cache``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LEGALBENCH_", "ANTHROPIC_", "PYTEST_"))}
    env.update(ANTHROPIC_API_KEY="local", LEGALBENCH_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1")
    return env


def tree_digest(root: Path) -> str:
    """One digest of every file's path and bytes under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def ask(base_url: str, mode: str, cache: Path) -> dict[str, Any]:
    """``legalbench ask --json`` under ``mode``; its report, or the failure's output."""
    command = [str(Path(sys.executable).with_name("legalbench")), "ask", "--json", "-q",
               "--backend", "anthropic", "--base-url", base_url, "--docs", str(TINY),
               "--context-window", "8192", "--mode", mode, QUESTION]
    started = time.monotonic()
    done = subprocess.run(command, env=environment(cache), capture_output=True, text=True,
                          timeout=900, check=False)
    seconds = round(time.monotonic() - started, 1)
    if done.returncode != 0:
        return {"mode": mode, "exit": done.returncode, "stderr": done.stderr[-3000:],
                "seconds": seconds}
    report: dict[str, Any] = json.loads(done.stdout)
    return {"mode": mode, "exit": 0, "seconds": seconds, "answer": report["answer"],
            "model": report["model"], "server": report.get("server"),
            "provisions": [p.get("node_id") for p in report["provisions"]],
            "calls": [{k: c.get(k) for k in ("stage", "model", "usage", "backend", "server",
                                              "unreported", "valid", "raw_output")}
                      for c in report["calls"]], "total": report["total"]}


def bench(base_url: str, cache: Path, folder: Path, *, modes: Sequence[str], selection: str,
          extra: Sequence[str] = ()) -> dict[str, Any]:
    """``pytest benchmarks`` over the tiny deal's questions ``selection`` under ``modes``:
    exit status, summary lines, the QA records and, with a GANDR mode, GANDR's records."""
    folder.mkdir(parents=True, exist_ok=True)
    before = tree_digest(REPO / "cassettes")
    junit, report = folder / "junit.xml", folder / "report"
    command = [sys.executable, "-m", "pytest", "benchmarks", "-q", "-p", "no:cacheprovider",
               "-p", "no:randomly", "-n", "0", f"--legalbench-docs={TINY}",
               f"--legalbench-questions={TINY / 'questions'}",
               *(f"--mode={mode}" for mode in modes), "-k", selection,
               "--legalbench-backend=anthropic", f"--legalbench-base-url={base_url}",
               "--legalbench-context-window=8192", *extra, "--disable-recording",
               f"--junitxml={junit}", f"--legalbench-report={report}"]
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=environment(cache), capture_output=True,
                          text=True, timeout=1800, check=False)
    seconds = round(time.monotonic() - started, 1)
    lines = done.stdout.splitlines()
    # "legalbench summary", "legalbench GANDR summary", either with "(partial ...)" after it.
    start = next((i for i, line in enumerate(lines) if line.startswith(
        ("legalbench summary", "legalbench GANDR summary"))), len(lines))
    return {"exit": done.returncode, "seconds": seconds, "command": command[3:],
            "summary": lines[start:], "tail": lines[-3:], "errors": _errors(lines),
            "records": _qa_records(junit),
            "gandr": _gandr_records(report / "gandr-results.json"),
            "cassettes_unchanged": tree_digest(REPO / "cassettes") == before}


def _errors(lines: list[str]) -> list[str]:
    """What pytest's ERRORS and FAILURES sections said, one line per problem."""
    found, inside = [], False
    for line in lines:
        if line.startswith("=") and ("ERRORS" in line or "FAILURES" in line):
            inside = True
        elif line.startswith(("=", "legalbench")):
            inside = False
        elif inside and line.strip() and not line.startswith("_"):
            found.append(line[:600])
    return found[:40]


def _qa_records(junit: Path) -> list[dict[str, Any]]:
    records = []
    if junit.is_file():
        for case in ElementTree.parse(junit).iter("testcase"):
            for prop in case.iter("property"):
                if prop.get("name") != "legalbench_record":
                    continue
                envelope = ast.literal_eval(str(prop.get("value")))
                if envelope.get("product", "qa") != "qa":
                    continue
                record = envelope["record"]
                records.append({k: record[k] for k in _QA_FIELDS} | {
                    "judge_raw_outputs": [c.get("raw_output") for c in record["judge_calls"]
                                          if c.get("raw_output")],
                    "scan_valid": [c["valid"] for c in record["mode_calls"]
                                   if ".scan" in c["stage"]]})
    return records


def _gandr_records(path: Path) -> list[dict[str, Any]]:
    """Each GANDR repeat: its grades and every call's stage, validity and raw text's head."""
    if not path.is_file():
        return []
    found = []
    for record in json.loads(path.read_text(encoding="utf-8"))["records"]:
        for repeat in record["repeats"]:
            found.append({
                "system": record["system"], "question_id": record["question_id"],
                "seed": repeat["seed"], "score": repeat["score"], "judged": repeat["judged"],
                "passed": repeat["passed"], "rounds": repeat["rounds"],
                "audit_labels": repeat["audit_labels"], "rationale": repeat["rationale"],
                "answer": repeat["answer"][:300],
                "calls": [{"stage": c["stage"], "valid": c["valid"],
                           "output_tokens": c["usage"]["output_tokens"],
                           "latency_s": round(c["latency_s"], 1),
                           "raw_output": (c.get("raw_output") or "")[:300] or None}
                          for c in repeat["calls"]]})
    return found
