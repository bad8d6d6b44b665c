"""The gateway part of the adapter kit (re-exported by ``_kit``): the policy and client of one
request a gateway forwards (an LLM proxy such as LiteLLM's, an MCP gateway), and the report
of what toolerr did to it (the request's log entry and the ``x-toolerr`` response header)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from ._detect import normalise_client
from ._policy import Policy
from ._wire import WireRewrite

__all__ = [
    "CLIENT_HEADER",
    "FORM_HEADER",
    "REPORT_HEADER",
    "gateway_policy",
    "override_policy",
    "report_header",
    "wire_report",
]

REPORT_HEADER = "x-toolerr"
"""The response header a gateway sets on a request toolerr reported on (:func:`report_header`)."""
FORM_HEADER = "x-toolerr-form"
"""The request header that chooses the form of one request (:func:`gateway_policy`)."""
CLIENT_HEADER = "x-toolerr-client"
"""The request header that names the client of one request (:func:`gateway_policy`)."""

_GATEWAY_OPTIONS = ("form", "retry_budget", "loop_action", "max_error_chars", "tool_safety")
"""The policy options a model group or a request may override."""
_REPORTED = ("position", "tool", "call_id", "kind", "rule", "detection", "form", "changed", "repeat", "loop")
_IN_HEADER = ("position", "tool", "kind", "rule", "form", "changed")


def override_policy(policy: Policy, overrides: Mapping[str, Any], *, where: str = "options") -> Policy:
    """``policy`` with the options a gateway lets a model group or a request override
    (``form``, ``retry_budget``, ``loop_action``, ``max_error_chars``, ``tool_safety``).

    Args:
        policy: the gateway's default policy.
        overrides: the options; other keys (``client``) and ``None`` values are ignored.
        where: what gave them, for the error (``model group 'x'``).

    Returns:
        The policy (``policy`` itself when nothing is overridden).

    Raises:
        ValueError: an option's value is not valid (``toolerr: bad {where}: ...``).
    """
    values = {key: overrides[key] for key in _GATEWAY_OPTIONS if overrides.get(key) is not None}
    try:
        return Policy.coerce(policy, **values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"toolerr: bad {where}: {exc}") from exc


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == name:
            return str(value)
    return None


def gateway_policy(
    policy: Policy,
    headers: Mapping[str, Any],
    *,
    client: str | None = None,
    groups: Mapping[str, Mapping[str, Any]] | None = None,
    names: Iterable[object] = (),
    entry: object = None,
    overrides: bool = True,
) -> tuple[Policy, str]:
    """The policy and the client of one request a gateway forwards (an LLM proxy, an MCP
    gateway): the gateway's defaults, overridden by its request's model group, overridden
    by what the request asks for.

    Args:
        policy: the gateway's default policy.
        headers: the request's HTTP headers (names in any case).
        client: the gateway's client (``None``: the request's ``User-Agent``).
        groups: per model group, options overriding the defaults (those of
            :func:`override_policy`, and ``client``).
        names: the names the request's model group may have, the most specific first;
            the first one in ``groups`` applies.
        entry: toolerr's options in the request's body (a mapping; one holding
            ``records`` is a report toolerr wrote, not options).
        overrides: whether the request may choose: ``entry``, then the headers
            ``x-toolerr-form`` and ``x-toolerr-client``. Options that are not valid are
            ignored, with a WARNING on logger ``toolerr``.

    Returns:
        The policy, and the client as given (``generic`` when none is known); the core
        recognises a User-Agent (:func:`~toolerr.adapters.normalise_client`).

    Raises:
        ValueError: a model group's option is not valid.
    """
    known = groups or {}
    group = next((known[n] for n in names if isinstance(n, str) and n in known), {})
    options: dict[str, Any] = {"client": client, **group}
    request = dict(entry) if overrides and isinstance(entry, Mapping) and "records" not in entry else {}
    for name, option in ((FORM_HEADER, "form"), (CLIENT_HEADER, "client")):
        if overrides and (value := _header(headers, name)):
            request[option] = value.strip()
    if request:
        try:
            override_policy(policy, {**options, **request}, where="request options")
            options.update(request)
        except ValueError:
            logging.getLogger("toolerr").warning("toolerr: ignored bad request options %r", request)
    chosen = options["client"] if options["client"] is not None else _header(headers, "user-agent")
    return override_policy(policy, options), str(chosen) if chosen is not None else "generic"


def wire_report(wire: str, result: WireRewrite, policy: Policy, client: str) -> dict[str, Any]:
    """What a gateway reports of one request it rewrote (LiteLLM puts it in the request's
    metadata, where logging callbacks see it): JSON-able, read by :func:`report_header`.

    Args:
        wire: the request's wire format (``openai-chat``, ``anthropic``, ``responses``).
        result: what :func:`~toolerr.rewrite_wire` gave for it.
        policy: the policy it was rewritten with (its ``form`` is reported).
        client: the client whose templates were read (reported recognised).

    Returns:
        ``wire``, ``form``, ``client``, ``changed``, ``error`` and ``records``: per
        failure at the decision step its ``position``, ``tool``, ``call_id``, ``kind``
        (after the retry budget), ``rule``, ``detection``, ``form``, ``changed``,
        ``repeat`` and ``loop``.
    """
    return {
        "wire": wire,
        "form": policy.form,
        "client": normalise_client(client),
        "changed": result.changed,
        "error": result.error,
        "records": [{name: getattr(record, name) for name in _REPORTED} for record in result.records],
    }


def report_header(report: Mapping[str, Any]) -> str:
    """The value of the ``x-toolerr`` response header for a report.

    Args:
        report: what :func:`wire_report` gave (or its JSON read back).

    Returns:
        Compact ASCII JSON: one entry per failure at the decision step (``position``,
        ``tool``, ``kind``, ``rule``, ``form``, ``changed``).
    """
    entries = [{name: record[name] for name in _IN_HEADER} for record in report["records"]]
    return json.dumps(entries, ensure_ascii=True, separators=(",", ":"))
