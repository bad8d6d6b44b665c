# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Protocol Buffers (``google.protobuf``, the installed upb runtime) behind the order tools
of an agent. The message classes are built at run time from ``FileDescriptorProto`` objects
in a private ``DescriptorPool`` (no ``protoc``): ``shop.Order`` (proto3: strings, a
``uint64``, an ``int32``, an enum, repeated scalars and messages, a map, a ``oneof``,
``bytes``, ``float``, ``bool`` and the well-known ``Timestamp`` / ``Duration`` / ``Struct`` /
``FieldMask``) and ``shop.legacy.Customer`` (proto2, required fields).

Tools: ``create_order`` (``json_format.ParseDict`` of the object the model wrote),
``create_order_json`` (``json_format.Parse`` of the JSON text it wrote), ``create_order_text``
(``text_format.Parse`` of the text format it wrote), ``update_order_field`` (a stored binary
order loaded, one field set to the model's value, ``setattr`` / the repeated and map
containers), ``register_customer`` (a proto2 customer parsed from the model's object and
serialised), ``define_message_type`` (a ``FileDescriptorProto`` the model wrote in JSON,
added to the tool's pool), ``load_order`` / ``import_order_json`` / ``import_order_text`` /
``update_customer`` / ``describe_event`` (a stored file the model names: binary, JSON, text
format, a proto2 binary, a binary ``google.protobuf.Any``), ``export_order`` (the model's
order serialised into a file) and ``create_order_v2`` (the same through a generated
``order_pb2.py`` module of the deployment).

Labels follow the cause that was set up:

- fixable: what the model wrote does not fit the schema the tool exposes or the proto3 JSON
  mapping (https://protobuf.dev/programming-guides/json/): an unknown field, a value of the
  wrong JSON type, an integer out of its type's range or not an integer, an enum name not in
  the enum, a ``Timestamp`` that is not RFC 3339 or names no real day, a ``Duration``
  without its ``s`` suffix, a repeated field given an object, a map value of the wrong type,
  two members of one ``oneof``, ``bytes`` that are not base64, a ``FieldMask`` path with
  ``_``, JSON that does not load; text format the model wrote that ``text_format`` rejects
  (``ParseError`` with ``line:col``, https://protobuf.dev/reference/protobuf/textformat-spec/);
  a value it asked to assign of the wrong Python type or range (``TypeError`` /
  ``ValueError``), a field the message has not (``AttributeError``), an assignment to a
  repeated field; a proto2 customer without its required fields (``EncodeError``,
  https://protobuf.dev/programming-guides/proto2/); a message type it defined that the pool
  refuses (an unresolved type name, a duplicate field number, a required field in proto3, an
  open enum whose first value is not zero).
- ambiguous: stored data the model only named: a binary order that is truncated, gzipped,
  JSON saved under ``.bin``, a string field that is not UTF-8 (``DecodeError``); an exported
  JSON or text-format order written by a newer schema (an unknown field or enum value) or
  cut short; a stored proto2 customer without its required fields (``EncodeError`` when the
  tool saves it back); a stored ``Any`` whose type URL the tool's pool does not hold; a file
  the model named that does not exist; a message type whose file name or full name is
  already in the tool's pool, or that imports a file the pool does not hold (a conflict
  with, or a gap in, the stored state).
- unrecoverable: a generated ``order_pb2.py`` made by a newer ``protoc`` than the installed
  runtime (``VersionError`` "Runtime version cannot be older than the linked gencode
  version", https://protobuf.dev/support/cross-version-runtime-guarantee/), the decoder's
  nesting limit (upb's ``MaxDepth`` for a stored binary, json_format's recursion depth of
  100 for the model's object; the corpus' convention for a parser's safety limit, as
  ``lxml_``'s depth limit), a stored file the process may not read or a directory it may
  not write (``PermissionError``, as an ordinary user: as root the generator drops to
  ``nobody`` for those calls, :mod:`libraries._files`) and the ``RLIMIT_FSIZE`` quota.

Not triggerable: protobuf does no network I/O and takes no lock, so there is no transient
failure; a binary message of another type usually parses without an error (unknown fields
are kept), as do an enum number outside a proto3 enum (open enums keep it) and a proto2
message without its required fields (upb's ``ParseFromString`` does not check them): those
only fail later, as above, when the tool saves the message; an installation of protobuf
missing one of its files is left out (re-importing the upb extension in the same process
crashes it).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files
from ._common import A, F, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "protobuf"
REQUIRES = ["protobuf==7.36.2"]


def _schema() -> tuple[Any, Any, Any, Any]:
    """(pool, Order, Customer, Item): the tool's message types, built from descriptors."""
    from google.protobuf import (
        any_pb2,
        descriptor_pb2,
        descriptor_pool,
        duration_pb2,
        field_mask_pb2,
        message_factory,
        struct_pb2,
        timestamp_pb2,
    )

    fdp = descriptor_pb2.FieldDescriptorProto
    opt, rep = fdp.LABEL_OPTIONAL, fdp.LABEL_REPEATED
    pool = descriptor_pool.DescriptorPool()
    for module in (timestamp_pb2, duration_pb2, struct_pb2, field_mask_pb2, any_pb2):
        proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(proto)
        pool.Add(proto)
    f = descriptor_pb2.FileDescriptorProto(
        name="shop/order.proto",
        package="shop",
        syntax="proto3",
        dependency=[
            "google/protobuf/timestamp.proto",
            "google/protobuf/duration.proto",
            "google/protobuf/struct.proto",
            "google/protobuf/field_mask.proto",
        ],
    )
    status = f.enum_type.add(name="Status")
    for number, name in enumerate(["STATUS_UNSPECIFIED", "PENDING", "PAID", "SHIPPED"]):
        status.value.add(name=name, number=number)
    item = f.message_type.add(name="Item")
    item.field.add(name="sku", number=1, type=fdp.TYPE_STRING, label=opt)
    item.field.add(name="quantity", number=2, type=fdp.TYPE_INT32, label=opt)
    item.field.add(name="unit_price", number=3, type=fdp.TYPE_DOUBLE, label=opt)
    o = f.message_type.add(name="Order")
    o.field.add(name="id", number=1, type=fdp.TYPE_STRING, label=opt)
    o.field.add(name="customer_id", number=2, type=fdp.TYPE_UINT64, label=opt)
    o.field.add(name="status", number=3, type=fdp.TYPE_ENUM, type_name=".shop.Status", label=opt)
    o.field.add(name="items", number=4, type=fdp.TYPE_MESSAGE, type_name=".shop.Item", label=rep)
    o.field.add(
        name="created_at", number=5, type=fdp.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp", label=opt
    )
    o.field.add(name="ttl", number=6, type=fdp.TYPE_MESSAGE, type_name=".google.protobuf.Duration", label=opt)
    o.field.add(name="priority", number=7, type=fdp.TYPE_INT32, label=opt)
    o.field.add(name="tags", number=8, type=fdp.TYPE_STRING, label=rep)
    entry = o.nested_type.add(name="AttributesEntry", options=descriptor_pb2.MessageOptions(map_entry=True))
    entry.field.add(name="key", number=1, type=fdp.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=fdp.TYPE_INT32, label=opt)
    o.field.add(
        name="attributes", number=9, type=fdp.TYPE_MESSAGE, type_name=".shop.Order.AttributesEntry", label=rep
    )
    o.oneof_decl.add(name="payment")
    o.field.add(name="card_token", number=10, type=fdp.TYPE_STRING, label=opt, oneof_index=0)
    o.field.add(name="iban", number=11, type=fdp.TYPE_STRING, label=opt, oneof_index=0)
    o.field.add(name="note", number=12, type=fdp.TYPE_BYTES, label=opt)
    o.field.add(
        name="metadata", number=13, type=fdp.TYPE_MESSAGE, type_name=".google.protobuf.Struct", label=opt
    )
    o.field.add(
        name="update_mask",
        number=14,
        type=fdp.TYPE_MESSAGE,
        type_name=".google.protobuf.FieldMask",
        label=opt,
    )
    o.field.add(name="discount", number=15, type=fdp.TYPE_FLOAT, label=opt)
    o.field.add(name="gift", number=16, type=fdp.TYPE_BOOL, label=opt)
    pool.Add(f)
    g = descriptor_pb2.FileDescriptorProto(name="shop/legacy.proto", package="shop.legacy", syntax="proto2")
    c = g.message_type.add(name="Customer")
    c.field.add(name="id", number=1, type=fdp.TYPE_INT64, label=fdp.LABEL_REQUIRED)
    c.field.add(name="email", number=2, type=fdp.TYPE_STRING, label=fdp.LABEL_REQUIRED)
    c.field.add(name="name", number=3, type=fdp.TYPE_STRING, label=opt)
    pool.Add(g)

    def cls(name: str) -> Any:
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))

    return pool, cls("shop.Order"), cls("shop.legacy.Customer"), cls("shop.Item")


GOOD_ORDER: dict[str, Any] = {
    "id": "A1",
    "customerId": "42",
    "status": "PAID",
    "items": [{"sku": "KB-1", "quantity": 2, "unitPrice": 49.0}],
    "createdAt": "2024-05-01T10:00:00Z",
    "tags": ["gift"],
}

# (slug, the order object the model wrote) that json_format.ParseDict rejects
MODEL_DICTS: list[tuple[str, dict[str, Any]]] = [
    ("unknown-field", {"id": "A1", "qty": 2}),
    ("string-given-number", {"id": 1001}),
    ("uint64-negative", {"id": "A1", "customerId": -42}),
    ("int32-out-of-range", {"id": "A1", "priority": 3000000000}),
    ("int32-fraction-string", {"id": "A1", "priority": "2.5"}),
    ("enum-unknown-name", {"id": "A1", "status": "DELIVERED"}),
    ("timestamp-space-separator", {"id": "A1", "createdAt": "2024-05-01 10:00:00"}),
    ("timestamp-february-30", {"id": "A1", "createdAt": "2024-02-30T10:00:00Z"}),
    ("duration-minutes", {"id": "A1", "ttl": "30m"}),
    ("repeated-given-object", {"id": "A1", "items": {"sku": "KB-1", "quantity": 2}}),
    ("map-value-wrong-type", {"id": "A1", "attributes": {"size": "L"}}),
    ("oneof-two-members", {"id": "A1", "cardToken": "tok_1", "iban": "DE89370400440532013000"}),
    ("bytes-not-base64", {"id": "A1", "note": "call first!"}),
    ("field-mask-snake-case", {"id": "A1", "updateMask": "items.unit_price"}),
]

# (slug, the JSON text the model wrote) that does not load
MODEL_JSON: list[tuple[str, str]] = [
    ("trailing-comma", '{"id": "A1", "priority": 2,}'),
    ("duplicate-key", '{"id": "A1", "id": "A2"}'),
]

# (slug, the text format the model wrote) that text_format rejects
MODEL_TEXT: list[tuple[str, str]] = [
    ("unknown-field", 'id: "A1"\nqty: 2\n'),
    ("unquoted-string", "id: A1\n"),
    ("enum-unknown-name", 'id: "A1"\nstatus: DELIVERED\n'),
    ("nested-unclosed", 'id: "A1"\nitems {\n  sku: "KB-1"\n  quantity: 2\n'),
    ("oneof-two-members", 'id: "A1"\ncard_token: "tok_1"\niban: "DE89"\n'),
    ("json-instead", '{"id": "A1"}'),
]


def _ld(tag: int, payload: bytes) -> bytes:
    """A length-delimited field (``tag`` already shifted) holding ``payload``."""
    from google.protobuf.internal import encoder

    return bytes([tag]) + encoder._VarintBytes(len(payload)) + payload


def _deep_struct(depth: int) -> bytes:
    """An order whose ``metadata`` Struct nests ``depth`` Structs (encoded by hand: upb
    refuses to build it)."""
    value = _ld(0x1A, b"x")  # Value.string_value
    for _ in range(depth):
        value = _ld(0x2A, _ld(0x0A, _ld(0x0A, b"a") + _ld(0x12, value)))  # Value.struct_value
    return _ld(0x6A, _ld(0x0A, _ld(0x0A, b"a") + _ld(0x12, value)))  # Order.metadata


GENCODE = """# Generated by the protocol buffer compiler.  DO NOT EDIT!
# source: shop/order.proto
# Protobuf Python Version: {version}
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(
    _runtime_version.Domain.PUBLIC,
    {major},
    {minor},
    {patch},
    '',
    'shop/order.proto'
)
"""


def _import_generated(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def cases(ctx: Context) -> Iterator[Case]:
    from google.protobuf import json_format, text_format

    pool, order_cls, customer_cls, _ = _schema()

    for slug, order in MODEL_DICTS:
        exc = _catch(lambda: json_format.ParseDict(order, order_cls()))
        yield Case(
            f"protobuf-json-{slug}",
            LIBRARY,
            f"order object the model wrote does not fit the schema ({slug})",
            F,
            None,
            exc,
            "create_order",
            {"order": order},
        )
    for slug, text in MODEL_JSON:
        exc = _catch(lambda: json_format.Parse(text, order_cls()))
        yield Case(
            f"protobuf-json-text-{slug}",
            LIBRARY,
            f"JSON text the model wrote does not load ({slug})",
            F,
            None,
            exc,
            "create_order_json",
            {"json": text},
        )
    for slug, text in MODEL_TEXT:
        exc = _catch(lambda: text_format.Parse(text, order_cls()))
        yield Case(
            f"protobuf-text-{slug}",
            LIBRARY,
            f"text format the model wrote is rejected ({slug})",
            F,
            None,
            exc,
            "create_order_text",
            {"text": text},
        )

    store = ctx.tmp / "orders"
    store.mkdir()
    good = json_format.ParseDict(GOOD_ORDER, order_cls()).SerializeToString(deterministic=True)
    (store / "A1.bin").write_bytes(good)

    def load(name: str) -> Any:
        return order_cls.FromString((store / name).read_bytes())

    assignments: list[tuple[str, str, Any, Callable[[Any], Any]]] = [
        ("int-given-string", "priority", "3", lambda m: setattr(m, "priority", "3")),
        ("int-out-of-range", "priority", 2**31, lambda m: setattr(m, "priority", 2**31)),
        ("unknown-field", "qty", 2, lambda m: setattr(m, "qty", 2)),
        ("repeated-assigned", "tags", ["gift", "rush"], lambda m: setattr(m, "tags", ["gift", "rush"])),
        (
            "timestamp-given-string",
            "created_at",
            "2024-05-02T09:00:00Z",
            lambda m: setattr(m, "created_at", "2024-05-02T09:00:00Z"),
        ),
    ]
    for slug, field, value, assign in assignments:
        exc = _catch(lambda: assign(load("A1.bin")))
        yield Case(
            f"protobuf-set-{slug}",
            LIBRARY,
            f"field value the model asked to set is invalid ({slug})",
            F,
            None,
            exc,
            "update_order_field",
            {"path": "orders/A1.bin", "field": field, "value": value},
        )

    for slug, customer in (("customer-required-missing", {"name": "Ada Lovelace"}),):
        exc = _catch(lambda: json_format.ParseDict(customer, customer_cls()).SerializeToString())
        yield Case(
            f"protobuf-{slug}",
            LIBRARY,
            "proto2 customer the model wrote lacks required fields",
            F,
            None,
            exc,
            "register_customer",
            {"customer": customer},
        )

    yield from _schemas(pool)
    yield from _stored(ctx, store, order_cls, customer_cls, pool)
    yield from _refusals(ctx, store, order_cls)


def _field(name: str, number: int, type_: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "number": number, "type": type_, "label": "LABEL_OPTIONAL", **extra}


def _schemas(pool: Any) -> Iterator[Case]:
    """``define_message_type``: the model's ``FileDescriptorProto`` (JSON) added to the pool."""
    from google.protobuf import descriptor_pb2, json_format

    def define(schema: dict[str, Any]) -> Any:
        return pool.Add(json_format.ParseDict(schema, descriptor_pb2.FileDescriptorProto()))

    define(
        {
            "name": "crm/lead.proto",
            "package": "crm",
            "syntax": "proto3",
            "messageType": [{"name": "Lead", "field": [_field("id", 1, "TYPE_STRING")]}],
        }
    )

    def file(name: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"name": name, "package": "crm", "syntax": "proto3", "messageType": [message], **extra}

    model: list[tuple[str, dict[str, Any]]] = [
        (
            "type-unresolved",
            file(
                "crm/deal.proto",
                {"name": "Deal", "field": [_field("lead", 1, "TYPE_MESSAGE", typeName=".crm.Leed")]},
            ),
        ),
        (
            "field-number-duplicate",
            file(
                "crm/task.proto",
                {
                    "name": "Task",
                    "field": [_field("title", 1, "TYPE_STRING"), _field("due", 1, "TYPE_STRING")],
                },
            ),
        ),
        (
            "proto3-required",
            file(
                "crm/contact.proto",
                {
                    "name": "Contact",
                    "field": [{**_field("email", 1, "TYPE_STRING"), "label": "LABEL_REQUIRED"}],
                },
            ),
        ),
        (
            "enum-first-not-zero",
            {
                "name": "crm/stage.proto",
                "package": "crm",
                "syntax": "proto3",
                "enumType": [
                    {"name": "Stage", "value": [{"name": "NEW", "number": 1}, {"name": "WON", "number": 2}]}
                ],
            },
        ),
    ]
    for slug, schema in model:
        exc = _catch(lambda: define(schema))
        yield Case(
            f"protobuf-define-{slug}",
            LIBRARY,
            f"message type the model defined is invalid ({slug})",
            F,
            None,
            exc,
            "define_message_type",
            {"schema": schema},
        )
    stored: list[tuple[str, str, dict[str, Any]]] = [
        (
            "file-name-taken",
            "a file of that name is already in the pool",
            file("crm/lead.proto", {"name": "LeadV2", "field": [_field("id", 1, "TYPE_STRING")]}),
        ),
        (
            "message-name-taken",
            "a message of that full name is already in the pool",
            file("crm/leads.proto", {"name": "Lead", "field": [_field("email", 1, "TYPE_STRING")]}),
        ),
        (
            "dependency-not-loaded",
            "an imported file is not in the pool",
            file(
                "crm/invoice.proto",
                {"name": "Invoice", "field": [_field("total", 1, "TYPE_MESSAGE", typeName=".money.Money")]},
                dependency=["money/money.proto"],
            ),
        ),
    ]
    for slug, cause, schema in stored:
        exc = _catch(lambda: define(schema))
        yield Case(
            f"protobuf-define-{slug}",
            LIBRARY,
            cause,
            A,
            None,
            exc,
            "define_message_type",
            {"schema": schema},
        )


def _stored(ctx: Context, store: Path, order_cls: Any, customer_cls: Any, pool: Any) -> Iterator[Case]:
    from google.protobuf import any_pb2, json_format, text_format

    good = (store / "A1.bin").read_bytes()
    binaries: list[tuple[str, str, bytes]] = [
        ("truncated", "A2.bin", good[:-5]),
        ("gzipped", "A4.bin", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + good[:12]),
        ("json-saved-as-binary", "A5.bin", b'{"id": "A5", "status": "PAID"}\n'),
        ("string-not-utf8", "A6.bin", b"\x0a\x04A6\xff\xfe" + good[4:]),
    ]
    for slug, name, data in binaries:
        (store / name).write_bytes(data)
        exc = _catch(lambda: order_cls.FromString((store / name).read_bytes()))
        yield Case(
            f"protobuf-stored-binary-{slug}",
            LIBRARY,
            f"stored binary order is corrupt ({slug})",
            A,
            None,
            exc,
            "load_order",
            {"path": f"orders/{name}"},
        )
    exc = _catch(lambda: order_cls.FromString((store / "B1.bin").read_bytes()))
    yield Case(
        "protobuf-stored-binary-missing",
        LIBRARY,
        "stored file the model named does not exist",
        A,
        None,
        exc,
        "load_order",
        {"path": "orders/B1.bin"},
    )

    exports = ctx.tmp / "exports"
    exports.mkdir()
    texts: list[tuple[str, str, str]] = [
        ("newer-field", "A1.json", '{"id": "A1", "status": "PAID", "loyaltyPoints": 120}\n'),
        ("newer-enum-value", "A2.json", '{"id": "A2", "status": "REFUNDED"}\n'),
        ("cut-short", "A3.json", '{"id": "A3", "items": [{"sku": "KB-1", "quantity": 2}'),
        ("timestamp-local", "A4.json", '{"id": "A4", "createdAt": "01/05/2024 10:00"}\n'),
    ]
    for slug, name, text in texts:
        (exports / name).write_text(text)
        exc = _catch(lambda: json_format.Parse((exports / name).read_text(), order_cls()))
        yield Case(
            f"protobuf-stored-json-{slug}",
            LIBRARY,
            f"exported JSON order does not fit the schema ({slug})",
            A,
            None,
            exc,
            "import_order_json",
            {"path": f"exports/{name}"},
        )
    for slug, name, text in (
        ("newer-field", "A1.txtpb", 'id: "A1"\nstatus: PAID\nitems {\n  sku: "KB-1"\n  gift_wrap: true\n}\n'),
        ("cut-short", "A2.txtpb", 'id: "A2"\nstatus: PAID\nitems {\n  sku: "KB-1"\n  quantity: 2\n'),
    ):
        (exports / name).write_text(text)
        exc = _catch(lambda: text_format.Parse((exports / name).read_text(), order_cls()))
        yield Case(
            f"protobuf-stored-text-{slug}",
            LIBRARY,
            f"stored text-format order does not parse ({slug})",
            A,
            None,
            exc,
            "import_order_text",
            {"path": f"exports/{name}"},
        )

    # a stored proto2 customer without its required fields, saved back by the tool
    customers = ctx.tmp / "customers"
    customers.mkdir()
    (customers / "7.bin").write_bytes(customer_cls(name="Ada").SerializePartialToString())

    def rename() -> bytes:
        customer = customer_cls.FromString((customers / "7.bin").read_bytes())
        customer.name = "Ada Lovelace"
        return customer.SerializeToString()

    exc = _catch(rename)
    yield Case(
        "protobuf-stored-customer-required-missing",
        LIBRARY,
        "stored proto2 customer lacks required fields",
        A,
        None,
        exc,
        "update_customer",
        {"path": "customers/7.bin", "name": "Ada Lovelace"},
    )

    # a stored Any whose type the tool's pool does not hold
    events = ctx.tmp / "events"
    events.mkdir()
    event = any_pb2.Any(type_url="type.googleapis.com/shop.events.Refund", value=b"\x0a\x02A1")
    (events / "e1.bin").write_bytes(event.SerializeToString())
    exc = _catch(
        lambda: json_format.MessageToDict(
            any_pb2.Any.FromString((events / "e1.bin").read_bytes()), descriptor_pool=pool
        )
    )
    yield Case(
        "protobuf-stored-any-unknown-type",
        LIBRARY,
        "stored Any names a type the tool does not know",
        A,
        None,
        exc,
        "describe_event",
        {"path": "events/e1.bin"},
    )


def _refusals(ctx: Context, store: Path, order_cls: Any) -> Iterator[Case]:
    from google.protobuf import json_format

    # generated code made by a newer protoc than the installed runtime
    gen = ctx.tmp / "gen" / "shop"
    gen.mkdir(parents=True)
    for slug, version in (("gencode-newer-major", (8, 30, 0)), ("gencode-newer-minor", (7, 40, 1))):
        path = gen / f"order_{slug.replace('-', '_')}_pb2.py"
        path.write_text(
            GENCODE.format(
                version=".".join(map(str, version)), major=version[0], minor=version[1], patch=version[2]
            )
        )
        exc = _catch(lambda: _import_generated(path, f"shop_{slug.replace('-', '_')}_pb2"))
        yield Case(
            f"protobuf-{slug}",
            LIBRARY,
            "generated code newer than the installed protobuf runtime",
            U,
            None,
            exc,
            "create_order_v2",
            {"order": {"id": "A1", "status": "PAID"}},
        )

    # the decoders' nesting limits
    (store / "deep.bin").write_bytes(_deep_struct(120))
    exc = _catch(lambda: order_cls.FromString((store / "deep.bin").read_bytes()))
    yield Case(
        "protobuf-stored-binary-too-deep",
        LIBRARY,
        "stored message nests beyond the decoder's depth limit",
        U,
        None,
        exc,
        "load_order",
        {"path": "orders/deep.bin"},
    )
    deep: dict[str, Any] = {"v": 1}
    for _ in range(110):
        deep = {"a": deep}
    exc = _catch(lambda: json_format.ParseDict({"id": "A1", "metadata": deep}, order_cls()))
    yield Case(
        "protobuf-json-too-deep",
        LIBRARY,
        "object nests beyond json_format's recursion limit",
        U,
        None,
        exc,
        "create_order",
        {"order": {"id": "A1", "metadata": deep}},
    )

    # files and directories the process may not read or write, and a file size quota
    (store / "private.bin").write_bytes((store / "A1.bin").read_bytes())
    (store / "private.bin").chmod(0o000)
    _files.read_only_dir(ctx.tmp / "ro-probe")  # makes the directories searchable by nobody
    exc = _files.denied(lambda: order_cls.FromString((store / "private.bin").read_bytes()))
    yield Case(
        "protobuf-stored-binary-unreadable",
        LIBRARY,
        "stored file not readable (permissions)",
        U,
        None,
        exc,
        "load_order",
        {"path": "orders/private.bin"},
    )
    shared = _files.read_only_dir(ctx.tmp / "shared")

    def export(path: Path) -> None:
        path.write_bytes(json_format.ParseDict(GOOD_ORDER, order_cls()).SerializeToString())

    exc = _files.denied(lambda: export(shared / "A1.bin"))
    yield Case(
        "protobuf-export-dir-read-only",
        LIBRARY,
        "directory not writable (permissions)",
        U,
        None,
        exc,
        "export_order",
        {"order": GOOD_ORDER, "path": "shared/A1.bin"},
    )
    with _files.file_size_limit(16):
        exc = _catch(lambda: export(ctx.tmp / "A1-export.bin"))
    yield Case(
        "protobuf-export-file-size-limit",
        LIBRARY,
        "file size limit reached (quota)",
        U,
        None,
        exc,
        "export_order",
        {"order": GOOD_ORDER, "path": "A1-export.bin"},
    )
