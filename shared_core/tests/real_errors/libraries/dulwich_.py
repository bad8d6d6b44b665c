# ruff: noqa: B023 - each lambda is called at once
"""dulwich, git in pure Python, on real repositories in a temporary directory (made with
dulwich itself and the real ``git`` binary), against a real ``git daemon`` on 127.0.0.1
(exported, unexported and push-disabled repositories) and, for HTTP, the shared scenario
server (``servers.py``, the statuses git's smart HTTP remotes answer, as ``git_cli.py``
uses them). Commit times and identities are fixed so object ids are stable.

Labels follow ``git_cli.py`` (the same causes through the git binary): a ref, revision or
object the model named that does not exist, "already exists", diverged branches, merge
conflicts and local changes in the way are ambiguous; a path that is not a repository, a
path outside the repository, an invalid ref name or URL are fixable; corrupt repository
files are ambiguous; a repository not exported or not open to pushes, and HTTP 401/403,
are unrecoverable; a lock file held by another git process, refused connections, DNS, HTTP
429/503 are transient, not executed; HTTP 500/502 and a reset are transient with an
unknown outcome. git daemon's replies: https://git-scm.com/docs/git-daemon."""

from __future__ import annotations

import os
import shutil
import subprocess
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case
from servers import route

from ._common import NE, UO, A, F, T, U, catch, free_port, process

LIBRARY = "dulwich"
REQUIRES = ["dulwich>=1.2,<2", "merge3>=0.0.15,<2"]

ID = b"Ann <ann@example.com>"


def available() -> str | None:
    if shutil.which("git") is None:
        return "the git binary is not installed (git daemon)"
    return None


@contextmanager
def _environment(home: Path) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1")
    os.environ.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0")
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "EMAIL"):
        os.environ.pop(key, None)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def cases(ctx: Any) -> Iterator[Case]:
    home = ctx.tmp / "home"
    home.mkdir()
    with _environment(home):
        yield from _cases(ctx)


def _commit(repo: Path, message: str) -> bytes:
    from dulwich import porcelain

    return porcelain.commit(
        str(repo),
        message,
        author=ID,
        committer=ID,
        author_timestamp=1_700_000_000,
        commit_timestamp=1_700_000_000,
        author_timezone=0,
        commit_timezone=0,
    )


def _edit(repo: Path, name: str, text: str, message: str) -> bytes:
    from dulwich import porcelain

    (repo / name).write_text(text)
    porcelain.add(str(repo), [str(repo / name)])
    return _commit(repo, message)


def _http_refs(url: str, timeout: float = 5.0) -> Any:
    """ls-remote over smart HTTP, urllib3 retrying nothing (Retry-After would wait)."""
    import urllib3
    from dulwich.client import get_transport_and_path

    pool = urllib3.PoolManager(retries=False, timeout=timeout)
    client, path = get_transport_and_path(url, pool_manager=pool)
    return client.get_refs(path)


