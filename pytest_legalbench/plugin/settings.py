"""Every setting, resolved once by one rule: command line, then environment, then ini, then
default. The pytest plugin and the ``legalbench`` command both resolve through here, so a
retrieval setting (``k``, the payload budget, the embedding model, ...) or the backend means
the same in a benchmark run and in ``legalbench retrieve``. The settings themselves (flags,
ini keys, environment variables, help) are the table in ``plugin.options``.

Pure: no pytest import. Values come in as the strings a user wrote; bad ones raise
``SettingsError`` naming where the value came from: the flag, the environment variable or the
ini key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal
from pathlib import Path

from pytest_legalbench.defaults import (
    BACKENDS,
    DEFAULT_ANSWER_MODEL,
    DEFAULT_JUDGE,
    DEFAULT_JUDGE_MODEL,
    DEFAULT_MODES,
    DEFAULT_PROFILE,
    DEFAULT_REPEATS,
    EMBEDDING_BACKENDS,
    INJECT_SCOPES,
    JUDGES,
)
from pytest_legalbench.gandr.settings import with_overrides
from pytest_legalbench.gandr.systems import parse_systems
from pytest_legalbench.llm.server_identity import KIND_CHOICES
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.registry import ModeRegistry, default_registry
from pytest_legalbench.plugin.options import OPTIONS, RETRIEVAL_OPTIONS
from pytest_legalbench.plugin.values import (
    DEFAULT_JOURNAL_RELAY,
    Chosen,
    SettingsError,
    choose,
    count_of,
    dollars_of,
    folder_of,
    path_of,
    relay_of,
    resolve_cache_dir,
    resolve_corpus_dir,
    seconds_of,
    switch_of,
    text_or,
)

#: ``ModeSettings`` fields that are whole numbers of at least 1.
_COUNTS = frozenset(f.name for f in fields(ModeSettings) if f.type in ("int", int))
#: ``ModeSettings`` fields that name a local folder.
_FOLDERS = frozenset({"embedding_model", "cross_encoder"})
#: ``ModeSettings`` fields that take one of a few names.
_CHOICES = {"embedding_backend": EMBEDDING_BACKENDS, "inject_scope": INJECT_SCOPES}


@dataclass(frozen=True)
class Settings:
    """Everything the plugin's fixtures need to know, fixed for the session."""

    profile: str
    corpus_dir: Path | None
    cache_dir: Path
    docs_dir: Path | None = None
    """A folder of documents benchmarked instead of the profile's; None: the profile."""
    backend: str | None = None
    """The backend asked for; None lets the key decide (see ``llm.client.resolve_backend``)."""
    base_url: str | None = None
    server_kind: str | None = None
    """The server kind named by the user; None asks the server (``llm.server_identity``)."""
    timeout_s: float | None = None
    """Seconds a model call may take; None: the client's default (``DEFAULT_TIMEOUT_S``)."""
    answer_model: str = DEFAULT_ANSWER_MODEL
    judge_model: str = DEFAULT_JUDGE_MODEL
    judge: str = DEFAULT_JUDGE
    report_dir: Path | None = None
    questions_dir: Path | None = None
    """None means the profile's packaged question set."""
    modes: tuple[str, ...] = ()
    """Resolved mode names (``navembed:hybrid``), in the order given."""
    fail_on_loss: bool = False
    skip_invalid: bool = False
    """Run the valid questions when some question files are invalid (each an error item)."""
    resume_dir: Path | None = None
    """The folder of the interrupted run to finish (``run.journal_session``); None: a new run."""
    repeats: int = DEFAULT_REPEATS
    """Seeded repeats per GANDR item."""
    gandr: tuple[str, ...] = ()
    """``NAME=VALUE`` changes to the GANDR settings (``gandr.settings.GandrSettings``)."""
    mode_settings: ModeSettings = field(default_factory=ModeSettings)
    """The retrieval settings every mode of the session is built with."""
    faults: str | None = None
    """The reference backend's fault spec (``reference_backend.faults``); None: no faults."""
    max_cost: Decimal | None = None
    """Dollars the run may spend (``llm.cost_guard``); None: no limit."""
    sample: int | None = None
    """Questions of the run's stratified sample (``run.question_source``); None: all."""
    batch: bool = False
    """Send the calls through the Message Batches API (``run.batch_phases``)."""
    batch_fallback: bool = False
    """Call a transiently failed batch request interactively instead of resubmitting it."""
    batch_poll_s: float | None = None
    """Seconds between two looks at a running batch; None: the backend's default."""
    plan: bool = False
    """Print the run's plan and run nothing (``run.cost_plan``)."""
    journal_relay: tuple[str, int] = DEFAULT_JOURNAL_RELAY
    """Where the controller takes the batch lines of workers on other hosts
    (``run.journal_relay``)."""


