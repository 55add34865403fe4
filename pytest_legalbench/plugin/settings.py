"""Every setting, resolved once by one rule: command line, then environment, then ini, then
default. The pytest plugin and the ``legalbench`` command both resolve through here, so a
retrieval setting (``k``, the payload budget, the embedding model, ...) means the same in a
benchmark run and in ``legalbench retrieve``.

Pure: no pytest import. Values come in as the strings a user wrote; bad ones raise
``SettingsError`` naming the option.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal, InvalidOperation
from pathlib import Path

from pytest_legalbench.defaults import (
    BACKENDS,
    CACHE_ENV,
    CORPUS_ENV,
    DEFAULT_ANSWER_MODEL,
    DEFAULT_JUDGE,
    DEFAULT_JUDGE_MODEL,
    DEFAULT_MODES,
    DEFAULT_PROFILE,
    DEFAULT_REPEATS,
    EMBEDDING_BACKENDS,
    JUDGES,
)
from pytest_legalbench.files.locations import default_cache_dir
from pytest_legalbench.gandr.settings import with_overrides
from pytest_legalbench.gandr.systems import parse_systems
from pytest_legalbench.llm.server_identity import AUTO, KIND_CHOICES
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.names import parse_mode


class SettingsError(ValueError):
    """A setting with a value that cannot be used; the message names the option."""


@dataclass(frozen=True)
class Option:
    """One setting: its pytest flag (and ini key), its ``legalbench`` flag, its environment
    variable and its help."""

    name: str
    flag: str
    env: str | None
    help: str
    cli: str | None = None
    """The ``legalbench`` command's flag for it; None when the command has no such option."""

    @property
    def ini(self) -> str:
        """The ini key mirroring the flag (``--legalbench-profile`` -> ``legalbench_profile``)."""
        return self.flag.lstrip("-").replace("-", "_")

    def shown(self, *, cli: bool) -> str:
        """The option as the user wrote it, for error messages."""
        return (self.cli if cli and self.cli else self.flag)


_DEFAULTS = ModeSettings()

OPTIONS = (
    Option("profile", "--legalbench-profile", "LEGALBENCH_PROFILE",
           f"corpus profile to benchmark. Default: {DEFAULT_PROFILE}"),
    Option("docs", "--legalbench-docs", "LEGALBENCH_DOCS",
           "folder of .txt/.htm/.html documents to benchmark instead of a profile (with "
           "--legalbench-questions about them)"),
    Option("corpus_dir", "--legalbench-corpus-dir", CORPUS_ENV,
           f"folder holding the corpus mirror (CI: ../shared/corpus). Env: ${CORPUS_ENV}",
           cli="--corpus-dir"),
    Option("cache_dir", "--legalbench-cache-dir", CACHE_ENV,
           f"cache folder for built indexes, vectors and downloads. Env: ${CACHE_ENV}; "
           f"default: $XDG_CACHE_HOME/pytest-legalbench", cli="--cache-dir"),
    Option("backend", "--legalbench-backend", "LEGALBENCH_BACKEND",
           "model backend: 'reference' (embedded, deterministic, no key, no network) or "
           "'anthropic' (Claude, or any Messages-API server with --legalbench-base-url). "
           "Default: anthropic when ANTHROPIC_API_KEY is set, else reference", cli="--backend"),
    Option("base_url", "--legalbench-base-url", "ANTHROPIC_BASE_URL",
           "base URL of a Messages-API server (vLLM, llama.cpp, LiteLLM). "
           "Env: $ANTHROPIC_BASE_URL", cli="--base-url"),
    Option("server_kind", "--legalbench-server-kind", "LEGALBENCH_SERVER_KIND",
           f"kind of the Messages-API server at the base URL, for its capability rules: "
           f"{', '.join(KIND_CHOICES)}. Default: {AUTO} (asked once, GET /v1/models)",
           cli="--server-kind"),
    Option("answer_model", "--legalbench-answer-model", "LEGALBENCH_ANSWER_MODEL",
           f"model answering the questions (and scanning for navindex and titles). "
           f"Default: {DEFAULT_ANSWER_MODEL}"),
    Option("judge_model", "--legalbench-judge-model", "LEGALBENCH_JUDGE_MODEL",
           f"model judging the answers. Default: {DEFAULT_JUDGE_MODEL}"),
    Option("judge", "--legalbench-judge", "LEGALBENCH_JUDGE",
           "judging protocol: reference-anchored (default), preference, forced (no ties; "
           "exact binomial test) or keyfacts (no judge model). Questions without a reference "
           "answer are always judged by preference"),
    Option("questions", "--legalbench-questions", None,
           "folder of question YAML files. Default: the profile's packaged question set"),
    Option("report", "--legalbench-report", None,
           "folder for results.json, report.md, verdicts.csv, cost.png, recall_payload.png "
           "and report.html, one self-contained page of the summary and every item (GANDR: "
           "gandr-results.json and its audit traces, gandr-traces/*.jsonl)"),
    Option("faults", "--legalbench-faults", "LEGALBENCH_FAULTS",
           "faults the reference backend injects, as KIND:RATE,... (kinds: 429, 529, 500, "
           "timeout, reset, short, malformed, bad-text, bad-block; seed:N, max:N, "
           "stall:SECONDS), e.g. 429:0.2,529:0.1,timeout:0.05; needs --disable-recording"),
    Option("max_cost", "--legalbench-max-cost", "LEGALBENCH_MAX_COST",
           "dollars the run may spend at the price card's rates: it stops cleanly before a "
           "call that could take it past them (summary and journal kept)"),
    Option("repeats", "--legalbench-repeats", "LEGALBENCH_REPEATS",
           f"seeded repeats per item of the GANDR systems, for Stable & Correct@k. "
           f"Default: {DEFAULT_REPEATS}"),
)

