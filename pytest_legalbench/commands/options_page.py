"""docs/reference/options.md: every pytest option, ini key and environment variable of the
plugin, generated from what the plugin registers and from its option table.

The flags and ini keys are read by handing the plugin's own ``pytest_addoption`` a parser that
only records what it is given, so an option registered outside the table (``--mode``,
``--legalbench-gandr``) is on the page as surely as one from it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from pytest_legalbench.commands.markdown_text import code, sentence
from pytest_legalbench.plugin.options import OPTIONS, RETRIEVAL_OPTIONS, Option

#: Environment variables the package reads (or sets for its processes) that no option mirrors.
OTHER_ENVIRONMENT = (
    ("ANTHROPIC_API_KEY",
     ("the key for Claude (or any value for a local server that checks none); when set, the "
      "backend defaults to `anthropic`")),
    ("LEGALBENCH_USER_AGENT",
     ("the User-Agent sent when a manifest document is downloaded from its public source (SEC "
      "EDGAR asks for a name and an address)")),
    ("XDG_CACHE_HOME",
     ("where the default cache folder lies: `$XDG_CACHE_HOME/pytest-legalbench`, else "
      "`~/.cache/pytest-legalbench`")),
    ("SOURCE_DATE_EPOCH",
     "pins the date written in a report's run header (reproducible reports)"),
    ("HF_HUB_OFFLINE",
     ("set to 1 by the repository's `conftest.py`; models are always loaded by path and never "
      "downloaded")),
    ("OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS",
     "left alone when set; otherwise each local xdist worker gets cores / workers"),
    ("OMP_WAIT_POLICY",
     ("set to PASSIVE before torch loads, unless already set (idle threads sleep instead of "
      "spinning)")),
)


@dataclass(frozen=True)
class Flag:
    """One command-line option as the plugin registered it."""

    names: tuple[str, ...]
    help: str
    metavar: str | None
    switch: bool
    repeatable: bool

    @property
    def ini_name(self) -> str:
        """The ini key that mirrors it by the table's rule (``--legalbench-x-y`` -> ``legalbench_x_y``)."""
        return self.names[0].lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class IniKey:
    """One ini key as the plugin registered it."""

    name: str
    help: str
    type: str | None


@dataclass
class RecordingParser:
    """Stands in for ``pytest.Parser``: keeps what ``pytest_addoption`` registers, nothing else."""

    flags: list[Flag] = field(default_factory=list)
    ini: list[IniKey] = field(default_factory=list)

    def getgroup(self, name: str, description: str = "", after: str | None = None,
                 ) -> RecordingParser:
        """The one group every option lands in (the page does not split by pytest group)."""
        return self

    def addoption(self, *names: str, **attrs: Any) -> None:
        """Keep a flag's names, help and shape."""
        action = attrs.get("action", "store")
        self.flags.append(Flag(names=names, help=str(attrs.get("help", "")),
                               metavar=attrs.get("metavar"),
                               switch=action in ("store_true", "store_false"),
                               repeatable=action == "append"))

    def addini(self, name: str, help: str, type: str | None = None, default: Any = None,
               **attrs: Any) -> None:
        """Keep an ini key's name, help and type."""
        self.ini.append(IniKey(name=name, help=help, type=type))


def registered() -> RecordingParser:
    """What the plugin registers with pytest, recorded."""
    from pytest_legalbench.plugin import hooks

    parser = RecordingParser()
    hooks.pytest_addoption(cast(Any, parser))
    return parser


def _flag_cell(flag: Flag) -> str:
    # A value named after the ini key in capitals (pytest's help shows it so) says nothing more.
    plain = flag.switch or flag.metavar in (None, flag.ini_name.upper())
    shown = flag.names[0] if plain else f"{flag.names[0]} {flag.metavar}"
    return f"`{shown}`" + (" (repeatable)" if flag.repeatable else "")


def _rows(flags: Iterable[Flag], ini: dict[str, IniKey], table: dict[str, Option]) -> list[str]:
    rows = ["| option | ini key | environment | `legalbench` flag | meaning |",
            "| --- | --- | --- | --- | --- |"]
    for flag in flags:
        known = table.get(flag.names[0])
        key = ini.get(flag.ini_name)
        meaning = known.help if known is not None else flag.help
        rows.append("| " + " | ".join((
            _flag_cell(flag), code(key.name if key else None),
            code(known.env if known else None), code(known.cli if known else None),
            sentence(meaning))) + " |")
    return rows


