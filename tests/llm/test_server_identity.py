"""How the client learns which server a base URL names: asked once, or named by a setting."""

from __future__ import annotations

import socket

import pytest

from pytest_legalbench.llm.server_identity import (
    ServerIdentity,
    host_of,
    identify,
    is_claude,
    probe,
    resolve_identity,
)
from tests.support.fake_messages import FakeMessages, Reply

#: What llama.cpp's server (llama-cpp-python 0.3.36's vendored llama.cpp) answered to
#: GET /v1/models in the conformance run, trimmed to the fields the rule reads and a few more.
LLAMA_MODELS = {"object": "list", "data": [{
    "id": "SmolLM2-135M-Instruct.Q4_1.gguf", "object": "model", "owned_by": "llamacpp",
    "aliases": [], "tags": [], "meta": {"n_ctx": 8192, "n_vocab": 49152}}]}
VLLM_MODELS = {"object": "list", "data": [{"id": "Qwen/Qwen3-8B", "object": "model",
                                           "owned_by": "vllm"}]}
#: GET /props of that server, trimmed: SmolLM2's chat template has no tool use.
LLAMA_PROPS = {"total_slots": 1, "build_info": "b1-0c1e570", "chat_template_caps": {
    "supports_system_role": True, "supports_tool_calls": False, "supports_tools": False}}


def test_the_model_list_names_llama_cpp_and_vllm() -> None:
    assert identify(LLAMA_MODELS, {}) == ("llama.cpp", "SmolLM2-135M-Instruct.Q4_1.gguf")
    assert identify(VLLM_MODELS, {"Content-Type": "application/json"}) == ("vllm",
                                                                          "Qwen/Qwen3-8B")


def test_litellm_is_known_by_its_headers_and_anything_else_is_generic() -> None:
    openai_like = {"data": [{"id": "gpt-x", "owned_by": "openai"}]}
    assert identify(openai_like, {"x-litellm-version": "1.80.0"}) == ("litellm", "gpt-x")
    assert identify(openai_like, {}) == ("generic", "gpt-x")
    assert identify("not json at all", {}) == ("generic", None)
    assert identify({"data": []}, {}) == ("generic", None)


def test_claude_is_never_asked() -> None:
    assert is_claude(None) and is_claude("https://api.anthropic.com")
    assert not is_claude("http://127.0.0.1:8080")
    found = resolve_identity(None)
    assert found == ServerIdentity("claude", "api.anthropic.com", "Anthropic's API")
    assert not found.third_party and found.label == "claude"


def test_a_setting_names_the_kind_without_asking() -> None:
    # Port 9 is closed: had anything been asked, the answer would have been "generic".
    found = resolve_identity("http://127.0.0.1:9", "llama.cpp")
    assert found.kind == "llama.cpp" and found.how == "named by --legalbench-server-kind"
    assert found.label == "messages-api at 127.0.0.1:9"
    with pytest.raises(ValueError, match="server kind 'ollama' is not one of auto, claude"):
        resolve_identity("http://127.0.0.1:9", "ollama")


def test_a_llama_cpp_server_is_identified_and_asked_about_tool_use() -> None:
    gets = {"/v1/models": Reply(body=LLAMA_MODELS), "/props": Reply(body=LLAMA_PROPS)}
    with FakeMessages(gets=gets) as server:
        found = resolve_identity(server.base_url, "auto", api_key="local")
        assert server.get_paths == ["/v1/models", "/props"] and server.requests == []
        assert found.label == f"messages-api at {host_of(server.base_url)}"
    assert found.kind == "llama.cpp-no-tools" and found.third_party
    assert found.model == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert found.how == "GET /v1/models (llama.cpp) and GET /props (supports_tools False)"


def test_a_llama_cpp_template_with_tool_use_keeps_forced_tools() -> None:
    props = {"chat_template_caps": {"supports_tools": True}}
    gets = {"/v1/models": Reply(body=LLAMA_MODELS), "/props": Reply(body=props)}
    with FakeMessages(gets=gets) as server:
        assert resolve_identity(server.base_url).kind == "llama.cpp"
    # Known by its Server header alone, and /props unanswered: tool use is assumed.
    gets = {"/v1/models": Reply(body={"data": []}, headers={"Server": "llama.cpp"})}
    with FakeMessages(gets=gets) as server:
        found = resolve_identity(server.base_url)
    assert found.kind == "llama.cpp" and "GET /props failed" in found.how


def test_a_server_without_a_model_list_is_generic() -> None:
    with FakeMessages() as server:
        found = probe(server.base_url)
    assert found.kind == "generic" and found.how == "GET /v1/models answered HTTP 404"
    assert not found.caps.has_rules


def test_no_server_at_all_is_generic_and_fast() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    found = probe(f"http://127.0.0.1:{port}", timeout_s=2)
    assert found.kind == "generic" and found.how.startswith("GET /v1/models failed")


def test_unknown_kinds_cannot_be_built() -> None:
    with pytest.raises(ValueError, match="unknown server kind"):
        ServerIdentity("ollama", "127.0.0.1:1", "test")
