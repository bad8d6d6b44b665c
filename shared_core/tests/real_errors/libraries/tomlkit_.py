# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""tomlkit behind a configuration-editing tool (``pyproject.toml``, app settings): TOML
snippets, values, key paths and documents the model wrote in its arguments (fixable); TOML
files on disk and documents answered by a settings service on 127.0.0.1 that tomlkit
cannot parse (ambiguous); a key the model adds that the file already has (ambiguous); an
installation without tomlkit or with a module file missing, and the operating system's
refusals (unrecoverable).

Labels follow the cause. ``update_config`` merges the model's snippet through
``tomlkit.parse``, so its ``ParseError`` family (``UnexpectedCharError`` "Unexpected
character: ...", ``EmptyKeyError``, ``InvalidNumberError``, ``InvalidDateError``,
``InvalidTimeError``, ``InvalidUnicodeValueError``, ``InvalidControlChar``,
``UnexpectedEofError``, ``ParseError`` 'Key "x" already exists.' within the snippet itself,
"Invalid key") is the model's to fix (tomlkit's API reference,
https://tomlkit.readthedocs.io/en/latest/api/ "Exceptions"; TOML 1.0,
https://toml.io/en/v1.0.0). ``set_config_value`` converts the model's value with
``tomlkit.item`` / ``tomlkit.value`` / ``tomlkit.integer`` / ``tomlkit.date``...:
``ConvertError`` "Unable to convert an object of <class 'NoneType'> to a TOML item" (TOML
has no null), ``ValueError`` "Invalid RFC 3339 string", "Inline tables cannot contain a
table" are fixable; so is a key path the model named that the document does not have
(``NonExistentKey`` 'Key "x" does not exist.', tomlkit's docs "Quickstart": a document is a
dict). Adding a key the document already holds (``KeyAlreadyPresent``) is a conflict with
the file's state: ambiguous, as the brief labels "already exists". The parser failing on a
file on disk (a merge-conflict marker, a duplicate table, Windows-1252 bytes a
``TOMLFile`` reads as UTF-8, nesting over tomlkit's limit of 100 levels, a JSON file saved
as ``.toml``) or on a settings service's answer is about data the model never wrote:
ambiguous.

Unrecoverable: a file the tool may not read or a folder it may not write (permission
denied as an ordinary user), a full device (``/dev/full``), the file size quota
(``RLIMIT_FSIZE``); ``import tomlkit`` where tomlkit is not installed or its
``tomlkit/parser.py`` is missing (:mod:`libraries._pkgcopy`). A path the model named that
does not exist or is a folder is fixable.

Not triggerable: tomlkit does no network I/O and takes no lock (no transient failure);
``InvalidStringError`` of ``tomlkit.string(..., literal=True)`` lists its forbidden
characters in a ``frozenset`` whose order follows the hash seed, so it is left out.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve
from ._files import denied, file_size_limit, read_only_dir

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "tomlkit"
REQUIRES = ["tomlkit>=0.15,<0.16"]

PYPROJECT = """\
[project]
name = "webshop"
version = "1.4.0"
dependencies = ["requests>=2.31"]

[tool.ruff]
line-length = 100

[tool.pytest.ini_options]
addopts = "-q"
"""

MODEL_SNIPPETS: list[tuple[str, str]] = [
    ("unquoted-string", "description = Online shop backend\n"),
    ("unquoted-version", "version = 1.5.0\n"),
    ("missing-equals", 'license "MIT"\n'),
    ("colon-instead-of-equals", 'readme: "README.md"\n'),
    ("duplicate-key", "line-length = 100\nline-length = 120\n"),
    ("table-redefines-key", 'tool = "ruff"\n[tool]\nx = 1\n'),
    ("duplicate-table", '[tool.ruff]\nline-length = 120\n[tool.ruff]\ntarget-version = "py311"\n'),
    ("unclosed-table-header", "[tool.black\nline-length = 100\n"),
    ("unclosed-array", 'dependencies = ["requests>=2.31", "httpx"\n'),
    ("unclosed-string", 'description = "Online shop\n'),
    ("unclosed-multiline", 'description = """\nOnline shop\n'),
    ("windows-path-escapes", 'cache-dir = "C:\\Users\\dev\\cache"\n'),
    ("python-true", "strict = True\n"),
    ("json-null", "timeout = null\n"),
    ("missing-value", "timeout =\n"),
    ("empty-key", ' = "x"\n'),
    ("leading-zero", "port = 08080\n"),
    ("date-month-13", "released = 2024-13-01\n"),
    ("time-hour-25", "backup-at = 25:00:00\n"),
    ("key-with-space", "line length = 100\n"),
    ("two-values", "workers = 4 8\n"),
    ("json-object", '{"tool": {"ruff": {"line-length": 100}}}\n'),
    ("yaml", "tool:\n  ruff:\n    line-length: 100\n"),
    ("dotted-key-conflict", 'ruff.line-length = 100\nruff = "on"\n'),
]


