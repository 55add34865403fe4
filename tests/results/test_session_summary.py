"""The session summary from hand-made records: tallies, key facts, footprint, cost, lines."""

from __future__ import annotations

from dataclasses import replace

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.summarise import summarise
from pytest_legalbench.results.summary_lines import summary_lines
from tests.support.item_records import PASS, qa_record

YES = KeyFacts(("x",), (), False, True)
NO = KeyFacts((), ("x",), False, False)


def _call(stage: str, input_tokens: int, cache_read: int = 0) -> Call:
    return Call(stage, "m", Usage(input_tokens=input_tokens, cache_read_input_tokens=cache_read,
                                  output_tokens=100), 0.1, "reference")


def _record(qid: str, verdict: str | None, *, kind: str = "lookup", mode: str = "navindex",
            judge: str = "forced", mode_facts: KeyFacts | None = YES) -> ItemRecord:
    return ItemRecord(
        question_id=qid, kind=kind, practice_area="finance", difficulty="easy", mode=mode,
        question="q?", reference="r", judge=judge, inject_answer="a",
        mode_answer=None if mode == "inject" else "b", raw_forward=None, raw_reverse=None,
        verdict=verdict, keyfacts_inject=NO, keyfacts_mode=None if mode == "inject" else mode_facts,
        evidence_recall=None if kind == "out_of_scope" else 0.5, node_ids=("d:1",),
        payload_tokens=1000, scan_tokens=0 if mode != "navindex" else 5000,
        inject_calls=(_call("inject.answer", 100, cache_read=10_000),),
        mode_calls=() if mode == "inject" else (_call("navindex.scan", 5000),
                                                _call("navindex.answer", 1000)),
        judge_calls=() if verdict is None else (_call("judge.forward", 50),),
        mode_traits=builtin_traits(mode))


def test_forced_runs_tally_splits_apart_and_add_the_binomial_test() -> None:
    records = [_record(f"q{n}", "mode") for n in range(9)] + [
        _record("q9", "inject"), _record("q10", "split"),
        _record("c1", "tie", kind="out_of_scope", mode_facts=NO)]
    summary = summarise(records, load_price_card(), backend="reference",
                        models={"answer": "a1", "judge": "j1"})
    entry = summary.mode("navindex")
    bound = entry.document_bound
    assert bound is not None and entry.controls is not None and entry.keyfacts.mode is not None
    assert (bound.mode, bound.inject, bound.split, bound.items) == (9, 1, 1, 11)
    # 9 of 10 decided pairs, splits left out: two-sided exact p = 22/1024.
    p_value = bound.forced_test()
    assert p_value is not None and abs(p_value - 22 / 1024) < 1e-12
    assert entry.controls.items == 1
    assert entry.keyfacts.mode.k == 11 and entry.keyfacts.inject.k == 0
    assert entry.footprint.inject_total == 12 * 10_100
    assert entry.footprint.mode_total == 12 * 6_000
    plain = to_builtins(summary)["modes"]["navindex"]  # type: ignore[index]
    assert plain["document_bound"]["forced_test_p"] == p_value
    assert plain["keyfacts"]["mode"] == {"k": 11, "n": 12, "share": 0.9167, "low": 0.6152,
                                         "high": 0.9979}
    lines = summary_lines(summary)
    assert lines[0].startswith("backend reference (answer a1, judge j1)")
    assert any(line.startswith("  exact binomial test (navindex vs inject wins, splits left "
                               "out): p = 0.02148") for line in lines)
    assert any(line.startswith("  document-bound: ties 0/10 0.0% [0.0, 30.9]; inject wins 1/10")
               for line in lines)


