"""``mcp:NAME`` over this package's own MCP server (``legalbench mcp``): the index tools that
navagent calls in process, reached through the MCP SDK, with the reference backend playing
navagent's rule over them (the tool names are navagent's)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from pytest_legalbench.ingest.loading import load_folder
from pytest_legalbench.modes.base import Corpus, ModeSettings
from pytest_legalbench.modes.mcp_mode import build
from pytest_legalbench.modes.mcp_servers import parse_server
from pytest_legalbench.navindex.build import build_corpus
from tests.support.lease_project import LEASE
from tests.support.modes_samples import reference_client


@pytest.mark.slow
def test_the_package_s_own_server_is_navigated_through_mcp(tmp_path: Path) -> None:
    folder = tmp_path / "lease"
    folder.mkdir()
    (folder / "lease.txt").write_text(LEASE, encoding="utf-8")
    documents = tuple(load_folder(folder))
    corpus = Corpus(documents, build_corpus(documents), None)
    legalbench = Path(sys.executable).with_name("legalbench")
    command = shlex.join([str(legalbench), "mcp", "--docs", str(folder), "--cache-dir",
                          str(tmp_path / "cache"), "-q"])
    with reference_client() as client:
        mode = build("mcp:ours", parse_server(f"ours={command}", "test"), corpus,
                     ModeSettings(), client, timeout_s=300)
        try:
            retrieval = mode.answer("How much rent is due each month?",
                                    model="claude-sonnet-4-5").retrieval
        finally:
            mode.connection.close()
    assert "(stdio, 7 tools)" in retrieval.notes[0]
    tools = [event.name for call in retrieval.calls for event in call.tool_results]
    assert tools[0] == "search" and "read_provision" in tools
    rent = LEASE.index("2.1 The Lessee")
    doc_id = documents[0].doc_id
    assert any(p.doc_id == doc_id and p.start <= rent < p.end and not p.unlocated
               for p in retrieval.provisions)
