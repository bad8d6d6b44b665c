"""ollama: the official Python client (``ollama.Client(host=...)``) behind an agent's
local-LLM tools, pointed at a local stand-in of an Ollama server. The client raises
``ResponseError`` (the server's ``{"error": ...}`` text and the HTTP status, or status -1
for an error line inside a stream), ``ConnectionError`` with its own "Failed to connect to
Ollama" text when the server cannot be reached, ``httpx``'s ``ReadTimeout`` /
``ReadError`` / ``RemoteProtocolError`` for a read that fails, pydantic's
``ValidationError`` when an argument or a reply does not fit its models,
``PydanticSerializationError`` wrapping its own ``ValueError`` for an image path that is not
there, ``ValueError`` for a web search without an API key, and ``JSONDecodeError`` for a 200
that is not JSON.

Statuses and texts are the server's own (github.com/ollama/ollama, server/routes.go:
``GenerateHandler`` / ``ChatHandler`` / ``EmbedHandler`` / ``PullHandler`` /
``DeleteHandler`` / ``ShowHandler`` and ``handleScheduleError``: 400 for a capability the
model lacks (``"x" does not support thinking / chat / generate``, ``<name> does not support
tools / insert``), ``raw mode does not support template, system, or context``,
``top_logprobs must be between 0 and 20``, ``think value "high" is not supported for this
model``, ``invalid model name``, ``name "x" is invalid``, ``destination "x" is invalid``,
``time: invalid duration "x"`` (the request's ``keep_alive`` as Go parses it); 404 ``model "x" not found, try
pulling it first`` / ``model 'x' not found``; 503 ``server busy, please try again.
maximum pending requests exceeded`` (``ErrMaxQueue``, server/sched.go); 500 for the rest:
``option "num_ctx" must be of type integer`` (api/types.go ``Options.FromMap``), ``model
requires more system memory (...) than is available (...)`` (llm/server.go), ``pull model
manifest: file does not exist`` (server/images.go), a runner that died, a template that
fails; an error line ``{"error": ...}`` in an NDJSON stream (``streamResponse``); 401
``{"error": "unauthorized", "signin_url": ...}`` for a cloud model when the server is not
signed in (``ChatHandler``); an empty 403 from the CORS middleware for an origin not in
``OLLAMA_ORIGINS``; 400 ``the input length exceeds the context length`` for an embedding
asked for with ``truncate: false``) (docs.ollama.com/api, "Errors": the body is
``{"error": "..."}``, errors in a stream come as an object with ``error``).

Labels, by the cause set up:

- fixable: an option of the wrong type, a capability asked of a model that lacks it
  (thinking, tools, fill-in-the-middle, chat or generate on an embedding model), raw mode
  with a system prompt, ``top_logprobs`` out of range, an effort level the model does not
  take, a model name or copy destination that is not a valid name, text over the context
  with truncation off, a ``keep_alive`` that is not a duration, ``create`` without a base, and the client's own checks of the model's arguments (a
  ``format`` other than ``json`` / a schema, a message without a role, an embedding input
  that is not text);
- unrecoverable: not enough memory on the machine for the model, disk full while pulling,
  a cloud model on a server not signed in, the CORS origin refused, a proxy's 401, a
  remote model the server is not allowed to run, a model build no longer compatible with
  the server, web search with no API key configured;
- ambiguous: a model that is not there (not pulled, deleted, or mistyped: the call cannot
  tell), a name not found in the registry, an image path that is not there, the model's
  own template failing, a runner that crashed, an error line in the middle of a stream,
  and replies the client cannot read (HTML, a reply of another shape);
- transient: the server's request queue full (503), a pull whose download from the
  registry broke off (the pull resumes), refused / DNS (not executed); a proxy's 502 / 504,
  read timeout, reset, close (unknown outcome).

Not triggered: the ollama.com cloud's own rate-limit and plan errors (not documented with a
body to copy), push errors (the registry's texts are not in the server's source).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "ollama"
REQUIRES = ["ollama==0.6.3"]

_SRC = "ollama server/routes.go (github.com/ollama/ollama); docs.ollama.com/api errors"
_SIGNIN = "https://ollama.com/connect?name=gpu-box&key=c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUF0N1FYYk5rbXA3"


def _e(status: int, message: str, source: str = _SRC, **extra: Any) -> Reply:
    return Reply(status, {"error": message, **extra}, {}, source)


def _nginx(status: int, title: str) -> Reply:
    page = f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"  # fmt: skip
    return Reply(status, page, {}, "nginx's default error page in front of the server")


def _stream(*lines: str) -> Reply:
    return Reply(
        200, "".join(line + "\n" for line in lines), {}, _SRC + " (streamResponse)", "application/x-ndjson"
    )


_PARAMS: dict[str, dict[str, Any]] = {
    "chat_local_model": {
        "type": "object",
        "properties": {
            "model": {"type": "string", "description": "Name of a local model, e.g. llama3.1:8b"},
            "message": {"type": "string", "description": "User message to send"},
            "role": {"type": "string", "description": "Role of the message (default user)"},
            "options": {"type": "object", "description": "Model options such as temperature or num_ctx"},
            "format": {"description": 'Output format: "json" or a JSON schema'},
            "think": {"description": "Enable thinking (true/false or low/medium/high)"},
            "use_tools": {"type": "boolean", "description": "Let the model call the workspace tools"},
            "keep_alive": {"type": "string", "description": "How long to keep the model loaded, e.g. 5m"},
            "logprobs": {"type": "boolean", "description": "Return log probabilities"},
            "top_logprobs": {"type": "integer", "description": "Number of top log probabilities per token"},
        },
        "required": ["model", "message"],
    },
    "generate_text": {
        "type": "object",
        "properties": {
            "model": {"type": "string", "description": "Name of a local model"},
            "prompt": {"type": "string", "description": "Prompt text"},
            "suffix": {
                "type": "string",
                "description": "Text after the insertion point (fill-in-the-middle)",
            },
            "system": {"type": "string", "description": "System prompt"},
            "raw": {"type": "boolean", "description": "Send the prompt without the model's template"},
            "stream": {"type": "boolean", "description": "Stream the answer"},
        },
        "required": ["model", "prompt"],
    },
    "describe_image": {
        "type": "object",
        "properties": {
            "model": {"type": "string", "description": "Name of a vision model"},
            "image_path": {"type": "string", "description": "Path of the image file in the workspace"},
            "question": {"type": "string", "description": "What to ask about the image"},
        },
        "required": ["model", "image_path"],
    },
    "embed_texts": {
        "type": "object",
        "properties": {
            "model": {"type": "string", "description": "Name of an embedding model"},
            "input": {"description": "Text or list of texts to embed"},
            "truncate": {
                "type": "boolean",
                "description": "Truncate inputs longer than the context (default true)",
            },
        },
        "required": ["model", "input"],
    },
    "pull_model": {
        "type": "object",
        "properties": {"model": {"type": "string", "description": "Model to download from the registry"}},
        "required": ["model"],
    },
    "show_model": {
        "type": "object",
        "properties": {"model": {"type": "string", "description": "Name of a local model"}},
        "required": ["model"],
    },
    "delete_model": {
        "type": "object",
        "properties": {"model": {"type": "string", "description": "Name of a local model"}},
        "required": ["model"],
    },
    "copy_model": {
        "type": "object",
        "properties": {
            "source": {"type": "string", "description": "Existing model name"},
            "destination": {"type": "string", "description": "New model name"},
        },
        "required": ["source", "destination"],
    },
    "create_model": {
        "type": "object",
        "properties": {
            "model": {"type": "string", "description": "Name of the model to create"},
            "from": {"type": "string", "description": "Base model"},
            "system": {"type": "string", "description": "System prompt baked into the model"},
        },
        "required": ["model"],
    },
    "list_models": {"type": "object", "properties": {}, "required": []},
    "web_search": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query"},
            "max_results": {"type": "integer", "description": "Number of results (default 3)"},
        },
        "required": ["query"],
    },
}

_LONG = "Quarterly report. " * 40

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    ("option-type", "chat_options", _e(500, 'option "num_ctx" must be of type integer'), F, None, "option given as text where an integer is expected"),
    ("think-unsupported", "chat_think", _e(400, '"llama3.2" does not support thinking'), F, None, "thinking asked of a model without it"),
    ("tools-unsupported", "chat_tools", _e(400, "registry.ollama.ai/library/gemma2:2b does not support tools"), F, None, "tools given to a model without tool support"),
    ("chat-embedding-model", "chat_embedder", _e(400, '"nomic-embed-text" does not support chat'), F, None, "chat asked of an embedding model"),
    ("generate-embedding-model", "generate_embedder", _e(400, '"nomic-embed-text" does not support generate'), F, None, "generate asked of an embedding model"),
    ("insert-unsupported", "generate_suffix", _e(400, "registry.ollama.ai/library/llama3.2:latest does not support insert"), F, None, "fill-in-the-middle asked of a model without it"),
    ("raw-with-system", "generate_raw", _e(400, "raw mode does not support template, system, or context"), F, None, "raw mode together with a system prompt"),
    ("top-logprobs-range", "chat_logprobs", _e(400, "top_logprobs must be between 0 and 20"), F, None, "top_logprobs over the maximum"),
    ("think-level-unsupported", "chat_think_level", _e(400, 'think value "high" is not supported for this model'), F, None, "thinking effort level the model does not take"),
    ("pull-invalid-name", "pull_bad", _e(400, "invalid model name"), F, None, "model name with characters a name may not have"),
    ("delete-invalid-name", "delete_bad", _e(400, 'name "llama3.1:" is invalid'), F, None, "model name with an empty tag"),
    ("embed-context", "embed_long", _e(400, "the input length exceeds the context length"), F, None, "text longer than the context with truncation off"),
    ("keep-alive-duration", "chat_keep_alive", _e(400, 'time: invalid duration "5 minutes"'), F, None, "keep_alive not a duration the server parses"),
    ("copy-invalid-destination", "copy_bad", _e(400, 'destination "support bot:v1" is invalid'), F, None, "destination name with a space"),
    ("create-no-base", "create_bare", _e(400, "neither 'from' or 'files' was specified"), F, None, "model created without a base"),
    # machine, configuration, sign-in
    ("memory", "chat_70b", _e(500, "model requires more system memory (38.4 GiB) than is available (14.8 GiB)"), U, None, "not enough memory on the machine for the model"),
    ("disk-full", "pull", _e(500, "write /usr/share/ollama/.ollama/models/blobs/sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa-partial-3: no space left on device"), U, None, "disk full while pulling"),
    ("cloud-unauthorized", "chat_cloud", _e(401, "unauthorized", signin_url=_SIGNIN), U, None, "cloud model on a server not signed in to ollama.com"),
    ("cors-forbidden", "chat", Reply(403, b"", {}, "gin-contrib/cors: origin not in OLLAMA_ORIGINS", "text/plain"), U, None, "tool's origin not allowed by the server"),
    ("proxy-401", "generate", Reply(401, "<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n<center><h1>401 Authorization Required</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", {"WWW-Authenticate": 'Basic realm="ollama"'}, "nginx auth_basic in front of the server"), U, None, "proxy in front of the server wants credentials the tool lacks"),
    ("remote-not-allowed", "chat_remote", _e(400, "this server cannot run this remote model"), U, None, "remote model not among the server's allowed remotes"),
    ("model-incompatible", "describe", _e(500, "'llama3.2-vision' is no longer compatible with your version of Ollama and has been replaced by a newer version. To re-download, run 'ollama pull llama3.2-vision'"), U, None, "installed model build no longer compatible with the server"),
    # not there, the server's state, the model's own files
    ("chat-not-found", "chat", _e(404, 'model "llama3.1:8b" not found, try pulling it first'), A, None, "model not pulled (or mistyped)"),
    ("generate-not-found", "generate_coder", _e(404, "model 'qwen2.5-coder:7b' not found"), A, None, "model not found"),
    ("show-not-found", "show", _e(404, "model 'mistral:7b' not found"), A, None, "model not found"),
    ("delete-not-found", "delete", _e(404, "model 'phi3:mini' not found"), A, None, "model to delete not found"),
    ("copy-not-found", "copy", _e(404, 'model "llama3.1:8b" not found'), A, None, "source model not found"),
    ("embed-not-found", "embed", _e(404, "model 'mxbai-embed-large' not found"), A, None, "embedding model not found"),
    ("pull-manifest", "pull_unknown", _e(500, "pull model manifest: file does not exist"), A, None, "model not in the registry"),
    ("create-base-missing", "create", _e(500, "pull model manifest: file does not exist"), A, None, "base model not found locally nor in the registry"),
    ("template-error", "chat", _e(500, 'template: :3:18: executing "" at <.Messages>: range can\'t iterate over {{- if .System }}'), A, None, "the model's stored template fails"),
    ("runner-crashed", "generate", _e(500, "llama runner process has terminated: exit status 2"), A, None, "model runner crashed"),
    ("stream-error", "generate_stream", _stream('{"model":"llama3.1:8b","created_at":"2026-12-01T00:00:00Z","response":"The","done":false}', '{"error":"an error was encountered while running the model: unexpected EOF"}'), A, None, "error reported in the middle of a stream"),
    ("html-200", "list", Reply(200, "<html><body><h1>Sign in</h1><p>Your session has expired.</p></body></html>"), A, None, "a proxy's HTML page instead of the model list"),
    ("reply-shape", "show", Reply(200, {"modelfile": "FROM llama3", "details": ["gguf"]}), A, None, "model details read back in another shape"),
    ("list-shape", "list", Reply(200, {"models": [{"model": "llama3.1:8b", "modified_at": "last week", "size": 4920753328}]}), A, None, "model list read back with a date it cannot read"),
    # load, outages
    ("queue-full", "chat", _e(503, "server busy, please try again.  maximum pending requests exceeded", "ollama server/sched.go ErrMaxQueue (OLLAMA_MAX_QUEUE)"), T, NE, "server's request queue full"),
    ("pull-download-broke", "pull_stream", _stream('{"status":"pulling manifest"}', '{"status":"pulling 6a0746a1ec1a","digest":"sha256:6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa","total":4920734272,"completed":1179648000}', '{"error":"max retries exceeded: EOF"}'), T, UO, "download from the registry broke off (the pull resumes)"),
    ("bad-gateway", "generate", _nginx(502, "502 Bad Gateway"), T, UO, "proxy could not reach the server (502)"),
    ("gateway-timeout", "chat", _nginx(504, "504 Gateway Time-out"), T, UO, "gateway timeout"),
]  # fmt: skip


def _calls(client: Any, tmp: Any) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the host is the tool's."""
    hi = "Summarise the release notes in three bullets."

    def chat(model: str = "llama3.1:8b", **kw: Any) -> tuple[str, dict[str, Any], Any]:
        args = {"model": model, "message": hi, **kw}
        sent = dict(kw)
        role = sent.pop("role", "user")
        if sent.pop("use_tools", False):
            sent["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": "read_file",
                        "description": "Read a file",
                        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
                    },
                }
            ]
        return ("chat_local_model", args, lambda: client.chat(model, [{"role": role, "content": hi}], **sent))

    def gen(
        model: str = "llama3.1:8b", prompt: str = "def fib(n):", **kw: Any
    ) -> tuple[str, dict[str, Any], Any]:
        args = {"model": model, "prompt": prompt, **kw}
        if kw.get("stream"):
            return ("generate_text", args, lambda: list(client.generate(model, prompt, **kw)))
        return ("generate_text", args, lambda: client.generate(model, prompt, **kw))

    def embed(
        model: str = "mxbai-embed-large", text: Any = "refund policy", **kw: Any
    ) -> tuple[str, dict[str, Any], Any]:
        return ("embed_texts", {"model": model, "input": text, **kw}, lambda: client.embed(model, text, **kw))

    def describe(path: str, model: str = "llama3.2-vision") -> tuple[str, dict[str, Any], Any]:
        q = "What is the total on this receipt?"
        full = str(tmp / path)
        return (
            "describe_image",
            {"model": model, "image_path": path, "question": q},
            lambda: client.chat(model, [{"role": "user", "content": q, "images": [full]}]),
        )

    return {
        "chat": chat(),
        "chat_70b": chat("llama3.1:70b"),
        "chat_options": chat(options={"num_ctx": "8k", "temperature": 0.2}),
        "chat_think": chat("llama3.2", think=True),
        "chat_think_level": chat("qwen3:8b", think="high"),
        "chat_tools": chat("gemma2:2b", use_tools=True),
        "chat_embedder": chat("nomic-embed-text"),
        "chat_cloud": chat("gpt-oss:120b-cloud"),
        "chat_remote": chat("deepseek-v3.1:671b-cloud"),
        "chat_logprobs": chat(logprobs=True, top_logprobs=50),
        "chat_format": chat(format="yaml"),
        "chat_role": chat(role=""),
        "chat_keep_alive": chat(keep_alive="5 minutes"),
        "generate": gen(),
        "generate_coder": gen("qwen2.5-coder:7b"),
        "generate_embedder": gen("nomic-embed-text", "hello"),
        "generate_suffix": gen("llama3.2", "def fib(n):", suffix="    return fib(n - 1) + fib(n - 2)"),
        "generate_raw": gen(prompt="[INST] hi [/INST]", raw=True, system="You are terse."),
        "generate_stream": gen(stream=True),
        "embed": embed(),
        "embed_long": embed("nomic-embed-text", _LONG, truncate=False),
        "embed_numbers": embed(text=[101, 2023, 2003]),
        "describe": describe("uploads/receipt.jpg"),
        "describe_missing": describe("uploads/receipt-0412.png"),
        "pull": ("pull_model", {"model": "llama3.1:70b"}, lambda: client.pull("llama3.1:70b")),
        "pull_bad": ("pull_model", {"model": "llama 3.1"}, lambda: client.pull("llama 3.1")),
        "pull_unknown": ("pull_model", {"model": "llama4.5:13b"}, lambda: client.pull("llama4.5:13b")),
        "pull_stream": ("pull_model", {"model": "llama3.1:8b"}, lambda: list(client.pull("llama3.1:8b", stream=True))),
        "show": ("show_model", {"model": "mistral:7b"}, lambda: client.show("mistral:7b")),
        "delete": ("delete_model", {"model": "phi3:mini"}, lambda: client.delete("phi3:mini")),
        "delete_bad": ("delete_model", {"model": "llama3.1:"}, lambda: client.delete("llama3.1:")),
        "copy_bad": ("copy_model", {"source": "llama3.1:8b", "destination": "support bot:v1"}, lambda: client.copy("llama3.1:8b", "support bot:v1")),
        "copy": ("copy_model", {"source": "llama3.1:8b", "destination": "support-bot"}, lambda: client.copy("llama3.1:8b", "support-bot")),
        "create": ("create_model", {"model": "support-bot", "from": "llama3.1:8b", "system": "You answer support tickets."}, lambda: client.create("support-bot", from_="llama3.1:8b", system="You answer support tickets.")),
        "create_bare": ("create_model", {"model": "support-bot", "system": "You answer support tickets."}, lambda: client.create("support-bot", system="You answer support tickets.")),
        "list": ("list_models", {}, lambda: client.list()),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    from ollama import Client

    (ctx.tmp / "uploads").mkdir()
    # a small JPEG the model named (the server then answers with the scenario's error)
    (ctx.tmp / "uploads" / "receipt.jpg").write_bytes(
        b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
    )

    def client(base: str, **kw: Any) -> Any:
        return Client(host=base, timeout=_saas.TIMEOUT, **kw)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(
            f"ollama-{cid}",
            LIBRARY,
            cause,
            kind,
            outcome,
            exc,
            tool,
            arguments=args,
            parameters=_PARAMS[tool],
        )

    with _saas.service(ctx, "OLLAMAPORT", "nginx") as svc:
        calls = _calls(client(svc.base), ctx.tmp)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)

        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {
                "refused": _saas.dead_base(ctx),
                "dns": "http://ollama.unreachable-host.invalid:11434",
            }.get(key, svc.base)
            for call in ("chat",) if key in ("refused", "dns") else ("chat", "pull"):
                tool, args, fn = _calls(client(base), ctx.tmp)[call]
                yield case(f"{key}-{call}", cause, kind, outcome, _saas.catch(fn), tool, args)

        # the client's own checks (nothing sent) and the tool's configuration
        svc.reply(Reply(200, {}))
        local = [
            ("format-not-json", "chat_format", F, "output format neither json nor a schema"),
            ("message-no-role", "chat_role", F, "message without a role"),
            ("embed-not-text", "embed_numbers", F, "embedding input given as token numbers, not text"),
            ("image-missing", "describe_missing", A, "image path the model named does not exist"),
        ]
        for key, call, kind, cause in local:
            tool, args, fn = calls[call]
            yield case(key, cause, kind, None, _saas.caught(key, fn), tool, args)
        c = client(svc.base)
        yield case(
            "web-search-no-key",
            "web search with no ollama.com API key configured",
            U,
            None,
            _saas.catch(lambda: c.web_search("ollama release notes")),
            "web_search",
            {"query": "ollama release notes"},
        )
