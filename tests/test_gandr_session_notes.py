"""What the end of a session says about how GANDR records were produced."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gandr_samples import record, repeat

from pytest_legalbench.plugin.settings import Settings
from pytest_legalbench.run.session_end import finish_session


def _raw(backend: str) -> list[dict[str, object]]:
    item = record("q1", "gandr", [repeat(0, 5, True, passed=True)])
    calls = tuple(dataclasses.replace(c, backend=backend) for c in item.repeats[0].calls)
    item = dataclasses.replace(item, repeats=(dataclasses.replace(item.repeats[0],
                                                                  calls=calls),))
    return [item.to_dict()]


def test_the_reference_backend_says_it_played_every_role(tmp_path: Path) -> None:
    lines = finish_session([], Settings("transactions", None, tmp_path), _raw("reference"))
    assert "legalbench GANDR summary" in lines
    assert any("played by deterministic rules, not a language model" in line for line in lines)


def test_claude_runs_say_no_sampling_fields_were_sent(tmp_path: Path) -> None:
    lines = finish_session([], Settings("transactions", None, tmp_path), _raw("anthropic"))
    assert any("neither was sent" in line for line in lines)
    vllm = Settings("transactions", None, tmp_path, base_url="http://localhost:8000")
    lines = finish_session([], vllm, _raw("anthropic"))
    assert any("sent in the request body to http://localhost:8000" in line for line in lines)


def test_a_report_folder_gets_the_results_and_traces(tmp_path: Path) -> None:
    settings = Settings("transactions", None, tmp_path, report_dir=tmp_path / "out")
    lines = finish_session([], settings, _raw("reference"))
    assert any(line.startswith("GANDR report:") and "1 trace files" in line for line in lines)
    assert (tmp_path / "out" / "gandr-results.json").is_file()
