"""The LiteLLM hook: toolerr's delivery applied to every request a gateway forwards.

All rules come from the core (:func:`toolerr.rewrite_wire`); this module only reads the
request LiteLLM holds (its wire format, model group, headers, metadata), picks the policy
and the client templates, and reports what toolerr did.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import toolerr
from litellm.integrations.custom_logger import CustomLogger
from toolerr import Policy, ToolErrorLayer, WireRewrite

if TYPE_CHECKING:
    from litellm.caching.dual_cache import DualCache
    from litellm.proxy._types import UserAPIKeyAuth
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

logger = logging.getLogger("toolerr")

HEADER = "x-toolerr"
"""The response header listing each failure at the decision step (JSON, ASCII)."""
FORM_HEADER = "x-toolerr-form"
CLIENT_HEADER = "x-toolerr-client"
METADATA_KEY = "toolerr"
"""Key of toolerr's entry in LiteLLM's request metadata (also read for per-request options)."""

# Policy options a model group or a request may override.
_OPTIONS = ("form", "retry_budget", "loop_action", "max_error_chars", "tool_safety")
_LAYERS = 64


def wire_of(call_type: Any, data: Mapping[str, Any]) -> tuple[str, str] | None:
    """(wire format, request key) of a LiteLLM call, or ``None`` for calls that carry no
    conversation (embeddings, images ...)."""
    name = str(getattr(call_type, "value", call_type) or "")
    if "responses" in name:
        return ("responses", "input") if "input" in data else None
    if "anthropic" in name:
        return ("anthropic", "messages") if "messages" in data else None
    if "completion" in name or not name:
        return ("openai-chat", "messages") if "messages" in data else None
    return None


def _metadata_key(data: Mapping[str, Any]) -> str:
    # The proxy keeps its metadata under "litellm_metadata" on /v1/messages and /responses
    # (there "metadata" is the provider's own field), "metadata" elsewhere.
    return "litellm_metadata" if isinstance(data.get("litellm_metadata"), Mapping) else "metadata"


def _headers(data: Mapping[str, Any]) -> Mapping[str, Any]:
    request = data.get("proxy_server_request")
    headers = request.get("headers") if isinstance(request, Mapping) else None
    return headers if isinstance(headers, Mapping) else {}


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == name:
            return str(value)
    return None


class ToolErrorCallback(CustomLogger):
    """A LiteLLM ``CustomLogger`` that rewrites each request's conversation with toolerr.

    Proxy: name an instance in ``config.yaml`` (``litellm_settings: callbacks:
    my_module.handler``); it applies to ``/chat/completions``, ``/v1/messages`` and
    ``/responses`` (``async_pre_call_hook``). SDK: ``litellm.callbacks = [handler]``
    applies to ``litellm.acompletion`` and ``litellm.aresponses``
    (``async_pre_call_deployment_hook``); the sync ``litellm.completion`` runs no hook that
    can change the request: use ``litellm.completion(**handler.rewrite_kwargs(kwargs))``.

    ``policy`` / ``form`` and the other :class:`toolerr.Policy` options: the default
    policy. ``client``: the client whose templates produced the tool results (``codex``,
    ``qwen-code`` ...); by default it is recognised from the request's User-Agent, else
    ``generic``. ``model_groups``: per model group (the request's ``model``), options that
    override the default ones (``form``, ``client``, ``retry_budget``, ``loop_action``,
    ``max_error_chars``, ``tool_safety``). ``request_overrides``: whether a request may
    choose its own form and client (header ``x-toolerr-form`` / ``x-toolerr-client``, or
    ``metadata: {"toolerr": {...}}`` in the body). ``header``: set the ``x-toolerr``
    response header.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        client: str | None = None,
        model_groups: Mapping[str, Mapping[str, Any]] | None = None,
        request_overrides: bool = True,
        header: bool = True,
        **options: Unpack[PolicyOptions],
    ) -> None:
        super().__init__()
        self.policy = Policy.coerce(policy, **options)
        self.client = client
        self.model_groups = {name: dict(value) for name, value in (model_groups or {}).items()}
        for name, group in self.model_groups.items():  # fail early on a bad configuration
            self.policy_for(group, where=f"model group {name!r}")
        self.request_overrides = request_overrides
        self.header = header
        self._layers: dict[str, ToolErrorLayer] = {}
        self._lock = threading.Lock()

    # -- the policy of one request -------------------------------------------------------

    def policy_for(self, overrides: Mapping[str, Any], *, where: str = "options") -> Policy:
        """The default policy with ``overrides`` (unknown keys are ignored; ``client`` is
        not a policy option here)."""
        values = {key: overrides[key] for key in _OPTIONS if overrides.get(key) is not None}
        try:
            return Policy.coerce(self.policy, **values)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"toolerr: bad {where}: {exc}") from exc

    def _layer(self, policy: Policy) -> ToolErrorLayer:
        key = repr(policy)
        with self._lock:
            layer = self._layers.get(key)
            if layer is None:
                if len(self._layers) >= _LAYERS:
                    self._layers.pop(next(iter(self._layers)))
                layer = self._layers[key] = ToolErrorLayer(policy)
            return layer

    def _model_group(self, data: Mapping[str, Any]) -> str | None:
        """The model group asked for: the request's ``model`` (proxy), or the group a
        ``litellm.Router`` routed it from (its deployment hook gets the deployment's model)."""
        for key in ("metadata", "litellm_metadata"):
            metadata = data.get(key)
            group = metadata.get("model_group") if isinstance(metadata, Mapping) else None
            if isinstance(group, str) and group in self.model_groups:
                return group
        model = data.get("model")
        return model if isinstance(model, str) else None

    def _resolve(self, data: Mapping[str, Any], headers: Mapping[str, Any]) -> tuple[Policy, str]:
        model = self._model_group(data)
        group = self.model_groups.get(model, {}) if model is not None else {}
        options: dict[str, Any] = dict(group)
        client = group.get("client", self.client)
        if self.request_overrides:
            request: dict[str, Any] = {}
            metadata = data.get(_metadata_key(data))
            own = metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None
            if isinstance(own, Mapping) and "records" not in own:  # not our own report
                request.update(own)
            form = _header(headers, FORM_HEADER)
            if form:
                request["form"] = form.strip()
            asked = _header(headers, CLIENT_HEADER)
            if asked:
                request["client"] = asked.strip()
            if request:
                try:
                    self.policy_for({**options, **request}, where="request options")
                    options.update(request)
                    client = request.get("client", client)
                except ValueError:
                    logger.warning("toolerr: ignored bad request options %r", request)
        if client is None:
            client = _header(headers, "user-agent")
        return self.policy_for(options), str(client) if client is not None else "generic"

    # -- rewriting -----------------------------------------------------------------------

    def rewrite(
        self, data: dict[str, Any], call_type: Any = None, headers: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], WireRewrite | None]:
        """Apply toolerr to a LiteLLM request (proxy ``data`` or SDK ``kwargs``).

        Returns the request to send (``data`` itself, with only its conversation replaced
        when something changed, and toolerr's report in its metadata) and the result, or
        ``None`` when the call carries no conversation. Fails open.
        """
        try:
            found = wire_of(call_type, data)
            if found is None:
                return data, None
            wire, key = found
            policy, client = self._resolve(data, headers if headers is not None else _headers(data))
            result = toolerr.rewrite_wire(wire, data[key], layer=self._layer(policy), client=client)
            if result.changed:
                data[key] = result.request
            if result.records or result.error:
                self._report(data, wire, policy, client, result)
            return data, result
        except toolerr.ToolLoopError:
            raise
        except Exception:
            logger.warning("toolerr: LiteLLM hook failed; the request passes unchanged", exc_info=True)
            return data, None

    def rewrite_kwargs(self, kwargs: Mapping[str, Any], call_type: str = "completion") -> dict[str, Any]:
        """A copy of ``litellm.completion`` (or ``responses``) keyword arguments with toolerr
        applied: the way for sync calls, which run no request-rewriting hook."""
        return self.rewrite(dict(kwargs), call_type)[0]

    def _report(
        self, data: dict[str, Any], wire: str, policy: Policy, client: str, result: WireRewrite
    ) -> None:
        key = _metadata_key(data)
        metadata = data.get(key)
        metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
        metadata[METADATA_KEY] = {
            "wire": wire,
            "form": policy.form,
            "client": toolerr.adapters.normalise_client(client),
            "changed": result.changed,
            "error": result.error,
            "records": [
                {
                    "position": r.position,
                    "tool": r.tool,
                    "call_id": r.call_id,
                    "kind": r.kind,
                    "rule": r.rule,
                    "detection": r.detection,
                    "form": r.form,
                    "changed": r.changed,
                    "repeat": r.repeat,
                    "loop": r.loop,
                }
                for r in result.records
            ],
        }
        data[key] = metadata
        logger.info(
            "toolerr: %s request to %s: %d failure(s) at the decision step, form %s, %s",
            wire,
            data.get("model"),
            len(result.records),
            policy.form,
            "changed" if result.changed else "unchanged",
        )

    # -- LiteLLM hooks -------------------------------------------------------------------

    async def async_pre_call_hook(
        self,
        user_api_key_dict: UserAPIKeyAuth,
        cache: DualCache,
        data: dict[str, Any],
        call_type: Any,
    ) -> dict[str, Any]:
        """Proxy: before the request is routed (``/chat/completions``, ``/v1/messages``,
        ``/responses``)."""
        return self.rewrite(data, call_type)[0]

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """SDK (``litellm.acompletion``, ``aresponses``): just before the deployment call.
        Skipped when the proxy's hook already handled the request."""
        for key in ("metadata", "litellm_metadata"):
            metadata = kwargs.get(key)
            own = metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None
            if isinstance(own, Mapping) and "records" in own:
                return None
        return self.rewrite(kwargs, call_type)[0]

    async def async_post_call_response_headers_hook(
        self,
        data: dict[str, Any],
        user_api_key_dict: UserAPIKeyAuth,
        response: object,
        request_headers: dict[str, str] | None = None,
        litellm_call_info: dict[str, object] | None = None,
    ) -> dict[str, str] | None:
        """Proxy: the ``x-toolerr`` response header, one entry per failure at the decision
        step (``tool``, ``kind``, ``rule``, ``form``, ``changed``)."""
        if not self.header:
            return None
        try:
            return header_for(data)
        except Exception:
            logger.warning("toolerr: could not build the response header", exc_info=True)
            return None


def header_for(data: Mapping[str, Any]) -> dict[str, str] | None:
    """The response headers for a request toolerr reported on (``None`` when no failure)."""
    report = None
    for key in ("litellm_metadata", "metadata"):
        metadata = data.get(key)
        if isinstance(metadata, Mapping) and isinstance(metadata.get(METADATA_KEY), Mapping):
            report = metadata[METADATA_KEY]
            break
    if report is None or "records" not in report:
        return None
    entries = [
        {
            "position": r["position"],
            "tool": r["tool"],
            "kind": r["kind"],
            "rule": r["rule"],
            "form": r["form"],
            "changed": r["changed"],
        }
        for r in report["records"]
    ]
    return {HEADER: json.dumps(entries, ensure_ascii=True, separators=(",", ":"))}
