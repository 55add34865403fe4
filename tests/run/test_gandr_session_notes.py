"""What the end of a session says about how GANDR records were produced."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.run.session_end import SessionEnd, finish_session
from tests.support.gandr_samples import record, repeat


def _raw(backend: str) -> list[dict[str, object]]:
    item = record("q1", "gandr", [repeat(0, 5, True, passed=True)])
    calls = tuple(dataclasses.replace(c, backend=backend) for c in item.repeats[0].calls)
    item = dataclasses.replace(item, repeats=(dataclasses.replace(item.repeats[0],
                                                                  calls=calls),))
    return [{"product": "gandr", "record": to_builtins(item)}]


def test_the_reference_backend_says_it_played_every_role() -> None:
    lines = finish_session(_raw("reference"), SessionEnd())
    assert "legalbench GANDR summary" in lines
    assert any("played by deterministic rules, not a language model" in line for line in lines)


def test_claude_runs_say_no_sampling_fields_were_sent() -> None:
    lines = finish_session(_raw("anthropic"), SessionEnd())
    assert any("neither was sent" in line for line in lines)
    vllm = SessionEnd(base_url="http://localhost:8000")
    lines = finish_session(_raw("anthropic"), vllm)
    assert any("sent in the request body to http://localhost:8000" in line for line in lines)


def test_a_report_folder_gets_the_results_and_traces(tmp_path: Path) -> None:
    lines = finish_session(_raw("reference"), SessionEnd(report_dir=tmp_path / "out"))
    assert any(line.startswith("GANDR report:") and "1 trace files" in line for line in lines)
    assert (tmp_path / "out" / "gandr-results.json").is_file()


def test_records_of_an_unknown_product_or_shape_are_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="unknown products: spelling"):
        finish_session([{"product": "spelling", "record": {}}], SessionEnd())
    with pytest.raises(ValueError, match="not a record envelope"):
        finish_session([{"question_id": "q1"}], SessionEnd())


def test_the_sampling_note_names_what_was_sent_and_to_whom() -> None:
    from pytest_legalbench.run.session_end import _sampling_note

    url = "http://127.0.0.1:8080"
    assert _sampling_note(url, set()) == (
        "(temperatures and seeds were sent in the request body to http://127.0.0.1:8080)")
    assert _sampling_note(url, {"vllm", "generic"}) == (
        "(temperatures and seeds were sent in the request body to http://127.0.0.1:8080)")
    # llama.cpp's /v1/messages reads no seed: the client drops it, and the note says so.
    assert _sampling_note(url, {"llama.cpp-no-tools"}) == (
        "(temperatures were sent in the request body to http://127.0.0.1:8080; seeds were "
        "not: the llama.cpp server (a chat template without tool use) reads none from "
        "/v1/messages, so its own --seed applies to every call)")
    assert _sampling_note(url, {"llama.cpp", "vllm"}).startswith(
        "(temperatures were sent in the request body to http://127.0.0.1:8080; seeds were "
        "not: the llama.cpp server reads none")
    assert _sampling_note(None, {"llama.cpp"}).startswith("(Claude's API takes no temperature")


def test_a_seedless_server_in_the_records_changes_the_session_note() -> None:
    item = record("q1", "gandr", [repeat(0, 5, True, passed=True)])
    calls = tuple(dataclasses.replace(c, backend="messages-api at 127.0.0.1:8080",
                                      server="llama.cpp-no-tools")
                  for c in item.repeats[0].calls)
    item = dataclasses.replace(item, repeats=(dataclasses.replace(item.repeats[0],
                                                                  calls=calls),))
    lines = finish_session([{"product": "gandr", "record": to_builtins(item)}],
                           SessionEnd(base_url="http://127.0.0.1:8080"))
    note, = (line for line in lines if line.startswith("(temperatures"))
    assert "seeds were not: the llama.cpp server (a chat template without tool use)" in note
