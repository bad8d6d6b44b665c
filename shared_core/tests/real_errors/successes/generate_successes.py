"""Real successful tool outputs (issue 24 item 4: detection precision).

Every text here is what a tool would hand an agent after a call that *succeeded*, produced
live at generation time by running the real program or reading the real file: slices of
installed packages' source (which raise and handle exceptions), log files written by
Python's ``logging`` in a real program run, JSON bodies a local server answered with 200,
docstrings, READMEs and ``pydoc`` pages of exception classes, the output of successful
commands (``git log``, ``git status``, ``ls``, ``pip show``, a passing ``pytest`` run,
``grep -rn Error``), search-result pages built from Python's own docs about exceptions,
CSV and markdown tables whose data says ``failed``, ``denied``, ``timeout``, and HTML
pages served with 200. None is a failure: a detector that flags one is wrong.

The texts depend on the installed versions of the packages read (``requirements.txt``
beside this file lists them; nothing else in site-packages is read), and on the Python
that runs it (the standard library's docs and source). Paths, durations and versions that
differ between machines are normalised. ``python generate_successes.py`` (from this
folder) rewrites ``data/successes.jsonl``; each row is ``{"id", "source",
"kind_of_output", "text"}``, ``source`` naming what was run or read so that a reader can
regenerate it.
"""

from __future__ import annotations

import csv
import errno
import http.server
import importlib
import importlib.metadata
import inspect
import io
import json
import logging
import os
import pydoc
import random
import re
import subprocess
import sys
import sysconfig
import tempfile
import threading
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any, ClassVar

HERE = Path(__file__).parent
DATA = HERE / "data" / "successes.jsonl"
MAX_BYTES = 8 * 1024

# The distributions whose files are read (also in requirements.txt), and the import names
# whose source, docstrings and READMEs are sliced.
PACKAGES: dict[str, str] = {
    "httpx": "httpx",
    "requests": "requests",
    "urllib3": "urllib3",
    "pydantic": "pydantic",
    "jsonschema": "jsonschema",
    "aiohttp": "aiohttp",
    "openai": "openai",
    "anthropic": "anthropic",
    "botocore": "botocore",
    "PyYAML": "yaml",
    "Jinja2": "jinja2",
    "pytest": "_pytest",
}
STDLIB_MODULES = [
    "asyncio",
    "concurrent.futures",
    "http.client",
    "json",
    "socket",
    "ssl",
    "subprocess",
    "urllib.error",
]


@dataclass
class Output:
    id: str
    source: str
    kind_of_output: str
    text: str


# --- normalising what differs between machines -----------------------------------------------


def _site() -> str:
    return sysconfig.get_paths()["purelib"]


def normalise(text: str, tmp: str | None = None) -> str:
    if tmp:
        text = text.replace(os.path.realpath(tmp), "/tmp/WORK").replace(tmp, "/tmp/WORK")
    text = text.replace(_site(), "SITE-PACKAGES")
    text = text.replace(sysconfig.get_paths()["stdlib"], "STDLIB")
    text = text.replace(sys.executable, "python")
    text = re.sub(r"/tmp/tmp[\w]+", "/tmp/WORK", text)
    text = re.sub(r"\bin \d+\.\d+s\b", "in N.NNs", text)
    text = re.sub(r"0x[0-9a-f]{6,16}", "0xADDR", text)
    return text


def truncate(text: str) -> str:
    data = text.encode("utf-8")
    if len(data) <= MAX_BYTES:
        return text
    return data[:MAX_BYTES].decode("utf-8", "ignore")