def _document() -> Any:
    import tomlkit

    return tomlkit.parse(PYPROJECT)


def _set(path: list[str], value: Any) -> Any:
    doc = _document()
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc.as_string()


def _get(path: list[str]) -> Any:
    node = _document()
    for key in path:
        node = node[key]
    return node


def _add(path: list[str], value: Any) -> Any:
    doc = _document()
    node = doc
    for key in path[:-1]:
        node = node[key]
    node.add(path[-1], value)
    return doc.as_string()


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the model's arguments, the call) of each bad argument."""
    import tomlkit

    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = []
    for slug, snippet in MODEL_SNIPPETS:
        calls.append(
            (
                f"snippet-{slug}",
                "update_config",
                {"path": "pyproject.toml", "toml": snippet},
                lambda snippet=snippet: tomlkit.parse(snippet),
            )
        )
    setv = "set_config_value"
    calls += [
        (
            "value-null",
            setv,
            {"path": "pyproject.toml", "key": "project.license", "value": None},
            lambda: _set(["project", "license"], None),
        ),
        (
            "value-list-with-null",
            setv,
            {"path": "pyproject.toml", "key": "project.keywords", "value": ["shop", None]},
            lambda: _set(["project", "keywords"], ["shop", None]),
        ),
        (
            "value-text-two-tokens",
            setv,
            {"path": "pyproject.toml", "key": "tool.ruff.line-length", "value_toml": "100 120"},
            lambda: _set(["tool", "ruff", "line-length"], tomlkit.value("100 120")),
        ),
        (
            "value-text-unclosed-array",
            setv,
            {"path": "pyproject.toml", "key": "project.dependencies", "value_toml": '["requests", "httpx"'},
            lambda: _set(["project", "dependencies"], tomlkit.value('["requests", "httpx"')),
        ),
        (
            "value-array-not-array",
            setv,
            {"path": "pyproject.toml", "key": "project.dependencies", "array_toml": "3"},
            lambda: _set(["project", "dependencies"], tomlkit.array("3")),
        ),
        (
            "integer-word",
            setv,
            {"path": "pyproject.toml", "key": "tool.ruff.line-length", "integer": "one hundred"},
            lambda: _set(["tool", "ruff", "line-length"], tomlkit.integer("one hundred")),
        ),
        (
            "float-decimal-comma",
            setv,
            {"path": "pyproject.toml", "key": "tool.coverage.fail-under", "float": "87,5"},
            lambda: _set(["tool", "coverage"], {"fail-under": tomlkit.float_("87,5")}),
        ),
        (
            "datetime-words",
            setv,
            {"path": "pyproject.toml", "key": "tool.release.at", "datetime": "tomorrow 9am"},
            lambda: _set(["tool", "release"], {"at": tomlkit.datetime("tomorrow 9am")}),
        ),
        (
            "date-day-first",
            setv,
            {"path": "pyproject.toml", "key": "tool.release.date", "date": "31/12/2024"},
            lambda: _set(["tool", "release"], {"date": tomlkit.date("31/12/2024")}),
        ),
        (
            "time-hour-25",
            setv,
            {"path": "pyproject.toml", "key": "tool.backup.at", "time": "25:30"},
            lambda: _set(["tool", "backup"], {"at": tomlkit.time("25:30")}),
        ),
        (
            "table-in-inline-table",
            setv,
            {
                "path": "pyproject.toml",
                "key": "project.urls",
                "inline": True,
                "value": {"docs": {"url": "x"}},
            },
            lambda: tomlkit.inline_table().append("docs", tomlkit.table()),
        ),
        (
            "array-of-tables-scalar",
            setv,
            {"path": "pyproject.toml", "key": "tool.hooks", "array_of_tables": [1]},
            lambda: tomlkit.aot().append(1),
        ),
        (
            "document-is-list",
            "write_config",
            {"path": "settings.toml", "document": [{"name": "webshop"}]},
            lambda: tomlkit.dumps([{"name": "webshop"}]),
        ),
        (
            "document-value-null",
            "write_config",
            {"path": "settings.toml", "document": {"server": {"host": "0.0.0.0", "port": None}}},
            lambda: tomlkit.dumps({"server": {"host": "0.0.0.0", "port": None}}),
        ),
        # key paths
        (
            "get-missing-key",
            "get_config_value",
            {"path": "pyproject.toml", "key": "project.authors"},
            lambda: _get(["project", "authors"]),
        ),
        (
            "get-missing-table",
            "get_config_value",
            {"path": "pyproject.toml", "key": "tool.poetry.version"},
            lambda: _get(["tool", "poetry", "version"]),
        ),
        (
            "set-under-missing-table",
            setv,
            {"path": "pyproject.toml", "key": "tool.black.line-length", "value": 100},
            lambda: _set(["tool", "black", "line-length"], 100),
        ),
        (
            "remove-missing-key",
            "remove_config_key",
            {"path": "pyproject.toml", "key": "tool.isort"},
            lambda: _document()["tool"].remove("isort"),
        ),
    ]
    return calls


