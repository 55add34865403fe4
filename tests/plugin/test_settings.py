"""Resolving the plugin's settings: precedence and validation, without pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.plugin.options import OPTIONS, RETRIEVAL_OPTIONS, option
from pytest_legalbench.plugin.settings import resolve_mode_settings, resolve_settings
from pytest_legalbench.plugin.values import SettingsError


def _profiles() -> tuple[str, ...]:
    return ("cuad", "transactions")


def test_defaults(tmp_path: Path) -> None:
    settings = resolve_settings({}, {}, {"LEGALBENCH_CACHE_DIR": str(tmp_path)}, profiles=_profiles)
    assert settings.profile == "transactions" and settings.corpus_dir is None
    assert settings.cache_dir == tmp_path


def test_flag_beats_environment_beats_ini(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ini = {"profile": "cuad", "corpus_dir": str(tmp_path / "b")}
    env = {"LEGALBENCH_CORPUS_DIR": str(tmp_path / "a")}
    settings = resolve_settings({}, ini, env, profiles=_profiles)
    assert settings.profile == "cuad" and settings.corpus_dir == tmp_path / "a"
    settings = resolve_settings({"corpus_dir": str(tmp_path / "b"), "profile": "transactions"},
                                ini, env, profiles=_profiles)
    assert settings.profile == "transactions" and settings.corpus_dir == tmp_path / "b"


def test_bad_values_name_the_option(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"--legalbench-profile='nope'.*cuad, transactions"):
        resolve_settings({"profile": "nope"}, {}, {}, profiles=_profiles)
    with pytest.raises(SettingsError, match="--legalbench-corpus-dir=.*not a folder"):
        resolve_settings({"corpus_dir": str(tmp_path / "missing")}, {}, {}, profiles=_profiles)


def test_every_option_has_an_ini_key_named_after_its_flag() -> None:
    assert [o.ini for o in OPTIONS if o.in_ini] == [
        "legalbench_profile", "legalbench_docs", "legalbench_corpus_dir", "legalbench_cache_dir",
        "legalbench_backend", "legalbench_base_url", "legalbench_server_kind",
        "legalbench_timeout", "legalbench_answer_model", "legalbench_judge_model", "legalbench_judge",
        "legalbench_questions",
        "legalbench_report", "legalbench_faults", "legalbench_max_cost", "legalbench_repeats",
        "legalbench_fail_on_loss", "legalbench_skip_invalid", "legalbench_sample",
        "legalbench_batch", "legalbench_batch_fallback", "legalbench_batch_poll",
        "legalbench_journal_relay"]
    # Resuming a run, or only planning it, belongs to one invocation, never to an ini file.
    assert [o.flag for o in OPTIONS if not o.in_ini] == ["--legalbench-resume",
                                                         "--legalbench-plan"]


def test_the_journal_relay_is_loopback_unless_chosen_and_a_bad_address_is_named() -> None:
    assert resolve_settings({}, {}, {}, profiles=_profiles).journal_relay == ("127.0.0.1", 0)
    chosen = resolve_settings({}, {}, {"LEGALBENCH_JOURNAL_RELAY": "10.0.0.5:8765"},
                              profiles=_profiles)
    assert chosen.journal_relay == ("10.0.0.5", 8765)
    with pytest.raises(SettingsError, match=r"--legalbench-journal-relay='8765'.*HOST:PORT"):
        resolve_settings({"journal_relay": "8765"}, {}, {}, profiles=_profiles)


def test_gandr_systems_are_modes_and_gandr_all_names_all_six() -> None:
    chosen = resolve_settings({}, {}, {}, profiles=_profiles,
                              modes=["gandr:b2", "gandr:all", "navindex"])
    assert chosen.modes == ("gandr:b2", "gandr", "gandr:b1", "gandr:b3", "gandr:b4",
                            "gandr:b5", "navindex")
    with pytest.raises(SettingsError, match=r"--mode='gandr:b9'.*gandr:all"):
        resolve_settings({}, {}, {}, profiles=_profiles, modes=["gandr:b9"])


def test_gandr_overrides_are_checked_at_startup() -> None:
    chosen = resolve_settings({}, {}, {}, profiles=_profiles, gandr=["max_rounds=2"])
    assert chosen.gandr == ("max_rounds=2",) and to_builtins(chosen)["gandr"] == ["max_rounds=2"]
    with pytest.raises(SettingsError, match=r"--legalbench-gandr 'top=3'"):
        resolve_settings({}, {}, {}, profiles=_profiles, gandr=["top=3"])


def test_repeats_default_to_five_and_are_checked() -> None:
    assert resolve_settings({}, {}, {}, profiles=_profiles).repeats == 5
    assert resolve_settings({"repeats": "2"}, {}, {}, profiles=_profiles).repeats == 2
    assert resolve_settings({}, {"repeats": "3"}, {"LEGALBENCH_REPEATS": "4"},
                            profiles=_profiles).repeats == 4
    for bad in ("0", "two", "-1"):
        with pytest.raises(SettingsError, match=f"--legalbench-repeats='{bad}'"):
            resolve_settings({"repeats": bad}, {}, {}, profiles=_profiles)


def test_modes_default_to_navembed_and_navindex_and_resolve_strategies() -> None:
    from pytest_legalbench.modes.names import DEFAULT_STRATEGY

    assert resolve_settings({}, {}, {}, profiles=_profiles).modes == (
        f"navembed:{DEFAULT_STRATEGY}", "navindex")
    chosen = resolve_settings({}, {}, {}, profiles=_profiles,
                              modes=["navindex", "navembed:chunks", "navindex"])
    assert chosen.modes == ("navindex", "navembed:chunks")
    with pytest.raises(SettingsError, match="--mode='navembed:magic'"):
        resolve_settings({}, {}, {}, profiles=_profiles, modes=["navembed:magic"])


def test_judge_report_questions_and_fail_on_loss(tmp_path: Path) -> None:
    settings = resolve_settings({"judge": "forced", "report": str(tmp_path / "out"),
                                 "questions": str(tmp_path), "fail_on_loss": True}, {}, {},
                                profiles=_profiles)
    assert (settings.judge, settings.report_dir, settings.questions_dir,
            settings.fail_on_loss) == ("forced", tmp_path / "out", tmp_path, True)
    assert resolve_settings({}, {}, {}, profiles=_profiles).judge == "reference-anchored"
    with pytest.raises(SettingsError, match="--legalbench-judge='gut-feeling'"):
        resolve_settings({"judge": "gut-feeling"}, {}, {}, profiles=_profiles)
    with pytest.raises(SettingsError, match="--legalbench-questions=.* is not a folder"):
        resolve_settings({"questions": str(tmp_path / "absent")}, {}, {}, profiles=_profiles)


def test_backend_and_models(tmp_path: Path) -> None:
    settings = resolve_settings({}, {}, {}, profiles=_profiles)
    assert settings.backend is None
    assert (settings.answer_model, settings.judge_model) == ("claude-sonnet-4-6", "claude-opus-4-7")
    settings = resolve_settings({"backend": "anthropic", "judge_model": "m"}, {},
                                {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, profiles=_profiles)
    assert (settings.backend, settings.judge_model) == ("anthropic", "m")
    assert settings.base_url == "http://127.0.0.1:9"
    with pytest.raises(SettingsError, match="--legalbench-backend='openai' is not a backend"):
        resolve_settings({"backend": "openai"}, {}, {}, profiles=_profiles)


def test_settings_travel_as_plain_builtins(tmp_path: Path) -> None:
    settings = resolve_settings({"corpus_dir": str(tmp_path)}, {}, {}, profiles=_profiles)
    assert to_builtins(settings)["corpus_dir"] == str(tmp_path)


def test_retrieval_settings_resolve_by_the_same_precedence(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    ini = {"k": "5", "payload_budget_tokens": "4000"}
    env = {"LEGALBENCH_TOP_K": "7", "LEGALBENCH_EMBEDDING_MODEL": str(model)}
    chosen = resolve_settings({"payload_budget_tokens": "3000"}, ini, env, profiles=_profiles,
                              ).mode_settings
    assert (chosen.k, chosen.payload_budget_tokens, chosen.embedding_model) == (7, 3000,
                                                                                 str(model))
    # Untouched settings keep the defaults; the scans follow the answering model.
    assert chosen.scan_budget_tokens == 120_000 and chosen.definitions_per_node == 3
    scanned = resolve_settings({"answer_model": "my-model"}, {}, {}, profiles=_profiles)
    assert scanned.mode_settings.scan_model == scanned.mode_settings.titles_model == "my-model"
    assert [o.ini for o in RETRIEVAL_OPTIONS] == [
        "legalbench_top_k", "legalbench_payload_budget", "legalbench_scan_budget",
        "legalbench_definitions_per_node", "legalbench_embedding_model",
        "legalbench_embedding_backend", "legalbench_cross_encoder", "legalbench_context_window", "legalbench_agent_turns",
        "legalbench_agent_tokens", "legalbench_inject_scope"]
    assert all(o.env and o.cli for o in RETRIEVAL_OPTIONS)


@pytest.mark.parametrize(("given", "message"), [
    ({"k": "0"}, "--legalbench-top-k='0': expected a whole number of at least 1"),
    ({"scan_budget_tokens": "lots"}, "--legalbench-scan-budget='lots': expected a whole"),
    ({"embedding_backend": "tensorflow"},
     "--legalbench-embedding-backend='tensorflow': choose one of torch, torch-bf16, onnx-int8"),
    ({"cross_encoder": "/no/such/folder"},
     "--legalbench-cross-encoder='/no/such/folder' is not a folder"),
    ({"inject_scope": "everything"},
     "--legalbench-inject-scope='everything': choose one of auto, corpus, set"),
])
def test_bad_retrieval_settings_name_the_option(given: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(")):
        resolve_settings(given, {}, {}, profiles=_profiles)


def test_the_command_line_names_its_own_flags() -> None:
    with pytest.raises(SettingsError, match="--top-k='-2'"):
        resolve_mode_settings({"k": "-2"}, {}, {}, from_cli=True)
    assert resolve_mode_settings({}, {}, {"LEGALBENCH_CONTEXT_WINDOW": "1000"},
                                 from_cli=True).context_window == 1000


def test_a_docs_folder_needs_questions_about_it(tmp_path: Path) -> None:
    docs, questions = tmp_path / "docs", tmp_path / "questions"
    docs.mkdir()
    questions.mkdir()
    with pytest.raises(SettingsError, match="--legalbench-docs needs --legalbench-questions"):
        resolve_settings({"docs": str(docs)}, {}, {}, profiles=_profiles)
    with pytest.raises(SettingsError, match="--legalbench-docs='.*missing' is not a folder"):
        resolve_settings({"docs": str(tmp_path / "missing"), "questions": str(questions)}, {},
                         {}, profiles=_profiles)
    chosen = resolve_settings({"questions": str(questions)}, {},
                              {"LEGALBENCH_DOCS": str(docs)}, profiles=_profiles)
    assert chosen.docs_dir == docs and to_builtins(chosen)["docs_dir"] == str(docs)


def test_the_server_kind_is_checked_and_auto_by_default() -> None:
    assert resolve_settings({}, {}, {}, profiles=_profiles).server_kind is None
    chosen = resolve_settings({}, {}, {"LEGALBENCH_SERVER_KIND": "llama.cpp"},
                              profiles=_profiles)
    assert chosen.server_kind == "llama.cpp"
    with pytest.raises(SettingsError, match="--legalbench-server-kind='ollama' is not a server "
                                            "kind; choose from auto, claude"):
        resolve_settings({"server_kind": "ollama"}, {}, {}, profiles=_profiles)


@pytest.mark.parametrize(("cli", "ini", "env", "message"), [
    ({}, {}, {"LEGALBENCH_PAYLOAD_BUDGET": "abc"},
     "LEGALBENCH_PAYLOAD_BUDGET='abc': expected a whole number of at least 1"),
    ({}, {"payload_budget_tokens": "abc"}, {},
     "ini key legalbench_payload_budget='abc': expected a whole number of at least 1"),
    ({"payload_budget_tokens": "abc"}, {"payload_budget_tokens": "5"},
     {"LEGALBENCH_PAYLOAD_BUDGET": "6"},
     "--legalbench-payload-budget='abc': expected a whole number of at least 1"),
    ({}, {}, {"LEGALBENCH_PROFILE": "nope"}, "LEGALBENCH_PROFILE='nope' is not a known profile"),
    ({}, {"judge": "coin"}, {}, "ini key legalbench_judge='coin' is not a judging protocol"),
    ({}, {}, {"LEGALBENCH_BACKEND": "openai"}, "LEGALBENCH_BACKEND='openai' is not a backend"),
    ({}, {}, {"LEGALBENCH_SERVER_KIND": "ollama"},
     "LEGALBENCH_SERVER_KIND='ollama' is not a server kind"),
    ({}, {}, {"LEGALBENCH_MAX_COST": "lots"}, "LEGALBENCH_MAX_COST='lots': expected a positive"),
    ({}, {}, {"LEGALBENCH_TIMEOUT": "soon"},
     "LEGALBENCH_TIMEOUT='soon': expected a positive number of seconds"),
    ({}, {"timeout": "0"}, {}, "ini key legalbench_timeout='0': expected a positive number"),
    ({"timeout": "inf"}, {}, {}, "--legalbench-timeout='inf': expected a positive number"),
    ({}, {"repeats": "0"}, {}, "ini key legalbench_repeats='0': expected a whole number"),
    ({}, {}, {"LEGALBENCH_FAULTS": "429:2"}, "LEGALBENCH_FAULTS: '429:2': a rate is between"),
    ({}, {}, {"LEGALBENCH_EMBEDDING_BACKEND": "tf"},
     "LEGALBENCH_EMBEDDING_BACKEND='tf': choose one of torch, torch-bf16, onnx-int8"),
    ({}, {"fail_on_loss": "maybe"}, {},
     "ini key legalbench_fail_on_loss='maybe': expected true or false"),
])
def test_a_bad_value_names_where_it_came_from(cli: dict[str, str], ini: dict[str, str],
                                              env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(")):
        resolve_settings(cli, ini, env, profiles=_profiles)


def test_a_bad_mode_or_gandr_change_names_where_it_came_from() -> None:
    with pytest.raises(SettingsError, match="ini key mode='navembed:magic'"):
        resolve_settings({}, {}, {}, profiles=_profiles, modes=["navembed:magic"],
                         modes_from="ini key mode")
    with pytest.raises(SettingsError, match="ini key legalbench_gandr 'top=3'"):
        resolve_settings({}, {}, {}, profiles=_profiles, gandr=["top=3"],
                         gandr_from="ini key legalbench_gandr")


def test_switches_and_the_resumed_run_are_settings(tmp_path: Path) -> None:
    plain = resolve_settings({}, {}, {}, profiles=_profiles)
    assert (plain.fail_on_loss, plain.skip_invalid, plain.resume_dir) == (False, False, None)
    chosen = resolve_settings({"skip_invalid": True, "resume": str(tmp_path)},
                              {"fail_on_loss": True}, {}, profiles=_profiles)
    assert (chosen.fail_on_loss, chosen.skip_invalid, chosen.resume_dir) == (True, True,
                                                                             tmp_path)
    # pytest reads an unset bool ini key as False: the switch stays off.
    assert not resolve_settings({}, {"skip_invalid": False}, {},
                                profiles=_profiles).skip_invalid
    # An ini file cannot resume a run.
    assert resolve_settings({}, {"resume": str(tmp_path)}, {},
                            profiles=_profiles).resume_dir is None


def test_help_texts_end_their_sentence_before_the_environment_variable() -> None:
    assert option("k").help_text().endswith(". Default: 10. Env: $LEGALBENCH_TOP_K")
    assert option("questions").help_text() == option("questions").help
    for each in (*OPTIONS, *RETRIEVAL_OPTIONS):
        assert "Env:" not in each.help, each.name  # added once, by help_text()


def test_the_sample_and_the_inject_scope_resolve_and_are_checked() -> None:
    chosen = resolve_settings({}, {}, {}, profiles=_profiles)
    assert chosen.sample is None and chosen.mode_settings.inject_scope == "auto"
    chosen = resolve_settings({"sample": "300"}, {}, {"LEGALBENCH_INJECT_SCOPE": "set"},
                              profiles=_profiles)
    assert chosen.sample == 300 and chosen.mode_settings.inject_scope == "set"
    assert resolve_settings({}, {"sample": "20", "inject_scope": "corpus"}, {},
                            profiles=_profiles).sample == 20
    for bad in ("0", "many", "-5"):
        with pytest.raises(SettingsError, match=f"LEGALBENCH_SAMPLE='{bad}': expected a whole"):
            resolve_settings({}, {}, {"LEGALBENCH_SAMPLE": bad}, profiles=_profiles)
