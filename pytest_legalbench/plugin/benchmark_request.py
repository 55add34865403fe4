"""Whether a session asked for a benchmark run before it collected anything.

A session asks by giving a legalbench option on its command line (``--mode``,
``--legalbench-*``, also through ``addopts``) or by setting a legalbench key in its ini file
(``mode``, ``legalbench_*``). The environment alone never asks: ``LEGALBENCH_*`` variables
hold for every project of a shell, so they are read only by a session that asked, or that
collects benchmark items (``plugin.hooks``).
"""

from __future__ import annotations

import pytest

from pytest_legalbench.plugin.options import OPTIONS, RETRIEVAL_OPTIONS

#: The flags (by their ``dest``) and ini keys besides the option table's.
MODE_DEST, MODE_INI = "legalbench_modes", "mode"
GANDR_DEST, GANDR_INI = "legalbench_gandr", "legalbench_gandr"


def requested_by(config: pytest.Config) -> tuple[str, ...]:
    """The legalbench flags and ini keys the session set, as the user wrote them; () when it
    set none."""
    given = []
    if config.getoption(MODE_DEST, None):
        given.append("--mode")
    if config.getoption(GANDR_DEST, None):
        given.append("--legalbench-gandr")
    for option in (*OPTIONS, *RETRIEVAL_OPTIONS):
        if config.getoption(f"legalbench_{option.name}", None) is not None:
            given.append(option.flag)
    for key in (MODE_INI, GANDR_INI):
        if config.getini(key):
            given.append(f"ini key {key}")
    for option in (*OPTIONS, *RETRIEVAL_OPTIONS):
        # An unset key reads as its default: None, or False for a switch. A switch written
        # as false asks for nothing a run would not do anyway.
        if option.in_ini and config.getini(option.ini) not in (None, False, ""):
            given.append(f"ini key {option.ini}")
    return tuple(given)