#: The retrieval settings (``ModeSettings`` fields), shared by every mode.
RETRIEVAL_OPTIONS = (
    Option("k", "--legalbench-top-k", "LEGALBENCH_TOP_K",
           f"provisions an embedding-ranked navembed strategy returns. Default: {_DEFAULTS.k}",
           cli="--top-k"),
    Option("payload_budget_tokens", "--legalbench-payload-budget", "LEGALBENCH_PAYLOAD_BUDGET",
           f"hard maximum of every mode's payload (the provisions it returns) in tokens. "
           f"Default: {_DEFAULTS.payload_budget_tokens}", cli="--payload-budget"),
    Option("scan_budget_tokens", "--legalbench-scan-budget", "LEGALBENCH_SCAN_BUDGET",
           f"index size in tokens above which navindex and titles first pick documents "
           f"(two-stage scan). Default: {_DEFAULTS.scan_budget_tokens}", cli="--scan-budget"),
    Option("definitions_per_node", "--legalbench-definitions-per-node",
           "LEGALBENCH_DEFINITIONS_PER_NODE",
           f"definitions a chosen provision brings per clause it holds (navindex's fetch and "
           f"the closure strategies), the least widely used first. Default: {_DEFAULTS.definitions_per_node}", cli="--definitions-per-node"),
    Option("embedding_model", "--legalbench-embedding-model", "LEGALBENCH_EMBEDDING_MODEL",
           "folder of a sentence-transformers model (loaded by path, never downloaded). "
           "Default: the packaged all-MiniLM-L6-v2", cli="--embedding-model"),
    Option("embedding_backend", "--legalbench-embedding-backend",
           "LEGALBENCH_EMBEDDING_BACKEND",
           f"how the embedding model runs: {', '.join(EMBEDDING_BACKENDS)} (the same weights "
           f"exported once to ONNX with int8 matrix products, cached; needs onnxruntime and "
           f"onnx). Default: {_DEFAULTS.embedding_backend}", cli="--embedding-backend"),
    Option("cross_encoder", "--legalbench-cross-encoder", "LEGALBENCH_CROSS_ENCODER",
           "folder of a cross-encoder for navembed:rerank and GANDR's B3 (none ships; "
           "without one both are reported unavailable)", cli="--cross-encoder"),
    Option("context_window", "--legalbench-context-window", "LEGALBENCH_CONTEXT_WINDOW",
           f"context window of the answering model in tokens (inject refuses a corpus that "
           f"does not fit). Default: {_DEFAULTS.context_window}", cli="--context-window"),
    Option("agent_turns", "--legalbench-agent-turns", "LEGALBENCH_AGENT_TURNS",
           f"navigation turns navagent's model may take before it must answer. "
           f"Default: {_DEFAULTS.agent_turns}", cli="--agent-turns"),
    Option("agent_tokens", "--legalbench-agent-tokens", "LEGALBENCH_AGENT_TOKENS",
           f"input tokens navagent's navigation turns may attend in total (the answering "
           f"turn comes on top). Default: {_DEFAULTS.agent_tokens}", cli="--agent-tokens"),
)

