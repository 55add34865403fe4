"""Which server a base URL names, learned once per session.

The rule: no base URL, or Anthropic's own host, is Claude (nothing is asked). Any other base
URL is asked once, ``GET <base>/v1/models``, before the first model call: llama.cpp's server
lists its model ``owned_by`` ``llamacpp`` (and answers with ``Server: llama.cpp``), vLLM
``owned_by`` ``vllm``, and a LiteLLM proxy answers with ``x-litellm-*`` headers. Anything
else, including no answer, is ``generic``: no rules, the request exactly as to Claude. A
llama.cpp server is then asked ``GET /props`` whether its model's chat template has tool use
(``chat_template_caps.supports_tools``); without it the kind is ``llama.cpp-no-tools``. ``--legalbench-server-kind`` (``--server-kind``)
names the kind instead and nothing is asked, e.g. to replay cassettes recorded against a
server that is not running.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_legalbench.llm.server_capabilities import (
    SERVER_KINDS,
    THIRD_PARTY_KINDS,
    ServerCapabilities,
    capabilities,
)

#: A probe waits no longer than this: a replay must not hang on a server that is not there.
PROBE_TIMEOUT_S = 5.0
#: The setting's value that asks the server (the default).
AUTO = "auto"
KIND_CHOICES = (AUTO, *SERVER_KINDS)


@dataclass(frozen=True)
class ServerIdentity:
    """The kind of server calls go to, where it is, and how that was learned."""

    kind: str
    host: str
    """``host:port`` of the base URL (``api.anthropic.com`` for Claude)."""
    how: str
    """How the kind was learned, for the summary and error messages."""
    model: str | None = None
    """The model id the server lists, when it lists one."""

    def __post_init__(self) -> None:
        capabilities(self.kind)  # an unknown kind is an error here, not at the first call

    @property
    def caps(self) -> ServerCapabilities:
        """This kind's row of the capability table."""
        return capabilities(self.kind)

    @property
    def third_party(self) -> bool:
        """A server other than Claude and the reference backend, reached by base URL."""
        return self.kind in THIRD_PARTY_KINDS

    @property
    def label(self) -> str:
        """How records and summaries name the server: ``messages-api at HOST`` for a
        third-party server, the kind itself otherwise."""
        return f"messages-api at {self.host}" if self.third_party else self.kind


def host_of(base_url: str | None) -> str:
    """``host:port`` of a base URL; Anthropic's host when there is none."""
    if not base_url:
        return "api.anthropic.com"
    parts = urllib.parse.urlsplit(base_url)
    return parts.netloc or base_url


def is_claude(base_url: str | None) -> bool:
    """Whether a base URL names Claude's own API (none does too)."""
    return not base_url or host_of(base_url).split(":")[0].endswith("api.anthropic.com")


def identify(models: object, headers: Mapping[str, str]) -> tuple[str, str | None]:
    """The kind and model id a ``GET /v1/models`` answer shows (``generic`` when neither)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    entries = models.get("data") if isinstance(models, Mapping) else None
    first = entries[0] if isinstance(entries, list) and entries else None
    model = first.get("id") if isinstance(first, Mapping) else None
    model_id = model if isinstance(model, str) and model else None
    if any(name.startswith("x-litellm") for name in lowered):
        return "litellm", model_id
    owners = {entry.get("owned_by") for entry in entries or () if isinstance(entry, Mapping)}
    if "llamacpp" in owners or lowered.get("server") == "llama.cpp":
        return "llama.cpp", model_id
    if "vllm" in owners:
        return "vllm", model_id
    return "generic", model_id


def resolve_identity(base_url: str | None, setting: str | None = None, *,
                     api_key: str | None = None,
                     timeout_s: float = PROBE_TIMEOUT_S) -> ServerIdentity:
    """The server a live backend's calls go to: named by ``setting``, else by the rule above."""
    host = host_of(base_url)
    if setting and setting != AUTO:
        if setting not in SERVER_KINDS:
            raise ValueError(f"server kind {setting!r} is not one of {', '.join(KIND_CHOICES)}")
        return ServerIdentity(setting, host, "named by --legalbench-server-kind")
    if is_claude(base_url):
        return ServerIdentity("claude", host, "Anthropic's API")
    assert base_url is not None  # is_claude() is true without one
    return probe(base_url, api_key=api_key, timeout_s=timeout_s)


def probe(base_url: str, *, api_key: str | None = None,
          timeout_s: float = PROBE_TIMEOUT_S) -> ServerIdentity:
    """Ask ``GET <base>/v1/models`` once; no usable answer makes the server ``generic``."""
    import urllib.error  # here, not at the top: the plugin's import (pytest --help) skips it

    host = host_of(base_url)
    try:
        headers, body = _get(base_url, "/v1/models", api_key, timeout_s)
    except urllib.error.HTTPError as error:
        return ServerIdentity("generic", host, f"GET /v1/models answered HTTP {error.code}")
    except (urllib.error.URLError, OSError, ValueError, RuntimeError) as error:
        # RuntimeError: pytest-recording's --block-network refuses the socket that way.
        return ServerIdentity("generic", host, f"GET /v1/models failed ({error})")
    kind, model = identify(body, headers)
    if kind != "llama.cpp":
        return ServerIdentity(kind, host, f"GET /v1/models ({kind})", model)
    try:
        _, props = _get(base_url, "/props", api_key, timeout_s)
    except (urllib.error.URLError, OSError, ValueError, RuntimeError) as error:
        return ServerIdentity(kind, host, f"GET /v1/models (llama.cpp); GET /props failed "
                                          f"({error}), so tool use is assumed", model)
    tools = template_has_tools(props)
    found = "llama.cpp" if tools is not False else "llama.cpp-no-tools"
    return ServerIdentity(found, host, f"GET /v1/models (llama.cpp) and GET /props "
                                       f"(supports_tools {tools})", model)


def template_has_tools(props: object) -> bool | None:
    """What llama.cpp's ``/props`` says of its chat template's tool use; None: it says nothing."""
    caps = props.get("chat_template_caps") if isinstance(props, Mapping) else None
    found = caps.get("supports_tools") if isinstance(caps, Mapping) else None
    return found if isinstance(found, bool) else None


def _get(base_url: str, path: str, api_key: str | None,
         timeout_s: float) -> tuple[dict[str, str], object]:
    import urllib.request

    request = urllib.request.Request(base_url.rstrip("/") + path,
                                     headers={"accept": "application/json"})
    if api_key:
        request.add_header("authorization", f"Bearer {api_key}")
        request.add_header("x-api-key", api_key)
    with urllib.request.urlopen(request, timeout=timeout_s) as answer:
        return dict(answer.headers.items()), json.loads(answer.read(1 << 20) or b"null")
