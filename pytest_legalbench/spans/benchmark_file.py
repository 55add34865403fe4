"""The LegalBench-RAG span benchmark format: records, validation, reading and writing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


class BenchmarkFormatError(ValueError):
    """A benchmark file that breaks the format; the message names the file, test and field."""


@dataclass(frozen=True)
class Snippet:
    """A character span ``[start, end)`` of one document's text, named by its corpus path."""

    file_path: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(
                f"{self.file_path}: span [{self.start}, {self.end}] needs 0 <= start <= end"
            )

    @property
    def length(self) -> int:
        """Number of characters the span covers."""
        return self.end - self.start


@dataclass(frozen=True)
class SpanTest:
    """One query and the gold snippets that answer it."""

    query: str
    snippets: tuple[Snippet, ...]
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class SpanBenchmark:
    """An ordered collection of span tests."""

    tests: tuple[SpanTest, ...]


def read_benchmark(path: Path) -> SpanBenchmark:
    """Read and validate a LegalBench-RAG benchmark JSON file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BenchmarkFormatError(f"{path}: benchmark file not found") from None
    except OSError as exc:
        raise BenchmarkFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BenchmarkFormatError(f"{path}: not UTF-8 (bad byte at offset {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchmarkFormatError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    return parse_benchmark(data, str(path))


def parse_benchmark(data: object, source: str) -> SpanBenchmark:
    """Validate decoded JSON as a benchmark; ``source`` names the input in error messages."""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise BenchmarkFormatError(f'{source}: expected an object with a "tests" list')
    return SpanBenchmark(
        tuple(_parse_test(item, f"{source}: tests[{i}]") for i, item in enumerate(data["tests"]))
    )


def benchmark_to_json(benchmark: SpanBenchmark) -> str:
    """Serialise a benchmark as deterministic JSON that parse_benchmark reads back unchanged."""
    tests: list[dict[str, object]] = []
    for test in benchmark.tests:
        entry: dict[str, object] = {
            "query": test.query,
            "snippets": [{"file_path": s.file_path, "span": [s.start, s.end]}
                         for s in test.snippets],
        }
        # Tags are our extension; files without them stay plain LegalBench-RAG.
        if test.tags:
            entry["tags"] = list(test.tags)
        tests.append(entry)
    return json.dumps({"tests": tests}, indent=2, ensure_ascii=False) + "\n"


def _parse_test(item: object, where: str) -> SpanTest:
    if not isinstance(item, dict):
        raise BenchmarkFormatError(f"{where}: expected an object, got {_kind(item)}")
    query = item.get("query")
    if not isinstance(query, str) or not query.strip():
        raise BenchmarkFormatError(f"{where}.query: expected a non-empty string")
    snippets = item.get("snippets")
    if not isinstance(snippets, list) or not snippets:
        raise BenchmarkFormatError(f"{where}.snippets: expected a non-empty list")
    tags = item.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise BenchmarkFormatError(f"{where}.tags: expected a list of strings")
    return SpanTest(
        query=query,
        snippets=tuple(_parse_snippet(s, f"{where}.snippets[{j}]") for j, s in enumerate(snippets)),
        tags=tuple(tags),
    )


def _parse_snippet(item: object, where: str) -> Snippet:
    if not isinstance(item, dict):
        raise BenchmarkFormatError(f"{where}: expected an object, got {_kind(item)}")
    file_path = item.get("file_path")
    if not isinstance(file_path, str) or not file_path.strip():
        raise BenchmarkFormatError(f"{where}.file_path: expected a non-empty string")
    span = item.get("span")
    # bool is an int subclass in Python; true/false are not offsets.
    if not (
        isinstance(span, list)
        and len(span) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in span)
        and 0 <= span[0] <= span[1]
    ):
        raise BenchmarkFormatError(
            f"{where}.span: expected [start, end] with 0 <= start <= end, got {_short(span)}"
        )
    return Snippet(file_path, span[0], span[1])


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _short(value: object) -> str:
    # Bad values can be arbitrarily large; the message only needs to identify them.
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
