"""pytest entry point: options, ini keys and settings; the fixtures live in ``fixtures.py``."""

from __future__ import annotations

import os

import pytest

from .client import BackendConfigError, resolve_backend
from .ingest.manifest import available_profiles
from .settings import OPTIONS, Settings, SettingsError, resolve_settings

pytest_plugins = ("pytest_legalbench.fixtures",)

SETTINGS_KEY = pytest.StashKey[Settings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("legalbench", "legal retrieval benchmarks (pytest-legalbench)")
    for option in OPTIONS:
        group.addoption(option.flag, dest=f"legalbench_{option.name}", default=None,
                        help=option.help)
        parser.addini(option.ini, help=option.help, default=None)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    cli = {o.name: config.getoption(f"legalbench_{o.name}") for o in OPTIONS}
    ini = {o.name: config.getini(o.ini) for o in OPTIONS}
    if config.rootpath is not None and cli.get("corpus_dir") is None and ini.get("corpus_dir"):
        # A relative corpus folder in an ini file is relative to that file's folder.
        ini["corpus_dir"] = str((config.rootpath / str(ini["corpus_dir"])).resolve())
    try:
        settings = resolve_settings(cli, ini, os.environ, profiles=available_profiles)
        # Fails now, not at the first model call, when e.g. Claude is asked for without a key.
        resolve_backend(settings.backend, os.environ)
    except (SettingsError, BackendConfigError) as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[SETTINGS_KEY] = settings


def pytest_report_header(config: pytest.Config) -> str | None:
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None:
        return None
    corpus = settings.corpus_dir or "not set"
    return f"legalbench: profile {settings.profile}, corpus {corpus}, cache {settings.cache_dir}"
