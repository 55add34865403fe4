"""The typed layer of the record files: a dataclass's layout written and read back, the
markers for the forms pydantic does not write by itself, derived values, one-line errors and
versioned files."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import (
    FLOAT_FRACTION,
    OMIT_EMPTY,
    OMIT_NONE,
    PAIRS_AS_OBJECT,
    PLAIN_DECIMAL,
    KeyedBy,
    RecordError,
    Rounded,
    VersionedFile,
    derived,
    from_builtins,
    json_schema,
    renamed,
    to_builtins,
)


@derived(total="total")
@dataclass(frozen=True)
class Part:
    """A part of a sample record."""

    name: str
    count: int
    price: Annotated[Decimal, PLAIN_DECIMAL] = Decimal(0)
    note: str | None = field(default=None, metadata=OMIT_NONE)
    """Only written when there is one."""
    tags: tuple[str, ...] = field(default=(), metadata=OMIT_EMPTY)

    @property
    def total(self) -> Annotated[Decimal, PLAIN_DECIMAL]:
        """Count times price."""
        return self.count * self.price


@dataclass(frozen=True)
class Sample:
    """A sample record with every marker."""

    parts: Annotated[tuple[Part, ...], KeyedBy("name")]
    spares: Annotated[tuple[Part, ...], KeyedBy("name", keep=False)]
    ratio: Annotated[Fraction, FLOAT_FRACTION]
    share: Annotated[float, Rounded(2)] = field(metadata=renamed("share_rounded"))
    dropped: Annotated[tuple[tuple[str, int], ...], PAIRS_AS_OBJECT] = ()

    def __post_init__(self) -> None:
        if self.share < 0:
            raise ValueError("share must not be negative")


SAMPLE = Sample(parts=(Part("bolt", 3, Decimal("0.2500")), Part("nut", 0, note="spare")),
                spares=(Part("washer", 1, tags=("m4",)),), ratio=Fraction(1, 3),
                share=0.12345, dropped=(("invalid_ids", 2), ("toc_ids", 0)))


def test_a_record_is_written_in_its_layout() -> None:
    assert to_builtins(SAMPLE) == {
        "parts": {"bolt": {"name": "bolt", "count": 3, "price": "0.25", "total": "0.75"},
                  "nut": {"name": "nut", "count": 0, "price": "0", "note": "spare",
                          "total": "0"}},
        "spares": {"washer": {"count": 1, "price": "0", "tags": ["m4"], "total": "0"}},
        "ratio": 1 / 3, "share_rounded": 0.12, "dropped": {"invalid_ids": 2, "toc_ids": 0}}


def test_a_record_reads_back_from_its_json() -> None:
    read = from_builtins(Sample, json.loads(json.dumps(to_builtins(SAMPLE))))
    # Exact but for what the layout rounds: the share, and the ratio, now the float written.
    assert read == Sample(SAMPLE.parts, SAMPLE.spares, Fraction(1 / 3), 0.12, SAMPLE.dropped)
    assert to_builtins(read) == to_builtins(SAMPLE)


@given(st.lists(st.tuples(st.text(min_size=1, max_size=6), st.integers(0, 10**6),
                          st.decimals(min_value=0, max_value=10**4, places=6,
                                      allow_nan=False),
                          st.none() | st.text(max_size=5)),
                unique_by=lambda part: part[0], max_size=5),
       st.fractions(), st.floats(0, 10, allow_nan=False))
def test_any_record_survives_the_round_trip(parts: list[tuple[str, int, Decimal, str | None]],
                                            ratio: Fraction, share: float) -> None:
    sample = Sample(tuple(Part(*part) for part in parts), (), ratio, share)
    written = json.loads(json.dumps(to_builtins(sample)))
    read = from_builtins(Sample, written)
    assert read.parts == sample.parts
    assert read.ratio == Fraction(float(ratio)) and read.share == round(share, 2)
    assert json.loads(json.dumps(to_builtins(read))) == written


def test_plain_decimals_are_exact_fixed_point() -> None:
    written = [to_builtins(Part("p", 1, Decimal(text)))["price"]
               for text in ("0.000300", "3", "0E-8", "12.5000", "1E+2", "3E-7",
                            "123456789012345678901234567890.1234567890")]
    assert written == ["0.0003", "3", "0", "12.5", "100", "0.0000003",
                       "123456789012345678901234567890.123456789"]


def test_a_bad_record_is_one_line_naming_the_field() -> None:
    written = to_builtins(SAMPLE)
    with pytest.raises(RecordError, match=r"^Sample: parts\.0\.count: Input should be a valid "
                                          r"integer"):
        from_builtins(Sample, {**written, "parts": {"bolt": {"name": "bolt", "count": "x"}}})
    with pytest.raises(RecordError, match=r"^Sample: parts: the entry of name 'bolt' is filed "
                                          r"under 'screw'$"):
        from_builtins(Sample, {**written, "parts": {"screw": written["parts"]["bolt"]}})
    with pytest.raises(ValueError, match=r"^the sample: share must not be negative$"):
        from_builtins(Sample, {**written, "share_rounded": -1}, what="the sample",
                      error=ValueError)
    with pytest.raises(RecordError, match=r"^Sample: ratio: Field required \(and 1 more\)$"):
        from_builtins(Sample, {"parts": {}, "spares": {}})


def test_a_nan_stays_a_float_so_json_refuses_it() -> None:
    written = to_builtins(Sample((), (), Fraction(0), math.nan))
    assert math.isnan(written["share_rounded"])
    with pytest.raises(ValueError, match="Out of range float"):
        json.dumps(written, allow_nan=False)


def test_derived_names_only_properties() -> None:
    with pytest.raises(TypeError, match=r"Part\.name \(written as 'label'\) is not a property"):
        derived(label="name")(Part)


def test_the_schema_describes_what_is_written() -> None:
    schema = json_schema(Sample, title="sample")
    assert schema["title"] == "sample" and schema["description"] == (
        "A sample record with every marker.")
    assert schema["properties"]["parts"]["additionalProperties"] == {"$ref": "#/$defs/Part"}
    assert "name" not in schema["properties"]["spares"]["additionalProperties"]["properties"]
    assert schema["properties"]["dropped"]["additionalProperties"] == {"type": "integer"}
    part = schema["$defs"]["Part"]
    assert part["properties"]["note"]["description"] == "Only written when there is one."
    assert part["properties"]["total"]["type"] == "string" and "total" in part["required"]
    assert set(schema["required"]) == {"parts", "spares", "ratio", "share_rounded"}


def _renamed_a(data: dict[str, object]) -> dict[str, object]:
    return {("b" if key == "a" else key): value for key, value in data.items()}


LAYOUT = VersionedFile("sample file", 3, {1: _renamed_a, 2: lambda data: {**data, "c": 0}},
                       legacy_key="format", unversioned=1)


def test_an_older_file_is_migrated_step_by_step() -> None:
    assert LAYOUT.readable == (1, 2, 3)
    assert LAYOUT.current({"format": 1, "a": 5}, "f.json") == {"b": 5, "c": 0}
    assert LAYOUT.current({"a": 5}, "f.json") == {"b": 5, "c": 0}
    assert LAYOUT.current({"schema_version": 2, "b": 5}, "f.json") == {"b": 5, "c": 0}
    assert LAYOUT.current({"schema_version": 3, "b": 5, "c": 1}, "f.json") == {"b": 5, "c": 1}
    assert LAYOUT.stamped({"b": 5}) == {"schema_version": 3, "b": 5}
    assert list(LAYOUT.stamped({"b": 5})) == ["schema_version", "b"]


@pytest.mark.parametrize(("data", "message"), [
    ({"schema_version": 4}, ("f.json: sample file of schema_version 4; this build reads "
                            "versions 1 to 3 (a newer pytest-legalbench wrote it)")),
    ({"schema_version": "3"}, ("f.json: sample file of schema_version '3'; this build reads "
                              "versions 1 to 3")),
    ({"schema_version": True}, ("f.json: sample file of schema_version True; this build reads "
                               "versions 1 to 3")),
    ([], "f.json: not a sample file (a JSON object was expected)"),
])
def test_a_file_of_another_version_is_refused_in_one_line(data: object, message: str) -> None:
    with pytest.raises(RecordError) as refused:
        LAYOUT.current(data, "f.json")
    assert str(refused.value) == message


def test_a_file_without_a_version_is_refused_where_none_is_expected() -> None:
    strict = VersionedFile("sample file", 2, {1: dict})
    with pytest.raises(RecordError, match="^f.json: sample file without a schema_version; "
                                          "this build reads versions 1 to 2$"):
        strict.current({"b": 1}, "f.json")


def test_the_file_schema_puts_the_version_first() -> None:
    schema = LAYOUT.schema(Part, title="parts.json", description="a part")
    assert next(iter(schema["properties"])) == "schema_version"
    assert schema["properties"]["schema_version"]["const"] == 3
    assert schema["required"][0] == "schema_version" and schema["description"] == "a part"


def test_importing_the_layer_or_a_record_module_loads_no_pydantic() -> None:
    probe = ("import sys, pytest_legalbench.files.record_json, pytest_legalbench.llm.ledger, "
             "pytest_legalbench.run.journal; print('pydantic' in sys.modules)")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "False"
