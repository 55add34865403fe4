"""Run llama.cpp's server on loopback with a packaged model, for conformance runs.

``python conformance/llama_server.py build`` builds (or finds) the server and the model and
prints where they are and how long the build took; ``serve`` also starts the server and
prints its base URL until interrupted (``--tools``: with the tool-capable chat template). From Python, ``LlamaServer`` is a context manager:
a random free port on 127.0.0.1, ``--jinja`` (tool use needs the model's chat template
rendered by the Jinja engine), a small context and one slot, stopped on exit.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.gguf_model import SMOLLM2, ensure_model
from conformance.llama_build import default_cache_dir, ensure_server

if TYPE_CHECKING:
    from typing import Self

#: Small enough to start fast and keep memory low; the conformance questions fit in it.
CONTEXT_TOKENS = 8192
#: The server's own sampling seed: llama.cpp's /v1/messages does not read a request's seed.
SERVER_SEED = 0
#: A chat template with tool use for SmolLM2 (its own has none): the kind "llama.cpp".
TOOL_TEMPLATE = Path(__file__).resolve().with_name("chatml_tools.jinja")


@dataclass(frozen=True)
class ServerSettings:
    """How the server is started."""

    binary: Path
    model: Path
    context: int = CONTEXT_TOKENS
    threads: int = 1
    """One: on a busy 2-core machine two threads spin at every barrier and generate six times
    slower (5.7 against 34.7 tokens/s measured with SmolLM2-135M while other jobs ran)."""
    seed: int = SERVER_SEED
    alias: str | None = None
    """The model id the server reports; None lets it name the model itself."""
    chat_template: Path | None = None
    """A Jinja chat template file replacing the model's own (``TOOL_TEMPLATE``); None keeps
    the model's."""

    def with_tools(self) -> ServerSettings:
        """These settings with the tool-capable chat template."""
        return dataclasses.replace(self, chat_template=TOOL_TEMPLATE)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """A running ``llama-server`` on loopback; ``base_url`` is valid inside the context."""

    def __init__(self, settings: ServerSettings, *, log: Path | None = None,
                 ready_timeout_s: float = 120.0) -> None:
        self.settings = settings
        self.log = log
        self.ready_timeout_s = ready_timeout_s
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._log_handle: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` of the running server."""
        if self._process is None:
            raise RuntimeError("the llama.cpp server is not running")
        return f"http://127.0.0.1:{self.port}"

    def command(self, port: int) -> list[str]:
        """The server's command line."""
        s = self.settings
        command = [str(s.binary), "--model", str(s.model), "--host", "127.0.0.1",
                   "--port", str(port), "--jinja", "--ctx-size", str(s.context),
                   "--parallel", "1", "--threads", str(s.threads), "--seed", str(s.seed),
                   "--no-webui"]
        if s.alias:
            command += ["--alias", s.alias]
        if s.chat_template is not None:
            command += ["--chat-template-file", str(s.chat_template)]
        return command

    def start(self) -> Self:
        """Start the server and wait until ``/health`` answers 200."""
        self.port = free_port()
        self._log_handle = open(self.log, "ab") if self.log else None  # noqa: SIM115
        target = self._log_handle if self._log_handle else subprocess.DEVNULL
        self._process = subprocess.Popen(self.command(self.port), stdout=target,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                code = self._process.returncode
                self.stop()
                raise RuntimeError(f"llama-server exited with status {code} while starting"
                                   + (f"; see {self.log}" if self.log else ""))
            if _healthy(f"http://127.0.0.1:{self.port}/health"):
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama-server did not become healthy in {self.ready_timeout_s:g} s")

    def stop(self) -> None:
        """Stop the server (terminate, then kill after 10 s) and close its log."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log_handle is not None:
            self._log_handle.close()
            self._log_handle = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return int(answer.status) == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def prepared(cache_dir: Path | None = None) -> tuple[ServerSettings, dict[str, object]]:
    """Build or find the server and the model; the settings and a report of how it went."""
    build = ensure_server(cache_dir)
    model = ensure_model(cache_dir)
    report: dict[str, object] = {
        "binary": str(build.binary), "llama_cpp_python": build.version,
        "built_now": build.built_now, "seconds": round(build.seconds, 1),
        "build_seconds": round(build.build_seconds, 1), "model": str(model),
        "model_package": f"{SMOLLM2.package}=={SMOLLM2.version}"}
    # The alias is the model id the server reports; without one it reports the file's path,
    # which differs from machine to machine.
    return ServerSettings(binary=build.binary, model=model, alias=model.name), report


def main(argv: list[str] | None = None) -> int:
    """``build`` or ``serve``; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("build", "serve"))
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help=f"cache folder (default {default_cache_dir()})")
    parser.add_argument("--tools", action="store_true",
                        help=f"serve with {TOOL_TEMPLATE.name}, a chat template with tool use")
    args = parser.parse_args(argv)
    settings, report = prepared(args.cache_dir)
    if args.tools:
        settings = settings.with_tools()
    print(json.dumps(report, indent=2))
    if args.action == "serve":
        with LlamaServer(settings) as server:
            print(f"serving {settings.model.name} at {server.base_url} (Ctrl-C stops)",
                  flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
