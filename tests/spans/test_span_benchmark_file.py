"""Tests of the LegalBench-RAG span benchmark format: validation, reading, writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.spans.benchmark_file import (
    BenchmarkFormatError,
    Snippet,
    SpanBenchmark,
    SpanTest,
    benchmark_to_json,
    parse_benchmark,
    read_benchmark,
)

VALID = {
    "tests": [
        {"query": "Who may terminate?", "snippets": [{"file_path": "a.txt", "span": [3, 9]}]},
        {
            "query": "What law governs?",
            "snippets": [{"file_path": "a.txt", "span": [0, 0]},
                         {"file_path": "b/c.txt", "span": [10, 42], "answer": "ignored"}],
            "tags": ["Governing Law"],
            "source": "an extra key that is ignored",
        },
    ]
}


def with_first_test(**changes: object) -> dict[str, object]:
    test = {"query": "q", "snippets": [{"file_path": "a.txt", "span": [1, 2]}], **changes}
    return {"tests": [{"query": "fine", "snippets": [{"file_path": "x", "span": [0, 1]}]}, test]}


def with_first_snippet(**changes: object) -> dict[str, object]:
    return with_first_test(snippets=[{"file_path": "a.txt", "span": [1, 2], **changes}])


def test_parse_reads_tests_snippets_and_tags_and_ignores_extra_keys() -> None:
    benchmark = parse_benchmark(VALID, "bench.json")
    assert benchmark == SpanBenchmark((
        SpanTest("Who may terminate?", (Snippet("a.txt", 3, 9),)),
        SpanTest("What law governs?", (Snippet("a.txt", 0, 0), Snippet("b/c.txt", 10, 42)),
                 ("Governing Law",)),
    ))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], 'bench.json: expected an object with a "tests" list'),
        ({"tests": {}}, 'bench.json: expected an object with a "tests" list'),
        ({"tests": [{"query": "q", "snippets": []}, "x"]},
         "bench.json: tests[0].snippets: expected a non-empty list"),
        ({"tests": ["x"]}, "bench.json: tests[0]: expected an object, got str"),
        (with_first_test(query=""), "bench.json: tests[1].query: expected a non-empty string"),
        (with_first_test(query=7), "bench.json: tests[1].query: expected a non-empty string"),
        (with_first_test(snippets=None), "bench.json: tests[1].snippets: expected a non-empty list"),
        (with_first_test(tags="Law"), "bench.json: tests[1].tags: expected a list of strings"),
        (with_first_test(snippets=[None]),
         "bench.json: tests[1].snippets[0]: expected an object, got null"),
        (with_first_snippet(file_path=""),
         "bench.json: tests[1].snippets[0].file_path: expected a non-empty string"),
        (with_first_snippet(span=[5, 3]),
         "bench.json: tests[1].snippets[0].span: expected [start, end] with 0 <= start <= end"),
        (with_first_snippet(span=[-1, 3]), "tests[1].snippets[0].span: expected [start, end]"),
        (with_first_snippet(span=[1, 2, 3]), "tests[1].snippets[0].span: expected [start, end]"),
        (with_first_snippet(span=[1.0, 2]), "tests[1].snippets[0].span: expected [start, end]"),
        (with_first_snippet(span=[False, True]), "tests[1].snippets[0].span: expected [start, end]"),
        (with_first_snippet(span=None), "tests[1].snippets[0].span: expected [start, end]"),
    ],
)
def test_parse_errors_name_the_source_the_test_and_the_field(data: object, message: str) -> None:
    with pytest.raises(BenchmarkFormatError) as caught:
        parse_benchmark(data, "bench.json")
    assert message in str(caught.value)


def test_error_message_shows_a_long_bad_value_shortened() -> None:
    with pytest.raises(BenchmarkFormatError) as caught:
        parse_benchmark(with_first_snippet(span=list(range(1000))), "b.json")
    assert "got [0, 1, 2" in str(caught.value)
    assert len(str(caught.value)) < 200


def test_snippet_rejects_an_inverted_span() -> None:
    with pytest.raises(ValueError, match=r"doc\.txt: span \[5, 3\]"):
        Snippet("doc.txt", 5, 3)


def test_json_omits_empty_tags_and_keeps_given_ones() -> None:
    benchmark = SpanBenchmark((SpanTest("q1", (Snippet("a", 0, 4),)),
                               SpanTest("q2", (Snippet("b", 1, 2),), ("Audit Rights",))))
    data = json.loads(benchmark_to_json(benchmark))
    assert data == {"tests": [
        {"query": "q1", "snippets": [{"file_path": "a", "span": [0, 4]}]},
        {"query": "q2", "snippets": [{"file_path": "b", "span": [1, 2]}], "tags": ["Audit Rights"]},
    ]}


spans = st.tuples(st.integers(0, 10**7), st.integers(0, 10**4)).map(lambda p: (p[0], p[0] + p[1]))
snippets = st.builds(lambda path, span: Snippet(path, *span),
                     st.text(min_size=1).filter(str.strip), spans)
tests = st.builds(SpanTest, st.text(min_size=1).filter(str.strip),
                  st.lists(snippets, min_size=1, max_size=4).map(tuple),
                  st.lists(st.text(), max_size=3).map(tuple))
benchmarks = st.lists(tests, max_size=5).map(lambda t: SpanBenchmark(tuple(t)))


@given(benchmarks)
def test_json_round_trips_and_is_deterministic(benchmark: SpanBenchmark) -> None:
    text = benchmark_to_json(benchmark)
    assert parse_benchmark(json.loads(text), "generated") == benchmark
    assert benchmark_to_json(parse_benchmark(json.loads(text), "generated")) == text


def test_read_benchmark_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(VALID), encoding="utf-8")
    assert read_benchmark(path) == parse_benchmark(VALID, "x")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"tests": [', "not valid JSON (line 1, column 12"),
        (b'{"tests": "\xff"}', "not UTF-8 (bad byte at offset 11)"),
        (b'{"tests": [{"query": "q", "snippets": [{"file_path": "a", "span": [2]}]}]}',
         "tests[0].snippets[0].span: expected [start, end]"),
    ],
)
def test_read_benchmark_errors_name_the_file(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(BenchmarkFormatError) as caught:
        read_benchmark(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_read_benchmark_reports_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkFormatError, match="missing.json: benchmark file not found"):
        read_benchmark(tmp_path / "missing.json")
