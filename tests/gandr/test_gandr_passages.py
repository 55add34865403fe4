"""GANDR's node passages and their BM25 search, on the sample lease and its amendment."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.gandr.passages import PassageIndex, context_block, node_passages
from pytest_legalbench.vectors.lexical_index import tokenise
from tests.support.modes_samples import LEASE, lease_corpus


def test_short_documents_are_one_passage_each_and_ids_are_node_ids() -> None:
    corpus = lease_corpus()
    passages = node_passages(corpus.indexes)
    assert [p.passage_id for p in passages] == [i.root.node_id for i in corpus.indexes]
    assert passages[0].doc_id == LEASE


def test_long_nodes_are_cut_along_their_structure_without_losing_words() -> None:
    corpus = lease_corpus()
    lease = corpus.indexes[0]
    passages = node_passages([lease], max_chars=200)
    assert len(passages) > 5
    assert all(p.passage_id in lease.by_id() for p in passages)
    # Every word of the text outside the contents list lands in some passage.
    found = {word for p in passages for word in tokenise(p.text)}
    assert {"gantry", "delaware", "42", "500", "flood", "sixty"} <= found
    assert "contents" not in {p.clause.lower() for p in passages}


def test_the_top_passages_answer_the_question_and_ties_keep_document_order() -> None:
    index = PassageIndex(node_passages(lease_corpus().indexes, max_chars=200))
    top = index.top("By the laws of which State is it governed?", 3)
    assert "Delaware" in top[0].text
    assert len(index.top("zzz unknown words", 4)) == 4
    assert index.top("zzz unknown words", 4) == index.passages[:4]


def test_context_block_escapes_ids_and_keeps_text() -> None:
    from pytest_legalbench.gandr.passages import Passage

    passages = node_passages(lease_corpus().indexes, max_chars=200)[:2]
    block = context_block(passages)
    assert block.count("<passage id=") == 2 and passages[1].text in block
    odd = context_block([Passage('a"b:1&2', "a", 'say "x"', "Text <kept>.")])
    assert odd == ('<passage id="a&quot;b:1&amp;2" clause="say &quot;x&quot;">\n'
                   "Text <kept>.\n</passage>")


def test_max_chars_is_checked() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        node_passages([], max_chars=0)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=40, max_value=3000))
def test_no_passage_repeats_a_node(max_chars: int) -> None:
    passages = node_passages(lease_corpus().indexes, max_chars=max_chars)
    ids = [p.passage_id for p in passages]
    assert len(ids) == len(set(ids)) and all(p.text.strip() for p in passages)


def test_signature_blocks_are_left_out() -> None:
    from pytest_legalbench.navindex.build import build_corpus
    from tests.support.modes_samples import LEASE_TEXT, document

    signed = LEASE_TEXT + ("\nIN WITNESS WHEREOF, the parties have signed this Lease.\n\n"
                           "HARBOUR CRANES PLC\nBy: ____________\nName: A. Lessor\n")
    (index,) = build_corpus((document("signed", signed, "Signed Lease"),))
    signatures = [n.node_id for n in index.nodes if n.kind == "signature"]
    assert signatures, "the parser no longer marks signature blocks"
    ids = {p.passage_id for p in node_passages([index], max_chars=200)}
    assert not ids & set(signatures)
    assert not any("WITNESS" in p.text for p in node_passages([index], max_chars=200))