#: ``ModeSettings`` fields that are whole numbers of at least 1.
_COUNTS = frozenset(f.name for f in fields(ModeSettings) if f.type in ("int", int))
#: ``ModeSettings`` fields that name a local folder.
_FOLDERS = frozenset({"embedding_model", "cross_encoder"})
#: ``ModeSettings`` fields that take one of a few names.
_CHOICES = {"embedding_backend": EMBEDDING_BACKENDS}


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
    answer_model: str = DEFAULT_ANSWER_MODEL
    judge_model: str = DEFAULT_JUDGE_MODEL
    judge: str = DEFAULT_JUDGE
    report_dir: Path | None = None
    questions_dir: Path | None = None
    """None means the profile's packaged question set."""
    modes: tuple[str, ...] = ()
    """Resolved mode names (``navembed:hybrid``), in the order given."""
    fail_on_loss: bool = False
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

    def to_dict(self) -> dict[str, object]:
        """Plain builtins, so the settings can travel to xdist workers or into a report."""
        return {"profile": self.profile,
                "docs_dir": str(self.docs_dir) if self.docs_dir else None,
                "corpus_dir": str(self.corpus_dir) if self.corpus_dir else None,
                "cache_dir": str(self.cache_dir), "backend": self.backend,
                "base_url": self.base_url, "server_kind": self.server_kind,
                "answer_model": self.answer_model,
                "judge_model": self.judge_model, "judge": self.judge,
                "report_dir": str(self.report_dir) if self.report_dir else None,
                "questions_dir": str(self.questions_dir) if self.questions_dir else None,
                "modes": list(self.modes), "fail_on_loss": self.fail_on_loss,
                "repeats": self.repeats, "gandr": list(self.gandr), "faults": self.faults,
                "max_cost": None if self.max_cost is None else str(self.max_cost),
                "mode_settings": {f.name: getattr(self.mode_settings, f.name)
                                  for f in fields(self.mode_settings)}}


def choose(options: Sequence[Option], cli: Mapping[str, object | None],
           ini: Mapping[str, object | None], env: Mapping[str, str]) -> dict[str, str | None]:
    """Each option's value by precedence: an explicit flag, then the environment, then ini."""
    chosen: dict[str, str | None] = {}
    for option in options:
        value = (cli.get(option.name) or (env.get(option.env) if option.env else None)
                 or ini.get(option.name) or None)
        chosen[option.name] = None if value is None else str(value)
    return chosen


def resolve_cache_dir(chosen: str | None) -> Path:
    """The cache folder: the chosen value, else ``$XDG_CACHE_HOME/pytest-legalbench``."""
    return Path(chosen).expanduser() if chosen else default_cache_dir()


def resolve_corpus_dir(chosen: str | None, *, cli: bool = False) -> Path | None:
    """The corpus mirror folder, checked to be a folder; None when none was given."""
    if not chosen:
        return None
    folder = Path(chosen).expanduser()
    if not folder.is_dir():
        option = next(o for o in OPTIONS if o.name == "corpus_dir")
        raise SettingsError(f"{option.shown(cli=cli)}={chosen!r} is not a folder")
    return folder


