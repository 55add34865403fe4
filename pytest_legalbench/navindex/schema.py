"""The navindex file schema: format version, descriptor rungs, field tables, format errors."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pytest_legalbench.navindex.node import FLAG_NAMES

FORMAT_VERSION = 2

Rung = Literal["D1", "D2", "D3", "D4", "D5"]
RUNGS: tuple[Rung, ...] = get_args(Rung)

#: D4 is what the paper's scored configuration carried: flags, cross-references, keywords and
#: a one-line summary per node. D5 adds a long summary whose cost the paper never measured.
DEFAULT_RUNG: Rung = "D4"

FieldKind = Literal["bool", "int", "str", "optstr", "list", "node", "nodes", "tags"]

_FLAG_KEYS = {
    "isDefinition": "df", "hasMoney": "mo", "hasDate": "da", "hasPercentage": "pc",
    "hasLiabilityLimit": "ll", "hasCondition": "co", "hasParty": "pa", "isTocEntry": "tc",
}

#: Node fields in file order: name, two-letter key of the optimised form, kind, first rung.
NODE_TABLE: tuple[tuple[str, str, FieldKind, Rung], ...] = (
    ("nodeId", "id", "str", "D1"), ("clauseReference", "cr", "str", "D1"),
    ("title", "ti", "str", "D1"), ("snippet", "sn", "str", "D1"),
    ("summary", "su", "str", "D4"), ("fullSummary", "fs", "str", "D5"),
    ("keywords", "kw", "list", "D3"), ("externalReferences", "er", "list", "D3"),
    ("crossReferencedIds", "xr", "list", "D2"), ("definedTerms", "dd", "list", "D2"),
    ("usesDefinitions", "ud", "list", "D5"),
    *((name, _FLAG_KEYS[name], "bool", "D1" if name == "isTocEntry" else "D2")
      for name in FLAG_NAMES),
    ("textLength", "tl", "int", "D1"), ("children", "ch", "nodes", "D1"),
)
#: Document-level fields in file order, then the fields of ``documentTags``.
INDEX_TABLE: tuple[tuple[str, str, FieldKind], ...] = (
    ("formatVersion", "fv", "int"), ("docId", "di", "str"), ("rung", "rg", "str"),
    ("sourceSha256", "sh", "str"), ("documentTitle", "dt", "str"),
    ("documentTags", "tg", "tags"), ("role", "ro", "str"), ("amends", "am", "list"),
    ("parties", "pt", "list"), ("documentIndex", "ix", "node"),
)
TAG_TABLE: tuple[tuple[str, str, FieldKind], ...] = (
    ("jurisdiction", "ju", "optstr"), ("topics", "tp", "list"),
)


class IndexFormatError(ValueError):
    """A navindex file or dict that does not have the expected shape."""


class FormatVersionError(IndexFormatError):
    """A navindex file written under another format version."""


def node_fields(rung: Rung) -> tuple[str, ...]:
    """Return the index field names a node carries at ``rung``, in file order."""
    level = _rung_level(rung)
    return tuple(row[0] for row in NODE_TABLE if _rung_level(row[3]) <= level)


def check_format_version(data: object, what: str) -> None:
    """Raise FormatVersionError unless ``data`` is an object of this build's format version."""
    if not isinstance(data, dict):
        raise IndexFormatError(f"{what}: expected a JSON object, found {type(data).__name__}")
    found = data.get("formatVersion")
    if found != FORMAT_VERSION or isinstance(found, bool):
        raise FormatVersionError(
            f"{what}: navindex format version {found!r} found, version {FORMAT_VERSION} expected"
        )


def json_object(value: Any, where: str) -> dict[str, Any]:
    """Return ``value`` if it is a JSON object, else raise IndexFormatError naming ``where``."""
    if not isinstance(value, dict):
        raise IndexFormatError(f"{where} is not a JSON object")
    return value


def _rung_level(rung: str) -> int:
    for level, known in enumerate(RUNGS):
        if rung == known:
            return level
    raise ValueError(f"unknown descriptor rung {rung!r}; expected one of {RUNGS}")