FILES: list[tuple[str, bytes]] = [
    (
        "merge-conflict",
        (
            b'[project]\nname = "webshop"\n<<<<<<< HEAD\nversion = "1.4.0"\n=======\n'
            b'version = "1.5.0"\n>>>>>>> release\n'
        ),
    ),
    ("duplicate-table", b'[tool.ruff]\nline-length = 100\n\n[tool.ruff]\nselect = ["E"]\n'),
    ("windows-1252", '[project]\nauthors = [{name = "Jos\u00e9 M\u00fcller"}]\n'.encode("cp1252")),
    ("too-deep", ("matrix = " + "[" * 150 + "]" * 150 + "\n").encode()),
    ("json", json.dumps({"project": {"name": "webshop"}}, indent=2).encode()),
    ("python-bool", b"[tool.mypy]\nstrict = True\n"),
    ("invalid-date", b"[tool.release]\ndate = 2024-02-30\n"),
    ("control-char", b'[project]\ndescription = "Online\x07shop"\n'),
    ("utf16", '[project]\nname = "webshop"\n'.encode("utf-16")),
    ("truncated", b'[project]\nname = "webshop"\ndependencies = [\n  "requests>=2.31",\n  "htt'),
]

SETTINGS: dict[str, bytes] = {
    "/v1/apps/webshop/settings.toml": b'[database]\nhost = "db.internal"\nport = 5432\nport = 5433\n',
    "/v1/apps/billing/settings.toml": b"[smtp]\nhost = smtp.internal\n",
    "/v1/apps/search/settings.toml": b"<html><body><h1>Welcome to nginx!</h1></body></html>\n",
}


