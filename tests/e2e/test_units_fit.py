"""Every retrieval unit of every document of the three corpora fits the unit cap, and the units
reach all of each document's text but its contents and signature blocks (the transactions
profile, the 510 CUAD contracts, the 95 EDGAR exhibits of edgar2023)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_legalbench.defaults import MAX_UNIT_TOKENS
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.unit_parts import part_of
from pytest_legalbench.modes.units import retrieval_nodes, unit_nodes
from pytest_legalbench.navindex.parallel_build import build_parallel
from pytest_legalbench.tokens import estimate_tokens

_BLANK = re.compile(r"\s")


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["transactions", "cuad", "edgar2023"])
def test_no_unit_over_the_cap_and_all_text_reached(corpus: str, corpus_root: Path,
                                                    tmp_path: Path) -> None:
    selection = (Selection(None, corpus_root / "edgar2023") if corpus == "edgar2023"
                 else Selection(corpus))
    documents = load_documents(selection, corpus_dir=corpus_root, cache_dir=tmp_path)
    assert len(documents) == {"transactions": 10, "cuad": 510, "edgar2023": 95}[corpus]
    parts = 0
    for document, index in zip(documents, build_parallel(documents), strict=True):
        units = unit_nodes(index)
        assert units, document.doc_id
        for unit in units:
            assert estimate_tokens(unit.text) <= MAX_UNIT_TOKENS, unit.node_id
            assert unit.text == document.text[unit.start:unit.end], unit.node_id
        by_id = {n.node_id: n for n in retrieval_nodes(index)}
        for unit in units:
            lineage = part_of(unit.node_id)
            if lineage is not None:
                parts += 1
                leaf = by_id[lineage[0]]
                assert leaf.start <= unit.start and unit.end <= leaf.end
                assert unit.clause_reference == leaf.clause_reference
        # Every visible character lies in a unit, a contents listing or a signature block.
        held = bytearray(len(document.text))
        kept = [*units, *(n for n in index.nodes
                          if n.kind in ("toc", "toc_entry", "signature") or n.flags.is_toc_entry)]
        for node in kept:
            held[node.start:node.end] = b"\x01" * (node.end - node.start)
        missed = [i for i, c in enumerate(document.text) if not held[i] and not _BLANK.match(c)]
        assert not missed, (document.doc_id, document.text[missed[0]:missed[0] + 80])
    # The corpora do hold leaves over the cap: the parts are what keeps the units in bounds.
    assert parts > 0 or corpus == "transactions"
