"""The plugin's settings, resolved once: command line, then environment, then ini, then default."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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
    JUDGES,
)
from pytest_legalbench.files.locations import cache_dir


class SettingsError(ValueError):
    """A setting with a value the plugin cannot use; the message names the option."""


@dataclass(frozen=True)
class Option:
    """One setting: its command-line flag, ini key, environment variable and help."""

    name: str
    flag: str
    env: str | None
    help: str

    @property
    def ini(self) -> str:
        """The ini key mirroring the flag (``--legalbench-profile`` -> ``legalbench_profile``)."""
        return self.flag.lstrip("-").replace("-", "_")


OPTIONS = (
    Option("profile", "--legalbench-profile", "LEGALBENCH_PROFILE",
           f"corpus profile to benchmark. Default: {DEFAULT_PROFILE}"),
    Option("corpus_dir", "--legalbench-corpus-dir", CORPUS_ENV,
           f"folder holding the corpus mirror (CI: ../shared/corpus). Env: ${CORPUS_ENV}"),
    Option("cache_dir", "--legalbench-cache-dir", CACHE_ENV,
           f"cache folder for built indexes and downloads. Env: ${CACHE_ENV}"),
    Option("backend", "--legalbench-backend", "LEGALBENCH_BACKEND",
           "model backend: 'reference' (embedded, deterministic, no key, no network) or "
           "'anthropic' (Claude, or any Messages-API server with --legalbench-base-url). "
           "Default: anthropic when ANTHROPIC_API_KEY is set, else reference"),
    Option("base_url", "--legalbench-base-url", "ANTHROPIC_BASE_URL",
           "base URL of a Messages-API server (vLLM, llama.cpp, LiteLLM). Env: $ANTHROPIC_BASE_URL"),
    Option("answer_model", "--legalbench-answer-model", "LEGALBENCH_ANSWER_MODEL",
           f"model answering the questions. Default: {DEFAULT_ANSWER_MODEL}"),
    Option("judge_model", "--legalbench-judge-model", "LEGALBENCH_JUDGE_MODEL",
           f"model judging the answers. Default: {DEFAULT_JUDGE_MODEL}"),
    Option("judge", "--legalbench-judge", "LEGALBENCH_JUDGE",
           "judging protocol: reference-anchored (default), preference, forced (no ties; "
           "exact binomial test) or keyfacts (no judge model). Questions without a reference "
           "answer are always judged by preference"),
    Option("questions", "--legalbench-questions", None,
           "folder of question YAML files. Default: the profile's packaged question set"),
    Option("report", "--legalbench-report", None,
           "folder for results.json, report.md, verdicts.csv and cost.png (and the GANDR "
           "audit traces, gandr-traces/*.jsonl)"),
    Option("repeats", "--legalbench-repeats", "LEGALBENCH_REPEATS",
           f"seeded repeats per item of the GANDR systems, for Stable & Correct@k. "
           f"Default: {DEFAULT_REPEATS}"),
)

@dataclass(frozen=True)
class Settings:
    """Everything the plugin's fixtures need to know, fixed for the session."""

    profile: str
    corpus_dir: Path | None
    cache_dir: Path
    backend: str | None = None
    """The backend asked for; None lets the key decide (see ``client.resolve_backend``)."""
    base_url: str | None = None
    answer_model: str = DEFAULT_ANSWER_MODEL
    judge_model: str = DEFAULT_JUDGE_MODEL
    judge: str = "reference-anchored"
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

    def to_dict(self) -> dict[str, object]:
        """Plain builtins, so the settings can travel to xdist workers or into a report."""
        return {"profile": self.profile,
                "corpus_dir": str(self.corpus_dir) if self.corpus_dir else None,
                "cache_dir": str(self.cache_dir), "backend": self.backend,
                "base_url": self.base_url, "answer_model": self.answer_model,
                "judge_model": self.judge_model, "judge": self.judge,
                "report_dir": str(self.report_dir) if self.report_dir else None,
                "questions_dir": str(self.questions_dir) if self.questions_dir else None,
                "modes": list(self.modes), "fail_on_loss": self.fail_on_loss,
                "repeats": self.repeats, "gandr": list(self.gandr)}


