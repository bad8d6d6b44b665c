"""Descriptive names of the delivery forms, beside the studies' codes (``c0``..``c4``).

The codes are the ones the two studies use; the names say what each form does, for docs
and error messages. The contract itself is the "Delivery forms" section of
https://github.com/toolerr/toolerr/blob/main/docs/DELIVERY.md.
"""

from __future__ import annotations

from ._types import FORMS, Form

FORM_NAMES: dict[Form, str] = {
    "c0": "detect and record only",
    "c1": "guidance appended to the tool result",
    "c2": "exchange removed, note in the last user message",
    "c3": "exchange kept, note in the next user turn",
    "c4": "exchange removed, note in a new user turn",
    "abstract": "exchange removed, the failure described without its arguments",
}
assert tuple(FORM_NAMES) == FORMS

CONTRACT_URL = "https://github.com/toolerr/toolerr/blob/main/docs/DELIVERY.md"
"""The behaviour contract, as published (the README links it)."""


def describe_forms() -> str:
    """``c0 (detect and record only), c1 (...), ...``: every form with its name."""
    return ", ".join(f"{code} ({name})" for code, name in FORM_NAMES.items())
