"""What the edge-shape tests of the decision step share: a transient failure of a ``read``
call and the byte-exact C3 note the contract gives it."""

from __future__ import annotations

import json
from typing import Any

from toolerr.adapters import GUIDANCE

RATE = "Error: HTTP 429 Too Many Requests"
NOTE = (
    'Note from the tool runtime: the last attempt called read with path="a" and it failed with: '
    f"{RATE}\n\n{GUIDANCE['transient']}"
)


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
