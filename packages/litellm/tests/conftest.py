"""The real LiteLLM proxy, started as processes on 127.0.0.1, in front of a local
upstream written here (OpenAI Chat, OpenAI Responses and Anthropic Messages compatible)
that records every request it receives and answers with scripted completions."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from toolerr._failopen import forget_causes

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")

MASTER_KEY = "sk-toolerr-test"
HOST = "127.0.0.1"


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Upstream:
    url: str
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def posts(self) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if r.method == "POST"]

    def last(self) -> Received:
        return self.posts()[-1]

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()


def chat_completion(model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def chat_chunks(model: str) -> list[dict[str, Any]]:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": model}
    return [
        {
            **base,
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": "do"}, "finish_reason": None}],
        },
        {**base, "choices": [{"index": 0, "delta": {"content": "ne"}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]


def response_object(model: str) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": model,
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 1,
            "output_tokens": 1,
            "total_tokens": 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def anthropic_message(model: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": "done"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _handler(upstream: Upstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _record(self) -> Received:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            received = Received(
                self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
            )
            with upstream.lock:
                upstream.requests.append(received)
            return received

        def _send(self, payload: Any, status: int = 200) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._record()
            if self.path.rstrip("/").endswith("/models"):
                self._send(
                    {"object": "list", "data": [{"id": "gpt-test", "object": "model", "owned_by": "t"}]}
                )
            else:
                self._send({"error": "not found"}, 404)

        def do_POST(self) -> None:
            received = self._record()
            body = received.json
            model = body.get("model", "m")
            path = self.path.split("?")[0].rstrip("/")
            if path.endswith("/chat/completions"):
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("connection", "close")
                    self.end_headers()
                    for chunk in chat_chunks(model):
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self._send(chat_completion(model))
            elif path.endswith("/responses"):
                self._send(response_object(model))
            elif path.endswith("/messages"):
                self._send(anthropic_message(model))
            else:
                self._send({"error": f"no route {path}"}, 404)

    return Handler


@contextlib.contextmanager
def serve_upstream() -> Iterator[Upstream]:
    """The local upstream on a free loopback port, in a thread."""
    server = ThreadingHTTPServer((HOST, 0), _handler(Upstream("")))
    state = Upstream(f"http://{HOST}:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(state)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def upstream() -> Iterator[Upstream]:
    with serve_upstream() as state:
        yield state


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


HOOK_FILE = """
import json, os
from litellm.integrations.custom_logger import CustomLogger
from toolerr_litellm import ToolErrorCallback

handler = ToolErrorCallback(
    model_groups={
        "codex-test": {"client": "codex"},
        "gpt-c1": {"form": "c1"},
    }
)


class Recorder(CustomLogger):
    \"\"\"What LiteLLM's logging sees of toolerr's report.\"\"\"

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
        params = kwargs.get("litellm_params") or {}
        metadata = params.get("metadata") or {}
        entry = metadata.get("toolerr")
        if entry is not None:
            with open(os.environ["TOOLERR_TEST_LOG"], "a") as out:
                out.write(json.dumps({"call_id": kwargs.get("litellm_call_id"), "toolerr": entry}) + "\\n")