def _run(args: list[str], cwd: str | Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        args,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout + done.stderr


def _package_dir(import_name: str) -> Path:
    module = importlib.import_module(import_name)
    return Path(module.__file__ or "").parent


def _py_files(import_name: str) -> list[Path]:
    root = _package_dir(import_name)
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


# --- 1. source code that raises and handles exceptions ----------------------------------------


def source_code() -> Iterator[Output]:
    """Windows of 80 lines around ``raise`` / ``except`` in installed packages' modules (what a
    ``read_file`` tool returns), at most 24 per package, and of standard-library modules."""
    keyword = re.compile(r"^\s*(raise |except\b|class \w+(Error|Exception)\b)")

    def windows(path: Path, label: str, limit: int) -> Iterator[Output]:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        taken = 0
        start = 0
        while start < len(lines) and taken < limit:
            chunk = lines[start : start + 80]
            if any(keyword.match(line) for line in chunk):
                yield Output(
                    f"src-{label}-L{start + 1}",
                    f"read {label} lines {start + 1}-{start + len(chunk)}",
                    "source_code",
                    truncate("\n".join(chunk)),
                )
                taken += 1
            start += 80

    for dist, import_name in PACKAGES.items():
        root = _package_dir(import_name)
        count = 0
        for path in _py_files(import_name):
            if count >= 24:
                break
            label = f"{dist}:{path.relative_to(root.parent).as_posix()}"
            for out in windows(path, label, 2):
                yield out
                count += 1
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for rel in [
        "asyncio/exceptions.py",
        "concurrent/futures/_base.py",
        "http/client.py",
        "json/decoder.py",
        "subprocess.py",
        "urllib/error.py",
        "socket.py",
        "shutil.py",
        "tempfile.py",
        "zipfile/__init__.py",
    ]:
        path = stdlib / rel
        if path.exists():
            yield from windows(path, f"stdlib:{rel}", 3)


# --- 2. log files written by a real program run -----------------------------------------------

_LOG_PROGRAM = r"""
import json, logging, random, sys, time
from pathlib import Path

seed = int(sys.argv[1]); out = Path(sys.argv[2]); style = seed % 4
rng = random.Random(seed)
tick = [1_700_000_000.0 + seed * 3600]

class Clock(logging.Filter):
    def filter(self, record):
        tick[0] += rng.uniform(0.01, 2.5)
        record.created = tick[0]
        record.msecs = int((tick[0] % 1) * 1000)
        return True

formats = [
    "%(asctime)s %(levelname)s %(name)s: %(message)s",
    "[%(levelname)s] %(asctime)s %(name)s - %(message)s",
    "%(asctime)s | %(levelname)-8s | %(name)s:%(funcName)s:%(lineno)d - %(message)s",
    '{"ts": "%(asctime)s", "level": "%(levelname)s", "logger": "%(name)s", "msg": "%(message)s"}',
]
handler = logging.FileHandler(out, encoding="utf-8")
handler.setFormatter(logging.Formatter(formats[style]))
handler.addFilter(Clock())
logging.basicConfig(level=logging.DEBUG, handlers=[handler])
logging.Formatter.converter = time.gmtime
log = logging.getLogger(rng.choice(["worker", "sync.jobs", "api.gateway", "etl.loader", "scheduler"]))

def fetch(job):
    # a simulated remote call: some attempts time out, the retry succeeds
    if rng.random() < 0.25:
        raise TimeoutError(f"read timed out after {rng.choice([5, 10, 30])}s")
    if rng.random() < 0.1:
        raise ConnectionResetError(104, "Connection reset by peer")
    return {"id": job, "rows": rng.randint(0, 500)}

def parse(text):
    return json.loads(text)

ok = skipped = 0
log.info("starting run %d with %d jobs", seed, 12 + seed % 9)
for job in range(12 + seed % 9):
    for attempt in range(1, 4):
        try:
            result = fetch(job)
        except (TimeoutError, ConnectionResetError) as exc:
            log.warning("job %d attempt %d failed: %s; retrying", job, attempt, exc)
            continue
        else:
            log.debug("job %d fetched %d rows", job, result["rows"])
            break
    else:
        log.error("job %d gave up after 3 attempts; will be retried by the next run", job)
        skipped += 1
        continue
    if rng.random() < 0.15:
        try:
            parse("{'rows': %d}" % result["rows"])
        except json.JSONDecodeError:
            if style == 2:
                log.exception("job %d: payload was not JSON, falling back to the CSV export", job)
            else:
                log.error("job %d: payload was not JSON, falling back to the CSV export", job)
    if rng.random() < 0.1:
        log.warning("job %d: permission denied on /var/cache/export-%d, using the temp dir", job, job)
    ok += 1
log.info("run %d finished: %d ok, %d skipped (exit status 0)", seed, ok, skipped)
"""


def log_files(tmp: Path) -> Iterator[Output]:
    program = tmp / "worker.py"
    program.write_text(_LOG_PROGRAM)
    for seed in range(110):
        out = tmp / f"run-{seed}.log"
        _run([sys.executable, str(program), str(seed), str(out)], tmp)
        yield Output(
            f"log-worker-seed{seed}",
            f"python worker.py {seed} (logging to a file; the program of generate_successes._LOG_PROGRAM), cat run.log",
            "log_file",
            truncate(normalise(out.read_text(encoding="utf-8"), str(tmp))),
        )
        env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}
        n = 6 + seed % 10
        yield Output(
            f"log-worker-seed{seed}-tail",
            f"python worker.py {seed}, then tail -n {n} run.log",
            "log_file",
            truncate(normalise(_run(["tail", "-n", str(n), out.name], tmp, env), str(tmp))),
        )
        try:
            found = _run(["grep", "-n", "-E", "WARNING|ERROR|Traceback|Error", out.name], tmp, env)
        except subprocess.CalledProcessError:  # grep found nothing: exit status 1
            continue
        yield Output(
            f"log-worker-seed{seed}-grep",
            f"python worker.py {seed}, then grep -n -E 'WARNING|ERROR|Traceback|Error' run.log",
            "log_file",
            truncate(normalise(found, str(tmp))),
        )