def test_an_inject_only_run_reports_key_facts_footprint_and_cost_alone() -> None:
    records = [_record("q1", None, mode="inject"), _record("q2", None, mode="inject")]
    summary = summarise(records, load_price_card(), backend="reference",
                        models={"answer": "a1", "judge": "none"})
    entry = summary.mode("inject")
    assert entry.document_bound is None and entry.crossover is None
    # Written out as null: the layout's fields are the same for every mode.
    assert to_builtins(summary)["modes"]["inject"]["document_bound"] is None
    lines = summary_lines(summary)
    assert "  key facts: inject 0/2 0.0% [0.0, 84.2]" in lines
    assert any(line.startswith("  token footprint 20,200 (answering context 20,200); cost $")
               for line in lines)


def _from_llama_cpp(record: ItemRecord) -> ItemRecord:
    """The record as a llama.cpp server would have produced it: no cache-write counts."""
    import dataclasses

    def moved(calls: tuple[Call, ...]) -> tuple[Call, ...]:
        return tuple(dataclasses.replace(c, backend="messages-api at 127.0.0.1:8080",
                                         server="llama.cpp",
                                         unreported=("cache_creation_input_tokens",))
                     for c in calls)

    return dataclasses.replace(record, inject_calls=moved(record.inject_calls),
                               mode_calls=moved(record.mode_calls),
                               judge_calls=moved(record.judge_calls))


def test_cache_counts_a_server_never_reported_are_said_to_be_unreported() -> None:
    records = [_from_llama_cpp(_record("q1", "tie")), _from_llama_cpp(_record("q2", "mode"))]
    summary = summarise(records, load_price_card(), backend="messages-api at 127.0.0.1:8080",
                        models={"answer": "SmolLM2-135M-Instruct.Q4_1.gguf",
                                "judge": "SmolLM2-135M-Instruct.Q4_1.gguf"})
    assert summary.unreported == ("cache_creation_input_tokens",)
    assert to_builtins(summary)["usage_not_reported"] == ["cache_creation_input_tokens"]
    lines = summary_lines(summary)
    assert lines[0].startswith("backend messages-api at 127.0.0.1:8080 (answer SmolLM2-135M")
    assert lines[1].startswith("cache writes: not reported by this server (no cache write is "
                               "counted or priced")
    assert not any(line.startswith("cache reads:") for line in lines)


def test_a_server_reporting_every_count_gets_no_cache_note() -> None:
    summary = summarise([_record("q1", "tie")], load_price_card(), backend="reference",
                        models={"answer": "a1", "judge": "j1"})
    assert summary.unreported == () and "usage_not_reported" not in to_builtins(summary)
    assert not any("not reported" in line for line in summary_lines(summary))


def test_the_session_end_names_the_server_kind_and_its_rules() -> None:
    from pytest_legalbench.run.protocol import envelope
    from pytest_legalbench.run.session_end import SessionEnd, finish_session

    record = _from_llama_cpp(_record("q1", "tie"))
    lines = finish_session([envelope("qa", record)], SessionEnd())
    assert any(line.startswith("backend messages-api at 127.0.0.1:8080 (answer m, judge m)")
               for line in lines)
    assert "(server: llama.cpp server; capability rules: system blocks sent joined as one " \
           "string; seeds not sent; HTTP 500 not retried)" in lines
    assert any(line.startswith("cache writes: not reported by this server") for line in lines)


def test_the_crossover_names_what_inject_read_when_it_read_each_question_s_set() -> None:
    card = load_price_card()
    records = [qa_record(n, "tie", PASS, PASS) for n in (1, 2)]
    whole = summarise(records, card, backend="reference", models={}).modes[0].crossover
    scoped = summarise([replace(r, inject_scope="set") for r in records], card,
                       backend="reference", models={}).modes[0].crossover
    assert whole is not None and scoped is not None
    # Inject's answering context is 1,000 tokens a question either way; only its name differs.
    assert "; corpus 1,000 tokens is above it" in whole.explanation
    assert "; inject's context (mean per question) 1,000 tokens is above it" \
        in scoped.explanation
    assert whole.cheaper == scoped.cheaper
