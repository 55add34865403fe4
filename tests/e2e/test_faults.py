"""Faults the reference backend injects, through the real SDK and our client: every retryable
kind is retried and counted in the ledger, malformed content is a clear error naming the
stage and question, and the choice of faults is deterministic."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.backend import ClientConfig
from pytest_legalbench.llm.call_types import SystemBlock
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.failures import ModelCallError
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.reference_backend import ReferenceBackend
from pytest_legalbench.reference_backend.faults import (
    FAULT_KINDS,
    FaultPlan,
    FaultSpecError,
    parse_faults,
)

QUESTION = ("<provisions>\n[lease] Section 1.1 Rent. The rent is 900 euros a month.\n"
            "</provisions>\n<question>\nWhat is the rent?\n</question>")


def ask(backend: ReferenceBackend, *, timeout_s: float = 30.0) -> tuple[str, Ledger]:
    """One answering call through our client; the waits between attempts are skipped."""
    ledger = Ledger()
    config = ClientConfig(backend="reference", base_url=backend.base_url, api_key="reference",
                          timeout_s=timeout_s)
    with ModelClient(config, ledger, sleep=lambda _: None) as client:
        done = client.complete(stage="navembed.answer", model="m",
                               system=[SystemBlock("Answer from the provisions.")],
                               messages=[{"role": "user", "content": QUESTION}],
                               max_tokens=300, question_id="lease-rent")
    return done.text, ledger


@pytest.mark.parametrize(("kind", "label"), [
    ("429", "HTTP 429"), ("529", "HTTP 529"), ("500", "HTTP 500"), ("timeout", "timeout"),
    ("reset", "connection"), ("short", "connection"), ("malformed", "200 overloaded_error")])
def test_each_retryable_fault_is_retried_and_counted(kind: str, label: str) -> None:
    with ReferenceBackend() as clean:
        expected, _ = ask(clean)
    plan = FaultPlan(((kind, 1.0),), max_per_request=2, stall_s=2.0)
    with ReferenceBackend(faults=plan) as faulty:
        text, ledger = ask(faulty, timeout_s=plan.client_timeout_s)
        assert faulty.faults is not None and faulty.faults.injected == {kind: 2}
    assert text == expected and text
    (call,) = ledger.calls
    assert call.retries == (label, label)
    assert to_builtins(call)["retries"] == [label, label]


@pytest.mark.parametrize(("kind", "problem"), [
    ("bad-text", ("response content block 0 is a text block whose text is 404 (int), not a "
                 "string")),
    ("bad-block", "response content block 0 is of unknown type 'hologram'")])
def test_malformed_content_is_an_error_naming_stage_and_question(kind: str,
                                                                 problem: str) -> None:
    with ReferenceBackend(faults=FaultPlan(((kind, 1.0),))) as faulty, \
            pytest.raises(ModelCallError) as raised:
        ask(faulty)
    assert str(raised.value) == (f"model call for stage 'navembed.answer', question "
                                 f"lease-rent failed (no HTTP status): {problem}")


def test_faults_past_the_attempts_fail_the_call_naming_the_cause() -> None:
    with ReferenceBackend(faults=FaultPlan((("529", 1.0),), max_per_request=9)) as faulty, \
            pytest.raises(ModelCallError, match=r"HTTP 529\): gave up after 5 attempts: "
                                                r"injected fault \(529\)"):
        ask(faulty)


def test_the_choice_of_fault_depends_on_seed_body_and_resend_only() -> None:
    plan = parse_faults("429:0.3,500:0.3,seed:7")
    bodies = [f"request {n}".encode() for n in range(200)]
    first = [plan.choose(body, 0) for body in bodies]
    assert first == [plan.choose(body, 0) for body in bodies]
    assert {"429", "500", None} == set(first)
    assert first != [parse_faults("429:0.3,500:0.3,seed:8").choose(b, 0) for b in bodies]
    assert all(plan.choose(body, 3) is None for body in bodies)  # max 3 per request


@given(st.dictionaries(st.sampled_from(FAULT_KINDS),
                       st.integers(min_value=0, max_value=100).map(lambda n: n / 1000),
                       min_size=1), st.integers(min_value=0, max_value=10 ** 6))
def test_a_written_spec_reads_back_as_its_plan(rates: dict[str, float], seed: int) -> None:
    spec = ",".join(f"{kind}:{rate!r}" for kind, rate in rates.items()) + f",seed:{seed}"
    plan = parse_faults(spec)
    assert dict(plan.rates) == rates and plan.seed == seed
    assert [kind for kind, _ in plan.rates] == [k for k in FAULT_KINDS if k in rates]


@pytest.mark.parametrize(("spec", "message"), [
    ("429", "'429': expected KIND:RATE"),
    ("418:0.1", "unknown fault '418'"),
    ("429:lots", "'lots' is not a number"),
    ("429:1.5", "a rate is between 0 and 1"),
    ("429:0.6,500:0.6", "fault rates add up to 1.2, more than 1"),
    ("429:0.1,429:0.2", "429 is given twice"),
    ("seed:3", "no fault named")])
def test_a_bad_spec_says_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(FaultSpecError, match=message):
        parse_faults(spec)


@pytest.mark.slow
def test_a_benchmark_under_faults_prints_the_fault_free_summary(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.plugin_sessions import (
        MODES,
        bench,
        isolate_environment,
        prepare,
        recording,
        summary_section,
    )

    isolate_environment(monkeypatch, corpus_root)
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester)
    args = bench(tmp_path_factory, corpus_root).args(*MODES)
    refused = pytester.runpytest(*args, "--legalbench-faults=429:0.5")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["ERROR: --legalbench-faults needs --disable-recording*"])
    monkeypatch.setenv("LEGALBENCH_FAULTS", "429:0.3,529:0.2,reset:0.1,short:0.05,"
                                            "malformed:0.1,seed:3")
    # Serial: which worker warms which prompt cache would change the cache accounting.
    result = pytester.runpytest_subprocess(*args, "--disable-recording", "-p", "no:xdist")
    result.assert_outcomes(passed=6)
    faulted = summary_section(result.outlines)
    retries = [line for line in faulted if line.startswith("retries: ")]
    assert len(retries) == 1 and "HTTP 429 x" in retries[0]
    assert [line for line in faulted if not line.startswith("retries: ")] == \
        summary_section(run.lines)
