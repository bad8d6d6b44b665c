# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""marshmallow: the model's tool-call payload loaded through the tool's schema (fixable);
the same schemas loading a record a service on 127.0.0.1 answered or a file on disk
(ambiguous); a tool schema naming a nested schema nobody registered (ambiguous: the tool's
own fault, not the call's); a self-nesting payload deeper than the interpreter's recursion
limit (unrecoverable).

Labels follow the cause: ``create_order`` hands the model's arguments to ``Schema.load``,
so every field the schema rejects is the model's to fix (marshmallow's documented
``ValidationError`` messages: https://marshmallow.readthedocs.io/en/stable/marshmallow.fields.html
and .../marshmallow.validate.html). The same ``ValidationError`` raised while loading a
CRM's JSON answer or a settings file describes data the model never wrote: ambiguous, as
``pyyaml-file-corrupt`` is. ``RegistryError`` means the tool's code refers to an
undefined schema: an internal error, ambiguous. A comment thread nested 5000 deep stops
on ``RecursionError`` however it is reworded: unrecoverable, like ``json-too-deep``.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "marshmallow"
REQUIRES = ["marshmallow>=4,<5"]

OK: dict[str, Any] = {"email": "ann@example.com", "qty": 1}

# (name, the payload an LLM sent)
MODEL_PAYLOADS: list[tuple[str, Any]] = [
    ("missing-required", {}),
    ("email-no-at", {**OK, "email": "ann at example.com"}),
    ("qty-string", {**OK, "qty": "3"}),
    ("qty-float", {**OK, "qty": 1.5}),
    ("qty-bool", {**OK, "qty": True}),
    ("qty-out-of-range", {**OK, "qty": 0}),
    ("price-comma", {**OK, "price": "12,50"}),
    ("when-words", {**OK, "when": "tomorrow"}),
    ("day-feb-30", {**OK, "day": "2024-02-30"}),
    ("time-hour-25", {**OK, "at": "25:00"}),
    ("aware-naive", {**OK, "aware": "2024-01-01T00:00:00"}),
    ("period-words", {**OK, "period": "1 day"}),
    ("url-no-scheme", {**OK, "url": "example.com/x"}),
    ("status-not-choice", {**OK, "status": "pending"}),
    ("tags-too-many", {**OK, "tags": ["a", "b", "c", "d"]}),
    ("tags-csv-string", {**OK, "tags": "a,b"}),
    ("nested-bad-fields", {**OK, "address": {"zip": "ABCDE"}}),
    ("nested-string", {**OK, "address": "Paris"}),
    ("uuid-short", {**OK, "id": "123"}),
    ("ip-octet-999", {**OK, "ip": "999.1.1.1"}),
    ("enum-unknown", {**OK, "channel": "fax"}),
    ("bool-maybe", {**OK, "gift": "maybe"}),
    ("float-nan", {**OK, "ratio": "NaN"}),
    ("dict-bad-value", {**OK, "meta": {"a": "x"}}),
    ("tuple-short", {**OK, "pair": ["a"]}),
    ("name-reserved", {**OK, "name": "admin"}),
    ("choices-not-allowed", {**OK, "flags": ["c"]}),
    ("confirm-not-equal", {**OK, "confirm": "no"}),
    ("unknown-field", {**OK, "coupon": "SAVE10"}),
    ("list-not-object", [OK]),
    ("string-not-object", "qty=1, email=ann@example.com"),
    ("null-payload", None),
    ("dates-reversed", {**OK, "start": "2024-05-02", "end": "2024-05-01"}),
    ("camel-case-keys", {"Email": "ann@example.com", "Qty": 1}),
    ("phone-pattern", {**OK, "phone": "call me"}),
    ("note-too-long", {**OK, "note": "x" * 600}),
]


