"""The readable and the token-optimised JSON forms of a navindex dict."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.json_forms import (
    LONG_KEYS,
    SHORT_KEYS,
    expand_optimised,
    optimised_json,
    readable_json,
)
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.schema import DEFAULT_RUNG, RUNGS, IndexFormatError, Rung
from pytest_legalbench.navindex.serialise import index_document, index_tokens
from tests.support.index_samples import document_indexes, realistic_agreement, small_agreement


def test_optimised_key_map_is_two_letter_and_collision_free() -> None:
    assert all(len(short) == 2 for short in SHORT_KEYS.values())
    assert len(set(SHORT_KEYS.values())) == len(SHORT_KEYS)
    assert {LONG_KEYS[short] for short in SHORT_KEYS.values()} == set(SHORT_KEYS)


def test_optimised_form_leaves_out_empties_and_keeps_zero() -> None:
    index = small_agreement()
    empty_root = replace(index.root, start=0, end=0, text="")
    surface = index_document(replace(index, nodes=(empty_root, *index.nodes[1:])), "D4")
    compact = json.loads(optimised_json(surface))
    root = compact["ix"]
    assert root["tl"] == 0 and "sn" not in root and "cr" not in root and "mo" not in root
    assert "xr" not in root and "su" not in root
    fee = root["ch"][1]["ch"][0]
    assert fee["mo"] is True and fee["xr"] == ["root.1.1"] and fee["cr"] == "2.1"
    assert "df" not in fee and "tc" not in fee


@settings(max_examples=60, deadline=None)
@given(document_indexes(), st.sampled_from(RUNGS))
def test_optimised_round_trip_loses_nothing(index: DocumentIndex, rung: Rung) -> None:
    surface = index_document(index, rung, full_summary=lambda node: node.summary[::-1])
    compact = optimised_json(surface)
    assert expand_optimised(compact) == surface
    assert readable_json(expand_optimised(compact)) == readable_json(surface)
    # No whitespace outside strings: re-dumping the parsed value compactly changes nothing.
    assert json.dumps(json.loads(compact), ensure_ascii=False, separators=(",", ":")) == compact


def test_expand_rejects_foreign_input() -> None:
    with pytest.raises(IndexFormatError, match="not valid JSON"):
        expand_optimised("{")
    with pytest.raises(IndexFormatError, match="rung"):
        expand_optimised('{"fv":1}')
    with pytest.raises(IndexFormatError, match=r"\['zz'\]"):
        expand_optimised('{"fv":1,"rg":"D1","zz":1,"ix":{"tl":1}}')
    with pytest.raises(IndexFormatError, match="documentIndex"):
        expand_optimised('{"fv":1,"rg":"D1"}')


def test_optimised_is_at_least_a_quarter_smaller_on_a_realistic_index() -> None:
    index = realistic_agreement()
    surface = index_document(index, DEFAULT_RUNG)
    readable, compact = readable_json(surface), optimised_json(surface)
    ratio = len(compact) / len(readable)
    print(f"optimised/readable characters at {DEFAULT_RUNG}: {ratio:.3f} "
          f"({len(compact)} / {len(readable)}, {len(index.nodes)} nodes)")
    assert ratio <= 0.75
    tokens = index_tokens(index, DEFAULT_RUNG)
    assert tokens == (-(-len(readable) // 4), -(-len(compact) // 4))