def data_cases(ctx: Context) -> Iterator[tuple[str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, tool, the model's arguments, exception) of TOML the tool read."""
    import tomlkit
    from tomlkit.toml_file import TOMLFile

    folder = ctx.tmp / "configs"
    folder.mkdir()
    for name, content in FILES:
        path = folder / name / "pyproject.toml"
        path.parent.mkdir()
        path.write_bytes(content)
        exc = _catch(lambda: TOMLFile(path).read())
        yield f"file-{name}", "TOML file on disk is malformed", "read_config", {"path": str(path)}, exc

    pages = {p: ("application/toml", body) for p, body in SETTINGS.items()}
    with _serve.documents(pages) as port:
        ctx.name_port(port, "SETTINGSPORT")
        for page in SETTINGS:
            app = page.split("/")[3]
            exc = _catch(lambda: tomlkit.parse(_serve.get(port, page)))
            cause = "settings service answered a document that is not valid TOML"
            yield f"service-{app}", cause, "fetch_settings", {"app": app}, exc

    # keys the model adds that the file already has
    exc = _catch(lambda: _add(["project", "version"], "1.5.0"))
    args: dict[str, Any] = {"path": "pyproject.toml", "key": "project.version", "value": "1.5.0"}
    yield "add-existing-key", "key already exists in the file", "add_config_key", args, exc
    exc = _catch(lambda: _add(["tool", "ruff"], {"line-length": 120}))
    args = {"path": "pyproject.toml", "key": "tool.ruff", "value": {"line-length": 120}}
    yield "add-existing-table", "table already exists in the file", "add_config_key", args, exc


def os_cases(ctx: Context) -> Iterator[tuple[str, str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, kind, tool, the model's arguments, exception) of paths, the OS and the
    installation."""
    import tomlkit
    from tomlkit.toml_file import TOMLFile

    tmp = ctx.tmp / "os"
    tmp.mkdir()
    tmp.chmod(0o711)
    big = tomlkit.parse(PYPROJECT)
    big["tool"]["ruff"]["per-file-ignores"] = {f"src/module_{i}.py": ["E501", "F401"] for i in range(200)}

    missing = tmp / "services" / "api" / "pyproject.toml"
    exc = _catch(lambda: TOMLFile(missing).read())
    yield (
        "path-missing",
        "file path the model gave does not exist",
        F,
        "read_config",
        {"path": str(missing)},
        exc,
    )
    exc = _catch(lambda: TOMLFile(tmp).read())
    yield (
        "path-is-directory",
        "file path the model gave is a folder",
        F,
        "read_config",
        {"path": str(tmp)},
        exc,
    )

    private = tmp / "secrets.toml"
    private.write_text('[db]\npassword = "x"\n')
    private.chmod(0o000)
    exc = denied(lambda: TOMLFile(private).read())
    yield "permission-read", "file the tool may not read", U, "read_config", {"path": str(private)}, exc
    locked = read_only_dir(tmp / "deploy")
    exc = denied(lambda: TOMLFile(locked / "settings.toml").write(big))
    args: dict[str, Any] = {
        "path": str(locked / "settings.toml"),
        "key": "tool.ruff.line-length",
        "value": 120,
    }
    yield "permission-folder", "folder the tool may not write into", U, "set_config_value", args, exc
    frozen = tmp / "pyproject.toml"
    frozen.write_text(PYPROJECT)
    frozen.chmod(0o444)
    exc = denied(lambda: TOMLFile(frozen).write(big))
    args = {"path": str(frozen), "key": "tool.ruff.line-length", "value": 120}
    yield "permission-overwrite", "read-only file to overwrite", U, "set_config_value", args, exc
    exc = _catch(lambda: TOMLFile("/dev/full").write(big))
    args = {"path": "/dev/full", "key": "tool.ruff.line-length", "value": 120}
    yield "disk-full", "no space left on the device", U, "set_config_value", args, exc
    with file_size_limit(2048):
        exc = _catch(lambda: TOMLFile(tmp / "big.toml").write(big))
    args = {"path": str(tmp / "big.toml"), "key": "tool.ruff.line-length", "value": 120}
    yield "file-size-limit", "file size quota (RLIMIT_FSIZE) reached", U, "set_config_value", args, exc

    args = {"path": "pyproject.toml", "key": "project.version"}
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("tomlkit",)):
        exc = _catch(lambda: importlib.import_module("tomlkit"))
    yield "not-installed", "tomlkit not installed", U, "get_config_value", args, exc
    with _pkgcopy.broken_install(ctx.tmp, ["tomlkit"], drop=("tomlkit/parser.py",)):
        exc = _catch(lambda: importlib.import_module("tomlkit"))
    yield (
        "parser-module-missing",
        "installed module file missing (tomlkit/parser.py)",
        U,
        "get_config_value",
        args,
        exc,
    )


def cases(ctx: Context) -> Iterator[Case]:
    for slug, tool, args, fn in model_calls():
        yield Case(f"tomlkit-{slug}", LIBRARY, f"TOML argument ({slug})", F, None, _catch(fn), tool, args)
    for slug, cause, tool, args, exc in data_cases(ctx):
        yield Case(f"tomlkit-{slug}", LIBRARY, cause, A, None, exc, tool, args)
    for slug, cause, kind, tool, args, exc in os_cases(ctx):
        yield Case(f"tomlkit-{slug}", LIBRARY, cause, kind, None, exc, tool, args)