def _schemas() -> tuple[type[Any], type[Any]]:
    from marshmallow import Schema, ValidationError, fields, validate, validates_schema

    class Address(Schema):
        city = fields.String(required=True)
        zip = fields.String(validate=validate.Regexp(r"^\d{5}$"))

    class Order(Schema):
        email = fields.Email(required=True)
        qty = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=100))
        price = fields.Decimal(places=2)
        when = fields.DateTime(format="iso")
        day = fields.Date()
        at = fields.Time()
        aware = fields.AwareDateTime()
        period = fields.TimeDelta()
        url = fields.Url()
        status = fields.String(validate=validate.OneOf(["open", "closed"]))
        tags = fields.List(fields.String(), validate=validate.Length(max=3))
        address = fields.Nested(Address)
        id = fields.UUID()
        ip = fields.IP()
        channel = fields.Enum(enum.Enum("Channel", "email sms"))
        gift = fields.Boolean()
        ratio = fields.Float(allow_nan=False)
        meta = fields.Dict(keys=fields.String(), values=fields.Integer())
        pair = fields.Tuple((fields.String(), fields.Integer()))
        name = fields.String(validate=[validate.Length(min=2), validate.NoneOf(["admin", "root"])])
        flags = fields.List(fields.String(), validate=validate.ContainsOnly(["a", "b"]))
        confirm = fields.String(validate=validate.Equal("yes"))
        start = fields.Date()
        end = fields.Date()
        phone = fields.String(validate=validate.Regexp(r"^\+?[0-9 ()-]{7,}$", error="Not a phone number."))
        note = fields.String(validate=validate.Length(max=500))

        @validates_schema
        def check_dates(self, data: dict[str, Any], **kwargs: Any) -> None:
            if "start" in data and "end" in data and data["end"] < data["start"]:
                raise ValidationError("end must not be before start.", "end")

    class Comment(Schema):
        text = fields.String()
        replies = fields.List(fields.Nested(lambda: Comment()))

    return Order, Comment


def cases(ctx: Context) -> Iterator[Case]:
    from marshmallow import Schema, fields

    order, comment = _schemas()
    for name, payload in MODEL_PAYLOADS:
        exc = _catch(lambda: order().load(payload))
        # the arguments are the payload; one that is not an object came as the "order" argument
        args = payload if isinstance(payload, dict) else {"order": payload}
        cause = f"payload argument ({name})"
        yield Case(f"marshmallow-{name}", LIBRARY, cause, F, None, exc, "create_order", arguments=args)

    # records another service answered, loaded with the same schema
    records = {
        "/crm/customers/7/order": ("application/json", b'{"email": "ann@example", "qty": "two"}'),
        "/crm/customers/9/order": ("application/json", b'{"qty": 3, "status": "ARCHIVED"}'),
    }
    with _serve.documents(records) as port:
        ctx.name_port(port, "CRMPORT")
        for customer in ("7", "9"):
            body = _serve.get(port, f"/crm/customers/{customer}/order")
            exc = _catch(lambda: order().load(json.loads(body)))
            yield Case(
                f"marshmallow-service-record-{customer}",
                LIBRARY,
                "record from another service fails the schema",
                A,
                None,
                exc,
                "sync_orders",
                arguments={"customer_id": customer},
            )
    saved = ctx.tmp / "draft_order.json"
    saved.write_text('{"email": "ann@example.com", "qty": 1, "day": "01/02/2024"}')
    exc = _catch(lambda: order().load(json.loads(saved.read_text())))
    cause = "saved file fails the schema"
    args = {"path": str(saved)}
    yield Case("marshmallow-file-record", LIBRARY, cause, A, None, exc, "resume_order", arguments=args)

    # the tool's own schema refers to a schema nobody registered
    class Invoice(Schema):
        lines = fields.List(fields.Nested("InvoiceLineSchema"))

    invoice = {"lines": [{"sku": "A1"}]}
    exc = _catch(lambda: Invoice().load(invoice))
    yield Case(
        "marshmallow-registry-missing",
        LIBRARY,
        "tool schema names an unregistered nested schema",
        A,
        None,
        exc,
        "create_invoice",
        arguments=invoice,
    )

    # a thread nested deeper than the recursion limit
    deep: dict[str, Any] = {"text": "leaf", "replies": []}
    for _ in range(5000):
        deep = {"text": "re", "replies": [deep]}
    exc = _serve.catch_on_fresh_stack(lambda: comment().load(deep))
    # the thread as JSON is ~150,000 chars: the arguments keep its first 200
    text = '{"text": "re", "replies": [' * 5000 + '{"text": "leaf", "replies": []}' + "]}" * 5000
    cause = "nesting beyond the recursion limit"
    args = {"value": text[:200] + "..."}
    yield Case("marshmallow-too-deep", LIBRARY, cause, U, None, exc, "post_thread", arguments=args)
