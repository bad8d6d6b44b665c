# ruff: noqa: B023 - each lambda is called at once
"""GitPython behind an agent's repository tools (``clone_repository``, ``checkout_branch``,
``commit_files``, ``push_branch``, ``show_diff``, ``blame_file`` ...), driving the real ``git``
binary and GitPython's own object database, index and reference code on real repositories in
a temporary workspace. Remotes are bare repositories on disk, a real ``git daemon`` on
127.0.0.1 (https://git-scm.com/docs/git-daemon) and, for smart HTTP, the shared scenario
server (the statuses a Git host answers). Authors, dates and the default branch are fixed so
that object ids are stable. Repository paths in the arguments are relative to the tool's
workspace (its configuration); ``git_cli.py`` covers the raw ``git <args>`` tool instead.

Labels follow the cause that was set up, and the labels of ``git_cli.py`` / ``dulwich_.py``
for the same causes:

- fixable: a value the model wrote is malformed or outside what git accepts: an invalid
  branch, tag or remote name (git-check-ref-format(1), GitPython's ``ValueError`` "Invalid
  reference"), a revision expression GitPython cannot parse (``HEAD^{bogus}``, ``HEAD~x``:
  gitrevisions(7)) or does not implement (``main@{yesterday}``: ``NotImplementedError``), a
  line range past the end of the file or not in ``start,end`` form, a ``--depth`` of 0, an
  unknown archive format or merge strategy (closed vocabularies), a path outside the
  repository, a file to commit that does not exist or lies outside the repository
  (GitPython's ``ValueError``), a refspec git rejects, a path
  that is a directory but not a repository (``InvalidGitRepositoryError``), deleting the
  checked-out branch, a patch text that is not a patch, a path to restore that is not in the
  index (``CheckoutError``), a remote name that is not configured (the tool exposes the
  configured remotes, as ``git_cli.py``'s ``remote-name``), a commit the repository's
  pre-commit or commit-msg hook rejects (GitPython runs those hooks itself:
  ``HookExecutionError``; the model changes the message or the files), and a commit while
  entries are unmerged (``UnmergedEntriesError``: the model resolves first, as
  ``git_cli.py``'s ``commit-unmerged``).
- ambiguous: something the model named that does not exist (a path: ``NoSuchPathError``, a
  revision: ``BadName``, a ``:/text`` message search that matches nothing, an ancestor past
  the first commit, a file at a revision, a branch: ``IndexError``, a branch to push or clone, a
  repository on the daemon, an HTTP 404), a conflict with stored state (branch or tag already
  exists, clone into a non-empty directory, local changes in the way, a merge conflict, an
  unmerged branch, a push rejected because the remote moved, divergent branches on a
  fast-forward-only pull), a patch file the model named that no longer applies, and corrupt
  repository files the tool read (a damaged loose object, ``HEAD``, config).
- unrecoverable: what the installation, the remote's configuration or the credentials
  refuse: git-lfs not installed, the git executable missing (``GitCommandNotFound``), an
  ``ext::`` URL or a ``--config`` clone option refused by GitPython's unsafe-protocol and
  unsafe-option guards (the tool's policy), a repository the daemon does not export, a
  daemon with pushes disabled, HTTP 401 without a credential helper (no prompt) and 403, a
  server-side pre-receive hook and ``receive.denyNonFastForwards``.
- transient: another process holding ``index.lock`` or a ref's ``.lock`` (GitPython's own
  ``LockedFD``: "could not be obtained"; git: "File exists ... another git process"), a
  daemon that is not running (connection refused), HTTP 429 and 503: not executed; HTTP
  500/502 and a connection reset: unknown outcome.

GitPython's ``Remote.push`` reports a rejected ref in its ``PushInfo`` list, and
``raise_if_error()`` raises with git's last stderr line only ("failed to push some refs"):
``push-rejected-remote-moved`` keeps that text; the force and hook refusals go through
``repo.git.push`` (git's full stderr). ``Remote.pull`` consumes git's stderr for its progress
parser, so ``daemon-refused`` keeps only the command line and exit status (the cause is in no
text; the label is still the refused connection).

Not triggered: permission errors (the generator runs as root, which bypasses file modes;
``git_cli.py`` covers them through another account), a full disk, commands killed by
GitPython's ``kill_after_timeout`` (a slow remote or the tool's own limit: no sure label),
GitPython's ``RepositoryDirtyError`` (raised only by submodule updates) and ``CacheError``.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case
from servers import route

from ._common import NE, UO, A, F, T, U, catch, free_port, process

LIBRARY = "GitPython"
REQUIRES = ["GitPython==3.2.1"]

_ENV = {
    "GIT_AUTHOR_NAME": "Ann",
    "GIT_AUTHOR_EMAIL": "ann@example.com",
    "GIT_COMMITTER_NAME": "Ann",
    "GIT_COMMITTER_EMAIL": "ann@example.com",
    "GIT_AUTHOR_DATE": "1704164645 +0000",
    "GIT_COMMITTER_DATE": "1704164645 +0000",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ADVICE": "0",
    "LC_ALL": "C",
    "LANGUAGE": "C",
}


def _schema(properties: dict[str, tuple[str, str]], required: list[str]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for name, (kind, description) in properties.items():
        if kind == "array":
            props[name] = {"type": "array", "items": {"type": "string"}, "description": description}
        else:
            props[name] = {"type": kind, "description": description}
    return {"type": "object", "properties": props, "required": required}


_REPO = ("string", "Repository folder in the workspace")
SCHEMAS: dict[str, dict[str, Any]] = {
    "git_status": _schema({"repo": _REPO}, ["repo"]),
    "clone_repository": _schema(
        {
            "url": ("string", "URL or path of the repository to clone"),
            "directory": ("string", "Folder in the workspace to clone into"),
            "branch": ("string", "Branch to check out after cloning"),
            "depth": ("integer", "Number of commits to fetch (shallow clone)"),
            "options": ("array", "Extra git clone options"),
        },
        ["url", "directory"],
    ),
    "create_branch": _schema(
        {
            "repo": _REPO,
            "name": ("string", "Name of the new branch"),
            "start_point": ("string", "Commit or branch the new branch starts from"),
        },
        ["repo", "name"],
    ),
    "checkout_branch": _schema(
        {"repo": _REPO, "branch": ("string", "Branch to check out")}, ["repo", "branch"]
    ),
    "delete_branch": _schema(
        {
            "repo": _REPO,
            "name": ("string", "Branch to delete"),
            "force": ("boolean", "Delete even if not merged"),
        },
        ["repo", "name"],
    ),
    "commit_files": _schema(
        {
            "repo": _REPO,
            "files": ("array", "Paths to stage, relative to the repository"),
            "message": ("string", "Commit message"),
        },
        ["repo", "message"],
    ),
    "show_diff": _schema(
        {
            "repo": _REPO,
            "base": ("string", "Revision to compare from"),
            "target": ("string", "Revision to compare to (default: working tree)"),
            "path": ("string", "Limit the diff to this path"),
        },
        ["repo", "base"],
    ),
    "blame_file": _schema(
        {
            "repo": _REPO,
            "path": ("string", "File to blame, relative to the repository"),
            "revision": ("string", "Revision to blame at (default HEAD)"),
            "lines": ("string", "Line range such as 10,20"),
        },
        ["repo", "path"],
    ),
    "read_file_at_revision": _schema(
        {
            "repo": _REPO,
            "path": ("string", "File path relative to the repository"),
            "revision": ("string", "Branch, tag or commit"),
        },
        ["repo", "path", "revision"],
    ),
    "merge_branch": _schema(
        {
            "repo": _REPO,
            "branch": ("string", "Branch to merge into the current branch"),
            "strategy": ("string", "Merge strategy"),
        },
        ["repo", "branch"],
    ),
    "create_tag": _schema(
        {
            "repo": _REPO,
            "name": ("string", "Tag name"),
            "revision": ("string", "Commit to tag (default HEAD)"),
            "message": ("string", "Annotation message"),
        },
        ["repo", "name"],
    ),
    "add_remote": _schema(
        {"repo": _REPO, "name": ("string", "Remote name"), "url": ("string", "Remote URL")},
        ["repo", "name", "url"],
    ),
    "push_branch": _schema(
        {
            "repo": _REPO,
            "remote": ("string", "Remote name"),
            "refspec": ("string", "Branch or refspec to push"),
            "force": ("boolean", "Force the push"),
        },
        ["repo", "remote", "refspec"],
    ),
    "pull_branch": _schema(
        {"repo": _REPO, "remote": ("string", "Remote name"), "branch": ("string", "Branch to pull")},
        ["repo", "remote", "branch"],
    ),
    "list_remote_refs": _schema({"url": ("string", "URL of the remote repository")}, ["url"]),
    "apply_patch": _schema(
        {
            "repo": _REPO,
            "patch": ("string", "Unified diff to apply"),
            "patch_file": ("string", "Path of a patch file in the workspace"),
        },
        ["repo"],
    ),
    "archive_repository": _schema(
        {
            "repo": _REPO,
            "revision": ("string", "Revision to archive"),
            "format": ("string", "Archive format"),
            "output": ("string", "Output file in the workspace"),
        },
        ["repo", "revision", "output"],
    ),
    "restore_files": _schema(
        {"repo": _REPO, "paths": ("array", "Paths to restore from the index")}, ["repo", "paths"]
    ),
    "lfs_pull": _schema({"repo": _REPO}, ["repo"]),
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


def _hook(git_dir: str | Path, name: str, body: str) -> None:
    path = Path(git_dir) / "hooks" / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def cases(ctx: Any) -> Iterator[Case]:
    home = ctx.tmp / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[pull]\n\tff = only\n"
    )
    # GitPython logs the error lines of a failed push as warnings: not the point here
    logger = logging.getLogger("git.remote")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with _environment(home):
            yield from _cases(ctx)
    finally:
        logger.setLevel(level)


def _cases(ctx: Any) -> Iterator[Case]:
    import git

    ws: Path = ctx.tmp / "ws"  # the tools' workspace
    ws.mkdir()

    def case(
        slug: str,
        tool: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        arguments: dict[str, Any],
    ) -> Case:
        return Case(
            f"gitpython-{slug}",
            LIBRARY,
            cause,
            kind,
            outcome,
            exc,
            tool,
            arguments=arguments,
            parameters=SCHEMAS[tool],
        )

    # the project: main with two commits, feature changing the same line, a bare origin
    work = git.Repo.init(ws / "project")
    wdir = ws / "project"
    (wdir / "README.md").write_text("# Project\n\nline two\n")
    (wdir / "app.py").write_text("print('hi')\n")
    work.index.add(["README.md", "app.py"])
    work.index.commit("first")
    work.create_head("feature")
    (wdir / "README.md").write_text("# Project\n\nline two from main\n")
    work.index.add(["README.md"])
    work.index.commit("main edit")
    work.heads.feature.checkout()
    (wdir / "README.md").write_text("# Project\n\nline two from feature\n")
    work.index.add(["README.md"])
    work.index.commit("feature edit")
    work.heads.main.checkout()
    bare = git.Repo.init(ws / "origin.git", bare=True)
    origin = work.create_remote("origin", str(ws / "origin.git"))
    origin.push("main").raise_if_error()
    g = work.git

    # opening the repository
    (ws / "docs").mkdir()
    yield case(
        "open-not-a-repository",
        "git_status",
        "folder is not a git repository (InvalidGitRepositoryError)",
        F,
        None,
        catch(lambda: git.Repo(ws / "docs")),
        {"repo": "docs"},
    )
    yield case(
        "open-no-such-path",
        "git_status",
        "repository folder does not exist (NoSuchPathError)",
        A,
        None,
        catch(lambda: git.Repo(ws / "projcet")),
        {"repo": "projcet"},
    )

    # names and expressions the model wrote
    yield case(
        "branch-invalid-name",
        "create_branch",
        "branch name with '..' (GitPython's ref-name check)",
        F,
        None,
        catch(lambda: work.create_head("fix..typo")),
        {"repo": "project", "name": "fix..typo"},
    )
    yield case(
        "branch-name-trailing-lock",
        "create_branch",
        "branch name ending in .lock",
        F,
        None,
        catch(lambda: work.create_head("release.lock")),
        {"repo": "project", "name": "release.lock"},
    )
    yield case(
        "revision-bad-output-type",
        "read_file_at_revision",
        "revision with an unknown ^{type} suffix",
        F,
        None,
        catch(lambda: work.commit("HEAD^{bogus}").tree / "README.md"),
        {"repo": "project", "path": "README.md", "revision": "HEAD^{bogus}"},
    )
    yield case(
        "revision-ancestor-not-number",
        "read_file_at_revision",
        "revision HEAD~x (a generation that is not a number)",
        F,
        None,
        catch(lambda: work.commit("HEAD~x").tree / "README.md"),
        {"repo": "project", "path": "README.md", "revision": "HEAD~x"},
    )
    yield case(
        "revision-reflog-date",
        "read_file_at_revision",
        "revision with an @{date} suffix GitPython does not support",
        F,
        None,
        catch(lambda: work.commit("main@{yesterday}").tree / "README.md"),
        {"repo": "project", "path": "README.md", "revision": "main@{yesterday}"},
    )
    yield case(
        "commit-file-outside-repo",
        "commit_files",
        "absolute path outside the repository",
        F,
        None,
        catch(lambda: work.index.add(["/etc/hosts"])),
        {"repo": "project", "files": ["/etc/hosts"], "message": "Track hosts"},
    )
    yield case(
        "commit-file-missing",
        "commit_files",
        "file to stage does not exist",
        F,
        None,
        catch(lambda: work.index.add(["CHANGELOG.md"])),
        {"repo": "project", "files": ["CHANGELOG.md"], "message": "Add changelog"},
    )
    yield case(
        "blame-lines-past-end",
        "blame_file",
        "line range past the end of the file",
        F,
        None,
        catch(lambda: work.blame("HEAD", "app.py", L="40,60")),
        {"repo": "project", "path": "app.py", "lines": "40,60"},
    )
    yield case(
        "blame-lines-malformed",
        "blame_file",
        "line range that is not start,end",
        F,
        None,
        catch(lambda: work.blame("HEAD", "app.py", L="1-3")),
        {"repo": "project", "path": "app.py", "lines": "1-3"},
    )
    yield case(
        "archive-format-unknown",
        "archive_repository",
        "archive format git does not know",
        F,
        None,
        catch(lambda: g.archive("main", format="rar", output=str(ws / "project.rar"))),
        {"repo": "project", "revision": "main", "format": "rar", "output": "project.rar"},
    )
    yield case(
        "remote-invalid-name",
        "add_remote",
        "remote name with a space",
        F,
        None,
        catch(lambda: work.create_remote("my fork", "https://git.example.com/ann/project.git")),
        {"repo": "project", "name": "my fork", "url": "https://git.example.com/ann/project.git"},
    )
    yield case(
        "tag-invalid-name",
        "create_tag",
        "tag name with a space",
        F,
        None,
        catch(lambda: work.create_tag("v1 .0")),
        {"repo": "project", "name": "v1 .0"},
    )
    yield case(
        "push-unknown-remote",
        "push_branch",
        "remote name not configured (GitPython)",
        F,
        None,
        catch(lambda: work.remote("upstream").push("main")),
        {"repo": "project", "remote": "upstream", "refspec": "main"},
    )
    yield case(
        "push-invalid-refspec",
        "push_branch",
        "refspec with an invalid destination",
        F,
        None,
        catch(lambda: origin.push("main:refs/heads/bad..name").raise_if_error()),
        {"repo": "project", "remote": "origin", "refspec": "main:refs/heads/bad..name"},
    )
    yield case(
        "push-src-no-match",
        "push_branch",
        "refspec naming no local branch (a typo of main)",
        A,
        None,
        catch(lambda: origin.push("mian").raise_if_error()),
        {"repo": "project", "remote": "origin", "refspec": "mian"},
    )
    yield case(
        "clone-depth-zero",
        "clone_repository",
        "shallow clone depth of 0",
        F,
        None,
        catch(lambda: git.Repo.clone_from(f"file://{wdir}", ws / "shallow", depth=0)),
        {"url": f"file://{wdir}", "directory": "shallow", "depth": 0},
    )
    yield case(
        "merge-unknown-strategy",
        "merge_branch",
        "merge strategy git does not have",
        F,
        None,
        catch(lambda: g.merge("feature", strategy="theirs")),
        {"repo": "project", "branch": "feature", "strategy": "theirs"},
    )
    yield case(
        "diff-path-outside",
        "show_diff",
        "path outside the repository",
        F,
        None,
        catch(lambda: g.diff("HEAD~1", "HEAD", "--", "/etc/hosts")),
        {"repo": "project", "base": "HEAD~1", "target": "HEAD", "path": "/etc/hosts"},
    )
    yield case(
        "delete-current-branch",
        "delete_branch",
        "delete of the checked-out branch",
        F,
        None,
        catch(lambda: git.Head.delete(work, "main")),
        {"repo": "project", "name": "main"},
    )
    bad_patch = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\nprint('hi') -> print('bye')\n"
    (ctx.tmp / "model.patch").write_text(bad_patch)
    yield case(
        "apply-patch-text-corrupt",
        "apply_patch",
        "patch text is not a unified diff",
        F,
        None,
        catch(lambda: g.apply(str(ctx.tmp / "model.patch"))),
        {"repo": "project", "patch": bad_patch},
    )
    yield case(
        "restore-missing-path",
        "restore_files",
        "path to restore is not in the index (CheckoutError)",
        F,
        None,
        catch(lambda: work.index.checkout(["src/main.py"], force=True)),
        {"repo": "project", "paths": ["src/main.py"]},
    )

    # names that do not exist
    yield case(
        "revision-missing",
        "read_file_at_revision",
        "revision that does not exist (BadName)",
        A,
        None,
        catch(lambda: work.commit("release-2.0").tree / "README.md"),
        {"repo": "project", "path": "README.md", "revision": "release-2.0"},
    )
    yield case(
        "revision-beyond-history",
        "read_file_at_revision",
        "ancestor beyond the first commit (BadName)",
        A,
        None,
        catch(lambda: work.commit("HEAD~5").tree / "README.md"),
        {"repo": "project", "path": "README.md", "revision": "HEAD~5"},
    )
    yield case(
        "revision-message-no-match",
        "read_file_at_revision",
        "no commit message matches the :/pattern",
        A,
        None,
        catch(lambda: work.commit(":/hotfix").tree / "README.md"),
        {"repo": "project", "path": "README.md", "revision": ":/hotfix"},
    )
    yield case(
        "file-missing-at-revision",
        "read_file_at_revision",
        "file not in the commit's tree (KeyError)",
        A,
        None,
        catch(lambda: work.commit("main").tree / "docs/setup.md"),
        {"repo": "project", "path": "docs/setup.md", "revision": "main"},
    )
    yield case(
        "blame-missing-file",
        "blame_file",
        "file not in the revision",
        A,
        None,
        catch(lambda: work.blame("HEAD", "setup.py")),
        {"repo": "project", "path": "setup.py"},
    )
    yield case(
        "checkout-missing-branch",
        "checkout_branch",
        "branch that does not exist (IndexError)",
        A,
        None,
        catch(lambda: work.heads["develop"].checkout()),
        {"repo": "project", "branch": "develop"},
    )
    yield case(
        "diff-unknown-revision",
        "show_diff",
        "revision to compare that does not exist",
        A,
        None,
        catch(lambda: g.diff("v0.9", "HEAD")),
        {"repo": "project", "base": "v0.9", "target": "HEAD"},
    )
    yield case(
        "clone-branch-missing",
        "clone_repository",
        "branch to clone not on the remote",
        A,
        None,
        catch(lambda: git.Repo.clone_from(str(ws / "origin.git"), ws / "c1", branch="develop")),
        {"url": "origin.git", "directory": "c1", "branch": "develop"},
    )

    # state conflicts
    (ws / "docs2").mkdir()
    (ws / "docs2" / "notes.txt").write_text("x\n")
    yield case(
        "clone-into-non-empty",
        "clone_repository",
        "clone into a folder that is not empty",
        A,
        None,
        catch(lambda: git.Repo.clone_from(str(ws / "origin.git"), ws / "docs2")),
        {"url": "origin.git", "directory": "docs2"},
    )
    yield case(
        "branch-exists",
        "create_branch",
        "branch already exists elsewhere (GitPython)",
        A,
        None,
        catch(lambda: work.create_head("feature", "main")),
        {"repo": "project", "name": "feature", "start_point": "main"},
    )
    work.create_tag("v1.0")
    yield case(
        "tag-exists",
        "create_tag",
        "tag already exists",
        A,
        None,
        catch(lambda: work.create_tag("v1.0")),
        {"repo": "project", "name": "v1.0"},
    )
    yield case(
        "delete-unmerged-branch",
        "delete_branch",
        "branch not fully merged",
        A,
        None,
        catch(lambda: git.Head.delete(work, "feature")),
        {"repo": "project", "name": "feature"},
    )
    yield case(
        "merge-conflict",
        "merge_branch",
        "merge conflict",
        A,
        None,
        catch(lambda: g.merge("feature")),
        {"repo": "project", "branch": "feature"},
    )
    (wdir / "README.md").write_text("# Project\n\nline two, resolved\n")
    yield case(
        "commit-unmerged",
        "commit_files",
        "commit while entries are unmerged (UnmergedEntriesError)",
        F,
        None,
        catch(lambda: work.index.commit("Merge feature")),
        {"repo": "project", "message": "Merge feature"},
    )
    g.merge("--abort")
    (wdir / "README.md").write_text("# Project\n\nlocal edit\n")
    yield case(
        "checkout-local-changes",
        "checkout_branch",
        "local changes would be overwritten",
        A,
        None,
        catch(lambda: work.heads.feature.checkout()),
        {"repo": "project", "branch": "feature"},
    )
    stale = ctx.tmp / "ws" / "fix-readme.patch"
    stale.write_text("--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # Project\n \n-line two\n+line 2\n")
    yield case(
        "apply-patch-file-stale",
        "apply_patch",
        "patch file the model named no longer applies",
        A,
        None,
        catch(lambda: g.apply(str(stale))),
        {"repo": "project", "patch_file": "fix-readme.patch"},
    )
    g.checkout("--", "README.md")

    # hooks GitPython runs itself on index.commit
    (wdir / "app.py").write_text("print('hi')   \n")
    work.index.add(["app.py"])
    _hook(work.git_dir, "pre-commit", "echo 'lint: trailing whitespace in app.py:1' >&2\nexit 1")
    yield case(
        "pre-commit-hook",
        "commit_files",
        "pre-commit hook rejects the change (HookExecutionError)",
        F,
        None,
        catch(lambda: work.index.commit("Tidy app")),
        {"repo": "project", "files": ["app.py"], "message": "Tidy app"},
    )
    _hook(work.git_dir, "pre-commit", "exit 0")
    _hook(
        work.git_dir,
        "commit-msg",
        "grep -qE '^[A-Z]+-[0-9]+' \"$1\" || { echo 'message must start with a ticket id (ABC-123)' >&2; exit 1; }",
    )
    yield case(
        "commit-msg-hook",
        "commit_files",
        "commit-msg hook rejects the message (HookExecutionError)",
        F,
        None,
        catch(lambda: work.index.commit("Tidy app")),
        {"repo": "project", "files": ["app.py"], "message": "Tidy app"},
    )
    (Path(work.git_dir) / "hooks" / "commit-msg").unlink()
    (Path(work.git_dir) / "hooks" / "pre-commit").unlink()
    work.index.commit("OPS-1 tidy app")

    # locks held by another git process
    lock = Path(work.git_dir) / "index.lock"
    lock.write_text("")
    (wdir / "notes.txt").write_text("notes\n")
    yield case(
        "index-lock-gitpython",
        "commit_files",
        "index.lock held by another process (GitPython LockedFD)",
        T,
        NE,
        catch(lambda: work.index.add(["notes.txt"])),
        {"repo": "project", "files": ["notes.txt"], "message": "Add notes"},
    )
    yield case(
        "index-lock-git",
        "checkout_branch",
        "index.lock held by another git process",
        T,
        NE,
        catch(lambda: g.checkout("feature")),
        {"repo": "project", "branch": "feature"},
    )
    lock.unlink()
    ref_lock = Path(work.git_dir) / "refs" / "heads" / "hotfix.lock"
    ref_lock.write_text("")
    yield case(
        "ref-lock",
        "create_branch",
        "branch ref lock held by another process (GitPython LockedFD)",
        T,
        NE,
        catch(lambda: work.create_head("hotfix")),
        {"repo": "project", "name": "hotfix"},
    )
    ref_lock.unlink()
    (wdir / "notes.txt").unlink()

    # pushes and pulls against the bare origin
    clone = git.Repo.clone_from(str(ws / "origin.git"), ws / "teammate")
    (ws / "teammate" / "team.txt").write_text("from a teammate\n")
    clone.index.add(["team.txt"])
    clone.index.commit("teammate change")
    clone.remote("origin").push("main").raise_if_error()
    yield case(
        "push-rejected-remote-moved",
        "push_branch",
        "push rejected: the remote has commits the branch lacks",
        A,
        None,
        catch(lambda: origin.push("main").raise_if_error()),
        {"repo": "project", "remote": "origin", "refspec": "main"},
    )
    yield case(
        "pull-divergent",
        "pull_branch",
        "pull of diverged branches (fast-forward only)",
        A,
        None,
        catch(lambda: origin.pull("main")),
        {"repo": "project", "remote": "origin", "branch": "main"},
    )
    bare.git.config("receive.denyNonFastForwards", "true")
    yield case(
        "push-force-denied",
        "push_branch",
        "force push refused by the remote's configuration",
        U,
        None,
        catch(lambda: g.push("--force", "origin", "main")),
        {"repo": "project", "remote": "origin", "refspec": "main", "force": True},
    )
    _hook(bare.git_dir, "pre-receive", "echo 'protected branch: pushes to main need a review' >&2\nexit 1")
    (ws / "teammate" / "team.txt").write_text("second change\n")
    clone.index.add(["team.txt"])
    clone.index.commit("second teammate change")
    yield case(
        "push-pre-receive-declined",
        "push_branch",
        "server-side pre-receive hook declines the push",
        U,
        None,
        catch(lambda: clone.git.push("origin", "main")),
        {"repo": "teammate", "remote": "origin", "refspec": "main"},
    )
    (Path(bare.git_dir) / "hooks" / "pre-receive").unlink()

    # corrupt repository files the tool read
    broken = git.Repo.clone_from(str(ws / "origin.git"), ws / "broken-object", no_hardlinks=True)
    sha = broken.head.commit.tree["README.md"].hexsha
    obj = Path(broken.git_dir) / "objects" / sha[:2] / sha[2:]
    if obj.exists():  # a loose object (a local clone hard-links or packs; see below)
        obj.chmod(0o644)
        obj.write_bytes(b"not zlib data")
    else:
        pack_dir = Path(broken.git_dir) / "objects" / "pack"
        for pack in pack_dir.glob("*.pack"):
            data = bytearray(pack.read_bytes())
            data[40:60] = b"\0" * 20
            pack.chmod(0o644)
            pack.write_bytes(bytes(data))
    yield case(
        "corrupt-object",
        "read_file_at_revision",
        "damaged object in the repository",
        A,
        None,
        catch(lambda: (broken.head.commit.tree / "README.md").data_stream.read()),
        {"repo": "broken-object", "path": "README.md", "revision": "HEAD"},
    )
    headless = git.Repo.clone_from(str(ws / "origin.git"), ws / "broken-head")
    Path(headless.git_dir, "HEAD").write_text("this is not a ref\n")
    yield case(
        "corrupt-head",
        "git_status",
        "HEAD file damaged",
        A,
        None,
        catch(lambda: git.Repo(ws / "broken-head").git.status()),
        {"repo": "broken-head"},
    )
    confless = git.Repo.clone_from(str(ws / "origin.git"), ws / "broken-config")
    with open(Path(confless.git_dir, "config"), "a") as f:
        f.write('[remote "origin"\n\turl = \n')
    yield case(
        "corrupt-config",
        "pull_branch",
        "repository config file damaged",
        A,
        None,
        catch(lambda: git.Repo(ws / "broken-config").remote("origin").pull("main")),
        {"repo": "broken-config", "remote": "origin", "branch": "main"},
    )

    # the installation and GitPython's guards
    yield case(
        "lfs-not-installed",
        "lfs_pull",
        "git-lfs not installed",
        U,
        None,
        catch(lambda: g.lfs("pull")),
        {"repo": "project"},
    )
    saved_git = git.Git.GIT_PYTHON_GIT_EXECUTABLE
    git.Git.GIT_PYTHON_GIT_EXECUTABLE = "/opt/git/bin/git"
    try:
        exc = catch(lambda: g.status())
    finally:
        git.Git.GIT_PYTHON_GIT_EXECUTABLE = saved_git
    yield case(
        "git-not-found", "git_status", "configured git executable missing", U, None, exc, {"repo": "project"}
    )
    yield case(
        "unsafe-protocol",
        "clone_repository",
        "ext:: URL refused by GitPython",
        U,
        None,
        catch(lambda: git.Repo.clone_from("ext::ssh -p 2222 git.example.com %S project", ws / "c3")),
        {"url": "ext::ssh -p 2222 git.example.com %S project", "directory": "c3"},
    )
    yield case(
        "unsafe-option",
        "clone_repository",
        "--config clone option refused by GitPython",
        U,
        None,
        catch(
            lambda: git.Repo.clone_from(
                str(ws / "origin.git"), ws / "c4", multi_options=["--config core.sshCommand=ssh -i key"]
            )
        ),
        {"url": "origin.git", "directory": "c4", "options": ["--config core.sshCommand=ssh -i key"]},
    )

    # a real git daemon
    srv = ctx.tmp / "srv"
    srv.mkdir()
    git.Repo.clone_from(str(ws / "origin.git"), srv / "public.git", bare=True)
    git.Repo.clone_from(str(ws / "origin.git"), srv / "private.git", bare=True)
    (srv / "public.git" / "git-daemon-export-ok").touch()
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
        "--informative-errors",
        str(srv),
    ]
    with process(daemon, port):
        ctx.name_port(port, "GITPORT")
        url = f"git://127.0.0.1:{port}"
        pub = git.Repo.clone_from(f"{url}/public.git", ws / "daemon-clone")
        yield case(
            "daemon-not-exported",
            "clone_repository",
            "repository not exported by git daemon",
            U,
            None,
            catch(lambda: git.Repo.clone_from(f"{url}/private.git", ws / "c5")),
            {"url": f"{url}/private.git", "directory": "c5"},
        )
        yield case(
            "daemon-no-such-repository",
            "clone_repository",
            "repository that does not exist on the daemon",
            A,
            None,
            catch(lambda: git.Repo.clone_from(f"{url}/pubilc.git", ws / "c6")),
            {"url": f"{url}/pubilc.git", "directory": "c6"},
        )
        (ws / "daemon-clone" / "d.txt").write_text("d\n")
        pub.index.add(["d.txt"])
        pub.index.commit("daemon change")
        yield case(
            "daemon-push-disabled",
            "push_branch",
            "git daemon does not serve pushes (receive-pack disabled)",
            U,
            None,
            catch(lambda: pub.remote("origin").push("main").raise_if_error()),
            {"repo": "daemon-clone", "remote": "origin", "refspec": "main"},
        )
    yield case(
        "daemon-refused-clone",
        "clone_repository",
        "git daemon not running (connection refused)",
        T,
        NE,
        catch(lambda: git.Repo.clone_from(f"{url}/public.git", ws / "c7")),
        {"url": f"{url}/public.git", "directory": "c7"},
    )
    yield case(
        "daemon-refused",
        "pull_branch",
        "git daemon not running (connection refused)",
        T,
        NE,
        catch(lambda: pub.remote("origin").pull("main")),
        {"repo": "daemon-clone", "remote": "origin", "branch": "main"},
    )

    # smart HTTP remotes: the shared scenario server's statuses
    base = f"http://127.0.0.1:{ctx.port}/s"
    for name, kind, outcome, cause in [
        ("rest_404", A, None, "HTTP remote not found (404)"),
        ("rest_401", U, None, "HTTP remote needs credentials (401, no prompt)"),
        ("rest_403", U, None, "HTTP remote forbidden (403)"),
        ("rest_429", T, NE, "HTTP remote rate limited (429)"),
        ("rest_503", T, NE, "HTTP remote unavailable (503)"),
        ("rest_500", T, UO, "HTTP remote internal error (500)"),
        ("rest_502", T, UO, "HTTP remote bad gateway (502)"),
        ("reset", T, UO, "connection reset by the HTTP remote"),
    ]:
        remote_url = f"{base}/{route(name)}/project.git"
        slug = name.removeprefix("rest_")
        exc = catch(lambda: git.Repo.clone_from(remote_url, ws / f"http-{slug}"))
        yield case(
            f"http-{slug}",
            "clone_repository",
            cause,
            kind,
            outcome,
            exc,
            {"url": remote_url, "directory": f"http-{slug}"},
        )
    remote_url = f"{base}/{route('rest_429')}/project.git"
    yield case(
        "http-429-ls-remote",
        "list_remote_refs",
        "HTTP remote rate limited (429)",
        T,
        NE,
        catch(lambda: git.cmd.Git().ls_remote(remote_url)),
        {"url": remote_url},
    )
