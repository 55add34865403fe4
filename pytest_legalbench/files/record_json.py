"""Records as JSON through one typed layer: pydantic ``TypeAdapter``s over the frozen
dataclasses that hold them.

A record's JSON layout is its dataclass. Each field is written under its name, or under the
``alias`` in its ``dataclasses.field`` metadata, and left out when its ``exclude_if`` (e.g.
``OMIT_NONE``) says it holds nothing; pydantic reads that metadata from plain dataclasses.
A few forms pydantic does not write by itself are markers in ``Annotated`` types:
``KeyedBy`` (records written as an object keyed by one of their fields), ``PAIRS_AS_OBJECT``,
``Rounded``, ``FLOAT_FRACTION``, ``PLAIN_DECIMAL`` and the general ``WireForm``. Values a
record derives from its fields (a rate from its counts) are written too, named by
``derived``. Reading checks every field's type (lax, as pydantic is by default: a JSON array
is a tuple, an integer a float), runs the dataclass's own ``__post_init__`` checks, and
reports the first problem in one line.

pydantic is imported when the first adapter is built, never when a record's module is: the
modules the pytest plugin loads at startup use only the plain declarations of this module.

Files holding records carry a ``schema_version`` (``VersionedFile``): a file of an older
version is migrated step by step, one of a version this build does not know is refused with
one line naming the file, its version and the versions this build reads.
"""

from __future__ import annotations

import dataclasses
import decimal
import typing
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeVar

T = TypeVar("T")

#: The key every versioned file holds its version under.
VERSION_KEY = "schema_version"


class RecordError(ValueError):
    """A record or a records file that cannot be read; the message is one line naming it."""


def _is_none(value: object) -> bool:
    return value is None


def _is_false(value: object) -> bool:
    return value is False


def _is_empty(value: object) -> bool:
    """None, an empty collection or string, or a zero count (never a boolean)."""
    if value is None:
        return True
    if value is True or value is False:
        return False
    try:
        return len(value) == 0  # type: ignore[arg-type]
    except TypeError:
        return value == 0


#: Field metadata: the field is left out of the JSON when it is None.
OMIT_NONE: Mapping[str, Any] = {"exclude_if": _is_none}
#: Field metadata: the field is left out when it is None, empty or zero.
OMIT_EMPTY: Mapping[str, Any] = {"exclude_if": _is_empty}
#: Field metadata: a boolean written only when it is true.
OMIT_FALSE: Mapping[str, Any] = {"exclude_if": _is_false, "strict": True}
#: Field metadata: the field is never written (it is for this process only).
NOT_WRITTEN: Mapping[str, Any] = {"exclude": True}


