"""toolerr for LiteLLM: the proxy and SDK hook that re-delivers failed tool calls.

``litellm_settings: callbacks: toolerr_litellm.default_callback`` in the proxy's
``config.yaml`` (or an instance of your own: ``handler = ToolErrorCallback(form="c1")``
in a file beside the config, named as ``callbacks: my_file.handler``);
``litellm.callbacks = [ToolErrorCallback()]`` for SDK users.
"""

from __future__ import annotations

import os

from toolerr import Policy
from toolerr.adapters import CLIENT_HEADER, FORM_HEADER
from toolerr.adapters import REPORT_HEADER as HEADER

from ._callback import METADATA_KEY, ToolErrorCallback, header_for, wire_of

__version__ = "0.1.0"

default_callback = ToolErrorCallback(
    Policy(form=os.environ["TOOLERR_FORM"]) if os.environ.get("TOOLERR_FORM") else None,
    client=os.environ.get("TOOLERR_CLIENT") or None,
)
"""An instance for ``config.yaml`` (the proxy passes no options to callbacks): the
default policy, form and client from the environment variables ``TOOLERR_FORM`` and
``TOOLERR_CLIENT`` when set."""

__all__ = [
    "CLIENT_HEADER",
    "FORM_HEADER",
    "HEADER",
    "METADATA_KEY",
    "ToolErrorCallback",
    "__version__",
    "default_callback",
    "header_for",
    "wire_of",
]
