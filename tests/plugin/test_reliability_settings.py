"""The settings of runs that survive: the fault spec, the spending limit and the call timeout,
read and checked like every other setting."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.plugin.settings import resolve_settings
from pytest_legalbench.plugin.values import SettingsError


def _profiles() -> tuple[str, ...]:
    return ("transactions",)


def test_the_fault_spec_and_the_limit_come_from_flag_or_environment() -> None:
    chosen = resolve_settings({"faults": "429:0.5", "max_cost": "$2.50"}, {}, {},
                              profiles=_profiles)
    assert chosen.faults == "429:0.5" and chosen.max_cost == Decimal("2.50")
    from_env = resolve_settings({}, {}, {"LEGALBENCH_FAULTS": "reset:0.1",
                                         "LEGALBENCH_MAX_COST": "7"}, profiles=_profiles)
    assert from_env.faults == "reset:0.1" and from_env.max_cost == Decimal(7)
    assert to_builtins(from_env)["max_cost"] == "7"


def test_the_call_timeout_comes_from_flag_ini_or_environment() -> None:
    assert resolve_settings({}, {}, {}, profiles=_profiles).timeout_s is None
    assert resolve_settings({"timeout": "600"}, {}, {}, profiles=_profiles).timeout_s == 600.0
    assert resolve_settings({}, {"timeout": "90.5"}, {}, profiles=_profiles).timeout_s == 90.5
    from_env = resolve_settings({}, {}, {"LEGALBENCH_TIMEOUT": "30"}, profiles=_profiles)
    assert from_env.timeout_s == 30.0 and to_builtins(from_env)["timeout_s"] == 30.0


@pytest.mark.parametrize(("given", "message"), [
    ({"faults": "429:2"}, r"--legalbench-faults: '429:2': a rate is between 0 and 1"),
    ({"faults": "429:0.1", "backend": "anthropic"},
     r"--legalbench-faults: faults are injected by the reference backend only"),
    ({"max_cost": "lots"}, r"--legalbench-max-cost='lots': expected a positive number"),
    ({"max_cost": "0"}, r"--legalbench-max-cost='0': expected a positive number"),
    ({"max_cost": "nan"}, r"--legalbench-max-cost='nan': expected a positive number")])
def test_bad_values_name_the_option(given: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        resolve_settings(given, {}, {}, profiles=_profiles)
