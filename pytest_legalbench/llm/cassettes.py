"""Recording and replaying model calls with vcrpy: one YAML cassette per benchmark item.

Requests are matched on method, path and a digest of the canonical JSON body, never on host,
port or headers, and only that digest is written: an inject prompt's corpus prefix never reaches
disk. Stored headers are reduced to a fixed allow-list, so a re-recording of the same calls is
byte-identical on any machine. ``vcr`` is imported inside functions, so importing this module
stays cheap.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yaml

from pytest_legalbench.defaults import BACKENDS
from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.files.file_names import safe_name
from pytest_legalbench.llm.redaction import Redactor

#: The values of pytest-recording's ``--record-mode``.
RECORD_MODES = ("none", "once", "new_episodes", "all", "rewrite")

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
# Headers the SDK or a report reads; everything else (keys, user agents, dates, request ids,
# rate-limit counters, cookies) identifies an account or machine, or changes between runs.
# content-encoding survives only when vcrpy could not decode the body, and replay then needs it.
_KEPT_REQUEST_HEADERS = frozenset({"anthropic-beta", "anthropic-version", "content-type"})
_KEPT_RESPONSE_HEADERS = frozenset({"content-encoding", "content-type", "retry-after",
                                    "retry-after-ms", "x-should-retry", "x-legalbench-backend"})
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_RERECORD_HINT = "delete it, or re-record it with --record-mode=rewrite"


class CassetteError(Exception):
    """A cassette file that cannot be used as it is."""


class CassetteMissing(CassetteError):
    """Replay needs a cassette that was never recorded, and this backend cannot record it now."""


@dataclass
class CassetteUse:
    """What one ``use_cassette`` block did; ``played`` and ``recorded`` are final after it."""

    path: Path
    recording: bool = False
    played: int = 0
    recorded: int = 0


@dataclass(frozen=True)
class CassettePlan:
    """Where a session's calls are recorded and how: one cassette per (group, name)."""

    root: Path
    backend: str
    record_mode: str
    """pytest-recording's ``--record-mode``; ``none`` replays only."""
    recorder: Any = None
    """The ``vcr.VCR`` to record with (``new_recorder()``, after pytest-recording's
    ``pytest_recording_configure`` hook saw it); None builds a fresh one per cassette."""

    @contextmanager
    def scope(self, group: str, name: str) -> Iterator[CassetteUse]:
        """Record to or replay from the cassette of ``name`` in ``group`` for the block."""
        path = cassette_file(self.root, self.backend, group, name)
        with use_cassette(path, record_mode=self.record_mode, backend=self.backend,
                          recorder=self.recorder) as use:
            yield use


@contextmanager
def recorded(plan: CassettePlan | None, group: str, name: str) -> Iterator[None]:
    """The plan's cassette for ``name`` in ``group`` around the block; no plan, no recording."""
    if plan is None:
        yield
        return
    with plan.scope(group, name):
        yield


def cassette_file(root: Path, backend: str, group: str, name: str) -> Path:
    """Return ``root/<backend>/<group>/<name>.yaml`` with group and name made file-name safe."""
    _check_backend(backend)
    if not name:
        raise ValueError("a cassette needs a non-empty name")
    if not group:
        raise ValueError(f"cassette {name!r} needs a non-empty group")
    return root / backend / safe_name(group) / f"{safe_name(name)}.yaml"


def cassette_size(root: Path) -> tuple[int, int]:
    """Return the number of cassette files under ``root`` and their total size in bytes."""
    if not root.is_dir():
        return 0, 0
    # Hidden names are the atomic writer's temporary files, never finished cassettes.
    sizes = [path.stat().st_size for path in root.rglob("*.yaml")
             if path.is_file() and not path.name.startswith(".")]
    return len(sizes), sum(sizes)


