"""Reading and writing cassette files for vcrpy: checked loads that fail loudly (a cassette
that is not one this package wrote names what is wrong with it), atomic saves, readable YAML.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.files.yaml_text import load_yaml

#: What a user can do about a cassette that cannot be used.
RERECORD_HINT = "delete it, or re-record it with --record-mode=rewrite"


class CassetteError(Exception):
    """A cassette file that cannot be used as it is."""


class AtomicPersister:
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
            interactions = _check_shape(load_yaml(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, yaml.YAMLError, _ShapeError) as error:
            raise CassetteError(f"cassette {path} cannot be read ({error}): "
                                f"{RERECORD_HINT}") from error
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