# --- 3. JSON bodies a local server answered with 200 ------------------------------------------


class _Api(http.server.BaseHTTPRequestHandler):
    bodies: ClassVar[dict[str, Any]] = {}

    def do_GET(self) -> None:
        body = json.dumps(self.bodies[self.path], indent=2).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _serve(bodies: dict[str, Any]) -> Iterator[tuple[str, str]]:
    _Api.bodies = bodies
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for path in sorted(bodies):
            url = f"http://127.0.0.1:{server.server_address[1]}{path}"
            with urllib.request.urlopen(url, timeout=5) as response:
                assert response.status == 200
                yield path, response.read().decode()
    finally:
        server.shutdown()
        server.server_close()


def json_bodies() -> Iterator[Output]:
    """Bodies shaped like the APIs agents call, whose error fields say there is none:
    ``"error": null``, ``"errors": []``, ``"status": "ok"``, JSON-RPC ``result``; the data is
    the read packages' metadata and file lists, and the standard library's status and errno
    tables."""
    bodies: dict[str, Any] = {}
    for dist_name in PACKAGES:
        dist = importlib.metadata.distribution(dist_name)
        md = dist.metadata
        record = {
            "name": md["Name"],
            "version": md["Version"],
            "summary": md["Summary"],
            "requires": sorted(dist.requires or [])[:12],
        }
        slug = md["Name"].lower()
        bodies[f"/packages/{slug}"] = {"status": "ok", "error": None, "data": record}
        bodies[f"/v2/packages/{slug}"] = {"data": record, "errors": [], "warnings": []}
        bodies[f"/rpc/{slug}"] = {
            "jsonrpc": "2.0",
            "id": 7,
            "result": {"content": [{"type": "text", "text": json.dumps(record)}], "isError": False},
        }
        bodies[f"/search?q={slug}"] = {"ok": True, "result": [record], "error_count": 0, "last_error": None}
        bodies[f"/check/{slug}"] = {
            "success": True,
            "message": f"Package {md['Name']} found",
            "package": record,
            "failed": [],
        }
        files = sorted(str(f) for f in dist.files or [] if not str(f).endswith((".pyc", ".dist-info/RECORD")))
        for page in range(min(6, (len(files) + 29) // 30)):
            bodies[f"/packages/{slug}/files?page={page}"] = {
                "status": "ok",
                "error": None,
                "page": page,
                "files": [{"path": f, "error": None} for f in files[page * 30 : page * 30 + 30]],
                "next": page + 1 if page * 30 + 30 < len(files) else None,
            }
    statuses = list(HTTPStatus)
    for start in range(0, len(statuses), 6):
        group = statuses[start : start + 6]
        bodies[f"/http-statuses?page={start // 6}"] = {
            "status": "ok",
            "error": None,
            "items": [{"code": s.value, "phrase": s.phrase, "description": s.description} for s in group],
        }
    codes = sorted(errno.errorcode.items())
    for start in range(0, len(codes), 10):
        bodies[f"/errno?page={start // 10}"] = {
            "status": "success",
            "errors": [],
            "results": [
                {"errno": n, "name": name, "message": os.strerror(n)} for n, name in codes[start : start + 10]
            ],
        }
    for path, text in _serve(bodies):
        slug = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")
        yield Output(
            f"json-{slug}", f"GET {path} on a local JSON server (200)", "json_api_body", truncate(text)
        )


# --- 4. documentation about exceptions --------------------------------------------------------


def _exception_classes(module: Any) -> list[type[BaseException]]:
    found = []
    for name, obj in sorted(vars(module).items()):
        if inspect.isclass(obj) and issubclass(obj, BaseException) and not name.startswith("_"):
            found.append(obj)
    return found


def docs() -> Iterator[Output]:
    """Docstrings and ``pydoc`` text of the packages' exception classes, and the packages'
    READMEs (their METADATA long description)."""
    modules = [
        *[
            "httpx",
            "requests.exceptions",
            "urllib3.exceptions",
            "pydantic",
            "jsonschema.exceptions",
            "aiohttp",
            "openai",
            "anthropic",
            "botocore.exceptions",
            "yaml",
            "jinja2.exceptions",
        ],
        *STDLIB_MODULES,
        "builtins",
    ]
    seen: set[str] = set()
    for modname in modules:
        module = importlib.import_module(modname)
        for cls in _exception_classes(module):
            qual = f"{cls.__module__}.{cls.__qualname__}"
            if qual in seen:
                continue
            seen.add(qual)
            doc = inspect.getdoc(cls)
            if doc and len(doc) > 60 and not doc.startswith(("Common base class", "Initialize self")):
                yield Output(f"doc-{qual}", f"inspect.getdoc({qual})", "docs", truncate(f"{qual}\n\n{doc}"))
    pydoc_targets = [
        "builtins.TimeoutError",
        "builtins.PermissionError",
        "builtins.ConnectionRefusedError",
        "builtins.FileNotFoundError",
        "builtins.ValueError",
        "builtins.KeyError",
        "builtins.OSError",
        "builtins.RuntimeError",
        "builtins.MemoryError",
        "builtins.RecursionError",
        "builtins.StopIteration",
        "builtins.ExceptionGroup",
        "httpx.ReadTimeout",
        "httpx.HTTPStatusError",
        "httpx.ConnectError",
        "requests.exceptions.HTTPError",
        "requests.exceptions.ConnectionError",
        "urllib3.exceptions.MaxRetryError",
        "pydantic.ValidationError",
        "jsonschema.exceptions.ValidationError",
        "aiohttp.ClientResponseError",
        "openai.RateLimitError",
        "openai.APITimeoutError",
        "anthropic.APIStatusError",
        "botocore.exceptions.ClientError",
        "yaml.YAMLError",
        "jinja2.exceptions.UndefinedError",
        "json.JSONDecodeError",
        "socket.timeout",
        "ssl.SSLError",
        "subprocess.CalledProcessError",
        "subprocess.TimeoutExpired",
        "urllib.error.HTTPError",
        "asyncio.TimeoutError",
        "asyncio.CancelledError",
        "concurrent.futures.TimeoutError",
        "http.client.RemoteDisconnected",
        "builtins.BrokenPipeError",
        "builtins.ConnectionResetError",
        "builtins.IsADirectoryError",
    ]
    for target in pydoc_targets:
        obj = pydoc.locate(target)
        if obj is None:
            continue
        text = pydoc.render_doc(obj, "Help on %s:", renderer=pydoc.plaintext)
        yield Output(f"pydoc-{target}", f"python -m pydoc {target}", "docs", truncate(normalise(text)))
    for dist_name in PACKAGES:
        dist = importlib.metadata.distribution(dist_name)
        readme = dist.metadata.get_payload() or dist.metadata["Description"] or ""  # type: ignore[attr-defined]
        if len(readme) < 200:
            continue
        # a README is long: the parts an agent reads, in windows of 120 lines
        lines = readme.splitlines()
        for start in range(0, min(len(lines), 480), 120):
            chunk = "\n".join(lines[start : start + 120])
            if chunk.strip():
                yield Output(
                    f"readme-{dist_name}-L{start + 1}",
                    f"the README of {dist_name} (its METADATA long description), lines {start + 1}-{start + 120}",
                    "docs",
                    truncate(chunk),
                )


# --- 5. shell output of successful commands ---------------------------------------------------

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Dana Dev",
    "GIT_AUTHOR_EMAIL": "dana@example.org",
    "GIT_COMMITTER_NAME": "Dana Dev",
    "GIT_COMMITTER_EMAIL": "dana@example.org",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "LANG": "C",
    "LC_ALL": "C",
    "TZ": "UTC",
}
_COMMITS = [
    ("src/client.py", "Fix timeout error when the server closes the connection"),
    ("src/retry.py", "Retry on ConnectionResetError and 503 Service Unavailable"),
    ("tests/test_client.py", "Add test for permission denied on the cache dir"),
    ("src/errors.py", "Raise ValueError instead of returning None on bad input"),
    ("README.md", "Document the error codes (401 Unauthorized, 403 Forbidden, 429)"),
    ("src/parser.py", "Handle JSONDecodeError from truncated responses"),
    ("src/auth.py", "Refresh the token on 401 instead of failing"),
    ("CHANGELOG.md", "Changelog: fixed 'Connection refused' crash on startup"),
    ("src/upload.py", "Stop swallowing exceptions in the upload worker"),
    ("tests/test_errors.py", "Test that failed jobs are reported, not retried forever"),
    ("src/db.py", "Catch IntegrityError on duplicate keys"),
    ("src/cli.py", "Exit with status 2 on invalid arguments"),
]


def _git(repo: Path, *args: str, when: int = 0) -> str:
    env = dict(_GIT_ENV, PATH=os.environ.get("PATH", "/usr/bin:/bin"))
    stamp = f"{1_700_000_000 + when * 5400} +0000"
    env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    return _run(["git", *args], repo, env)


def _required_by(match: re.Match[str]) -> str:
    known = {name.lower() for name in PACKAGES}
    names = [n.strip() for n in match.group(1).split(",") if n.strip().lower() in known]
    return "Required-by: " + ", ".join(names)


def shell_outputs(tmp: Path) -> Iterator[Output]:
    repo = tmp / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    for i, (path, message) in enumerate(_COMMITS):
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a") as f:
            f.write(f"# {message}\n")
            if path.endswith(".py"):
                f.write(f"def handle_{i}(exc):\n    raise RuntimeError('step {i} failed') from exc\n")
        _git(repo, "add", path, when=i)
        _git(
            repo,
            "commit",
            "-q",
            "-m",
            message,
            "-m",
            f"Closes #{100 + i}: the error was reported by a user.",
            when=i,
        )
        if i >= 3:
            for args in (
                ["log", "--oneline"],
                ["log", "-3", "--stat"],
                ["show", "--stat", "HEAD"],
                ["log", "-2", "-p"],
            ):
                out = _git(repo, *args, when=i)
                yield Output(
                    f"sh-git-{'-'.join(args).strip('-')}-after{i}",
                    f"git {' '.join(args)} (commit {i})",
                    "shell_output",
                    truncate(out),
                )
    (repo / "src/client.py").write_text("# timeout handling reworked\nraise_on_error = False\n")
    (repo / "notes_errors.txt").write_text("ECONNREFUSED seen twice\n")
    for args in (
        ["status"],
        ["status", "--short"],
        ["diff"],
        ["diff", "--stat"],
        ["branch", "-v"],
        ["log", "--format=%h %an %s"],
    ):
        out = _git(repo, *args, when=20)
        yield Output(
            f"sh-git-{'-'.join(args).strip('-')}-dirty",
            f"git {' '.join(args)} (worktree modified)",
            "shell_output",
            truncate(out),
        )
    tree = [p for p in sorted(repo.rglob("*")) if ".git" not in p.relative_to(repo).parts]
    for i, p in enumerate(tree):
        os.utime(p, (1_700_000_000 + i * 60, 1_700_000_000 + i * 60))
    for sub in ["", "src", "tests"]:
        args = ["ls", "-lgG", "--time-style=+%Y-%m-%d %H:%M", *([sub] if sub else [])]
        out = _run(args, repo, {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "")})
        yield Output(
            f"sh-ls-l-{sub or 'root'}", f"ls -l {sub or '.'} (in the git repo above)", "shell_output", out
        )
    site = _site()
    for dist, import_name in PACKAGES.items():
        out = _run(
            [sys.executable, "-m", "pip", "show", "--no-color", dist],
            tmp,
            dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"),
        )
        out = re.sub(r"^Location: .*$", "Location: SITE-PACKAGES", out, flags=re.M)
        out = re.sub(r"^Editable project location: .*\n", "", out, flags=re.M)
        # the dependants installed beside it vary: keep those of requirements.txt
        out = re.sub(r"^Required-by: (.*)$", _required_by, out, flags=re.M)
        yield Output(f"sh-pip-show-{dist}", f"pip show {dist}", "shell_output", truncate(normalise(out)))
        folder = _package_dir(import_name).relative_to(site).as_posix()
        for word in ("Error", "raise", "except"):
            out = _run(
                ["grep", "-rn", "--include=*.py", word, folder],
                site,
                {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")},
            )
            yield Output(
                f"sh-grep-{word}-{dist}",
                f"grep -rn --include=*.py {word} {folder} (in site-packages)",
                "shell_output",
                truncate(out),
            )
        out = _run(["ls", "-1F", folder], site, {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")})
        yield Output(f"sh-ls-{dist}", f"ls -1F {folder} (in site-packages)", "shell_output", truncate(out))
    yield from pytest_runs(tmp)


_TEST_FILES = {
    "test_errors.py": """
import json, socket, pytest

def test_timeout_error_is_raised():
    with pytest.raises(TimeoutError):
        raise TimeoutError("read timed out")

def test_permission_denied_message():
    err = PermissionError(13, "Permission denied")
    assert "Permission denied" in str(err)

def test_connection_refused_errno():
    assert ConnectionRefusedError(111, "Connection refused").errno == 111

def test_json_decode_error_position():
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads("{bad")
    assert info.value.pos == 1

@pytest.mark.parametrize("code", [400, 401, 403, 404, 429, 500, 503])
def test_http_error_codes_are_errors(code):
    assert code >= 400
""",
    "test_retry.py": """
import pytest

class FlakyError(Exception):
    pass

def flaky(attempts=[0]):
    attempts[0] += 1
    if attempts[0] < 3:
        raise FlakyError("temporary failure, try again")
    return "ok"

def test_retry_until_success():
    for _ in range(5):
        try:
            assert flaky() == "ok"
            break
        except FlakyError:
            continue

def test_rate_limit_error_has_retry_after():
    err = {"error": {"type": "rate_limit_error", "retry_after": 3}}
    assert err["error"]["retry_after"] == 3

def test_failed_jobs_are_counted():
    jobs = ["ok", "failed", "ok", "failed"]
    assert jobs.count("failed") == 2

def test_unauthorized_raises_value_error():
    with pytest.raises(ValueError, match="Unauthorized"):
        raise ValueError("401 Unauthorized")
""",
    "test_parse.py": """
import pytest

@pytest.mark.parametrize("text,err", [("[", "Expecting value"), ("{\\"a\\" 1}", "Expecting ':'")])
def test_invalid_json_reports_error(text, err):
    import json
    with pytest.raises(json.JSONDecodeError, match=err):
        json.loads(text)

def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        (tmp_path / "nope.txt").read_text()

def test_exception_group_is_split():
    group = ExceptionGroup("several errors", [OSError("disk"), ValueError("bad")])
    match, rest = group.split(OSError)
    assert len(match.exceptions) == 1
""",
}


def pytest_runs(tmp: Path) -> Iterator[Output]:
    project = tmp / "proj"
    (project / "tests").mkdir(parents=True)
    for name, body in _TEST_FILES.items():
        (project / "tests" / name).write_text(body.lstrip())
    # no third-party plugin: which are installed varies (their names are in the header)
    env = dict(
        os.environ,
        PYTHONDONTWRITEBYTECODE="1",
        PYTEST_ADDOPTS="",
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        COLUMNS="100",
        NO_COLOR="1",
    )
    env.pop("PYTEST_PLUGINS", None)
    selections = [
        [],
        ["tests/test_errors.py"],
        ["tests/test_retry.py"],
        ["tests/test_parse.py"],
        ["-k", "error"],
        ["-k", "timeout or denied"],
    ]
    for flags in (["-q"], ["-v"], ["-rA", "-q"]):
        for sel in selections:
            args = [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                "--color=no",
                *flags,
                *sel,
            ]
            out = _run(args, project, env)
            tag = re.sub(r"[^a-z0-9]+", "-", " ".join(flags + sel).lower()).strip("-")
            yield Output(
                f"sh-pytest-{tag}",
                f"python -m pytest {' '.join(flags + sel)} (the tests of generate_successes._TEST_FILES)",
                "shell_output",
                truncate(normalise(out, str(tmp))),
            )


# --- 6. search results about errors ------------------------------------------------------------


def search_results() -> Iterator[Output]:
    """Result pages of a docs search: for each query, the matching topics of Python's own
    documentation (``pydoc_data.topics``, the text ``help()`` shows) and the exception
    classes whose docstrings match, as title / address / snippet."""
    from pydoc_data.topics import topics

    classes = _exception_classes(importlib.import_module("builtins"))
    queries = [cls.__name__ for cls in classes] + [
        "timeout",
        "permission denied",
        "connection refused",
        "exception",
        "error handling",
        "raise",
        "try except",
        "traceback",
        "KeyError",
        "ValueError",
        "OSError errno",
        "StopIteration",
        "finally",
        "with statement",
        "assert",
        "warnings",
        "exception chaining",
        "ExceptionGroup",
        "context manager exit",
        "generator close",
        "ZeroDivisionError",
        "IndexError",
        "NameError",
        "ImportError",
        "recursion",
        "memory",
        "unicode decode",
        "file not found",
        "interrupted",
        "broken pipe",
        "connection reset",
        "syntax error",
        "attribute error",
        "type error",
        "failed",
        "unauthorized",
        "invalid argument",
        "not implemented",
        "overflow",
        "EOF",
    ]
    done: set[str] = set()
    for q in queries:
        words = q.lower().split()
        hits: list[tuple[str, str, str]] = []
        for key in sorted(topics):
            body = topics[key]
            low = body.lower()
            if all(w in low for w in words):
                at = low.find(words[0])
                snippet = " ".join(body[max(0, at - 160) : at + 260].split())
                hits.append(
                    (
                        f"{key} — Python 3 documentation",
                        f"https://docs.python.org/3/search.html?q={key}",
                        snippet,
                    )
                )
        for cls in classes:
            doc = inspect.getdoc(cls) or ""
            if all(w in (cls.__name__ + " " + doc).lower() for w in words):
                hits.append(
                    (
                        f"exception {cls.__name__} — Built-in Exceptions",
                        f"https://docs.python.org/3/library/exceptions.html#{cls.__name__}",
                        doc,
                    )
                )
        slug = re.sub(r"[^a-z0-9]+", "-", q.lower()).strip("-")
        if not hits or slug in done:
            continue
        done.add(slug)
        lines = [f'Search results for "{q}" ({len(hits)} found)', ""]
        for n, (title, url, snippet) in enumerate(hits[:8], 1):
            lines += [f"{n}. {title}", f"   {url}", f"   {snippet}", ""]
        yield Output(
            f"search-{slug}",
            f"docs search '{q}' over pydoc_data.topics and builtins' exception docstrings",
            "search_results",
            truncate("\n".join(lines)),
        )


# --- 7. CSV and markdown tables whose data names failures --------------------------------------


def _table_rows() -> list[tuple[str, list[str], list[list[str]]]]:
    tables: list[tuple[str, list[str], list[list[str]]]] = []
    statuses = [[str(s.value), s.phrase, s.description] for s in HTTPStatus]
    for start in range(0, len(statuses), 12):
        tables.append(
            (f"http-status-{start // 12}", ["code", "phrase", "description"], statuses[start : start + 12])
        )
    codes = sorted(errno.errorcode.items())
    for start in range(0, len(codes), 20):
        rows = [[str(n), name, os.strerror(n)] for n, name in codes[start : start + 20]]
        tables.append((f"errno-{start // 20}", ["errno", "name", "message"], rows))
    for seed in range(30):
        rng = random.Random(seed)
        kind = seed % 3
        if kind == 0:
            header = ["job", "status", "duration_s", "note"]
            rows = [
                [
                    f"build-{rng.randint(100, 999)}",
                    rng.choice(["passed", "failed", "passed", "skipped", "timeout"]),
                    f"{rng.uniform(1, 900):.1f}",
                    rng.choice(["", "flaky", "retried", "network timeout on step 3", "exit code 1"]),
                ]
                for _ in range(rng.randint(6, 25))
            ]
        elif kind == 1:
            header = ["timestamp", "user", "action", "result"]
            rows = [
                [
                    f"2024-03-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
                    rng.choice(["ann", "bob", "chen", "dara"]),
                    rng.choice(["login", "read /etc/shadow", "delete bucket", "push main"]),
                    rng.choice(["allowed", "denied", "denied", "error: expired token"]),
                ]
                for _ in range(rng.randint(6, 25))
            ]
        else:
            header = ["endpoint", "p50_ms", "p99_ms", "errors", "timeouts", "error_rate"]
            rows = []
            for _ in range(rng.randint(5, 15)):
                errors = rng.randint(0, 40)
                rows.append(
                    [
                        rng.choice(["/v1/users", "/v1/orders", "/login", "/search", "/upload"]),
                        str(rng.randint(5, 90)),
                        str(rng.randint(100, 3000)),
                        str(errors),
                        str(rng.randint(0, 9)),
                        f"{errors / 1000:.3f}",
                    ]
                )
        tables.append((f"{['ci-jobs', 'audit', 'latency'][kind]}-seed{seed}", header, rows))
    return tables


def tables() -> Iterator[Output]:
    for name, header, rows in _table_rows():
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        yield Output(
            f"csv-{name}",
            f"csv.writer over {name} (generate_successes._table_rows)",
            "csv_table",
            buf.getvalue(),
        )
        md = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        md += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
        yield Output(
            f"md-{name}",
            f"markdown table of {name} (generate_successes._table_rows)",
            "markdown_table",
            "\n".join(md) + "\n",
        )


# --- 8. HTML pages served with 200 ------------------------------------------------------------


def html_pages(tmp: Path) -> Iterator[Output]:
    """``pydoc``'s HTML pages of exception modules and http.server's directory listings,
    fetched from a local server that answers 200."""
    pages: dict[str, str] = {}
    html = pydoc.HTMLDoc()
    for modname in [
        "urllib.error",
        "json.decoder",
        "concurrent.futures._base",
        "http.client",
        "socket",
        "ssl",
        "asyncio.exceptions",
        "subprocess",
        "requests.exceptions",
        "urllib3.exceptions",
        "httpx._exceptions",
        "jsonschema.exceptions",
        "yaml.error",
        "jinja2.exceptions",
        "botocore.exceptions",
        "openai._exceptions",
        "anthropic._exceptions",
        "pydantic_core._pydantic_core",
        "aiohttp.client_exceptions",
    ]:
        module = importlib.import_module(modname)
        pages[f"/doc/{modname}.html"] = normalise(
            html.page(pydoc.describe(module), html.document(module, modname))
        )
    for modname in ["builtins"]:
        module = importlib.import_module(modname)
        for cls in _exception_classes(module)[:30]:
            pages[f"/doc/builtins.{cls.__name__}.html"] = html.page(
                cls.__name__, html.document(cls, cls.__name__)
            )

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages[self.path].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for path in sorted(pages):
            with urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}{path}", timeout=5) as r:
                assert r.status == 200
                text = r.read().decode()
            yield Output(
                f"html-{path.strip('/').replace('/', '-')}",
                f"GET {path} (pydoc.HTMLDoc page, 200)",
                "http_200_body",
                truncate(text),
            )
    finally:
        server.shutdown()
        server.server_close()


# --- all --------------------------------------------------------------------------------------


def generate() -> list[Output]:
    outputs: list[Output] = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        steps: list[Callable[[], Iterator[Output]]] = [
            source_code,
            lambda: log_files(tmp),
            json_bodies,
            docs,
            lambda: shell_outputs(tmp),
            search_results,
            tables,
            lambda: html_pages(tmp),
        ]
        logging.disable(logging.CRITICAL)
        for step in steps:
            outputs.extend(step())
    ids = [o.id for o in outputs]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    return outputs


def write(outputs: list[Output], path: Path = DATA) -> None:
    path.parent.mkdir(exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for o in outputs:
            row = {"id": o.id, "source": o.source, "kind_of_output": o.kind_of_output, "text": o.text}
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    produced = generate()
    write(produced)
    by_kind: dict[str, int] = {}
    for o in produced:
        by_kind[o.kind_of_output] = by_kind.get(o.kind_of_output, 0) + 1
    print(f"{len(produced)} outputs -> {DATA}: {dict(sorted(by_kind.items()))}")
