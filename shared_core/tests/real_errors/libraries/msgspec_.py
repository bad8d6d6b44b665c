# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""msgspec behind an API tool: JSON / MessagePack / YAML / TOML decoded and validated into
``msgspec.Struct`` types. The payload the model wrote (JSON text, an object converted with
``msgspec.convert``, a value to encode) is fixable; the same decoders failing on a file on
disk or on a service's answer on 127.0.0.1 are about data the model never wrote: ambiguous;
an optional dependency or msgspec's compiled core missing from the installation is
unrecoverable.

Labels follow the cause. ``msgspec.DecodeError`` ("JSON is malformed: ...", "Input data
was truncated", "MessagePack data is malformed: ...") is raised for bytes that are not valid
in the protocol, ``msgspec.ValidationError`` ("Expected `int`, got `str` - at `$.age`",
"Object missing required field", "Object contains unknown field" with
``forbid_unknown_fields``, the ``Meta`` constraints ``ge`` / ``le`` / ``min_length`` /
``max_length`` / ``pattern``, "Invalid enum value", "Invalid RFC3339 encoded datetime")
for a well-formed message of the wrong shape
(https://jcristharif.com/msgspec/usage.html#typed-decoding, .../constraints.html,
.../api.html#msgspec.ValidationError, .../supported-types.html); ``TypeError`` /
``OverflowError`` for a value it cannot encode (.../supported-types.html "int": MessagePack
ints are limited to 64 bits). A message nested deeper than msgspec's limit raises
``RecursionError`` ("maximum recursion depth exceeded while deserializing an object"): from
a service, ambiguous. ``msgspec.yaml`` needs PyYAML and ``msgspec.toml.encode`` needs
``tomli_w`` ("requires PyYAML be installed", .../api.html#yaml): absent, unrecoverable
(:mod:`libraries._pkgcopy` puts the installed packages out of reach), as is an
installation without ``msgspec/_core*.so``.

Not triggerable: msgspec does no I/O of its own (no file opened, no network: no transient,
permission or disk case; the tool reads the bytes itself).
"""

from __future__ import annotations

import datetime
import enum
import importlib
import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "msgspec"
REQUIRES = ["msgspec>=0.19,<0.24"]


class Plan(enum.Enum):
    FREE = "free"
    PRO = "pro"


class Address(msgspec.Struct):
    street: str
    zip: Annotated[str, msgspec.Meta(pattern=r"^\d{5}$")]


class User(msgspec.Struct, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    age: Annotated[int, msgspec.Meta(ge=0, le=150)]
    email: str
    tags: Annotated[list[str], msgspec.Meta(max_length=3)] = []
    plan: Plan = Plan.FREE
    signup: datetime.datetime | None = None
    role: Literal["admin", "member"] = "member"
    address: Address | None = None


USER = '{"name": "Ada", "age": 36, "email": "ada@example.com"}'


def _with(extra: str) -> str:
    return USER[:-1] + ", " + extra + "}"


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the model's arguments, the call) of each bad payload."""
    dec = msgspec.json.Decoder(User)
    texts = [
        ("json-unquoted-key", '{"name": "Ada", age: 36, "email": "ada@example.com"}'),
        ("json-single-quotes", "{'name': 'Ada', 'age': 36, 'email': 'ada@example.com'}"),
        ("json-trailing-comma", '{"name": "Ada", "age": 36, "email": "ada@example.com",}'),
        ("json-truncated", '{"name": "Ada", "age": 36, "email": "ada@exa'),
        ("json-empty", ""),
        ("json-trailing-text", USER + " // new user"),
        ("json-nan", '{"name": "Ada", "age": NaN, "email": "ada@example.com"}'),
        ("missing-field", '{"name": "Ada", "age": 36}'),
        ("age-as-string", '{"name": "Ada", "age": "36", "email": "ada@example.com"}'),
        ("age-float", '{"name": "Ada", "age": 36.5, "email": "ada@example.com"}'),
        ("age-negative", '{"name": "Ada", "age": -1, "email": "ada@example.com"}'),
        ("age-too-large", '{"name": "Ada", "age": 360, "email": "ada@example.com"}'),
        ("name-empty", '{"name": "", "age": 36, "email": "ada@example.com"}'),
        ("unknown-field", _with('"emial": "ada@example.com"')),
        ("plan-unknown", _with('"plan": "enterprise"')),
        ("signup-words", _with('"signup": "yesterday"')),
        ("signup-no-offset", _with('"signup": "2026-12-01 09:00"')),
        ("role-unknown", _with('"role": "owner"')),
        ("tags-string", _with('"tags": "a,b"')),
        ("tags-too-many", _with('"tags": ["a", "b", "c", "d"]')),
        ("zip-pattern", _with('"address": {"street": "1 Main St", "zip": "ABCDE"}')),
        ("address-missing-zip", _with('"address": {"street": "1 Main St"}')),
        ("array-not-object", '["Ada", 36, "ada@example.com"]'),
    ]
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        (slug, "create_user", {"user_json": text}, lambda text=text: dec.decode(text)) for slug, text in texts
    ]
    calls += [
        ("convert-age-word", "create_user", {"user": {"name": "Ada", "age": "thirty", "email": "e@x.org"}}, lambda: msgspec.convert({"name": "Ada", "age": "thirty", "email": "e@x.org"}, User)),
        ("convert-struct-list", "create_users", {"users": {"name": "Ada"}}, lambda: msgspec.convert({"name": "Ada"}, list[User])),
        ("convert-date", "schedule", {"date": "2026-02-30"}, lambda: msgspec.convert("2026-02-30", datetime.date)),
        ("convert-duration", "schedule", {"duration": "1 hour"}, lambda: msgspec.convert("1 hour", datetime.timedelta)),
        ("convert-base64", "upload", {"content_base64": "not base64!"}, lambda: msgspec.convert("not base64!", bytes)),
        ("convert-pair-length", "set_range", {"range": [1, 2, 3]}, lambda: msgspec.convert([1, 2, 3], tuple[int, int])),
        ("struct-unexpected-keyword", "create_user", {"name": "Ada", "age": 36, "email": "e@x.org", "nickname": "A"}, lambda: User(name="Ada", age=36, email="e@x.org", nickname="A")),
        ("struct-missing-argument", "create_user", {"name": "Ada"}, lambda: User(name="Ada")),
        ("msgpack-int-too-large", "send_counter", {"value": 2**70}, lambda: msgspec.msgpack.encode({"value": 2**70})),
        ("yaml-flow-unclosed", "create_user", {"user_yaml": "name: Ada\ntags: [a, b\n"}, lambda: msgspec.yaml.decode("name: Ada\ntags: [a, b\n", type=User)),
        ("toml-no-value", "save_settings", {"settings_toml": "retries = \n"}, lambda: msgspec.toml.decode("retries = \n")),
    ]  # fmt: skip
    return calls


DEEP = b"[" * 2000 + b"]" * 2000


def _file_cases(ctx: Context) -> Iterator[tuple[str, str, dict[str, Any], BaseException]]:
    d = ctx.tmp / "users"
    d.mkdir()
    files: list[tuple[str, str, bytes, Any]] = [
        ("file-json-truncated", "ada.json", USER[:30].encode(), User),
        (
            "file-json-bad-utf8",
            "bob.json",
            b'{"name": "B\xf6b", "age": 40, "email": "bob@example.com"}',
            User,
        ),
        ("file-age-as-string", "cy.json", b'{"name": "Cy", "age": "40", "email": "cy@example.com"}', User),
        (
            "file-unknown-field",
            "dee.json",
            b'{"name": "Dee", "age": 40, "email": "d@example.com", "phone": "1"}',
            User,
        ),
        (
            "file-html",
            "eve.json",
            b"<html><head><title>Sign in</title></head><body>Please sign in</body></html>",
            User,
        ),
    ]
    for slug, name, data, typ in files:
        (d / name).write_bytes(data)
        path = d / name
        yield (
            slug,
            "import_user",
            {"path": str(path)},
            _catch(lambda: msgspec.json.decode(path.read_bytes(), type=typ)),
        )
    mp = d / "users.msgpack"
    mp.write_bytes(msgspec.msgpack.encode([{"name": "Ada", "age": 36, "email": "a@x.org"}])[:-6])
    yield (
        "file-msgpack-truncated",
        "import_users",
        {"path": str(mp)},
        _catch(lambda: msgspec.msgpack.decode(mp.read_bytes(), type=list[User])),
    )
    mp2 = d / "users-2.msgpack"
    mp2.write_bytes(b"\xc1\x00\x00")
    yield (
        "file-msgpack-opcode",
        "import_users",
        {"path": str(mp2)},
        _catch(lambda: msgspec.msgpack.decode(mp2.read_bytes(), type=list[User])),
    )
    y = d / "user.yaml"
    y.write_text("name: Ada\nage: thirty-six\nemail: ada@example.com\n")
    yield (
        "file-yaml-age-word",
        "import_user",
        {"path": str(y)},
        _catch(lambda: msgspec.yaml.decode(y.read_bytes(), type=User)),
    )
    t = d / "settings.toml"
    t.write_text('[server]\nport = "80\n')
    yield (
        "file-toml-unterminated",
        "load_settings",
        {"path": str(t)},
        _catch(lambda: msgspec.toml.decode(t.read_bytes())),
    )


SERVICE = {
    "/users/7": ("application/json", b'{"name": "Ada", "age": 36, "email": null}'),
    "/users/8": ("application/json", b'{"name": "Bob", "age": 40, "email": "b@x.org", "plan": "legacy"}'),
    "/users/9": ("application/json", b'{"name": "Cy", "age": 41, "email": "c@x.org"'),
    "/users/10": (
        "text/html",
        b"<html><head><title>Sign in</title></head><body>Please sign in</body></html>",
    ),
    "/users/11": (
        "application/json",
        b'{"name": "Dee", "age": 42, "email": "d@x.org", "signup": "2026-13-01T00:00:00Z"}',
    ),
    "/users/12": (
        "application/json",
        b'{"name": "Eve", "age": 43, "email": "e@x.org", "address": {"street": "2 Elm", "zip": 12345}}',
    ),
    "/trees/1": ("application/json", DEEP),
}


def _service_cases(ctx: Context) -> Iterator[tuple[str, str, dict[str, Any], BaseException]]:
    with _serve.documents(SERVICE) as port:
        ctx.name_port(port, "USERSPORT")

        def body(path: str) -> bytes:
            return _serve.get(port, path).encode()

        for slug, uid in (
            ("email-null", 7),
            ("plan-unknown", 8),
            ("json-truncated", 9),
            ("login-page", 10),
            ("signup-month-13", 11),
            ("zip-number", 12),
        ):
            exc = _catch(lambda: msgspec.json.decode(body(f"/users/{uid}"), type=User))
            yield f"service-{slug}", "get_user", {"user_id": uid}, exc
        exc = _serve.catch_on_fresh_stack(lambda: msgspec.json.decode(body("/trees/1")))
        yield "service-nested-too-deep", "get_category_tree", {"tree_id": 1}, exc


def _install_cases(ctx: Context) -> Iterator[tuple[str, str, str, dict[str, Any], BaseException]]:
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("yaml",)):
        args = {"user_yaml": "name: Ada\n"}
        yield (
            "pyyaml-missing",
            "PyYAML not installed",
            "create_user",
            args,
            _catch(lambda: msgspec.yaml.decode(b"name: Ada\n")),
        )
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("tomli_w",)):
        args = {"settings": {"retries": 3}}
        yield (
            "tomli-w-missing",
            "tomli_w not installed",
            "save_settings",
            args,
            _catch(lambda: msgspec.toml.encode({"retries": 3})),
        )
    core = next(p.name for p in _msgspec_dir().iterdir() if p.name.startswith("_core.") and p.suffix == ".so")
    with _pkgcopy.broken_install(ctx.tmp, ["msgspec"], drop=(f"msgspec/{core}",)):
        exc = _catch(lambda: importlib.import_module("msgspec"))
    yield (
        "core-module-missing",
        "installed extension module missing (msgspec/_core*.so)",
        "create_user",
        {"user_json": USER},
        exc,
    )


def _msgspec_dir() -> Path:
    spec = importlib.util.find_spec("msgspec")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent


def cases(ctx: Context) -> Iterator[Case]:
    for slug, tool, args, fn in model_calls():
        yield Case(f"msgspec-{slug}", LIBRARY, f"payload argument ({slug})", F, None, _catch(fn), tool, args)
    for slug, tool, args, exc in _file_cases(ctx):
        yield Case(f"msgspec-{slug}", LIBRARY, "file on disk has bad content", A, None, exc, tool, args)
    for slug, tool, args, exc in _service_cases(ctx):
        yield Case(f"msgspec-{slug}", LIBRARY, "service answered a bad payload", A, None, exc, tool, args)
    for slug, cause, tool, args, exc in _install_cases(ctx):
        yield Case(f"msgspec-{slug}", LIBRARY, cause, U, None, exc, tool, args)
