"""One setting's value: where it came from (``Chosen``: the flag, the environment variable or
the ini key), the precedence that picks it (``choose``), and the checks of its form (a whole
number, a switch, dollars, seconds, a folder) that name where a bad value came from.

Pure: no pytest import.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from pytest_legalbench.files.locations import default_cache_dir
from pytest_legalbench.plugin.options import Option


class SettingsError(ValueError):
    """A setting with a value that cannot be used; the message names the option."""


@dataclass(frozen=True)
class Chosen:
    """A setting's value as the user wrote it, and where it was written."""

    text: str
    where: str
    """The flag, the environment variable or ``ini key <key>``, as error messages name it."""

    def error(self, problem: str) -> SettingsError:
        """``problem`` with this value, e.g. ``LEGALBENCH_TOP_K='0': expected ...``."""
        return SettingsError(f"{self.where}={self.text!r}{problem}")


def choose(options: Sequence[Option], cli: Mapping[str, object | None],
           ini: Mapping[str, object | None], env: Mapping[str, str], *,
           from_cli: bool = False) -> dict[str, Chosen | None]:
    """Each option's value by precedence, an explicit flag, then the environment, then ini,
    with where it came from (``from_cli``: the flags are the ``legalbench`` command's)."""
    chosen: dict[str, Chosen | None] = {}
    for option in options:
        flag, variable = cli.get(option.name), env.get(option.env) if option.env else None
        given = ini.get(option.name) if option.in_ini else None
        if flag:
            chosen[option.name] = Chosen(str(flag), option.shown(cli=from_cli))
        elif variable:
            chosen[option.name] = Chosen(variable, str(option.env))
        elif given:
            chosen[option.name] = Chosen(str(given), f"ini key {option.ini}")
        else:
            chosen[option.name] = None
    return chosen


def resolve_cache_dir(chosen: str | None) -> Path:
    """The cache folder: the chosen value, else ``$XDG_CACHE_HOME/pytest-legalbench``."""
    return Path(chosen).expanduser() if chosen else default_cache_dir()


def resolve_corpus_dir(chosen: Chosen | None) -> Path | None:
    """The corpus mirror folder, checked to be a folder; None when none was given."""
    if chosen is None:
        return None
    folder = Path(chosen.text).expanduser()
    if not folder.is_dir():
        raise chosen.error(" is not a folder")
    return folder


def text_or(chosen: Chosen | None, default: str) -> str:
    """The chosen text, or ``default`` when nothing was given."""
    return default if chosen is None else chosen.text


def path_of(chosen: Chosen | None) -> Path | None:
    """The chosen path, ``~`` expanded; None when nothing was given."""
    return None if chosen is None else Path(chosen.text).expanduser()


def folder_of(chosen: Chosen | None) -> Path | None:
    """The chosen path, checked to be a folder; None when nothing was given."""
    folder = path_of(chosen)
    if chosen is not None and folder is not None and not folder.is_dir():
        raise Chosen(str(folder), chosen.where).error(" is not a folder")
    return folder


def count_of(chosen: Chosen) -> int:
    """The chosen whole number, checked to be at least 1."""
    try:
        number = int(chosen.text.strip())
    except ValueError:
        number = 0
    if number < 1:
        raise chosen.error(": expected a whole number of at least 1")
    return number


#: How a switch's value may be written in the environment or an ini file.
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def switch_of(chosen: Chosen | None) -> bool:
    """Whether a switch is on: given as a flag, or written as true or false."""
    if chosen is None:
        return False
    text = chosen.text.strip().lower()
    if text not in _TRUE | _FALSE:
        raise chosen.error(": expected true or false")
    return text in _TRUE


def dollars_of(chosen: Chosen | None) -> Decimal | None:
    """The chosen positive amount of dollars (``$`` allowed); None when nothing was given."""
    if chosen is None or not chosen.text.strip():
        return None
    try:
        amount = Decimal(chosen.text.strip().removeprefix("$"))
    except InvalidOperation:
        amount = Decimal(-1)
    if not amount.is_finite() or amount <= 0:
        raise chosen.error(": expected a positive number of dollars, e.g. 5 or 0.50")
    return amount


def seconds_of(chosen: Chosen | None) -> float | None:
    """The chosen positive number of seconds; None when nothing was given."""
    if chosen is None or not chosen.text.strip():
        return None
    try:
        seconds = float(chosen.text.strip())
    except ValueError:
        seconds = -1.0
    if not math.isfinite(seconds) or seconds <= 0:
        raise chosen.error(": expected a positive number of seconds, e.g. 300")
    return seconds


#: Where the controller listens for remote workers' batch lines when nothing is chosen.
DEFAULT_JOURNAL_RELAY = ("127.0.0.1", 0)


def relay_of(chosen: Chosen | None) -> tuple[str, int]:
    """The chosen ``HOST:PORT`` of the journal relay (``run.journal_relay``)."""
    from pytest_legalbench.run.journal_relay import parse_bind

    if chosen is None or not chosen.text.strip():
        return DEFAULT_JOURNAL_RELAY
    try:
        return parse_bind(chosen.text.strip())
    except ValueError:
        raise chosen.error(": expected HOST:PORT, e.g. 127.0.0.1:8765 (port 0: any free "
                           "port)") from None
