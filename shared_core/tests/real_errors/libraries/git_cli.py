# ruff: noqa: B023 - each lambda is called at once
"""GitPython driving the real ``git`` binary on repositories in a temporary directory:
``GitCommandError`` (the command line, exit status and git's own stderr), and GitPython's
own errors. Remotes are local bare repositories and, for HTTP, the shared scenario
server. Authors, dates and the default branch are fixed so that commit ids are stable."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case
from servers import route

from ._common import NE, UO, A, F, T, U, catch

LIBRARY = "GitPython"
REQUIRES = ["GitPython>=3.1,<4"]

_ENV = {
    "GIT_AUTHOR_NAME": "Ann",
    "GIT_AUTHOR_EMAIL": "ann@example.com",
    "GIT_COMMITTER_NAME": "Ann",
    "GIT_COMMITTER_EMAIL": "ann@example.com",
    "GIT_AUTHOR_DATE": "2024-01-02T03:04:05+00:00",
    "GIT_COMMITTER_DATE": "2024-01-02T03:04:05+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ADVICE": "0",
    "LC_ALL": "C",
    "LANGUAGE": "C",
}


def available() -> str | None:
    if shutil.which("git") is None:
        return "the git binary is not installed"
    return None


@contextmanager
def _environment(home: Path) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(_ENV, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "EMAIL"):
        os.environ.pop(key, None)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _hook(repo: Any, name: str, body: str) -> None:
    path = Path(repo.git_dir) / "hooks" / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def cases(ctx: Any) -> Iterator[Case]:
    home = ctx.tmp / "home"
    home.mkdir()
    with _environment(home):
        yield from _cases(ctx)


def _cases(ctx: Any) -> Iterator[Case]:
    import git

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, arguments: dict[str, Any]
    ) -> Case:
        return Case(f"git-{cid}", LIBRARY, cause, kind, outcome, exc, "git", arguments=arguments)

    def run(repo: Any, *args: str) -> dict[str, Any]:
        """The model's arguments: the repository and git's command line (without ``git``)."""
        return {"repo": str(repo), "args": list(args)}

    tmp: Path = ctx.tmp
    (tmp / "home" / ".gitconfig").write_text(
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
    )
    plain = tmp / "plain"
    plain.mkdir()
    yield case(
        "not-a-repo",
        "path is not a git repository (GitPython)",
        F,
        None,
        catch(lambda: git.Repo(plain)),
        {"repo": str(plain)},
    )
    exc = catch(lambda: git.Git(plain).status())
    yield case("not-a-repo-cli", "git status outside a repository", F, None, exc, run(plain, "status"))
    yield case(
        "no-such-path",
        "repository path does not exist",
        A,
        None,
        catch(lambda: git.Repo(tmp / "missing")),
        {"repo": str(tmp / "missing")},
    )
    empty = git.Repo.init(tmp / "empty")
    yield case(
        "empty-log",
        "log of a branch without commits",
        A,
        None,
        catch(lambda: empty.git.log()),
        run(tmp / "empty", "log"),
    )
    yield case(
        "nothing-to-amend",
        "amend in a repository without commits",
        F,
        None,
        catch(lambda: empty.git.commit("--amend", "-m", "x")),
        run(tmp / "empty", "commit", "--amend", "-m", "x"),
    )

    # the working repository: main with two commits, feature changing the same line
    work = git.Repo.init(tmp / "work")
    wdir = Path(work.working_dir)
    (wdir / "notes.txt").write_text("line one\n")
    (wdir / "app.py").write_text("print('hi')\n")
    work.git.add(".")
    work.git.commit("-m", "first")
    work.git.branch("feature")
    (wdir / "notes.txt").write_text("line one from main\n")
    work.git.commit("-am", "main edit")
    work.git.checkout("feature")
    (wdir / "notes.txt").write_text("line one from feature\n")
    work.git.commit("-am", "feature edit")
    work.git.checkout("main")
    g = work.git
    # A missing ref stays ambiguous, as HTTP 404 does (DELIVERY.md 3; the MCP reference
    # servers' git_diff and git_show cases); a path given to `git add` that matches no file
    # is the caller's argument (their git_add case).
    commands: list[tuple[str, str, str, dict[str, Any], Any]] = [
        (
            "checkout-missing",
            "checkout of a branch that does not exist",
            A,
            run(wdir, "checkout", "nosuch"),
            lambda: g.checkout("nosuch"),
        ),
        (
            "add-missing",
            "add of a file that does not exist",
            F,
            run(wdir, "add", "nosuch.txt"),
            lambda: g.add("nosuch.txt"),
        ),
        (
            "verify-missing",
            "rev-parse of an unknown revision",
            A,
            run(wdir, "rev-parse", "--verify", "nosuch"),
            lambda: g.rev_parse("--verify", "nosuch"),
        ),
        (
            "log-bad-revision",
            "log of an unknown revision",
            A,
            run(wdir, "log", "nosuch..main"),
            lambda: g.log("nosuch..main"),
        ),
        (
            "show-missing-path",
            "file not in the given commit",
            A,
            run(wdir, "show", "HEAD:missing.txt"),
            lambda: g.show("HEAD:missing.txt"),
        ),
        (
            "bad-name",
            "unknown revision (GitPython BadName)",
            A,
            {"repo": str(wdir), "revision": "nosuch"},
            lambda: work.commit("nosuch"),
        ),
        (
            "branch-exists",
            "branch already exists",
            A,
            run(wdir, "branch", "feature"),
            lambda: g.branch("feature"),
        ),
        (
            "branch-unmerged",
            "delete of an unmerged branch",
            A,
            run(wdir, "branch", "-d", "feature"),
            lambda: g.branch("-d", "feature"),
        ),
        (
            "branch-current",
            "delete of the checked-out branch",
            F,
            run(wdir, "branch", "-D", "main"),
            lambda: g.branch("-D", "main"),
        ),
        ("branch-invalid", "invalid branch name", F, run(wdir, "branch", "a..b"), lambda: g.branch("a..b")),
        (
            "unknown-option",
            "unknown option",
            F,
            run(wdir, "status", "--nosuch"),
            lambda: g.status("--nosuch"),
        ),
        ("unknown-subcommand", "unknown git subcommand", F, run(wdir, "frobnicate"), lambda: g.frobnicate()),
        (
            "config-invalid-key",
            "config key without a section",
            F,
            run(wdir, "config", "nosection", "1"),
            lambda: g.config("nosection", "1"),
        ),
        (
            "config-missing",
            "config key not set (exit 1, no output)",
            A,
            run(wdir, "config", "--get", "user.phone"),
            lambda: g.config("--get", "user.phone"),
        ),
        ("describe-no-tags", "describe without any tag", A, run(wdir, "describe"), lambda: g.describe()),
        (
            "stash-empty",
            "stash pop without stash entries",
            A,
            run(wdir, "stash", "pop"),
            lambda: g.stash("pop"),
        ),
        (
            "tag-delete-missing",
            "delete of a missing tag",
            A,
            run(wdir, "tag", "-d", "v9"),
            lambda: g.tag("-d", "v9"),
        ),
        (
            "remote-remove-missing",
            "remove of a missing remote",
            A,
            run(wdir, "remote", "remove", "nosuch"),
            lambda: g.remote("remove", "nosuch"),
        ),
        (
            "remote-name",
            "unknown remote name (GitPython)",
            F,
            {"repo": str(wdir), "remote": "nosuch"},
            lambda: work.remote("nosuch"),
        ),
        (
            "head-missing",
            "unknown head name (GitPython)",
            A,
            {"repo": str(wdir), "branch": "nosuch"},
            lambda: work.heads["nosuch"],
        ),
        (
            "ff-only",
            "fast-forward impossible (branches diverged)",
            A,
            run(wdir, "merge", "--ff-only", "feature"),
            lambda: g.merge("--ff-only", "feature"),
        ),
        ("pull-no-tracking", "pull without an upstream branch", F, run(wdir, "pull"), lambda: g.pull()),
        (
            "fetch-missing-path",
            "fetch from a path that is not a repository",
            A,
            run(wdir, "fetch", str(tmp / "nowhere")),
            lambda: g.fetch(str(tmp / "nowhere")),
        ),
        (
            "clone-missing",
            "clone of a repository that does not exist",
            A,
            {"url": str(tmp / "nowhere"), "to": str(tmp / "c1")},
            lambda: git.Repo.clone_from(tmp / "nowhere", tmp / "c1"),
        ),
        (
            "clone-into-existing",
            "clone into a non-empty directory",
            A,
            {"url": str(wdir), "to": str(wdir)},
            lambda: git.Repo.clone_from(wdir, wdir),
        ),
        (
            "mv-exists",
            "mv onto an existing file",
            A,
            run(wdir, "mv", "notes.txt", "app.py"),
            lambda: g.mv("notes.txt", "app.py"),
        ),
        (
            "empty-message",
            "commit with an empty message",
            F,
            run(wdir, "commit", "--allow-empty", "-m", ""),
            lambda: g.commit("--allow-empty", "-m", ""),
        ),
        (
            "nothing-to-commit",
            "commit with nothing staged",
            A,
            run(wdir, "commit", "-m", "nothing"),
            lambda: g.commit("-m", "nothing"),
        ),
        (
            "unsafe-protocol",
            "ext:: transport refused by GitPython",
            U,
            {"url": "ext::sh -c touch% /tmp/pwned", "to": str(tmp / "c2")},
            lambda: git.Repo.clone_from("ext::sh -c touch% /tmp/pwned", tmp / "c2"),
        ),
        (
            "unsafe-option",
            "--upload-pack option refused by GitPython",
            U,
            {"url": str(wdir), "to": str(tmp / "c3"), "upload_pack": "touch /tmp/pwned"},
            lambda: git.Repo.clone_from(str(wdir), tmp / "c3", upload_pack="touch /tmp/pwned"),
        ),
        (  # the executable is the tool's: the model asked for a status
            "command-not-found",
            "git executable missing",
            U,
            run(wdir, "status"),
            lambda: git.Git(wdir).execute(["/nonexistent/bin/git", "status"]),
        ),
    ]
    for cid, cause, kind, arguments, fn in commands:
        yield case(cid, cause, kind, None, catch(fn), arguments)
    g.tag("v1")
    yield case(
        "tag-exists", "tag already exists", A, None, catch(lambda: g.tag("v1")), run(wdir, "tag", "v1")
    )
    g.remote("add", "origin", str(tmp / "bare.git"))
    yield case(
        "remote-exists",
        "remote already exists",
        A,
        None,
        catch(lambda: g.remote("add", "origin", "x")),
        run(wdir, "remote", "add", "origin", "x"),
    )
    yield case(
        "push-missing-remote",
        "push to an unknown remote name",
        F,
        None,
        catch(lambda: g.push("nosuch", "main")),
        run(wdir, "push", "nosuch", "main"),
    )

    # conflicts
    yield case(
        "merge-conflict",
        "merge conflict",
        A,
        None,
        catch(lambda: g.merge("feature")),
        run(wdir, "merge", "feature"),
    )
    yield case(
        "commit-unmerged",
        "commit with unmerged files",
        F,
        None,
        catch(lambda: g.commit("-m", "x")),
        run(wdir, "commit", "-m", "x"),
    )
    g.merge("--abort")
    yield case(
        "rebase-conflict",
        "rebase conflict",
        A,
        None,
        catch(lambda: g.rebase("feature")),
        run(wdir, "rebase", "feature"),
    )
    g.rebase("--abort")
    yield case(
        "cherry-pick-conflict",
        "cherry-pick conflict",
        A,
        None,
        catch(lambda: g.cherry_pick("feature")),
        run(wdir, "cherry-pick", "feature"),
    )
    g.cherry_pick("--abort")
    (wdir / "notes.txt").write_text("uncommitted\n")
    yield case(
        "checkout-overwrite",
        "local changes would be overwritten",
        A,
        None,
        catch(lambda: g.checkout("feature")),
        run(wdir, "checkout", "feature"),
    )
    yield case(
        "rebase-dirty",
        "rebase with unstaged changes",
        F,
        None,
        catch(lambda: g.rebase("feature")),
        run(wdir, "rebase", "feature"),
    )
    yield case(
        "rm-modified",
        "rm of a file with local changes",
        A,
        None,
        catch(lambda: g.rm("notes.txt")),
        run(wdir, "rm", "notes.txt"),
    )
    g.stash()
    g.checkout("feature")
    yield case(
        "stash-conflict",
        "stash pop conflict",
        A,
        None,
        catch(lambda: g.stash("pop")),
        run(wdir, "stash", "pop"),
    )
    g.reset("--hard")
    g.checkout("main")
    g.merge("-s", "ours", "feature", "-m", "merge feature")
    yield case(
        "revert-merge",
        "revert of a merge without -m",
        F,
        None,
        catch(lambda: g.revert("--no-edit", "HEAD")),
        run(wdir, "revert", "--no-edit", "HEAD"),
    )
    # the model gave the patch file's path (its text is the file's)
    patch = tmp / "change.patch"
    patch.write_text("--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-not this line\n+new line\n")
    yield case(
        "patch-does-not-apply",
        "patch does not apply",
        F,
        None,
        catch(lambda: g.apply(str(patch))),
        run(wdir, "apply", str(patch)),
    )
    patch.write_text("--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\nthis is not a hunk\n")
    yield case(
        "patch-corrupt",
        "corrupt patch",
        F,
        None,
        catch(lambda: g.apply(str(patch))),
        run(wdir, "apply", str(patch)),
    )
    other = git.Repo.init(tmp / "other")
    (Path(other.working_dir) / "x.txt").write_text("x\n")
    other.git.add(".")
    other.git.commit("-m", "unrelated")
    g.fetch(other.working_dir, "main:unrelated")
    yield case(
        "unrelated-histories",
        "merge of unrelated histories",
        F,
        None,
        catch(lambda: g.merge("unrelated")),
        run(wdir, "merge", "unrelated"),
    )
    # locks
    lock = Path(work.git_dir) / "index.lock"
    lock.write_text("")
    yield case(
        "index-lock",
        "index.lock held by another git process",
        T,
        NE,
        catch(lambda: g.add("app.py")),
        run(wdir, "add", "app.py"),
    )
    lock.unlink()
    ref_lock = Path(work.git_dir) / "refs" / "heads" / "feature.lock"
    ref_lock.write_text("")
    exc = catch(lambda: g.update_ref("refs/heads/feature", "HEAD"))
    yield case(
        "ref-lock",
        "ref lock held by another git process",
        T,
        NE,
        exc,
        run(wdir, "update-ref", "refs/heads/feature", "HEAD"),
    )
    ref_lock.unlink()
    # hooks
    _hook(work, "pre-commit", "echo 'lint failed: trailing whitespace in app.py' >&2\nexit 1")
    (wdir / "app.py").write_text("print('hi')   \n")
    g.add("app.py")
    yield case(
        "pre-commit-hook",
        "pre-commit hook rejects the change",
        F,
        None,
        catch(lambda: g.commit("-m", "x")),
        run(wdir, "commit", "-m", "x"),
    )
    _hook(work, "pre-commit", "exit 0")
    _hook(work, "commit-msg", "echo 'commit message must start with a ticket id (ABC-123)' >&2\nexit 1")
    yield case(
        "commit-msg-hook",
        "commit-msg hook rejects the message",
        F,
        None,
        catch(lambda: g.commit("-m", "x")),
        run(wdir, "commit", "-m", "x"),
    )
    _hook(work, "commit-msg", "sleep 3")
    exc = catch(lambda: g.commit("-m", "x", kill_after_timeout=0.3))
    yield case(
        "hook-timeout",
        "the command's own timeout (slow hook killed)",
        A,
        None,
        exc,
        run(wdir, "commit", "-m", "x"),
    )
    (Path(work.git_dir) / "hooks" / "commit-msg").unlink()
    g.commit("-m", "tidy")
    # identity
    saved = {
        k: os.environ.pop(k) for k in list(os.environ) if k.startswith(("GIT_AUTHOR_", "GIT_COMMITTER_"))
    }
    (wdir / "app.py").write_text("print('bye')\n")
    exc = catch(lambda: g.commit("-am", "no identity", env={"EMAIL": ""}))
    yield case(
        "no-identity", "author identity unknown", U, None, exc, run(wdir, "commit", "-am", "no identity")
    )
    os.environ.update(saved)
    g.commit("-am", "bye")
    # detached HEAD
    g.checkout("HEAD~1")
    yield case(
        "detached-push",
        "push from a detached HEAD",
        F,
        None,
        catch(lambda: g.push("origin")),
        run(wdir, "push", "origin"),
    )
    yield case(
        "detached-branch",
        "active branch asked on a detached HEAD",
        A,
        None,
        catch(lambda: work.active_branch),
        {"repo": str(wdir)},
    )
    g.checkout("main")

    # pushes to local remotes
    bare = git.Repo.init(tmp / "bare.git", bare=True)
    g.push("origin", "main")
    clone = git.Repo.clone_from(bare.git_dir, tmp / "clone")
    cdir = Path(clone.working_dir)
    (cdir / "c.txt").write_text("from clone\n")
    clone.git.add(".")
    clone.git.commit("-m", "clone change")
    clone.git.push("origin", "main")
    (wdir / "w.txt").write_text("from work\n")
    g.add(".")
    g.commit("-m", "work change")
    yield case(
        "push-rejected",
        "push rejected: remote has new commits (fetch first)",
        A,
        None,
        catch(lambda: g.push("origin", "main")),
        run(wdir, "push", "origin", "main"),
    )
    g.fetch("origin")
    yield case(
        "push-non-ff",
        "push rejected: non-fast-forward",
        A,
        None,
        catch(lambda: g.push("origin", "main:main")),
        run(wdir, "push", "origin", "main:main"),
    )
    bare.git.config("receive.denyNonFastForwards", "true")
    yield case(
        "push-deny-force",
        "force push refused by the remote",
        U,
        None,
        catch(lambda: g.push("--force", "origin", "main")),
        run(wdir, "push", "--force", "origin", "main"),
    )
    bare.git.config("receive.denyDeletes", "true")
    yield case(
        "push-deny-delete",
        "branch deletion refused by the remote",
        U,
        None,
        catch(lambda: clone.git.push("origin", ":main")),
        run(cdir, "push", "origin", ":main"),
    )
    _hook(bare, "pre-receive", "echo 'protected branch: direct pushes to main are not allowed' >&2\nexit 1")
    clone.git.commit("--allow-empty", "-m", "again")
    yield case(
        "push-hook",
        "pre-receive hook declined",
        U,
        None,
        catch(lambda: clone.git.push("origin", "main")),
        run(cdir, "push", "origin", "main"),
    )
    (Path(bare.git_dir) / "hooks" / "pre-receive").unlink()
    bare.git.config("receive.maxInputSize", "200")
    (cdir / "big.bin").write_bytes(os.urandom(1))
    (cdir / "big.txt").write_text("".join(f"line {i} of a large file\n" for i in range(3000)))
    clone.git.add(".")
    clone.git.commit("-m", "big")
    yield case(
        "push-too-large",
        "pack larger than the remote accepts",
        U,
        None,
        catch(lambda: clone.git.push("origin", "main")),
        run(cdir, "push", "origin", "main"),
    )
    (cdir / "big.bin").unlink()
    nonbare = git.Repo.clone_from(bare.git_dir, tmp / "nonbare")
    clone.git.remote("add", "nonbare", nonbare.working_dir)
    yield case(
        "push-checked-out",
        "push to the checked-out branch of a non-bare repository",
        U,
        None,
        catch(lambda: clone.git.push("nonbare", "HEAD:main")),
        run(cdir, "push", "nonbare", "HEAD:main"),
    )
    yield case(
        "worktree-in-use",
        "branch already checked out in another worktree",
        A,
        None,
        catch(lambda: g.worktree("add", str(tmp / "wt"), "main")),
        run(wdir, "worktree", "add", str(tmp / "wt"), "main"),
    )

    # HTTP remotes (the shared scenario server) and a dead port
    base = f"http://127.0.0.1:{ctx.port}/s"
    for name, kind, outcome, cause in [
        ("rest_404", A, None, "HTTP remote not found (404)"),
        ("rest_401", U, None, "HTTP remote needs credentials (401, no prompt)"),
        ("rest_403", U, None, "HTTP remote forbidden (403)"),
        ("rest_429", T, NE, "HTTP remote rate limited (429)"),
        ("rest_500", T, UO, "HTTP remote internal error (500)"),
        ("rest_502", T, UO, "HTTP remote bad gateway (502)"),
        ("rest_503", T, NE, "HTTP remote unavailable (503)"),
    ]:
        url = f"{base}/{route(name)}/repo.git"
        exc = catch(lambda: g.ls_remote(url))
        yield case(
            f"http-{name.removeprefix('rest_')}", cause, kind, outcome, exc, run(wdir, "ls-remote", url)
        )
    url = f"http://127.0.0.1:{ctx.dead}/repo.git"
    exc = catch(lambda: g.ls_remote(url))
    yield case("http-refused", "connection refused", T, NE, exc, run(wdir, "ls-remote", url))
    url = f"{base}/{route('hang')}/repo.git"
    exc = catch(lambda: g.ls_remote(url, kill_after_timeout=1.0))
    yield case(
        "http-hang",
        "the command's own timeout (server never answers)",
        A,
        None,
        exc,
        run(wdir, "ls-remote", url),
    )

    # another account: a repository it does not own, and one it cannot write
    if os.geteuid() == 0 and shutil.which("runuser"):
        for p in (tmp, wdir):
            p.chmod(p.stat().st_mode | stat.S_IXOTH | stat.S_IROTH)
        as_nobody = ["runuser", "-u", "nobody", "--", "env", f"HOME={tmp}", "git"]
        exc = catch(lambda: g.execute([*as_nobody, "-C", str(wdir), "status"]))
        yield case("dubious-ownership", "repository owned by another user", U, None, exc, run(wdir, "status"))
        exc = catch(
            lambda: g.execute([*as_nobody, "-c", "safe.directory=*", "-C", str(wdir), "add", "w.txt"])
        )
        yield case(
            "permission-denied",
            "no write permission on the repository",
            U,
            None,
            exc,
            run(wdir, "add", "w.txt"),
        )