@contextmanager
def use_cassette(path: Path, *, record_mode: str, backend: str,
                 recorder: Any = None) -> Iterator[CassetteUse]:
    """Record to or replay from ``path`` every HTTP call the anthropic SDK makes in the block."""
    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode {record_mode!r} is not one of {', '.join(RECORD_MODES)}")
    _check_backend(backend)
    if path.is_dir():
        raise CassetteError(f"cassette {path} is a folder, not a file: {_RERECORD_HINT}")
    fresh = record_mode in ("all", "rewrite")
    vcr_mode = "all" if fresh else record_mode
    if record_mode == "none" and not path.exists():
        if backend != "reference":
            raise CassetteMissing(
                f"no cassette at {path}, and --record-mode=none only replays for backend "
                f"{backend!r}: record it by running with --record-mode=once and "
                "ANTHROPIC_API_KEY set")
        # The reference backend is local and free, so a new item's cassette is recorded on
        # its first run: adding a question is adding a file.
        vcr_mode = "once"
    persister = _AtomicPersister(fresh=fresh)
    context = (recorder or new_recorder()).use_cassette(
        str(path), record_mode=vcr_mode, persister=persister,
        # A half-finished block must not leave a partial "once" cassette that later replays
        # miss on, nor replace a good file on "all"; new_episodes keeps whatever it paid for.
        record_on_exception=vcr_mode == "new_episodes")
    use = CassetteUse(path)
    new = 0
    try:
        with context as cassette:
            use.recording = not cassette.write_protected
            loaded = len(cassette)
            try:
                yield use
            finally:
                use.played = cassette.play_count
                new = len(cassette) - loaded
        if use.recording and persister.saved == 0 and (fresh or not path.exists()):
            # A block that sent nothing still leaves its file, so a later replay of an item that
            # makes no calls finds a cassette instead of reporting it missing.
            persister.save_cassette(path, {"requests": [], "responses": []})
    finally:
        use.recorded = new if persister.saved else 0


def body_digest(body: bytes | str | None) -> str | None:
    """Return ``sha256:<hex>`` of the canonical JSON of ``body`` (raw bytes if not JSON)."""
    if not body:
        return None
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    if _DIGEST.fullmatch(raw.decode("ascii", errors="replace")):
        return raw.decode("ascii")  # already a digest: stored requests pass through again
    try:
        canonical = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):
        canonical = raw
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r} is not one of {', '.join(BACKENDS)}")


#: Redacts key-shaped strings only: for a recorder that was told no key.
_KEY_SHAPES_ONLY = Redactor()


def _scrub_request(request: Any) -> Any:
    """The request as stored and matched: digest body, allow-listed headers, no loopback port."""
    request.body = body_digest(request.body_bytes)
    request.headers = {name.lower(): value for name, value in request.headers.items()
                       if name.lower() in _KEPT_REQUEST_HEADERS}
    parts = urlsplit(request.uri)
    if parts.hostname in _LOOPBACK_HOSTS and parts.port is not None:
        # A local server's port is chosen per run; keeping it would make re-recordings differ.
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        request.uri = urlunsplit(parts._replace(netloc=host))
    return request


def _scrub_response(response: dict[str, Any], redact: Redactor = _KEY_SHAPES_ONLY,
                    ) -> dict[str, Any]:
    """The response as stored: only allow-listed headers, and no secret in the body (a
    server may echo the key in an error)."""
    headers = response.get("headers") or {}
    response["headers"] = {name.lower(): list(values) for name, values in headers.items()
                           if name.lower() in _KEPT_RESPONSE_HEADERS}
    body = response.get("body")
    if isinstance(body, dict) and isinstance(body.get("string"), (str, bytes)):
        raw = body["string"]
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        cleaned = redact(text)
        if cleaned != text:
            body["string"] = cleaned.encode("utf-8") if isinstance(raw, bytes) else cleaned
    return response


def cassette_miss(error: BaseException) -> str | None:
    """What went wrong when ``error`` (or an exception it was raised from) is a replay that
    found no recorded response for a request; None for any other failure."""
    from vcr.errors import CannotOverwriteExistingCassetteException

    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, CannotOverwriteExistingCassetteException):
            path = getattr(getattr(current, "cassette", None), "path", None)
            where = f" in cassette {path}" if path else ""
            return f"no recorded response matches this request (cassette miss){where}"
        current = current.__cause__ or current.__context__
    return None


def _same_body(new: Any, recorded: Any) -> None:
    """vcrpy matcher: the two requests' body digests are equal (raises AssertionError if not)."""
    if body_digest(new.body_bytes) != body_digest(recorded.body_bytes):
        raise AssertionError("the request bodies differ (compared by digest)")


def new_recorder(redact: Redactor | None = None) -> Any:
    """A ``vcr.VCR`` matching on method, path and body digest, scrubbing what it stores
    (``redact`` names the run's key; key-shaped strings go whatever it is)."""
    import vcr

    chosen = redact or _KEY_SHAPES_ONLY
    recorder = vcr.VCR(
        match_on=("method", "path", "body_digest"), decode_compressed_response=True,
        before_record_request=_scrub_request,
        before_record_response=lambda response: _scrub_response(response, chosen))
    recorder.register_matcher("body_digest", _same_body)
    return recorder