def resolve_backend_choice(chosen: Chosen | None) -> str | None:
    """The backend asked for, checked; None lets the key decide."""
    if chosen is not None and chosen.text not in BACKENDS:
        raise chosen.error(f" is not a backend; choose from {', '.join(BACKENDS)}")
    return None if chosen is None else chosen.text


def resolve_server_kind(chosen: Chosen | None) -> str | None:
    """The server kind named, checked; None asks the server."""
    if chosen is not None and chosen.text not in KIND_CHOICES:
        raise chosen.error(f" is not a server kind; choose from {', '.join(KIND_CHOICES)}")
    return None if chosen is None else chosen.text


def resolve_answer_model(chosen: Chosen | None) -> str:
    """The answering model (which the scans follow too)."""
    return DEFAULT_ANSWER_MODEL if chosen is None else chosen.text


def resolve_mode_settings(cli: Mapping[str, object | None], ini: Mapping[str, object | None],
                          env: Mapping[str, str], *, answer_model: str = DEFAULT_ANSWER_MODEL,
                          from_cli: bool = False) -> ModeSettings:
    """The retrieval settings by the same precedence; the scanning models (and navagent's
    navigation outside a benchmark) follow the answering model."""
    chosen = choose(RETRIEVAL_OPTIONS, cli, ini, env, from_cli=from_cli)
    values: dict[str, object] = {"scan_model": answer_model, "titles_model": answer_model}
    for option in RETRIEVAL_OPTIONS:
        given = chosen[option.name]
        if given is None or not given.text.strip():
            continue
        if option.name in _COUNTS:
            values[option.name] = count_of(given)
        elif option.name in _CHOICES and given.text not in _CHOICES[option.name]:
            raise given.error(f": choose one of {', '.join(_CHOICES[option.name])}")
        elif option.name in _FOLDERS:
            folder = Path(given.text).expanduser()
            if not folder.is_dir():
                raise given.error(" is not a folder; models are loaded by path and never "
                                  "downloaded")
            values[option.name] = str(folder)
        else:
            values[option.name] = given.text
    try:
        return ModeSettings(**values)  # type: ignore[arg-type]
    except ValueError as error:
        raise SettingsError(str(error)) from None


