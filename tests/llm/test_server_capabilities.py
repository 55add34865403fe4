"""The capability table: each rule changes a request only for the kind that needs it."""

from __future__ import annotations

import dataclasses
import json

import pytest

from pytest_legalbench.llm.json_text import instruction, parse_object
from pytest_legalbench.llm.server_capabilities import (
    CAPABILITIES,
    JSON_TEXT,
    SERVER_KINDS,
    adapt_request,
    capabilities,
    rules_text,
    unreported_fields,
)

SYSTEM = [{"type": "text", "text": "You answer questions about contracts."},
          {"type": "text", "text": "<documents>Fees are $445.</documents>",
           "cache_control": {"type": "ephemeral"}}]
REQUEST = {"max_tokens": 64, "system": SYSTEM,
           "messages": [{"role": "user", "content": "What are the fees?"}],
           "tools": [{"name": "record_verdict", "description": "d",
                      "input_schema": {"type": "object"}}],
           "tool_choice": {"type": "tool", "name": "record_verdict"},
           "extra_body": {"temperature": 0.7, "seed": 11}}


def test_every_kind_has_a_row_and_an_unknown_kind_is_refused() -> None:
    assert set(CAPABILITIES) == set(SERVER_KINDS)
    with pytest.raises(ValueError, match="unknown server kind 'ollama'"):
        capabilities("ollama")


@pytest.mark.parametrize("kind", ["claude", "reference", "generic", "vllm", "litellm"])
def test_kinds_without_rules_get_the_request_unchanged(kind: str) -> None:
    caps = capabilities(kind)
    assert not caps.has_rules and rules_text(caps) == "none"
    adapted = adapt_request(REQUEST, caps)
    assert json.dumps(adapted, sort_keys=True) == json.dumps(REQUEST, sort_keys=True)
    assert adapted is not REQUEST  # a copy: the caller's request is never edited


def test_llama_cpp_gets_one_system_string_joined_by_a_blank_line() -> None:
    adapted = adapt_request(REQUEST, capabilities("llama.cpp"))
    # The server would glue the blocks with nothing between them and ignore the cache mark.
    assert adapted["system"] == ("You answer questions about contracts.\n\n"
                                 "<documents>Fees are $445.</documents>")
    assert REQUEST["system"] == SYSTEM  # untouched


def test_llama_cpp_gets_no_seed_but_keeps_the_temperature() -> None:
    adapted = adapt_request(REQUEST, capabilities("llama.cpp"))
    assert adapted["extra_body"] == {"temperature": 0.7}
    only_seed = adapt_request({**REQUEST, "extra_body": {"seed": 3}}, capabilities("llama.cpp"))
    assert "extra_body" not in only_seed


def test_llama_cpp_keeps_forced_tool_use_naming_the_tool() -> None:
    adapted = adapt_request(REQUEST, capabilities("llama.cpp"))
    assert adapted["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert adapted["tools"] == REQUEST["tools"]
    assert rules_text(capabilities("llama.cpp")) == ("system blocks sent joined as one string; "
                                                     "seeds not sent; HTTP 500 not retried")


def test_llama_cpp_without_tool_use_differs_only_in_how_structure_is_asked() -> None:
    plain, no_tools = capabilities("llama.cpp"), capabilities("llama.cpp-no-tools")
    assert no_tools.structured == JSON_TEXT and plain.structured != JSON_TEXT
    assert dataclasses.replace(no_tools, kind=plain.kind, name=plain.name,
                               structured=plain.structured, notes=plain.notes) == plain
    assert rules_text(no_tools) == ("system blocks sent joined as one string; seeds not sent; "
                                    "structured output as JSON in the text, parsed strictly; "
                                    "HTTP 500 not retried")
    # The request itself is adapted alike; the client leaves the tools out (test_client_servers).
    assert adapt_request(REQUEST, no_tools) == adapt_request(REQUEST, plain)


def test_only_llama_cpp_rows_carry_rules_and_claim_to_be_verified() -> None:
    with_rules = sorted(kind for kind, caps in CAPABILITIES.items() if caps.has_rules)
    assert with_rules == ["llama.cpp", "llama.cpp-no-tools"]
    assert not capabilities("vllm").verified and not capabilities("litellm").verified
    assert not capabilities("llama.cpp").reports_cache_write
    assert capabilities("llama.cpp").reports_cache_read


def test_usage_fields_a_server_leaves_out_are_named() -> None:
    llama = {"cache_read_input_tokens": 12, "input_tokens": 30, "output_tokens": 4}
    assert unreported_fields(llama) == ("cache_creation_input_tokens",)
    assert unreported_fields({"input_tokens": 1, "output_tokens": 1}) == (
        "cache_creation_input_tokens", "cache_read_input_tokens")
    assert unreported_fields({"cache_creation_input_tokens": None,
                              "cache_read_input_tokens": 0}) == ("cache_creation_input_tokens",)
    claude = {"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 0,
              "cache_read_input_tokens": 0}
    assert unreported_fields(claude) == ()  # zeros that were reported are measurements


SCHEMA = {"type": "object", "properties": {"verdict": {"type": "string"}},
          "required": ["verdict"]}


def test_json_text_asks_for_one_bare_object_matching_the_schema() -> None:
    text = instruction("record_verdict", "Record the verdict.", SCHEMA)
    assert "'record_verdict'" in text and "exactly one JSON object" in text
    assert json.dumps(SCHEMA, sort_keys=True) in text


@pytest.mark.parametrize("reply, parsed", [
    ('{"verdict": "A"}', {"verdict": "A"}),
    ('  \n{"verdict": "tie"}\n', {"verdict": "tie"}),
    ('The verdict: {"verdict": "A"}', None),          # prose first
    ('{"verdict": "A"} because A is right', None),    # prose after
    ('```json\n{"verdict": "A"}\n```', None),         # a fence is not bare JSON
    ('{"verdict": "A"', None),                        # truncated
    ('["A"]', None),                                  # not an object
    ('{"verdict": "A"}{"verdict": "B"}', None),       # two objects
    ("", None),
])
def test_json_text_is_read_strictly(reply: str, parsed: dict[str, object] | None) -> None:
    assert parse_object(reply) == parsed