def resolve_mode_settings(cli: Mapping[str, object | None], ini: Mapping[str, object | None],
                          env: Mapping[str, str], *, answer_model: str = DEFAULT_ANSWER_MODEL,
                          from_cli: bool = False) -> ModeSettings:
    """The retrieval settings by the same precedence; the scanning models (and navagent's
    navigation outside a benchmark) follow the answering model."""
    chosen = choose(RETRIEVAL_OPTIONS, cli, ini, env)
    values: dict[str, object] = {"scan_model": answer_model, "titles_model": answer_model}
    for option in RETRIEVAL_OPTIONS:
        text = chosen[option.name]
        if text is None or not text.strip():
            continue
        shown = option.shown(cli=from_cli)
        if option.name in _COUNTS:
            values[option.name] = _count(shown, text)
        elif option.name in _CHOICES and text not in _CHOICES[option.name]:
            raise SettingsError(f"{shown}={text!r}: choose one of "
                                f"{', '.join(_CHOICES[option.name])}")
        elif option.name in _FOLDERS:
            folder = Path(text).expanduser()
            if not folder.is_dir():
                raise SettingsError(f"{shown}={text!r} is not a folder; models are loaded by "
                                    f"path and never downloaded")
            values[option.name] = str(folder)
        else:
            values[option.name] = text
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
    fail_on_loss: bool = False,
    gandr: Sequence[str] = (),
) -> Settings:
    """Resolve every option by precedence and validate it; raise SettingsError on a bad value."""
    chosen = choose(OPTIONS, cli, ini, env)
    profile = chosen["profile"] or DEFAULT_PROFILE
    known = profiles()
    if profile not in known:
        raise SettingsError(f"--legalbench-profile={profile!r} is not a known profile; "
                            f"choose from {', '.join(known)}")
    backend = chosen["backend"]
    if backend is not None and backend not in BACKENDS:
        raise SettingsError(f"--legalbench-backend={backend!r} is not a backend; choose from "
                            f"{', '.join(BACKENDS)}")
    server_kind = chosen["server_kind"]
    if server_kind is not None and server_kind not in KIND_CHOICES:
        raise SettingsError(f"--legalbench-server-kind={server_kind!r} is not a server kind; "
                            f"choose from {', '.join(KIND_CHOICES)}")
    judge = chosen["judge"] or DEFAULT_JUDGE
    if judge not in JUDGES:
        raise SettingsError(f"--legalbench-judge={judge!r} is not a judging protocol; "
                            f"choose from {', '.join(JUDGES)}")
    report = Path(chosen["report"]).expanduser() if chosen["report"] else None
    questions = Path(chosen["questions"]).expanduser() if chosen["questions"] else None
    if questions is not None and not questions.is_dir():
        raise SettingsError(f"--legalbench-questions={str(questions)!r} is not a folder")
    docs = Path(chosen["docs"]).expanduser() if chosen["docs"] else None
    if docs is not None and not docs.is_dir():
        raise SettingsError(f"--legalbench-docs={str(docs)!r} is not a folder")
    if docs is not None and questions is None:
        # The profile's packaged questions are about the profile's documents, not these.
        raise SettingsError("--legalbench-docs needs --legalbench-questions: a folder of "
                            "questions about those documents")
    answer_model = chosen["answer_model"] or DEFAULT_ANSWER_MODEL
    faults = chosen["faults"]
    if faults is not None:
        from pytest_legalbench.reference_backend.faults import FaultSpecError, parse_faults

        try:
            parse_faults(faults)
        except FaultSpecError as error:
            raise SettingsError(f"--legalbench-faults: {error}") from None
        if backend not in (None, "reference"):
            raise SettingsError("--legalbench-faults: faults are injected by the reference "
                                "backend only")
    return Settings(
        profile=profile, docs_dir=docs, corpus_dir=resolve_corpus_dir(chosen["corpus_dir"]),
        cache_dir=resolve_cache_dir(chosen["cache_dir"]), backend=backend,
        base_url=chosen["base_url"], server_kind=server_kind, answer_model=answer_model,
        judge_model=chosen["judge_model"] or DEFAULT_JUDGE_MODEL, judge=judge,
        report_dir=report, questions_dir=questions, modes=resolve_modes(modes),
        fail_on_loss=fail_on_loss, repeats=_repeats(chosen["repeats"]),
        gandr=_gandr(gandr), faults=faults, max_cost=_dollars(chosen["max_cost"]),
        mode_settings=resolve_mode_settings(cli, ini, env, answer_model=answer_model))


def resolve_modes(specs: Sequence[str]) -> tuple[str, ...]:
    """Canonical mode names (``gandr:all`` expanded), in order, each once."""
    resolved: list[str] = []
    for spec in specs or DEFAULT_MODES:
        try:
            systems = parse_systems(spec)
            resolved.extend(systems if systems is not None else [parse_mode(spec)])
        except ValueError as error:
            raise SettingsError(f"--mode={spec!r}: {error}") from None
    return tuple(dict.fromkeys(resolved))


def _gandr(changes: Sequence[str]) -> tuple[str, ...]:
    try:
        with_overrides(changes)
    except ValueError as error:
        raise SettingsError(f"--legalbench-gandr {error}") from None
    return tuple(changes)


def _count(shown: str, value: str) -> int:
    try:
        number = int(value.strip())
    except ValueError:
        number = 0
    if number < 1:
        raise SettingsError(f"{shown}={value!r}: expected a whole number of at least 1")
    return number


def _dollars(value: str | None) -> Decimal | None:
    if value is None or not value.strip():
        return None
    try:
        amount = Decimal(value.strip().removeprefix("$"))
    except InvalidOperation:
        amount = Decimal(-1)
    if not amount.is_finite() or amount <= 0:
        raise SettingsError(f"--legalbench-max-cost={value!r}: expected a positive number of "
                            f"dollars, e.g. 5 or 0.50")
    return amount


def _repeats(value: str | None) -> int:
    if value is None or not value.strip():
        return DEFAULT_REPEATS
    return _count("--legalbench-repeats", value)
