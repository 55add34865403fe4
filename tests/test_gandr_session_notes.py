"""What the end of a session says about how GANDR records were produced."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gandr_samples import record, repeat

from pytest_legalbench.run.session_end import SessionEnd, finish_session


def _raw(backend: str) -> list[dict[str, object]]:
    item = record("q1", "gandr", [repeat(0, 5, True, passed=True)])
    calls = tuple(dataclasses.replace(c, backend=backend) for c in item.repeats[0].calls)
    item = dataclasses.replace(item, repeats=(dataclasses.replace(item.repeats[0],
                                                                  calls=calls),))
    return [{"product": "gandr", "record": item.to_dict()}]


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