def _cases(ctx: Any) -> Iterator[Case]:
    from dulwich import porcelain
    from dulwich.repo import Repo

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, args: dict[str, Any]
    ) -> Case:
        return Case(f"dulwich-{cid}", LIBRARY, cause, kind, outcome, exc, "git", arguments=args)

    tmp: Path = ctx.tmp
    quiet = open(os.devnull, "wb")  # noqa: SIM115 - porcelain's progress output
    # a working repository: master and feature change the same line
    work = tmp / "work"
    porcelain.init(str(work))
    _edit(work, "notes.txt", "line one\n", "first")
    (work / "app.py").write_text("print('hi')\n")
    porcelain.add(str(work), [str(work / "app.py")])
    _commit(work, "app")
    porcelain.branch_create(str(work), "feature")
    _edit(work, "notes.txt", "line one from master\n", "master edit")
    porcelain.checkout(str(work), "feature")
    _edit(work, "notes.txt", "line one from feature\n", "feature edit")
    porcelain.checkout(str(work), "master")
    porcelain.tag_create(str(work), "v1", author=ID, tag_time=1_700_000_000, tag_timezone=0)
    repo = Repo(str(work))
    w = str(work)
    plain = tmp / "plain"
    plain.mkdir()
    # (id, cause, kind, the arguments the model wrote, the call)
    calls: list[tuple[str, str, str, dict[str, Any], Any]] = [
        ("not-a-repo", "path is not a git repository", F, {"repo": str(plain), "command": "status"}, lambda: Repo(str(plain))),
        ("no-such-path", "repository path does not exist", A, {"repo": str(tmp / "missing"), "command": "status"}, lambda: Repo(str(tmp / "missing"))),
        ("missing-object", "object id not in the repository", A, {"repo": w, "command": "show", "object": "1" * 40}, lambda: repo[b"1" * 40]),
        ("missing-ref", "ref that does not exist", A, {"repo": w, "command": "show-ref", "ref": "refs/heads/nosuch"}, lambda: repo.refs[b"refs/heads/nosuch"]),
        ("checkout-missing", "checkout of a branch that does not exist", A, {"repo": w, "command": "checkout", "branch": "nosuch"}, lambda: porcelain.checkout(w, "nosuch")),
        ("reset-missing", "reset to an unknown revision", A, {"repo": w, "command": "reset", "mode": "hard", "ref": "nosuch"}, lambda: porcelain.reset(w, "hard", "nosuch")),
        ("rev-parse-missing", "rev-parse of an unknown revision", A, {"repo": w, "command": "rev-parse", "ref": "nosuch"}, lambda: porcelain.rev_parse(w, "nosuch")),
        ("ls-tree-missing", "ls-tree of an unknown tree-ish", A, {"repo": w, "command": "ls-tree", "ref": "nosuch"}, lambda: porcelain.ls_tree(w, "nosuch", outstream=quiet)),
        ("path-missing", "file not in the given commit", A, {"repo": w, "command": "show", "path": "missing.txt"}, lambda: porcelain.get_object_by_path(w, "missing.txt")),
        ("branch-exists", "branch already exists", A, {"repo": w, "command": "branch", "name": "feature"}, lambda: porcelain.branch_create(w, "feature")),
        ("remote-missing", "remove of a missing remote", A, {"repo": w, "command": "remote remove", "name": "nosuch"}, lambda: porcelain.remote_remove(w, "nosuch")),
        ("branch-invalid", "invalid branch name", F, {"repo": w, "command": "branch", "name": "a..b"}, lambda: porcelain.branch_create(w, "a..b")),
        ("rm-missing", "rm of a file that is not tracked", F, {"repo": w, "command": "rm", "paths": [str(work / "nosuch.txt")]}, lambda: porcelain.remove(w, [str(work / "nosuch.txt")])),
        ("add-outside", "add of a path outside the repository", F, {"repo": w, "command": "add", "paths": ["/etc/hostname"]}, lambda: porcelain.add(w, ["/etc/hostname"])),
        ("clone-missing", "clone of a repository that does not exist", A, {"command": "clone", "url": str(tmp / "nowhere"), "target": str(tmp / "c1")}, lambda: porcelain.clone(str(tmp / "nowhere"), str(tmp / "c1"), errstream=quiet)),
        ("clone-into-existing", "clone into an existing repository", A, {"command": "clone", "url": w, "target": w}, lambda: porcelain.clone(w, w, errstream=quiet)),
        ("push-unknown-remote", "push to an unknown remote name", F, {"repo": w, "command": "push", "remote": "nosuchremote", "refspec": "master"}, lambda: porcelain.push(w, "nosuchremote", "master", errstream=quiet)),
        ("stash-empty", "stash pop without stash entries", A, {"repo": w, "command": "stash pop"}, lambda: porcelain.stash_pop(w)),
    ]  # fmt: skip
    for cid, cause, kind, args, fn in calls:
        yield case(cid, cause, kind, None, catch(fn), args)
    porcelain.remote_add(w, "origin", str(tmp / "bare.git"))
    exc = catch(lambda: porcelain.remote_add(w, "origin", "x"))
    args = {"repo": w, "command": "remote add", "name": "origin", "url": "x"}
    yield case("remote-exists", "remote already exists", A, None, exc, args)
    # conflicts
    exc = catch(lambda: porcelain.cherry_pick(w, "feature"))
    args = {"repo": w, "command": "cherry-pick", "ref": "feature"}
    yield case("cherry-pick-conflict", "cherry-pick conflict", A, None, exc, args)
    porcelain.reset(w, "hard", "HEAD")
    (work / "notes.txt").write_text("uncommitted\n")
    exc = catch(lambda: porcelain.checkout(w, "feature"))
    args = {"repo": w, "command": "checkout", "branch": "feature"}
    yield case("checkout-overwrite", "local changes would be overwritten", A, None, exc, args)
    porcelain.reset(w, "hard", "HEAD")
    # locks held by another git process
    lock = work / ".git" / "index.lock"
    lock.write_text("")
    (work / "app.py").write_text("print('bye')\n")
    exc = catch(lambda: porcelain.add(w, [str(work / "app.py")]))
    args = {"repo": w, "command": "add", "paths": [str(work / "app.py")]}
    yield case("index-lock", "index.lock held by another git process", T, NE, exc, args)
    lock.unlink()
    ref_lock = work / ".git" / "refs" / "heads" / "feature.lock"
    ref_lock.write_text("")
    exc = catch(lambda: porcelain.update_ref(w, "refs/heads/feature", "master"))
    args = {"repo": w, "command": "update-ref", "ref": "refs/heads/feature", "value": "master"}
    yield case("ref-lock", "ref lock held by another git process", T, NE, exc, args)
    ref_lock.unlink()

    # corrupt repository files (copies of the working repository)
    def broken(name: str) -> Path:
        copy = tmp / name
        shutil.copytree(work, copy)
        return copy

    b = broken("corrupt-object")
    head = Repo(str(b)).head().decode()
    obj = b / ".git" / "objects" / head[:2] / head[2:]
    obj.chmod(0o644)
    obj.write_bytes(zlib.compress(b"garbage")[:-4] + b"\x00\x00\x00\x00")
    yield case(
        "corrupt-object",
        "loose object file corrupt",
        A,
        None,
        catch(lambda: porcelain.log(str(b), outstream=quiet)),
        {"repo": str(b), "command": "log"},
    )
    b = broken("corrupt-index")
    (b / ".git" / "index").write_bytes(b"DIRC" + b"\xff" * 20)
    exc = catch(lambda: porcelain.status(str(b)))
    yield case("corrupt-index", "index file corrupt", A, None, exc, {"repo": str(b), "command": "status"})
    b = broken("corrupt-config")
    (b / ".git" / "config").write_text("[core\n\tbare = false\n")
    exc = catch(lambda: Repo(str(b)).get_config())
    args = {"repo": str(b), "command": "config"}
    yield case("corrupt-config", "repository config unparsable", A, None, exc, args)
    b = broken("corrupt-packed-refs")
    (b / ".git" / "packed-refs").write_text("# pack-refs with: peeled\nnot a ref line\n")
    exc = catch(lambda: Repo(str(b)).refs.as_dict())
    args = {"repo": str(b), "command": "show-ref"}
    yield case("corrupt-packed-refs", "packed-refs file corrupt", A, None, exc, args)
    b = broken("corrupt-head")
    (b / ".git" / "refs" / "heads" / "master").write_text("not-a-sha\n")
    yield case(
        "corrupt-ref",
        "branch ref file holds no object id",
        A,
        None,
        catch(lambda: porcelain.log(str(b), outstream=quiet)),
        {"repo": str(b), "command": "log"},
    )
    # a real git daemon
    srv = tmp / "srv"
    srv.mkdir()
    for name in ("served", "private", "locked"):
        subprocess.run(["git", "init", "-q", "--bare", str(srv / f"{name}.git")], check=True)
    (srv / "served.git" / "git-daemon-export-ok").touch()
    (srv / "locked.git" / "git-daemon-export-ok").touch()
    subprocess.run(
        ["git", "-C", str(srv / "locked.git"), "config", "daemon.receivepack", "false"], check=True
    )
    exec_path = subprocess.run(
        ["git", "--exec-path"], capture_output=True, text=True, check=True
    ).stdout.strip()
    port = free_port()
    daemon = [
        os.path.join(exec_path, "git-daemon"),
        "--reuseaddr",
        "--listen=127.0.0.1",
        f"--port={port}",
        f"--base-path={srv}",
        "--enable=receive-pack",
        "--allow-override=receive-pack",
        str(srv),
    ]
    with process(daemon, port):
        ctx.name_port(port, "GITPORT")
        url = f"git://127.0.0.1:{port}"
        porcelain.push(w, f"{url}/served.git", "master", errstream=quiet, outstream=quiet)
        other = tmp / "other"
        porcelain.clone(f"{url}/served.git", str(other), errstream=quiet)
        _edit(other, "notes.txt", "from the other clone\n", "other")
        porcelain.push(str(other), f"{url}/served.git", "master", errstream=quiet, outstream=quiet)
        _edit(work, "notes.txt", "mine\n", "mine")
        exc = catch(
            lambda: porcelain.push(w, f"{url}/served.git", "master", errstream=quiet, outstream=quiet)
        )
        args = {"repo": w, "command": "push", "remote": f"{url}/served.git", "refspec": "master"}
        yield case("push-diverged", "push of a branch the remote moved past", A, None, exc, args)
        exc = catch(
            lambda: porcelain.pull(w, f"{url}/served.git", "master", errstream=quiet, outstream=quiet)
        )
        args = {"repo": w, "command": "pull", "remote": f"{url}/served.git", "refspec": "master"}
        yield case("pull-diverged", "pull of diverged branches", A, None, exc, args)
        exc = catch(
            lambda: porcelain.push(w, f"{url}/served.git", "nosuchbranch", errstream=quiet, outstream=quiet)
        )
        args = {"repo": w, "command": "push", "remote": f"{url}/served.git", "refspec": "nosuchbranch"}
        yield case("push-bad-refspec", "push of a local branch that does not exist", A, None, exc, args)
        exc = catch(lambda: porcelain.clone(f"{url}/private.git", str(tmp / "c2"), errstream=quiet))
        args = {"command": "clone", "url": f"{url}/private.git", "target": str(tmp / "c2")}
        yield case("not-exported", "repository not exported by git daemon", U, None, exc, args)
        exc = catch(lambda: porcelain.ls_remote(f"{url}/nope.git"))
        args = {"command": "ls-remote", "url": f"{url}/nope.git"}
        yield case("daemon-missing", "repository that does not exist on the daemon", A, None, exc, args)
        exc = catch(
            lambda: porcelain.push(w, f"{url}/locked.git", "master", errstream=quiet, outstream=quiet)
        )
        args = {"repo": w, "command": "push", "remote": f"{url}/locked.git", "refspec": "master"}
        yield case("push-disabled", "receive-pack disabled for the repository", U, None, exc, args)
    for cid, cause, kind, outcome, remote in [
        ("refused", "connection refused", T, NE, f"git://127.0.0.1:{ctx.dead}/served.git"),
        ("dns", "DNS name does not resolve", T, NE, "git://git.nonexistent.invalid/served.git"),
        ("bad-scheme", "URL scheme dulwich does not speak (taken as ssh)", F, None, "gopher://127.0.0.1/served.git"),
    ]:  # fmt: skip
        exc = catch(lambda: porcelain.ls_remote(remote))
        yield case(cid, cause, kind, outcome, exc, {"command": "ls-remote", "url": remote})
    # HTTP remotes (the shared scenario server)
    base = f"http://127.0.0.1:{ctx.port}/s"
    for name, kind, outcome, cause in [
        ("rest_404", A, None, "HTTP remote not found (404)"),
        ("rest_401", U, None, "HTTP remote needs credentials (401)"),
        ("rest_403", U, None, "HTTP remote forbidden (403)"),
        ("rest_429", T, NE, "HTTP remote rate limited (429)"),
        ("rest_500", T, UO, "HTTP remote internal error (500)"),
        ("rest_502", T, UO, "HTTP remote bad gateway (502)"),
        ("rest_503", T, NE, "HTTP remote unavailable (503)"),
        ("reset", T, UO, "connection reset by the HTTP server"),
        ("rest_html", A, None, "HTTP remote answers an HTML page, not git"),
    ]:
        remote = f"{base}/{route(name)}/repo.git"
        exc = catch(lambda: _http_refs(remote))
        args = {"command": "ls-remote", "url": remote}
        yield case(f"http-{name.removeprefix('rest_')}", cause, kind, outcome, exc, args)
    remote = f"http://127.0.0.1:{ctx.dead}/repo.git"
    exc = catch(lambda: _http_refs(remote))
    yield case("http-refused", "HTTP connection refused", T, NE, exc, {"command": "ls-remote", "url": remote})
    remote = f"{base}/{route('hang')}/repo.git"
    exc = catch(lambda: _http_refs(remote, timeout=0.5))
    args = {"command": "ls-remote", "url": remote}
    yield case("http-timeout", "HTTP read timeout (server never answers)", T, UO, exc, args)
    quiet.close()
