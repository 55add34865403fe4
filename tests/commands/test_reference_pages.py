"""The documentation's generated reference pages: the committed ones are current, and they hold
every option, ini key, environment variable and subcommand there is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_legalbench.commands.cli import build_parser, main
from pytest_legalbench.commands.markdown_text import cell, sentence
from pytest_legalbench.commands.options_page import RecordingParser, registered
from pytest_legalbench.commands.reference_pages import REGENERATE, generated_pages, stale_pages

pytest_plugins = ("pytester",)

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def test_the_committed_pages_are_what_the_generator_writes() -> None:
    stale = stale_pages(DOCS, build_parser())
    assert not stale, (f"out of date: {', '.join(f'docs/{page}' for page in stale)}; "
                       f"regenerate with {REGENERATE} and commit the result")


def test_the_pages_are_in_the_site_nav() -> None:
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert all(f": {page}" in nav for page in generated_pages(build_parser()))


def test_every_flag_pytest_lists_is_on_the_options_page(pytester: pytest.Pytester) -> None:
    """Against pytest's own --help, so an option registered anywhere in the plugin counts."""
    # A fresh process loads the plugin through its entry point, as a user's pytest does; an
    # in-process run depends on what earlier tests of the same worker left registered.
    shown = pytester.runpytest_subprocess("--help").stdout.str()
    flags = set(re.findall(r"(--legalbench-[a-z0-9-]+|--mode)\b", shown))
    assert len(flags) > 30
    page = generated_pages(build_parser())["reference/options.md"]
    assert {f for f in flags if f"`{f}" not in page} == set()


def test_every_ini_key_is_on_the_options_page() -> None:
    page = generated_pages(build_parser())["reference/options.md"]
    keys = [key.name for key in registered().ini]
    assert "mode" in keys and "legalbench_gandr" in keys
    assert [key for key in keys if f"`{key}`" not in page] == []


def test_every_environment_variable_the_package_reads_is_on_the_options_page() -> None:
    source = "\n".join(path.read_text(encoding="utf-8")
                       for path in (REPO / "pytest_legalbench").rglob("*.py"))
    named = set(re.findall(r"\b((?:LEGALBENCH|ANTHROPIC)_[A-Z_]+)\b", source))
    assert {"LEGALBENCH_CORPUS_DIR", "LEGALBENCH_USER_AGENT", "ANTHROPIC_API_KEY"} <= named
    page = generated_pages(build_parser())["reference/options.md"]
    assert sorted(name for name in named if f"`{name}`" not in page) == []


def test_every_subcommand_and_its_arguments_are_on_the_cli_page() -> None:
    page = generated_pages(build_parser())["reference/cli.md"]
    commands = next(a for a in build_parser()._actions if a.dest == "command")
    assert commands.choices is not None
    for name, sub in commands.choices.items():
        assert f"## `legalbench {name}`" in page
        for action in sub._actions:
            for flag in action.option_strings:
                if flag in ("-h", "--help"):
                    continue  # every subcommand's, said once at the top of the page
                assert f"`{flag}" in page or f", {flag}" in page, (name, flag)


def test_argparse_defaults_are_filled_in() -> None:
    page = generated_pages(build_parser())["reference/cli.md"]
    assert "%(" not in page
    assert "(default: D4)" in page and "(default: 8765)" in page


def test_the_check_names_a_stale_page_and_writing_fixes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "cli.md").write_text("old\n", encoding="utf-8")
    assert main(["docs-reference", "--docs", str(tmp_path), "--check"]) == 1
    err = capsys.readouterr().err
    assert "reference/cli.md is out of date" in err and "reference/options.md" in err
    assert REGENERATE in err
    assert main(["docs-reference", "--docs", str(tmp_path), "-q"]) == 0
    assert main(["docs-reference", "--docs", str(tmp_path), "--check"]) == 0
    assert (tmp_path / "reference" / "options.md").read_text(encoding="utf-8") == \
        generated_pages(build_parser())["reference/options.md"]


def test_the_recording_parser_keeps_what_it_is_given() -> None:
    parser = RecordingParser()
    group = parser.getgroup("g", "a group")
    group.addoption("--x-y", action="append", metavar="V", help="h")
    group.addoption("--flag", action="store_true", help="f")
    parser.addini("x_y", help="ini help", type="args")
    assert [(f.names, f.repeatable, f.switch, f.ini_name) for f in parser.flags] == [
        (("--x-y",), True, False, "x_y"), (("--flag",), False, True, "flag")]
    assert [(k.name, k.type) for k in parser.ini] == [("x_y", "args")]


@pytest.mark.parametrize(("text", "expected"), [
    ("a | b", "a \\| b"),
    ("writes <doc>.index.json", "writes &lt;doc&gt;.index.json"),
    ("gandr-traces/*.jsonl and\n  more", "gandr-traces/\\*.jsonl and more"),
])
def test_a_cell_escapes_what_markdown_would_read_as_markup(text: str, expected: str) -> None:
    assert cell(text) == expected


def test_a_sentence_starts_with_a_capital_and_ends_with_a_stop() -> None:
    assert sentence("print the table") == "Print the table."
    assert sentence("done.") == "Done."
    assert sentence("") == ""
