"""The ``legalbench`` command line: stats JSON contract, folders, errors, index files."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from pytest_legalbench.commands.cli import build_parser, main
from pytest_legalbench.commands.common import answer_model, call_timeout, mode_settings
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.run.query import query_session

CONTRACT = """MASTER SERVICES AGREEMENT

This Master Services Agreement (this "Agreement") is made by Alpha Corp ("Client") and Beta LLC ("Provider").

1. DEFINITIONS

"Services" means the services in Schedule 1.

2. FEES

2.1 Amount. Client pays $1,000 per month, subject to Section 2.2.

2.2 Late Payment. Late amounts bear interest at 1% per month.

3. GOVERNING LAW

This Agreement is governed by the laws of the State of Delaware.

SCHEDULE 1

Consulting and support.
"""

AMENDMENT = """FIRST AMENDMENT TO MASTER SERVICES AGREEMENT

This First Amendment amends the Master Services Agreement (the "Agreement") between Alpha Corp and Beta LLC.

1. Section 2.1 of the Agreement is amended to read $1,200 per month.

2. All other terms of the Agreement remain in effect.
"""

KEYS = {"doc_id", "nodes", "definitions", "toc_entries", "xrefs_found", "xrefs_resolved",
        "xrefs_external", "coverage", "index_tokens", "index_tokens_optimised"}


@pytest.fixture
def deal(tmp_path: Path) -> Path:
    folder = tmp_path / "deal"
    (folder / "notes").mkdir(parents=True)
    (folder / "msa.txt").write_text(CONTRACT, encoding="utf-8")
    (folder / "msa_amendment_1.txt").write_text(AMENDMENT, encoding="utf-8")
    (folder / "_scratch.txt").write_text("ignored", encoding="utf-8")
    return folder


def _stats(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["stats", "--json", *args]) == 0
    out = capsys.readouterr().out
    return json.loads(out)  # type: ignore[no-any-return]


def test_stats_json_of_a_folder(deal: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    report = _stats(capsys, "--docs", str(deal), "--cache-dir", str(tmp_path / "cache"))
    documents = report["documents"]
    assert isinstance(documents, list)
    assert [d["doc_id"] for d in documents] == ["msa", "msa_amendment_1"]
    assert all(KEYS <= set(d) for d in documents)
    total = report["total"]
    assert isinstance(total, dict)
    assert KEYS - {"doc_id"} | {"documents"} <= set(total) and total["documents"] == 2
    assert total["xrefs_resolved"] == total["xrefs_found"] >= 3
    assert report["rung"] == "D4" and report["token_estimate"] == "ceil(characters / 4)"


STRUCTURE_KEYS = {"largest_leaf_tokens", "leaves_over_cap", "over_cap_share",
                  "heading_like_lines", "headings_found", "heading_recall", "table_rows",
                  "table_rows_as_nodes", "largest_unit_tokens", "units_over_cap",
                  "unreached_chars"}


def test_stats_report_the_structure(deal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _stats(capsys, "--docs", str(deal), "--no-cache")
    documents = report["documents"]
    total = report["total"]
    assert isinstance(documents, list) and isinstance(total, dict)
    assert all(STRUCTURE_KEYS <= set(d) for d in documents)
    msa = documents[0]
    # 1., 2., 2.1, 2.2, 3. and SCHEDULE 1: every heading-like line starts a node.
    assert msa["heading_like_lines"] == msa["headings_found"] == 6
    assert msa["leaves_over_cap"] == msa["units_over_cap"] == 0
    assert total["heading_recall"] == 1.0 and total["documents_with_leaf_over_cap"] == 0
    assert main(["stats", "--docs", str(deal), "--no-cache", "-q"]) == 0
    out = capsys.readouterr().out
    assert "heading recall" in out and "units over cap" in out


def test_progress_and_inference_go_to_stderr(deal: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--json", "--docs", str(deal), "--no-cache"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)  # stdout holds the JSON and nothing else
    assert "inferred: msa_amendment_1: amendment of msa" in captured.err
    assert "parsing msa" in captured.err


def test_cached_and_fresh_builds_report_the_same(deal: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    cache = str(tmp_path / "cache")
    first = _stats(capsys, "--docs", str(deal), "--cache-dir", cache)
    second = _stats(capsys, "--docs", str(deal), "--cache-dir", cache)
    fresh = _stats(capsys, "--docs", str(deal), "--no-cache")
    assert first == second == fresh
    assert len(list((tmp_path / "cache" / "navindex").glob("v*/*/*.full.json"))) == 2


def test_index_writes_the_dual_files(deal: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["index", "--docs", str(deal), "--out", str(out), "--no-cache", "-q"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "msa.full.json", "msa.index.json", "msa_amendment_1.full.json",
        "msa_amendment_1.index.json"]
    surface = json.loads((out / "msa.index.json").read_text(encoding="utf-8"))
    assert surface["rung"] == "D4" and '"text":' not in json.dumps(surface["documentIndex"])
    assert "indexed 2 documents" in capsys.readouterr().out


def test_errors_name_the_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--docs", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: not a folder of documents" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / empty.name).write_bytes(b"")
    assert main(["stats", "--docs", str(folder)]) == 2
    assert "empty.txt" in capsys.readouterr().err
    assert main(["stats", "--profile", "transactions", "--corpus-dir", str(tmp_path),
                 "--no-cache"]) == 2
    assert "transactions" in capsys.readouterr().err


def test_the_default_profile_from_the_corpus_folder(corpus_root: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    report = _stats(capsys, "--corpus-dir", str(corpus_root), "--cache-dir", str(tmp_path))
    total = report["total"]
    assert isinstance(total, dict)
    assert total["documents"] == 10


def test_ask_answers_through_the_reference_backend(deal: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["ask", "--docs", str(deal), "--no-cache", "-q",
                 "How much does the Client pay per month?"]) == 0
    out = capsys.readouterr().out
    assert "$1,000 per month" in out and "[msa]" in out
    assert "backend: the embedded reference backend" in out
    assert "inject.answer" in out and "total: token footprint" in out and "cost $" in out


def test_ask_json_reports_usage_and_cost(deal: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["ask", "--docs", str(deal), "--no-cache", "-q", "--json",
                 "Which law governs the agreement?"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "reference" and "Delaware" in report["answer"]
    call, = report["calls"]
    assert call["stage"] == "inject.answer" and call["backend"] == "reference"
    assert report["total"]["cache_creation_input_tokens"] > 0
    assert report["cost"]["total"] == call["cost"]["total"]


def test_ask_refuses_what_cannot_run(deal: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["ask", "--docs", str(deal), "--no-cache", "-q", "--backend", "anthropic",
                 "Q?"]) == 2
    assert "ANTHROPIC_API_KEY is not set" in capsys.readouterr().err
    assert main(["ask", "--docs", str(deal), "--no-cache", "-q", "--mode", "bogus", "Q?"]) == 2
    assert "unknown mode 'bogus'" in capsys.readouterr().err
    assert main(["ask", "--docs", str(deal), "--no-cache", "-q", "--context-window", "100",
                 "Q?"]) == 2
    assert "inject does not fit" in capsys.readouterr().err


def test_ask_with_navindex_scans_fetches_and_answers(
        deal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["ask", "--docs", str(deal), "--no-cache", "-q", "--json", "--mode", "navindex",
                 "What interest applies to late payments?"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "navindex"
    assert [c["stage"] for c in report["calls"]] == ["navindex.scan", "navindex.answer"]
    fetched = {p["node_id"] for p in report["provisions"]}
    # The late-payment clause, or the payment section holding it.
    assert report["scan_tokens"] > 0 and fetched & {"msa:2.2", "msa:2"}


def test_ask_through_batches_answers_as_interactively_at_half_the_price(
        deal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    question = ["--docs", str(deal), "--no-cache", "--json", "--mode", "navindex",
                "What interest applies to late payments?"]
    assert main(["ask", "-q", *question]) == 0
    interactive = json.loads(capsys.readouterr().out)
    assert main(["ask", "--batch", *question]) == 0
    captured = capsys.readouterr()
    batch = json.loads(captured.out)
    # The scan, then the answer it routes: a batch each, the progress on stderr.
    assert "phase 1: 1 request(s) in 1 batch(es) (1 navindex.scan)" in captured.err
    assert "phase 2: 1 request(s) in 1 batch(es) (1 navindex.answer)" in captured.err
    assert "batched: 1 item(s), 2 request(s) in 2 phase(s)" in captured.err
    assert batch["answer"] == interactive["answer"]
    assert batch["provisions"] == interactive["provisions"]
    assert [c["usage"] for c in batch["calls"]] == [c["usage"] for c in interactive["calls"]]
    assert all(c["batch"] is True for c in batch["calls"])
    assert Decimal(batch["cost"]["total"]) * 2 == Decimal(interactive["cost"]["total"])


def test_retrieve_prints_one_contract_line_per_question(
        deal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "q1", "question": "What law governs?"}\n\n'
                         '{"id": "q2", "question": "What are the late payment terms?"}\n',
                         encoding="utf-8")
    assert main(["retrieve", "--docs", str(deal), "--no-cache", "-q", "--mode", "navindex",
                 "--questions", str(questions)]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2"]
    payloads = sorted(line["payload_tokens"] for line in lines)
    assert (f"payload tokens over 2 questions: mean {sum(payloads) / 2:,.0f}, "
            f"p95 {payloads[1]:,}, max {payloads[1]:,}") in captured.err
    for line in lines:
        assert {"id", "question", "mode", "provisions", "payload_tokens", "scan_tokens"} <= set(line)
        assert line["mode"] == "navindex" and line["scan_tokens"] > 0
        for provision in line["provisions"]:
            assert set(provision) == {"doc_id", "node_id", "clause", "start", "end", "text",
                                      "path"}
            source = (deal / f"{provision['doc_id']}.txt").read_text(encoding="utf-8")
            assert source[provision["start"]:provision["end"]] == provision["text"]
    assert main(["retrieve", "--docs", str(deal), "--no-cache", "-q"]) == 2
    assert "either a question or --questions" in capsys.readouterr().err


def test_retrieve_reads_a_folder_of_question_files_too(
        deal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "questions"
    folder.mkdir()
    for identifier, question in (("late", "What interest applies to late payments?"),
                                 ("law", "What law governs?")):
        (folder / f"{identifier}.yaml").write_text(
            f"id: {identifier}\nquestion: {question}\nreference: x\nkind: lookup\n"
            f"documents: [msa]\nevidence: [{{doc_id: msa, quote: Late amounts bear interest}}]\n"
            f"must_contain: [1%]\ndifficulty: easy\n"
            f"practice_area: commercial\n", encoding="utf-8")
    assert main(["retrieve", "--docs", str(deal), "--no-cache", "-q", "--questions",
                 str(folder)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["id"], line["question"]) for line in lines] == [
        ("late", "What interest applies to late payments?"), ("law", "What law governs?")]
    (folder / "late.yaml").write_text("id: late\n", encoding="utf-8")
    assert main(["retrieve", "--docs", str(deal), "--no-cache", "-q", "--questions",
                 str(folder)]) == 2
    assert "late.yaml" in capsys.readouterr().err


def test_stats_reports_the_caching_crossover(deal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _stats(capsys, "--docs", str(deal), "--no-cache")
    crossover = report["crossover"]
    assert isinstance(crossover, dict)
    # Default card: input costs ten cache reads, so the payload ceiling is a tenth of the corpus.
    assert crossover["navigate_payload_ceiling"] == crossover["corpus_tokens"] / 10
    assert crossover["index_tokens"] == report["total"]["index_tokens_optimised"]  # type: ignore[index]
    assert "5-minute cache TTL" in str(crossover["summary"])


def test_ask_with_a_key_goes_to_the_configured_messages_server(
        deal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.fake_messages import FakeMessages, text_reply, usage

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    reply = text_reply("Client pays $1,000 per month. [msa] 2.1", model="claude-sonnet-4-6",
                       usage_block=usage(12, 9, cache_write=300, cache_read=0))
    with FakeMessages(reply) as server:
        assert main(["ask", "--docs", str(deal), "--no-cache", "-q", "--json",
                     "--base-url", server.base_url, "How much does the Client pay?"]) == 0
        sent, = server.requests
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "anthropic" and report["answer"].startswith("Client pays")
    assert report["total"] == {"input_tokens": 12, "cache_creation_input_tokens": 300,
                               "cache_read_input_tokens": 0, "output_tokens": 9}
    # The corpus travels as the cached system block, the question in the user turn.
    system = sent.body["system"]  # type: ignore[index]
    assert system[1]["cache_control"] == {"type": "ephemeral"}
    assert system[1]["text"].startswith("<documents>")
    assert "How much does the Client pay?" in sent.body["messages"][0]["content"]  # type: ignore[index]
    assert sent.headers["authorization"] == "Bearer sk-test-not-real"


def test_bad_query_options_are_usage_errors(deal: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["retrieve", "--docs", str(deal), "--no-cache", "-q", "--context-window", "0",
                 "Q?"]) == 2
    assert "--context-window='0': expected a whole number of at least 1" in capsys.readouterr().err
    card = tmp_path / "card.json"
    card.write_text("{}", encoding="utf-8")
    assert main(["ask", "--docs", str(deal), "--no-cache", "-q", "--price-card", str(card),
                 "Q?"]) == 2
    assert "card.json" in capsys.readouterr().err


def test_backend_and_retrieval_settings_name_the_flag_or_the_variable(
        deal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    question = ["retrieve", "--docs", str(deal), "--no-cache", "-q", "Q?"]
    assert main([*question[:-1], "--backend", "openai", "Q?"]) == 2
    assert "--backend='openai' is not a backend; choose from reference, anthropic" in \
        capsys.readouterr().err
    monkeypatch.setenv("LEGALBENCH_SERVER_KIND", "ollama")
    assert main(question) == 2
    assert "LEGALBENCH_SERVER_KIND='ollama' is not a server kind" in capsys.readouterr().err
    assert main([*question[:-1], "--server-kind", "vllm", "--backend", "anthropic",
                 "--payload-budget", "abc", "Q?"]) == 2
    assert "--payload-budget='abc': expected a whole number" in capsys.readouterr().err
    monkeypatch.setenv("LEGALBENCH_PAYLOAD_BUDGET", "abc")
    assert main([*question[:-1], "--server-kind", "vllm", "Q?"]) == 2
    assert "LEGALBENCH_PAYLOAD_BUDGET='abc': expected a whole number" in capsys.readouterr().err


def test_the_call_timeout_comes_from_the_flag_or_the_variable_and_reaches_the_client(
        deal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEGALBENCH_TIMEOUT", raising=False)
    assert call_timeout(build_parser().parse_args(["ask", "Q?"])) is None
    assert call_timeout(build_parser().parse_args(["ask", "--timeout", "600", "Q?"])) == 600.0
    monkeypatch.setenv("LEGALBENCH_TIMEOUT", "45")
    assert call_timeout(build_parser().parse_args(["retrieve", "Q?"])) == 45.0
    assert main(["ask", "--docs", str(deal), "--no-cache", "-q", "--timeout", "-3", "Q?"]) == 2
    assert "--timeout='-3': expected a positive number of seconds" in capsys.readouterr().err
    documents = (Document("lease", "Lease", "1. RENT\n\nThe rent is 900 euros.\n"),)
    with query_session(documents, (), mode="inject", backend="reference", base_url=None,
                       settings=ModeSettings(), timeout_s=9.0) as session:
        assert session.config.timeout_s == session.client.config.timeout_s == 9.0


def test_the_scans_follow_the_answering_model_of_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEGALBENCH_ANSWER_MODEL", raising=False)
    asked = build_parser().parse_args(["ask", "--model", "my-model", "Q?"])
    settings = mode_settings(asked)
    assert answer_model(asked) == settings.scan_model == settings.titles_model == "my-model"
    monkeypatch.setenv("LEGALBENCH_ANSWER_MODEL", "env-model")
    retrieved = build_parser().parse_args(["retrieve", "Q?"])
    assert mode_settings(retrieved).scan_model == "env-model"
    assert mode_settings(asked).scan_model == "my-model"  # the flag wins


def test_payload_summary_reports_mean_p95_and_max() -> None:
    from pytest_legalbench.commands.query_output import payload_summary

    assert payload_summary([100, 300, 200]) == (
        "payload tokens over 3 questions: mean 200, p95 300, max 300")
    assert payload_summary(list(range(1, 21))) == (
        "payload tokens over 20 questions: mean 10, p95 19, max 20")
    assert payload_summary([]) == "payload tokens: no questions"


def test_ask_names_a_llama_cpp_server_and_the_counts_it_did_not_report(
        deal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.fake_messages import FakeMessages, Reply, text_reply

    monkeypatch.setenv("ANTHROPIC_API_KEY", "local")
    models = {"data": [{"id": "SmolLM2-135M-Instruct.Q4_1.gguf", "owned_by": "llamacpp"}]}
    props = {"chat_template_caps": {"supports_tools": False}}
    reply = text_reply("Client pays $1,200 per month.", model="SmolLM2-135M-Instruct.Q4_1.gguf",
                       usage_block={"cache_read_input_tokens": 0, "input_tokens": 41,
                                    "output_tokens": 9})
    gets = {"/v1/models": Reply(body=models), "/props": Reply(body=props)}
    with FakeMessages(reply, reply, gets=gets) as server:
        host = server.base_url.removeprefix("http://")
        args = ["ask", "--docs", str(deal), "--no-cache", "-q", "--base-url", server.base_url,
                "How much does the Client pay?"]
        assert main(args) == 0
        text = capsys.readouterr().out
        assert main([*args[:-1], "--json", args[-1]]) == 0
        report = json.loads(capsys.readouterr().out)
        sent = server.requests[0].body
    assert f"backend: messages-api at {host} (llama.cpp server (a chat template without tool " \
           f"use), identified by GET /v1/models (llama.cpp) and GET /props (supports_tools " \
           f"False); capability rules: " in text
    assert "n/r: not reported by this server" in text
    assert report["server"] == {"label": f"messages-api at {host}", "kind": "llama.cpp-no-tools",
                                "how": "GET /v1/models (llama.cpp) and GET /props "
                                       "(supports_tools False)",
                                "model": "SmolLM2-135M-Instruct.Q4_1.gguf"}
    assert report["calls"][0]["unreported"] == ["cache_creation_input_tokens"]
    assert isinstance(sent, dict) and isinstance(sent["system"], str)  # blocks joined


OWN_CONFTEST = '''
from pytest_legalbench import Passage


class Fees:
    def __init__(self, corpus):
        self.doc = corpus.document("msa")

    def retrieve(self, question):
        return [Passage(doc_id=self.doc.doc_id, text="Late amounts bear interest at 1% per month.")]


def pytest_legalbench_modes():
    return {"fees": Fees}
'''


def test_a_conftest_names_a_retriever_of_your_own_for_the_command(
        deal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conftest = tmp_path / "conftest.py"
    conftest.write_text(OWN_CONFTEST, encoding="utf-8")
    assert main(["retrieve", "--docs", str(deal), "--no-cache", "-q", "--conftest",
                 str(conftest), "--mode", "fees", "What interest applies to late payments?"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["mode"] == "fees"
    provision, = line["provisions"]
    source = (deal / "msa.txt").read_text(encoding="utf-8")
    # Located in its document, and cited by the clause that holds it.
    assert source[provision["start"]:provision["end"]] == provision["text"]
    assert provision["clause"] == "2.2"
    # Without the conftest the name is unknown; a file with no hook is named.
    assert main(["retrieve", "--docs", str(deal), "--no-cache", "-q", "--mode", "fees",
                 "Q?"]) == 2
    assert "unknown mode 'fees'" in capsys.readouterr().err
    (tmp_path / "empty.py").write_text("", encoding="utf-8")
    assert main(["retrieve", "--docs", str(deal), "--no-cache", "-q", "--conftest",
                 str(tmp_path / "empty.py"), "--mode", "fees", "Q?"]) == 2
    assert f"--conftest {tmp_path / 'empty.py'}: defines no pytest_legalbench_modes() hook" in (
        capsys.readouterr().err)