_PRECEDENCE = """\
A value given on the command line wins over the environment variable, which wins over the ini
key (in `pytest.ini`, `pyproject.toml`'s `[tool.pytest.ini_options]`, `tox.ini` or
`setup.cfg`), which wins over the default. A relative folder in an ini file is taken relative
to that file's folder. A bad value stops the run at startup with one message naming where it
came from: the flag, the environment variable or the ini key, for example
`LEGALBENCH_PAYLOAD_BUDGET='abc': expected a whole number of at least 1`.

The `legalbench` command reads the same table: where a setting has a `legalbench` flag, the
command takes it by the same rule (its flag, then the environment variable, then the default;
the command reads no ini file).
"""

_RECORDING = """\
Recording and replay use [pytest-recording](https://github.com/kiwicom/pytest-recording)'s own
options: `--record-mode` (`none`, the default, replays only; `once` records what has no cassette
yet; `rewrite` records every item again), `--disable-recording` (every call goes to the backend,
no cassette is read or written) and `--block-network`. A `pytest_recording_configure(config,
vcr)` hook in a `conftest.py` configures the benchmark's recorder too.
"""


def _gandr_fields() -> list[tuple[str, str, str]]:
    """Each GANDR setting's name, type and default."""
    from pytest_legalbench.gandr.settings import GandrSettings

    defaults = GandrSettings()
    return [(f.name, f.type if isinstance(f.type, str) else f.type.__name__,
             str(getattr(defaults, f.name))) for f in dataclasses.fields(GandrSettings)]


def options_page() -> str:
    """The page's Markdown."""
    parser = registered()
    table = {o.flag: o for o in (*OPTIONS, *RETRIEVAL_OPTIONS)}
    retrieval = {o.flag for o in RETRIEVAL_OPTIONS}
    ini = {key.name: key for key in parser.ini}
    run = [f for f in parser.flags if f.names[0] not in retrieval]
    retrieving = [f for f in parser.flags if f.names[0] in retrieval]
    matched = {f.ini_name for f in parser.flags}
    lines = ["# Options, ini keys and environment variables", "",
             ("<!-- Generated by `legalbench docs-reference` from pytest_legalbench/plugin/"
              "options.py and plugin/hooks.py: edit those, then regenerate. -->"), "",
             _PRECEDENCE, "## Run settings", "",
             "What to benchmark, with which models and judge, and where the results go.", "",
             *_rows(run, ini, table), "",
             "## Retrieval settings", "",
             ("The same for every mode. The `legalbench` commands that retrieve take them as the "
              "flags in the fourth column."), "",
             *_rows(retrieving, ini, table), ""]
    unmatched = [key for key in parser.ini if key.name not in matched]
    if unmatched:
        lines += ["## Ini keys without an option", "", "| ini key | type | meaning |",
                  "| --- | --- | --- |",
                  *(f"| `{k.name}` | {k.type or 'string'} | {sentence(k.help)} |" for k in unmatched),
                  ""]
    variables = sorted(((o.env, o) for o in (*OPTIONS, *RETRIEVAL_OPTIONS) if o.env),
                       key=lambda pair: pair[0])
    lines += ["## Environment variables", "",
              "Each of these sets the option beside it:", "",
              "| variable | option |", "| --- | --- |",
              *(f"| `{env}` | `{o.flag}` |" for env, o in variables), "",
              "Read or set besides:", "",
              "| variable | what it does |", "| --- | --- |",
              *(f"| {', '.join(f'`{n}`' for n in names.split(', '))} | {sentence(what)} |"
                for names, what in OTHER_ENVIRONMENT), "",
              "## GANDR settings", "",
              ("Each field of `pytest_legalbench.gandr.settings.GandrSettings`, set with "
               "`--legalbench-gandr NAME=VALUE` (repeatable) or the `legalbench_gandr` ini key; "
               "[GANDR](../concepts/gandr.md) says what each one governs."), "",
              "| name | type | default |", "| --- | --- | --- |",
              *(f"| `{name}` | {kind} | `{default}` |" for name, kind, default in _gandr_fields()),
              "", "## Recording options", "", _RECORDING.rstrip()]
    return "\n".join(lines) + "\n"
