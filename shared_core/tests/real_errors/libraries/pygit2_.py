# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""pygit2 (libgit2) behind a repository tool: real repositories made with the ``git`` binary
under the module's temporary directory, a ``git daemon`` on 127.0.0.1 (git://), file://
remotes, and small stand-ins for a smart-HTTP host and for servers that drop or stall.

Labels follow the cause that was set up:

- fixable: a revision, branch, tag, reference, remote, path, config key or object id the
  model wrote that the repository does not have or that is malformed (pygit2's ``KeyError`` /
  ``ValueError`` / ``InvalidSpecError`` / ``GitError``), a repository path or remote URL it
  got wrong (pygit2 docs: https://www.pygit2.org/repository.html, /references.html,
  /branches.html, /remotes.html, /config.html; libgit2 error codes GIT_ENOTFOUND,
  GIT_EINVALIDSPEC, GIT_EAMBIGUOUS: https://libgit2.org/docs/reference/main/errors/git_error_code.html);
  an HTTP 404 for a repository URL it wrote.
- ambiguous: a name that already exists (``AlreadyExistsError``, GIT_EEXISTS), a push the
  remote rejects because it moved on (non-fast-forward), a checkout or merge that the
  working tree's own changes block (GIT_ECONFLICT / GIT_EMERGECONFLICT), and repository files
  the tool read that are corrupt (a loose object, HEAD, the config file, the index).
- transient: connection refused, a host name that does not resolve, an index or ref lock
  another process holds (GIT_ELOCKED), HTTP 503 / 429 -> not executed; a connection the
  server drops in the middle of a clone or push, and a server that stalls past
  ``settings.server_timeout`` after the request was sent -> unknown outcome.
- unrecoverable: a repository not exported by the daemon, pushing where the daemon has
  receive-pack disabled (git-daemon(1): "receive-pack ... disabled by default"), HTTP 401 /
  403 (no credentials / not allowed), a repository owned by another user
  (``safe.directory``, libgit2's owner validation), a directory this user may not write, a
  file-size quota, an identity (``user.name``) the environment never configured, and a
  pygit2 whose compiled extension is missing (:mod:`libraries._pkgcopy`).

Not triggered: SSH transports (no sshd here), LFS; a corrupt HEAD (libgit2 falls back),
``Repository`` on a file inside a work tree (it discovers the enclosing repository) and a
fetch refspec naming a missing branch (libgit2 ignores it) raised nothing. git daemon
answers a missing repository, an unexported one and a disabled receive-pack with the same
"access denied or repository not exported" (labelled by the cause set up: fixable,
unrecoverable, unrecoverable).
"""

from __future__ import annotations

import http.server
import importlib
import os
import random
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import NE, UO, A, F, T, U, free_port, process, raw_server

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pygit2"
REQUIRES = ["pygit2>=1.15,<2"]

ENV = {
    "GIT_AUTHOR_NAME": "Ann Dev",
    "GIT_AUTHOR_EMAIL": "ann@example.com",
    "GIT_COMMITTER_NAME": "Ann Dev",
    "GIT_COMMITTER_EMAIL": "ann@example.com",
    "GIT_AUTHOR_DATE": "2024-03-10T09:00:00+00:00",
    "GIT_COMMITTER_DATE": "2024-03-10T09:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def available() -> str | None:
    if shutil.which("git") is None:
        return "git is not installed"
    return None


def _git(cwd: Path, *args: str, home: Path) -> str:
    env = {**os.environ, **ENV, "HOME": str(home)}
    out = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def _make_repo(path: Path, home: Path) -> None:
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main", home=home)
    (path / "README.md").write_text("# shop\n")
    (path / "app.py").write_text("print('hi')\n")
    _git(path, "add", ".", home=home)
    _git(path, "commit", "-q", "-m", "initial", home=home)
    (path / "app.py").write_text("print('hello')\n")
    _git(path, "commit", "-q", "-am", "greet", home=home)
    _git(path, "tag", "v1.0", home=home)
    _git(path, "branch", "feature/login", home=home)


def _model_calls(repo: Any, path: Path) -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    import pygit2

    head = repo.head.peel(pygit2.Commit)
    R, B, C, OP = "git_show", "git_branch", "git_config", "git_open"
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        ("rev-misspelled", R, {"rev": "mian"}, lambda: repo.revparse_single("mian")),
        ("rev-too-far-back", R, {"rev": "HEAD~99"}, lambda: repo.revparse_single("HEAD~99")),
        ("rev-bad-syntax", R, {"rev": "HEAD^^{tree"}, lambda: repo.revparse_single("HEAD^^{tree")),
        ("rev-short-sha-unknown", R, {"rev": "deadbeef"}, lambda: repo.revparse_single("deadbeef")),
        (
            "rev-range-as-one",
            R,
            {"rev": "main..feature/login"},
            lambda: repo.revparse_single("main..feature/login"),
        ),
        ("object-id-not-hex", R, {"oid": "zz12"}, lambda: repo["zz12"]),
        (
            "object-id-unknown",
            R,
            {"oid": "0123456789abcdef0123456789abcdef01234567"},
            lambda: repo["0123456789abcdef0123456789abcdef01234567"],
        ),
        ("tree-path-unknown", R, {"rev": "HEAD", "path": "src/app.py"}, lambda: head.tree["src/app.py"]),
        ("branch-unknown", B, {"branch": "feature/logni"}, lambda: repo.branches["feature/logni"]),
        (
            "branch-bad-name",
            B,
            {"create": "fix..typo", "from": "HEAD"},
            lambda: repo.branches.local.create("fix..typo", head),
        ),
        (
            "branch-name-space",
            B,
            {"create": "my branch", "from": "HEAD"},
            lambda: repo.branches.local.create("my branch", head),
        ),
        (
            "ref-unknown",
            R,
            {"ref": "refs/heads/release"},
            lambda: repo.lookup_reference("refs/heads/release"),
        ),
        ("ref-not-full-name", R, {"ref": "main"}, lambda: repo.lookup_reference("main")),
        (
            "checkout-unknown",
            B,
            {"checkout": "refs/heads/develop"},
            lambda: repo.checkout("refs/heads/develop"),
        ),
        ("remote-unknown", "git_fetch", {"remote": "upstream"}, lambda: repo.remotes["upstream"]),
        ("diff-unknown-rev", R, {"from": "HEAD", "to": "v2.0"}, lambda: repo.diff("HEAD", "v2.0")),
        (
            "index-add-missing-file",
            "git_commit",
            {"add": ["src/main.py"]},
            lambda: repo.index.add("src/main.py"),
        ),
        ("blame-missing-file", R, {"blame": "lib/util.py"}, lambda: repo.blame("lib/util.py")),
        ("config-key-unknown", C, {"get": "user.nmae"}, lambda: repo.config["user.nmae"]),
        ("config-key-no-section", C, {"get": "email"}, lambda: repo.config["email"]),
        ("config-not-int", C, {"get_int": "core.bare"}, lambda: repo.config.get_int("core.bare")),
        (
            "config-not-bool",
            C,
            {"get_bool": "remote.origin.url"},
            lambda: repo.config.get_bool("remote.origin.url"),
        ),
        (
            "tag-target-unknown",
            B,
            {"tag": "v2.0", "target": "f00d"},
            lambda: repo.create_tag("v2.0", "f00d", pygit2.enums.ObjectType.COMMIT, head.author, "v2"),
        ),
        (
            "open-wrong-path",
            OP,
            {"path": str(path.parent / "shop-api")},
            lambda: pygit2.Repository(str(path.parent / "shop-api")),
        ),
        (
            "clone-unknown-scheme",
            "git_clone",
            {"url": "gti://example.com/shop.git"},
            lambda: pygit2.clone_repository("gti://example.com/shop.git", str(path.parent / "c1")),
        ),
        (
            "clone-missing-local",
            "git_clone",
            {"url": f"file://{path.parent}/shop-old"},
            lambda: pygit2.clone_repository(f"file://{path.parent}/shop-old", str(path.parent / "c2")),
        ),
        (
            "clone-into-nonempty",
            "git_clone",
            {"url": f"file://{path}", "path": str(path)},
            lambda: pygit2.clone_repository(f"file://{path}", str(path)),
        ),
        (
            "reset-unknown-rev",
            B,
            {"reset_to": "HEAD@{5}"},
            lambda: repo.reset(repo.revparse_single("HEAD@{5}").id, pygit2.enums.ResetMode.HARD),
        ),
        (
            "merge-base-unknown",
            R,
            {"a": "main", "b": "origin/main"},
            lambda: repo.merge_base(head.id, repo.revparse_single("origin/main").id),
        ),
    ]
    return calls


def _gitdir_cases(ctx: Context, home: Path) -> Iterator[Case]:
    """Repository files on disk that are corrupt or locked (the tool read them)."""
    import pygit2

    def fresh(name: str) -> Path:
        p = ctx.tmp / name
        _make_repo(p, home)
        return p

    p = fresh("obj-corrupt")
    head_id = _git(p, "rev-parse", "HEAD", home=home)
    obj = p / ".git" / "objects" / head_id[:2] / head_id[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"\x78\x9c not zlib at all")
    exc = _catch(lambda: pygit2.Repository(str(p)).head.peel(pygit2.Commit).message)
    yield Case(
        "pygit2-object-corrupt",
        LIBRARY,
        "loose object on disk is corrupt",
        A,
        None,
        exc,
        "git_log",
        {"path": str(p)},
    )

    p = fresh("config-corrupt")
    with (p / ".git" / "config").open("a") as f:
        f.write('[remote "origin"\n\turl = git://example/shop\n')
    exc = _catch(lambda: pygit2.Repository(str(p)).config["core.bare"])
    yield Case(
        "pygit2-config-corrupt",
        LIBRARY,
        "repository config file has a syntax error",
        A,
        None,
        exc,
        "git_status",
        {"path": str(p)},
    )

    p = fresh("index-corrupt")
    data = bytearray((p / ".git" / "index").read_bytes())
    data[40:60] = b"\x00" * 20
    (p / ".git" / "index").write_bytes(bytes(data))
    exc = _catch(lambda: pygit2.Repository(str(p)).status())
    yield Case(
        "pygit2-index-corrupt",
        LIBRARY,
        "index file on disk is corrupt",
        A,
        None,
        exc,
        "git_status",
        {"path": str(p)},
    )

    p = fresh("refs-corrupt")
    (p / ".git" / "refs" / "heads" / "main").write_text("not-a-sha\n")
    exc = _catch(lambda: pygit2.Repository(str(p)).head)
    yield Case(
        "pygit2-ref-corrupt",
        LIBRARY,
        "branch ref file on disk is corrupt",
        A,
        None,
        exc,
        "git_log",
        {"path": str(p)},
    )

    p = fresh("locked")
    (p / ".git" / "index.lock").write_text("")
    repo = pygit2.Repository(str(p))
    (p / "new.txt").write_text("x\n")
    exc = _catch(lambda: (repo.index.add("new.txt"), repo.index.write()))
    args: dict[str, Any] = {"path": str(p), "add": ["new.txt"]}
    yield Case(
        "pygit2-index-locked", LIBRARY, "another process holds index.lock", T, NE, exc, "git_commit", args
    )
    (p / ".git" / "refs" / "heads" / "main.lock").write_text("")
    head = repo.head.peel(pygit2.Commit)
    exc = _catch(
        lambda: repo.create_commit(
            "refs/heads/main", head.author, head.author, "wip", head.tree.id, [head.id]
        )
    )
    args = {"path": str(p), "message": "wip"}
    yield Case(
        "pygit2-ref-locked",
        LIBRARY,
        "another process holds the branch's lock",
        T,
        NE,
        exc,
        "git_commit",
        args,
    )

    # state of the repository: names taken, the working tree's own changes
    p = fresh("state")
    repo = pygit2.Repository(str(p))
    head = repo.head.peel(pygit2.Commit)
    exc = _catch(lambda: repo.branches.local.create("feature/login", head))
    yield Case(
        "pygit2-branch-exists",
        LIBRARY,
        "branch already exists",
        A,
        None,
        exc,
        "git_branch",
        {"create": "feature/login"},
    )
    exc = _catch(
        lambda: repo.create_tag("v1.0", head.id, pygit2.enums.ObjectType.COMMIT, head.author, "again")
    )
    yield Case(
        "pygit2-tag-exists",
        LIBRARY,
        "tag already exists",
        A,
        None,
        exc,
        "git_tag",
        {"tag": "v1.0", "target": "HEAD"},
    )
    exc = _catch(
        lambda: (
            repo.remotes.create("origin", "git://example.com/a.git")
            and repo.remotes.create("origin", "git://example.com/b.git")
        )
    )
    yield Case(
        "pygit2-remote-exists",
        LIBRARY,
        "remote already exists",
        A,
        None,
        exc,
        "git_remote",
        {"add": "origin", "url": "git://example.com/b.git"},
    )
    _git(p, "checkout", "-q", "feature/login", home=home)
    (p / "app.py").write_text("print('login')\n")
    _git(p, "commit", "-q", "-am", "login", home=home)
    _git(p, "checkout", "-q", "main", home=home)
    (p / "app.py").write_text("print('local edit')\n")
    repo = pygit2.Repository(str(p))
    exc = _catch(lambda: repo.checkout(repo.branches["feature/login"]))
    yield Case(
        "pygit2-checkout-conflict",
        LIBRARY,
        "uncommitted changes block the checkout",
        A,
        None,
        exc,
        "git_branch",
        {"checkout": "feature/login"},
    )
    (p / "app.py").write_text("print('main edit')\n")
    _git(p, "commit", "-q", "-am", "main edit", home=home)
    repo = pygit2.Repository(str(p))
    other = repo.branches["feature/login"].peel(pygit2.Commit)
    exc = _catch(lambda: repo.cherrypick(other.id) or repo.index.write_tree())
    yield Case(
        "pygit2-cherrypick-conflict",
        LIBRARY,
        "cherry-pick conflicts with the branch",
        A,
        None,
        exc,
        "git_cherry_pick",
        {"commit": str(other.id)},
    )
    _git(p, "reset", "-q", "--hard", "HEAD", home=home)

    # no identity configured
    repo = pygit2.Repository(str(p))
    exc = _catch(lambda: repo.default_signature)
    yield Case(
        "pygit2-no-identity",
        LIBRARY,
        "user.name never configured",
        U,
        None,
        exc,
        "git_commit",
        {"path": str(p), "message": "fix"},
    )


class _Http(http.server.BaseHTTPRequestHandler):
    """A smart-HTTP host answering ``info/refs`` with one status per repository: the
    statuses Git's HTTP protocol documents for a repository that is not there or needs
    authentication (https://git-scm.com/docs/http-protocol "Smart Clients": 404 / 401 with
    ``WWW-Authenticate``), a refused token (403), and the overload / rate-limit answers a
    hosting service sends with ``Retry-After`` (503 / 429:
    https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api)."""

    status: ClassVar[dict[str, tuple[int, dict[str, str]]]] = {
        "/missing.git": (404, {}),
        "/private.git": (401, {"WWW-Authenticate": 'Basic realm="GitHub"'}),
        "/forbidden.git": (403, {}),
        "/busy.git": (503, {"Retry-After": "30"}),
        "/limited.git": (429, {"Retry-After": "60"}),
    }

    def do_GET(self) -> None:
        repo = self.path.split("/info/")[0]
        code, headers = self.status.get(repo, (404, {}))
        self.send_response(code)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def _http_host() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Http)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _network_cases(ctx: Context, home: Path) -> Iterator[Case]:
    import pygit2

    base = ctx.tmp / "served"
    _make_repo(base / "shop", home)
    _make_repo(base / "hidden", home)
    (base / "shop" / ".git" / "git-daemon-export-ok").write_text("")
    port = free_port()
    ctx.name_port(port, "GITPORT")
    exec_path = subprocess.run(
        ["git", "--exec-path"], capture_output=True, text=True, check=True
    ).stdout.strip()
    daemon = [  # the daemon itself (``git daemon`` would leave it running when killed)
        f"{exec_path}/git-daemon", "--reuseaddr", f"--base-path={base}", "--listen=127.0.0.1",
        f"--port={port}", str(base),
    ]  # fmt: skip
    work = ctx.tmp / "clones"
    work.mkdir()
    with process(daemon, port, env={**os.environ, "HOME": str(home)}):
        url = f"git://127.0.0.1:{port}"
        exc = _catch(lambda: pygit2.clone_repository(f"{url}/hidden", str(work / "h")))
        args: dict[str, Any] = {"url": f"{url}/hidden"}
        yield Case(
            "pygit2-daemon-not-exported",
            LIBRARY,
            "repository not exported by the daemon",
            U,
            None,
            exc,
            "git_clone",
            args,
        )
        exc = _catch(lambda: pygit2.clone_repository(f"{url}/shopp", str(work / "s0")))
        args = {"url": f"{url}/shopp"}
        yield Case(
            "pygit2-daemon-unknown-repo",
            LIBRARY,
            "repository path the model gave does not exist",
            F,
            None,
            exc,
            "git_clone",
            args,
        )
        clone = pygit2.clone_repository(f"{url}/shop", str(work / "shop"))
        (work / "shop" / "app.py").write_text("print('pushed')\n")
        clone.index.add("app.py")
        clone.index.write()
        sig = pygit2.Signature("Ann Dev", "ann@example.com", 1710061200, 0)
        parent = clone.head.peel(pygit2.Commit)
        clone.create_commit("HEAD", sig, sig, "push me", clone.index.write_tree(), [parent.id])
        exc = _catch(lambda: clone.remotes["origin"].push(["refs/heads/main"]))
        args = {"path": str(work / "shop"), "remote": "origin", "branch": "main"}
        yield Case(
            "pygit2-daemon-push-disabled",
            LIBRARY,
            "daemon's receive-pack not enabled",
            U,
            None,
            exc,
            "git_push",
            args,
        )
    # file:// remote that moved on: non-fast-forward push rejected
    upstream = ctx.tmp / "upstream.git"
    _git(ctx.tmp, "clone", "-q", "--bare", str(base / "shop"), str(upstream), home=home)
    mine = pygit2.clone_repository(f"file://{upstream}", str(work / "mine"))
    theirs = ctx.tmp / "theirs"
    _git(ctx.tmp, "clone", "-q", str(upstream), str(theirs), home=home)
    (theirs / "README.md").write_text("# shop (theirs)\n")
    _git(theirs, "commit", "-q", "-am", "theirs", home=home)
    _git(theirs, "push", "-q", "origin", "main", home=home)
    (work / "mine" / "README.md").write_text("# shop (mine)\n")
    mine.index.add("README.md")
    mine.index.write()
    sig = pygit2.Signature("Ann Dev", "ann@example.com", 1710061200, 0)
    parent = mine.head.peel(pygit2.Commit)
    mine.create_commit("HEAD", sig, sig, "mine", mine.index.write_tree(), [parent.id])
    exc = _catch(lambda: mine.remotes["origin"].push(["refs/heads/main"]))
    args = {"path": str(work / "mine"), "remote": "origin", "branch": "main"}
    yield Case(
        "pygit2-push-non-fast-forward", LIBRARY, "remote branch moved on", A, None, exc, "git_push", args
    )

    # unreachable, dropped, stalled
    exc = _catch(lambda: pygit2.clone_repository(f"git://127.0.0.1:{ctx.dead}/shop", str(work / "d1")))
    yield Case(
        "pygit2-refused",
        LIBRARY,
        "nothing listening",
        T,
        NE,
        exc,
        "git_clone",
        {"url": f"git://127.0.0.1:{ctx.dead}/shop"},
    )
    exc = _catch(lambda: pygit2.clone_repository("git://git.internal.example/shop", str(work / "d2")))
    yield Case(
        "pygit2-dns",
        LIBRARY,
        "host name does not resolve",
        T,
        NE,
        exc,
        "git_clone",
        {"url": "git://git.internal.example/shop"},
    )

    def drop(conn: Any) -> None:
        conn.recv(4096)

    with raw_server(drop) as dport:
        ctx.name_port(dport, "DROPPORT")
        exc = _catch(lambda: pygit2.clone_repository(f"git://127.0.0.1:{dport}/shop", str(work / "d3")))
        yield Case(
            "pygit2-dropped-clone",
            LIBRARY,
            "server closed the connection mid-request",
            T,
            UO,
            exc,
            "git_clone",
            {"url": f"git://127.0.0.1:{dport}/shop"},
        )
        remote = mine.remotes.create("mirror", f"git://127.0.0.1:{dport}/shop")
        exc = _catch(lambda: remote.push(["refs/heads/main"]))
        args = {"path": str(work / "mine"), "remote": "mirror", "branch": "main"}
        yield Case(
            "pygit2-dropped-push",
            LIBRARY,
            "server closed the connection mid-push",
            T,
            UO,
            exc,
            "git_push",
            args,
        )

    stop = threading.Event()

    def stall(conn: Any) -> None:
        conn.recv(4096)
        stop.wait(5)

    previous = pygit2.settings.server_timeout
    pygit2.settings.server_timeout = 300
    try:
        with raw_server(stall) as sport:
            ctx.name_port(sport, "STALLPORT")
            exc = _catch(lambda: pygit2.clone_repository(f"git://127.0.0.1:{sport}/shop", str(work / "d4")))
            stop.set()
    finally:
        pygit2.settings.server_timeout = previous
    yield Case(
        "pygit2-timeout",
        LIBRARY,
        "server stalled past server_timeout",
        T,
        UO,
        exc,
        "git_clone",
        {"url": f"git://127.0.0.1:{sport}/shop"},
    )

    with _http_host() as hport:
        ctx.name_port(hport, "HTTPPORT")
        for name, kind, outcome, cause in [
            ("missing", F, None, "repository URL the model gave: 404"),
            ("private", U, None, "no credentials: 401"),
            ("forbidden", U, None, "token not allowed: 403"),
            ("busy", T, NE, "host overloaded: 503"),
            ("limited", T, NE, "rate limited: 429"),
        ]:
            url = f"http://127.0.0.1:{hport}/{name}.git"
            exc = _catch(lambda: pygit2.clone_repository(url, str(work / f"http-{name}")))
            yield Case(f"pygit2-http-{name}", LIBRARY, cause, kind, outcome, exc, "git_clone", {"url": url})


def _os_cases(ctx: Context, home: Path) -> Iterator[Case]:
    import pygit2

    p = ctx.tmp / "owned"
    _make_repo(p, home)
    for parent in [p, *p.parents]:
        if str(parent).startswith("/tmp/") and parent.stat().st_uid == os.geteuid():
            parent.chmod(parent.stat().st_mode | 0o055)
    for root, dirs, files in os.walk(p):
        for d in dirs:
            Path(root, d).chmod(0o755)
        for f in files:
            Path(root, f).chmod(0o644)
    exc = _files.denied(lambda: pygit2.Repository(str(p)))
    yield Case(
        "pygit2-not-owner",
        LIBRARY,
        "repository owned by another user (owner validation)",
        U,
        None,
        exc,
        "git_open",
        {"path": str(p)},
    )
    previous = pygit2.settings.owner_validation
    pygit2.settings.owner_validation = False
    try:

        def branch() -> Any:
            repo = pygit2.Repository(str(p))
            return repo.branches.local.create("hotfix", repo.head.peel(pygit2.Commit))

        exc = _files.denied(branch)
    finally:
        pygit2.settings.owner_validation = previous
    yield Case(
        "pygit2-not-writable",
        LIBRARY,
        "repository directory not writable by this user",
        U,
        None,
        exc,
        "git_branch",
        {"path": str(p), "create": "hotfix"},
    )

    repo = pygit2.Repository(str(p))
    with _files.file_size_limit(16 * 1024):
        exc = _catch(lambda: repo.create_blob(random.Random(0).randbytes(200_000)))
    yield Case(
        "pygit2-file-size-quota",
        LIBRARY,
        "file size quota reached",
        U,
        None,
        exc,
        "git_commit",
        {"path": str(p), "add": ["data.bin"]},
    )

    with _pkgcopy.broken_install(
        ctx.tmp, ["pygit2"], drop=("pygit2/_pygit2.cpython-311-x86_64-linux-gnu.so",), hide=("pygit2", "cffi")
    ):
        exc = _catch(lambda: importlib.import_module("pygit2"))
    yield Case(
        "pygit2-extension-missing",
        LIBRARY,
        "pygit2's compiled extension not installed",
        U,
        None,
        exc,
        "git_open",
        {"path": str(p)},
    )


def cases(ctx: Context) -> Iterator[Case]:
    import pygit2

    home = ctx.tmp / "home"
    home.mkdir()
    empty = ctx.tmp / "no-config"
    empty.mkdir()
    levels = pygit2.enums.ConfigLevel
    saved = {lvl: pygit2.settings.search_path[lvl] for lvl in (levels.GLOBAL, levels.XDG, levels.SYSTEM)}
    for lvl in saved:
        pygit2.settings.search_path[lvl] = str(empty)
    try:
        path = ctx.tmp / "repos" / "shop"
        _make_repo(path, home)
        repo = pygit2.Repository(str(path))
        for slug, tool, args, fn in _model_calls(repo, path):
            yield Case(f"pygit2-{slug}", LIBRARY, f"argument ({slug})", F, None, _catch(fn), tool, args)
        yield from _gitdir_cases(ctx, home)
        yield from _network_cases(ctx, home)
        yield from _os_cases(ctx, home)
    finally:
        for lvl, value in saved.items():
            pygit2.settings.search_path[lvl] = value