recorder = Recorder()
"""


def write_config(
    directory: Path,
    upstream_url: str,
    *,
    hook: bool,
    hook_source: str | None = None,
    settings: dict[str, Any] | None = None,
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    models = []
    for name in ("gpt-test", "codex-test", "gpt-c1"):
        models.append(
            {
                "model_name": name,
                "litellm_params": {
                    "model": "openai/gpt-test",
                    "api_base": f"{upstream_url}/v1",
                    "api_key": "sk-up",
                },
            }
        )
    models.append(
        {
            "model_name": "claude-test",
            "litellm_params": {
                "model": "anthropic/claude-test",
                "api_base": upstream_url,
                "api_key": "sk-up",
            },
        }
    )
    settings = {"drop_params": False, "num_retries": 0, **(settings or {})}
    if hook:
        (directory / "toolerr_hook.py").write_text(textwrap.dedent(hook_source or HOOK_FILE))
        settings["callbacks"] = ["toolerr_hook.handler", "toolerr_hook.recorder"]
    config = {
        "model_list": models,
        "litellm_settings": settings,
        "router_settings": {"disable_cooldowns": True},
        "general_settings": {"master_key": MASTER_KEY},
    }
    path = directory / "config.yaml"
    path.write_text(json.dumps(config, indent=2))  # JSON is YAML
    return path


@dataclass
class Proxy:
    url: str
    process: subprocess.Popen[bytes]
    log: Path
    metadata_log: Path

    def logged(self) -> list[dict[str, Any]]:
        if not self.metadata_log.exists():
            return []
        return [json.loads(line) for line in self.metadata_log.read_text().splitlines() if line]


def launch_proxy(
    directory: Path,
    upstream_url: str,
    *,
    hook: bool = True,
    pythonpath: Sequence[str] = (),
    hook_source: str | None = None,
    settings: dict[str, Any] | None = None,
) -> Proxy:
    """A proxy process; ``pythonpath``: more import paths after the hook's directory (the
    benchmark runs an older toolerr tree this way); ``hook_source``: the module that
    defines ``handler`` and ``recorder`` instead of the tests' one; ``settings``: more
    ``litellm_settings`` (a Redis cache)."""
    config = write_config(directory, upstream_url, hook=hook, hook_source=hook_source, settings=settings)
    port = free_port()
    log = directory / "proxy.log"
    metadata_log = directory / "metadata.jsonl"
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
        "TOOLERR_TEST_LOG": str(metadata_log),
        "PYTHONPATH": os.pathsep.join([str(directory), *pythonpath]),
        "NO_PROXY": "*",
    }
    litellm = Path(sys.executable).parent / "litellm"
    with log.open("wb") as out:  # the child keeps its own descriptor
        process = subprocess.Popen(
            [str(litellm), "--config", str(config), "--host", HOST, "--port", str(port)],
            cwd=directory,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return Proxy(f"http://{HOST}:{port}", process, log, metadata_log)


def wait_ready(proxy: Proxy, timeout: float = 120) -> Proxy:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proxy.process.poll() is not None:
            raise RuntimeError(f"the LiteLLM proxy exited:\n{proxy.log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{proxy.url}/health/liveliness", timeout=2) as answer:
                if answer.status == 200:
                    return proxy
        except OSError:
            time.sleep(0.3)
    stop(proxy)
    raise RuntimeError(f"the LiteLLM proxy did not start:\n{proxy.log.read_text()[-4000:]}")


def start_proxy(directory: Path, upstream_url: str, *, hook: bool = True) -> Proxy:
    return wait_ready(launch_proxy(directory, upstream_url, hook=hook))


def stop(proxy: Proxy) -> None:
    proxy.process.terminate()
    try:
        proxy.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proxy.process.kill()


@pytest.fixture(scope="session")
def proxies(upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Proxy, Proxy]]:
    """Two proxy processes with the hook (a scaled-out gateway), started side by side."""
    base = tmp_path_factory.mktemp("proxies")
    started: list[Proxy] = []
    try:
        started.append(launch_proxy(base / "a", upstream.url))
        started.append(launch_proxy(base / "b", upstream.url))
        for proxy in started:
            wait_ready(proxy)
        yield started[0], started[1]
    finally:
        for proxy in started:
            stop(proxy)


@pytest.fixture
def proxy(proxies: tuple[Proxy, Proxy], upstream: Upstream) -> Proxy:
    upstream.clear()
    return proxies[0]


def pytest_configure(config: pytest.Config) -> None:
    # LiteLLM's own import-time and call-time warnings (its pydantic types), not ours.
    for line in (
        "ignore:.*using the `ReadOnly` qualifier:UserWarning",
        "ignore::DeprecationWarning:litellm.*",
        "ignore::pydantic.warnings.PydanticDeprecatedSince20",
        # LiteLLM keeps its cached HTTP clients open until the interpreter exits
        "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning",
        "ignore:unclosed <socket.socket:ResourceWarning",
    ):
        config.addinivalue_line("filterwarnings", line)


@pytest.fixture(autouse=True)
def _log_every_cause() -> None:
    """toolerr logs a swallowed error once per cause: each test sees its own."""
    forget_causes()