def resolve_settings(
    cli: Mapping[str, str | None],
    ini: Mapping[str, str | None],
    env: Mapping[str, str],
    *,
    profiles: Callable[[], tuple[str, ...]],
    modes: Sequence[str] = (),
    fail_on_loss: bool = False,
    gandr: Sequence[str] = (),
) -> Settings:
    """Resolve every option by precedence and validate it; raise SettingsError on a bad value."""
    chosen: dict[str, str | None] = {}
    for option in OPTIONS:
        # Precedence: an explicit flag wins, then the environment, then the ini file.
        chosen[option.name] = (
            cli.get(option.name) or (env.get(option.env) if option.env else None)
            or ini.get(option.name) or None
        )
    profile = chosen["profile"] or DEFAULT_PROFILE
    known = profiles()
    if profile not in known:
        raise SettingsError(
            f"--legalbench-profile={profile!r} is not a known profile; choose from {', '.join(known)}"
        )
    corpus = Path(chosen["corpus_dir"]).expanduser() if chosen["corpus_dir"] else None
    if corpus is not None and not corpus.is_dir():
        raise SettingsError(f"--legalbench-corpus-dir={str(corpus)!r} is not a folder")
    backend = chosen["backend"]
    if backend is not None and backend not in BACKENDS:
        raise SettingsError(
            f"--legalbench-backend={backend!r} is not a backend; choose from {', '.join(BACKENDS)}"
        )
    judge = chosen["judge"] or DEFAULT_JUDGE
    if judge not in JUDGES:
        raise SettingsError(
            f"--legalbench-judge={judge!r} is not a judging protocol; choose from {', '.join(JUDGES)}"
        )
    # Imported here: mode parsing is cheap, but the modes package imports these settings.
    from pytest_legalbench.gandr.systems import parse_systems
    from pytest_legalbench.modes.registry import parse_mode

    resolved: list[str] = []
    for spec in modes or DEFAULT_MODES:
        try:
            systems = parse_systems(spec)
            resolved.extend(systems if systems is not None else [parse_mode(spec)])
        except ValueError as error:
            raise SettingsError(f"--mode={spec!r}: {error}") from None
    report = Path(chosen["report"]).expanduser() if chosen["report"] else None
    questions = Path(chosen["questions"]).expanduser() if chosen["questions"] else None
    if questions is not None and not questions.is_dir():
        raise SettingsError(f"--legalbench-questions={str(questions)!r} is not a folder")
    repeats = _repeats(chosen["repeats"])
    from pytest_legalbench.gandr.settings import with_overrides

    try:
        with_overrides(gandr)
    except ValueError as error:
        raise SettingsError(f"--legalbench-gandr {error}") from None
    return Settings(profile=profile, corpus_dir=corpus, cache_dir=cache_dir(chosen["cache_dir"]),
                    backend=backend, base_url=chosen["base_url"],
                    answer_model=chosen["answer_model"] or DEFAULT_ANSWER_MODEL,
                    judge_model=chosen["judge_model"] or DEFAULT_JUDGE_MODEL, judge=judge,
                    report_dir=report, questions_dir=questions, modes=tuple(dict.fromkeys(resolved)),
                    fail_on_loss=fail_on_loss, repeats=repeats, gandr=tuple(gandr))


def _repeats(value: str | None) -> int:
    if value is None or not str(value).strip():
        return DEFAULT_REPEATS
    try:
        repeats = int(str(value).strip())
    except ValueError:
        repeats = 0
    if repeats < 1:
        raise SettingsError(f"--legalbench-repeats={value!r}: expected a whole number of at "
                            f"least 1")
    return repeats