def renamed(alias: str, omit: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """Field metadata: written under ``alias``, and left out as ``omit`` says."""
    return {"alias": alias, **(omit or {})}


# --- Markers for forms pydantic does not write by itself -----------------------------------


# eq=False: hashed by identity (its schema is a dict), as typing hashes Annotated metadata.
@dataclasses.dataclass(frozen=True, eq=False)
class WireForm:
    """``Annotated`` metadata: a field written in another form than its type's own.

    ``write`` turns the value into builtins (or values pydantic writes as it would its own);
    ``read`` turns what a file holds back into what the field's type reads; ``schema`` is the
    JSON Schema of the written form.
    """

    write: Callable[[Any], Any]
    read: Callable[[Any], Any]
    schema: Mapping[str, Any]

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(
            self.read, handler(source),
            serialization=core_schema.plain_serializer_function_ser_schema(self.write))

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> Any:
        return dict(self.schema)


@dataclasses.dataclass(frozen=True)
class KeyedBy:
    """``Annotated`` metadata for a tuple of records: written as an object keyed by each
    record's ``key`` field, in order. With ``keep`` False the key is left out of each entry
    (the object's key says it) and put back on reading."""

    key: str
    keep: bool = True

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        key, keep = self.key, self.keep

        def write(value: Any, serialize: Any) -> dict[str, Any]:
            entries = serialize(value)
            return {entry[key]: entry if keep else {k: v for k, v in entry.items() if k != key}
                    for entry in entries}

        def read(value: Any) -> Any:
            if not isinstance(value, Mapping):
                return value
            entries = []
            for name, entry in value.items():
                if not isinstance(entry, Mapping):
                    raise ValueError(f"the entry {name!r} is not an object")  # noqa: TRY004
                if keep and entry.get(key) != name:
                    raise ValueError(f"the entry of {key} {entry.get(key)!r} is filed under "
                                     f"{name!r}")
                entries.append(dict(entry) if keep else {**entry, key: name})
            return entries

        inner = handler(source)
        return core_schema.no_info_before_validator_function(
            read, inner,
            serialization=core_schema.wrap_serializer_function_ser_schema(write, schema=inner))

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> Any:
        array = handler(schema)
        entry = array.get("items", {})
        if not self.keep:
            entry = dict(handler.resolve_ref_schema(entry))
            entry["properties"] = {k: v for k, v in entry.get("properties", {}).items()
                                   if k != self.key}
            entry["required"] = [k for k in entry.get("required", ()) if k != self.key]
        return {"type": "object", "additionalProperties": entry,
                "description": f"keyed by each entry's {self.key}"}


class _PairsAsObject:
    """``Annotated`` metadata for a tuple of (name, value) pairs: written as an object."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        def read(value: Any) -> Any:
            return list(value.items()) if isinstance(value, Mapping) else value

        return core_schema.no_info_before_validator_function(
            read, handler(source),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda pairs: {name: value for name, value in pairs}))

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> Any:
        pair = handler(schema).get("items", {})
        values = pair.get("prefixItems", [{}, {}])[1]
        return {"type": "object", "additionalProperties": values}


#: ``Annotated`` metadata: a tuple of (name, value) pairs written as ``{name: value}``.
PAIRS_AS_OBJECT = _PairsAsObject()


@dataclasses.dataclass(frozen=True)
class Rounded:
    """``Annotated`` metadata: a float written rounded to ``places`` (None stays None)."""

    places: int

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        places = self.places
        return core_schema.no_info_after_validator_function(
            lambda value: value, handler(source),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda value: round(value, places) if isinstance(value, float) else value))


def _fraction_of(value: Any) -> Any:
    # A float read back exactly (the binary fraction it is), so it is written back unchanged.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Fraction(value)
    return value


def _plain_decimal(amount: Decimal) -> str:
    # Fixed point without trailing zeros ("0.0003", "3"): exact, and never "3E-7". The
    # context is as wide as the amount, so dropping the zeros never rounds it.
    digits = len(amount.as_tuple().digits)
    normal = amount.normalize(decimal.Context(prec=max(digits, 1)))
    return format(normal if normal != 0 else Decimal(0), "f")


#: ``Annotated`` metadata: an exact fraction written as a float and read back from it.
FLOAT_FRACTION = WireForm(write=float, read=_fraction_of, schema={"type": "number"})
#: ``Annotated`` metadata: a decimal written in fixed point without trailing zeros.
PLAIN_DECIMAL = WireForm(write=_plain_decimal, read=lambda value: value,
                         schema={"type": "string", "pattern": r"^-?\d+(\.\d+)?$"})
#: ``Annotated`` metadata: a count that reads None as 0 (the Messages API's absent counts).
ZERO_IF_NONE = WireForm(write=lambda value: value,
                        read=lambda value: 0 if value is None else value,
                        schema={"type": "integer", "minimum": 0})


def derived(**written: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: also write these properties, each under its key
    (``@derived(scored="scored_items")``); their return annotations type them. Reading
    ignores them: they follow from the fields."""

    def decorate(cls: type[T]) -> type[T]:
        for key, name in written.items():
            if not isinstance(getattr(cls, name, None), property):
                raise TypeError(f"{cls.__name__}.{name} (written as {key!r}) is not a property")

        def schema_hook(klass: type[Any], source: Any, handler: Any) -> Any:
            from pydantic_core import core_schema

            schema = handler(source)
            target = handler.resolve_ref_schema(schema)
            while target.get("type") != "dataclass":
                target = target["schema"]
            computed = []
            for key, name in written.items():
                getter = getattr(klass, name).fget
                returned = typing.get_type_hints(getter, include_extras=True)["return"]
                computed.append(core_schema.computed_field(
                    name, handler.generate_schema(returned), alias=key))
            target["schema"]["computed_fields"] = [
                *target["schema"].get("computed_fields", ()), *computed]
            return schema

        cls.__get_pydantic_core_schema__ = classmethod(schema_hook)  # type: ignore[attr-defined]
        return cls

    return decorate


# --- Reading and writing ---------------------------------------------------------------------


#: Each record type's adapter, built at its first use (building one costs milliseconds).
_ADAPTERS: dict[Any, Any] = {}


def _adapter(kind: Any) -> Any:
    """The adapter of a one-tuple of ``kind``: a tuple type may carry a config, which reaches
    every record inside it that has none of its own. The config keeps a NaN or an infinity
    a float, so ``json.dumps(..., allow_nan=False)`` refuses it instead of writing null."""
    found = _ADAPTERS.get(kind)
    if found is None:
        from pydantic import ConfigDict, TypeAdapter

        found = _ADAPTERS[kind] = TypeAdapter(
            tuple[kind], config=ConfigDict(ser_json_inf_nan="constants"))
    return found


def to_builtins(value: object, kind: Any = None) -> Any:
    """``value`` as JSON-ready builtins, in its record layout (``kind`` types it when its
    class alone does not, e.g. a tuple of records)."""
    adapter = _adapter(kind if kind is not None else type(value))
    return adapter.dump_python((value,), mode="json", by_alias=True)[0]


def from_builtins(kind: type[T], data: object, *, what: str | None = None,
                  error: type[Exception] = RecordError) -> T:
    """Read ``data`` as a ``kind``; ``error`` (one line starting with ``what``, by default
    the type's name) when it is not one."""
    from pydantic import ValidationError

    try:
        found: T = _adapter(kind).validate_python((data,))[0]
    except ValidationError as problem:
        named = what if what is not None else getattr(kind, "__name__", str(kind))
        raise error(f"{named}: {_first_problem(problem)}") from None
    return found


def _first_problem(problem: Any) -> str:
    errors = problem.errors(include_url=False, include_context=False, include_input=False)
    first = errors[0]
    # The first part of each location is the one-tuple's index (see _adapter).
    where = ".".join(str(part) for part in first["loc"][1:])
    message = str(first["msg"]).removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {message}{more}" if where else f"{message}{more}"


def json_schema(kind: Any, *, title: str | None = None) -> dict[str, Any]:
    """The JSON Schema of what ``to_builtins`` writes for a ``kind``; each field described by
    its docstring."""
    from pydantic import ConfigDict, TypeAdapter

    # A one-tuple again (see _adapter), for a config that reaches every record inside.
    holder = TypeAdapter(tuple[kind], config=ConfigDict(use_attribute_docstrings=True))
    found: dict[str, Any] = holder.json_schema(mode="serialization", by_alias=True)
    schema: dict[str, Any] = dict(found["prefixItems"][0])
    if "$ref" in schema and len(schema) == 1:
        # The record itself, not a reference to it: its definition is the schema's root.
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = dict(found["$defs"].pop(name))
    if found.get("$defs"):
        schema["$defs"] = found["$defs"]
    if title is not None:
        schema["title"] = title
    return schema


# --- Versioned files ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class VersionedFile:
    """A file (or a JSON Lines line) of records, and the versions of its layout this build
    reads: ``version``, and every older one ``migrations`` lifts a step (``{1: v1_to_v2}``).

    Files written before versions had this key carry their version under ``legacy_key``, or
    no version at all (``unversioned``)."""

    name: str
    version: int
    migrations: Mapping[int, Callable[[dict[str, Any]], dict[str, Any]]] = dataclasses.field(
        default_factory=dict)
    legacy_key: str | None = None
    unversioned: int | None = None

    @property
    def readable(self) -> tuple[int, ...]:
        """Every version this build reads, oldest first."""
        oldest = min((*self.migrations, self.version))
        return tuple(range(oldest, self.version + 1))

    def stamped(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """``data`` with this version in front, as the file is written."""
        return {VERSION_KEY: self.version, **data}

    def current(self, data: object, where: str) -> dict[str, Any]:
        """``data`` in this version's layout (migrated when older), without its version key;
        RecordError naming ``where`` when it is not one this build reads."""
        if not isinstance(data, Mapping):
            raise RecordError(f"{where}: not a {self.name} (a JSON object was expected)")
        found = data.get(VERSION_KEY)
        if found is None and self.legacy_key is not None:
            found = data.get(self.legacy_key)
        if found is None:
            found = self.unversioned
        if found is None:
            raise RecordError(f"{where}: {self.name} without a {VERSION_KEY}; this build "
                              f"reads {self._versions_text()}")
        if isinstance(found, bool) or not isinstance(found, int) or found not in self.readable:
            raise RecordError(f"{where}: {self.name} of {VERSION_KEY} {found!r}; this build "
                              f"reads {self._versions_text()}"
                              + (" (a newer pytest-legalbench wrote it)"
                                 if isinstance(found, int) and found > self.version else ""))
        layout = {k: v for k, v in data.items() if k not in (VERSION_KEY, self.legacy_key)}
        for step in range(found, self.version):
            layout = self.migrations[step](layout)
        return layout

    def _versions_text(self) -> str:
        versions = self.readable
        return (f"version {versions[0]}" if len(versions) == 1
                else f"versions {versions[0]} to {versions[-1]}")

    def schema(self, kind: Any, *, title: str, description: str) -> dict[str, Any]:
        """The JSON Schema of the file: ``kind``'s, with the version in front."""
        schema = json_schema(kind, title=title)
        schema["description"] = description
        schema["properties"] = {VERSION_KEY: {"const": self.version,
                                              "description": "the layout's version"},
                                **schema.get("properties", {})}
        schema["required"] = [VERSION_KEY, *schema.get("required", ())]
        return schema