class _AtomicPersister:
    """vcrpy persister: checked loads that fail loudly, atomic saves, readable YAML."""

    def __init__(self, *, fresh: bool) -> None:
        self.fresh = fresh
        self.saved = 0

    def load_cassette(self, cassette_path: str, serializer: Any = None) -> tuple[list[Any],
                                                                                list[Any]]:
        """Return the stored (requests, responses); vcrpy's not-found error if there are none."""
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.request import Request

        path = Path(cassette_path)
        if self.fresh or not path.exists():
            raise CassetteNotFoundError(cassette_path)
        try:
            # libyaml's safe loader when built: the same data (checked on every committed
            # cassette), read about 8x faster than the pure-Python one.
            interactions = _check_shape(yaml.load(path.read_text(encoding="utf-8"),
                                                  Loader=getattr(yaml, "CSafeLoader",
                                                                 yaml.SafeLoader)))
        except (OSError, UnicodeDecodeError, yaml.YAMLError, _ShapeError) as error:
            raise CassetteError(f"cassette {path} cannot be read ({error}): "
                                f"{_RERECORD_HINT}") from error
        requests = [Request(r["method"], r["uri"], r["body"], r["headers"])
                    for r, _ in interactions]
        # vcrpy replays bytes; the file holds text wherever the body was UTF-8.
        responses = [{**response, "body": {"string": _as_bytes(response["body"]["string"])}}
                     for _, response in interactions]
        return requests, responses

    def save_cassette(self, cassette_path: str | Path, cassette_dict: Mapping[str, Any],
                      serializer: Any = None) -> None:
        """Write the interactions atomically: a reader sees the old file or the new one."""
        interactions = [{"request": _request_dict(request), "response": _response_dict(response)}
                        for request, response in zip(cassette_dict["requests"],
                                                     cassette_dict["responses"], strict=True)]
        text = yaml.safe_dump({"version": 1, "interactions": interactions}, allow_unicode=True,
                              sort_keys=True, default_flow_style=False, width=1 << 30)
        write_text_atomic(Path(cassette_path), text)
        self.saved += 1


def _request_dict(request: Any) -> dict[str, Any]:
    body = request.body_bytes
    return {"method": request.method, "uri": request.uri,
            "body": body.decode("utf-8") if isinstance(body, bytes) else body,
            "headers": {name: [value] for name, value in sorted(request.headers.items())}}


def _response_dict(response: Mapping[str, Any]) -> dict[str, Any]:
    body = response["body"]["string"]
    with contextlib.suppress(UnicodeDecodeError):  # readable text; other bodies stay !!binary
        body = body.decode("utf-8") if isinstance(body, bytes) else body
    return {"status": dict(response["status"]), "headers": dict(response["headers"]),
            "body": {"string": body}}


def _as_bytes(text: str | bytes) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else text


class _ShapeError(ValueError):
    """The YAML parsed but is not a cassette this module wrote."""


def _check_shape(data: object) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The (request, response) mappings of a parsed cassette, checked for the fields replay uses."""
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise _ShapeError("not a vcrpy cassette: no list of interactions")
    if data.get("version") != 1:
        raise _ShapeError(f"unsupported cassette version {data.get('version')!r}")
    checked = []
    for number, item in enumerate(data["interactions"], start=1):
        request = item.get("request") if isinstance(item, dict) else None
        response = item.get("response") if isinstance(item, dict) else None
        if not isinstance(request, dict) or not isinstance(response, dict):
            raise _ShapeError(f"interaction {number}: no request and response")
        problem = _request_problem(request) or _response_problem(response)
        if problem:
            raise _ShapeError(f"interaction {number}: {problem}")
        checked.append((request, response))
    return checked


def _request_problem(request: dict[str, Any]) -> str:
    if not isinstance(request.get("method"), str) or not isinstance(request.get("uri"), str):
        return "the request has no method or uri"
    if not isinstance(request.get("body"), (str, bytes, type(None))):
        return "the request body is not text"
    return "" if _headers_ok(request.get("headers")) else "malformed request headers"


def _response_problem(response: dict[str, Any]) -> str:
    status = response.get("status")
    if not isinstance(status, dict) or isinstance(status.get("code"), bool) \
            or not isinstance(status.get("code"), int):
        return "the response has no status code"
    if not isinstance(status.get("message", 0), (str, type(None))):
        return "the response status has no message"
    body = response.get("body")
    if not isinstance(body, dict) or not isinstance(body.get("string"), (str, bytes)):
        return "the response has no body string"
    return "" if _headers_ok(response.get("headers")) else "malformed response headers"


def _headers_ok(headers: object) -> bool:
    return isinstance(headers, dict) and all(
        isinstance(name, str) and isinstance(values, list)
        and all(isinstance(value, str) for value in values)
        for name, values in headers.items())