def resolve_settings(
    cli: Mapping[str, object | None],
    ini: Mapping[str, object | None],
    env: Mapping[str, str],
    *,
    profiles: Callable[[], tuple[str, ...]],
    modes: Sequence[str] = (),
    modes_from: str = "--mode",
    gandr: Sequence[str] = (),
    gandr_from: str = "--legalbench-gandr",
    registry: ModeRegistry | None = None,
) -> Settings:
    """Resolve every option by precedence and validate it; raise SettingsError on a bad value.
    ``modes_from`` and ``gandr_from`` name where the modes and GANDR changes came from;
    ``registry`` holds the modes that can be named (by default the built-in ones and those
    of installed packages)."""
    chosen = choose(OPTIONS, cli, ini, env)
    profile = _one_of(chosen["profile"], DEFAULT_PROFILE, profiles(), "a known profile")
    backend = resolve_backend_choice(chosen["backend"])
    judge = _one_of(chosen["judge"], DEFAULT_JUDGE, JUDGES, "a judging protocol")
    report = path_of(chosen["report"])
    questions = folder_of(chosen["questions"])
    docs = folder_of(chosen["docs"])
    if docs is not None and questions is None:
        # The profile's packaged questions are about the profile's documents, not these.
        raise SettingsError("--legalbench-docs needs --legalbench-questions: a folder of "
                            "questions about those documents")
    answer_model = resolve_answer_model(chosen["answer_model"])
    faults = chosen["faults"]
    if faults is not None:
        _check_faults(faults, backend)
    return Settings(
        profile=profile, docs_dir=docs, corpus_dir=resolve_corpus_dir(chosen["corpus_dir"]),
        cache_dir=resolve_cache_dir(text_or(chosen["cache_dir"], "")), backend=backend,
        base_url=text_or(chosen["base_url"], "") or None,
        server_kind=resolve_server_kind(chosen["server_kind"]),
        timeout_s=seconds_of(chosen["timeout"]), answer_model=answer_model,
        judge_model=text_or(chosen["judge_model"], DEFAULT_JUDGE_MODEL), judge=judge,
        report_dir=report, questions_dir=questions,
        modes=resolve_modes(modes, modes_from, registry),
        fail_on_loss=switch_of(chosen["fail_on_loss"]),
        skip_invalid=switch_of(chosen["skip_invalid"]), resume_dir=path_of(chosen["resume"]),
        repeats=_repeats(chosen["repeats"]), gandr=_gandr(gandr, gandr_from),
        faults=None if faults is None else faults.text, max_cost=dollars_of(chosen["max_cost"]),
        sample=None if chosen["sample"] is None else count_of(chosen["sample"]),
        batch=switch_of(chosen["batch"]), batch_fallback=switch_of(chosen["batch_fallback"]),
        batch_poll_s=seconds_of(chosen["batch_poll"]), plan=switch_of(chosen["plan"]),
        journal_relay=relay_of(chosen["journal_relay"]),
        mode_settings=resolve_mode_settings(cli, ini, env, answer_model=answer_model))


def resolve_modes(specs: Sequence[str], where: str = "--mode",
                  registry: ModeRegistry | None = None) -> tuple[str, ...]:
    """Canonical mode names (``gandr:all`` expanded), in order, each once; each found in
    ``registry`` (by default the built-in modes and installed packages')."""
    modes = registry if registry is not None else default_registry()
    resolved: list[str] = []
    for spec in specs or DEFAULT_MODES:
        try:
            systems = parse_systems(spec)
            resolved.extend(systems if systems is not None else [modes.resolve(spec)])
        except (TypeError, ValueError) as error:
            raise SettingsError(f"{where}={spec!r}: {error}") from None
    return tuple(dict.fromkeys(resolved))


def _one_of(chosen: Chosen | None, default: str, allowed: Sequence[str], what: str) -> str:
    if chosen is None:
        return default
    if chosen.text not in allowed:
        raise chosen.error(f" is not {what}; choose from {', '.join(allowed)}")
    return chosen.text


def _check_faults(faults: Chosen, backend: str | None) -> None:
    # Imported here: the reference backend's package starts its server module, which pulls in
    # the index parser; ``pytest --help`` never pays for that.
    from pytest_legalbench.reference_backend.faults import FaultSpecError, parse_faults

    try:
        parse_faults(faults.text)
    except FaultSpecError as error:
        raise SettingsError(f"{faults.where}: {error}") from None
    if backend not in (None, "reference"):
        raise SettingsError(f"{faults.where}: faults are injected by the reference backend "
                            f"only")


def _gandr(changes: Sequence[str], where: str) -> tuple[str, ...]:
    try:
        with_overrides(changes)
    except ValueError as error:
        raise SettingsError(f"{where} {error}") from None
    return tuple(changes)


def _repeats(chosen: Chosen | None) -> int:
    if chosen is None or not chosen.text.strip():
        return DEFAULT_REPEATS
    return count_of(chosen)
