"""The LiteLLM hook: toolerr's delivery applied to every request a gateway forwards.

The rules and a gateway's choices come from the core (:func:`toolerr.rewrite_wire`,
:func:`toolerr.adapters.gateway_policy`, :func:`~toolerr.adapters.wire_report`); this module
only reads their inputs from the request LiteLLM holds (its wire format, model group, headers, metadata).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import toolerr
from litellm.integrations.custom_logger import CustomLogger
from toolerr import Policy, ToolErrorLayer, WireRewrite
from toolerr.adapters import (
    REPORT_HEADER,
    Layers,
    SharedCheckpoints,
    fail_open,
    gateway_policy,
    override_policy,
    report_header,
    wire_report,
)

if TYPE_CHECKING:
    from litellm.caching.dual_cache import DualCache
    from litellm.proxy._types import UserAPIKeyAuth
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

logger = logging.getLogger("toolerr")

METADATA_KEY = "toolerr"
"""Key of toolerr's entry in LiteLLM's request metadata (also read for per-request options)."""


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


def _metadata(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The request's LiteLLM metadata (under ``metadata`` and ``litellm_metadata``)."""
    return [m for key in ("metadata", "litellm_metadata") if isinstance(m := data.get(key), Mapping)]


def _report_in(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """toolerr's report in a request's metadata (``None``: toolerr did not report on it)."""
    for metadata in _metadata(data):
        own = metadata.get(METADATA_KEY)
        if isinstance(own, Mapping) and "records" in own:
            return own
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
    response header. ``shared_state``: where replay checkpoints are shared with the other
    proxy instances of a gateway: ``None`` (the default), nowhere; ``"auto"``, LiteLLM's own
    Redis cache when the proxy has one (``litellm_settings: cache: true``, ``cache_params:
    {type: redis, ...}``); or a :class:`toolerr.adapters.SharedCheckpoints`.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        client: str | None = None,
        model_groups: Mapping[str, Mapping[str, Any]] | None = None,
        request_overrides: bool = True,
        header: bool = True,
        shared_state: SharedCheckpoints | str | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        super().__init__()
        self.policy = Policy.coerce(policy, **options)
        self.client = client
        self.model_groups = {name: dict(value) for name, value in (model_groups or {}).items()}
        for name, group in self.model_groups.items():  # fail early on a bad configuration
            override_policy(self.policy, group, where=f"model group {name!r}")
        self.request_overrides = request_overrides
        self.header = header
        self._layers = Layers(ToolErrorLayer(self.policy))
        if shared_state is not None and not isinstance(shared_state, (SharedCheckpoints, str)):
            raise TypeError("shared_state must be a toolerr.adapters.SharedCheckpoints, 'auto' or None")
        if isinstance(shared_state, str) and shared_state != "auto":
            raise ValueError(f"shared_state must be 'auto', None or a SharedCheckpoints: {shared_state!r}")
        self._shared: SharedCheckpoints | str | None = shared_state
        if isinstance(shared_state, SharedCheckpoints):
            self._layers.layer.shared_checkpoints = shared_state

    @property
    def shared_state(self) -> SharedCheckpoints | None:
        """The store replay checkpoints are shared through (``"auto"``: found at the first
        request, from LiteLLM's Redis cache)."""
        if self._shared == "auto":
            self._shared = litellm_redis_checkpoints()
            self._layers.layer.shared_checkpoints = self._shared
            if self._shared is not None:
                logger.info("toolerr: replay checkpoints shared through LiteLLM's Redis cache")
        return self._shared if isinstance(self._shared, SharedCheckpoints) else None

    def _resolve(self, data: Mapping[str, Any], headers: Mapping[str, Any]) -> tuple[Policy, str]:
        metadata = data.get(_metadata_key(data))
        return gateway_policy(
            self.policy,
            headers,
            client=self.client,
            groups=self.model_groups,
            # the model group a ``litellm.Router`` routed from (its deployment hook gets the
            # deployment's model), else the request's ``model`` (proxy)
            names=[*(m.get("model_group") for m in _metadata(data)), data.get("model")],
            entry=metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None,
            overrides=self.request_overrides,
        )

    def rewrite(
        self, data: dict[str, Any], call_type: Any = None, headers: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], WireRewrite | None]:
        """Apply toolerr to a LiteLLM request (proxy ``data`` or SDK ``kwargs``).

        Returns the request to send (``data`` itself, with only its conversation replaced
        when something changed, and toolerr's report in its metadata) and the result, or
        ``None`` when the call carries no conversation. Fails open.
        """
        with fail_open("the LiteLLM hook", "the request passes unchanged"):
            found = wire_of(call_type, data)
            if found is None:
                return data, None
            wire, key = found
            policy, client = self._resolve(data, headers if headers is not None else _headers(data))
            result = toolerr.rewrite_wire(wire, data[key], layer=self._layers.get(policy), client=client)
            if result.changed:
                data[key] = result.request
            if result.records or result.error:  # the report, where LiteLLM's logging sees it
                meta = _metadata_key(data)
                metadata = data[meta] if isinstance(data.get(meta), Mapping) else {}
                data[meta] = {**metadata, METADATA_KEY: wire_report(wire, result, policy, client)}
                logger.info(
                    "toolerr: %s request to %s: %d failure(s) at the decision step, form %s, %s",
                    wire,
                    data.get("model"),
                    len(result.records),
                    policy.form,
                    "changed" if result.changed else "unchanged",
                )
            return data, result
        return data, None

    def rewrite_kwargs(self, kwargs: Mapping[str, Any], call_type: str = "completion") -> dict[str, Any]:
        """A copy of ``litellm.completion`` (or ``responses``) keyword arguments with toolerr
        applied: the way for sync calls, which run no request-rewriting hook."""
        return self.rewrite(dict(kwargs), call_type)[0]

    async def async_pre_call_hook(
        self, user_api_key_dict: UserAPIKeyAuth, cache: DualCache, data: dict[str, Any], call_type: Any
    ) -> dict[str, Any]:
        """Proxy: before the request is routed (``/chat/completions``, ``/v1/messages``,
        ``/responses``)."""
        return await self._arewrite(data, call_type)

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """SDK (``litellm.acompletion``, ``aresponses``): just before the deployment call.
        Skipped when the proxy's hook already handled the request."""
        return None if _report_in(kwargs) is not None else await self._arewrite(kwargs, call_type)

    async def _arewrite(self, data: dict[str, Any], call_type: Any) -> dict[str, Any]:
        """:meth:`rewrite` for the async hooks: in a worker thread with a shared store, so
        that its bounded wait never holds the event loop."""
        if self.shared_state is not None:
            return (await asyncio.to_thread(self.rewrite, data, call_type))[0]
        return self.rewrite(data, call_type)[0]

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
        with fail_open("building the response header", "the response has none"):
            return header_for(data) if self.header else None
        return None


def litellm_redis_checkpoints() -> SharedCheckpoints | None:
    """Checkpoints in the Redis of LiteLLM's own cache (``litellm.cache``), or ``None``
    when it has none."""
    import litellm

    backend = getattr(getattr(litellm, "cache", None), "cache", None)
    client = getattr(backend, "redis_client", None)
    if client is None or not callable(getattr(client, "mget", None)):
        return None
    return SharedCheckpoints.redis(client)


def header_for(data: Mapping[str, Any]) -> dict[str, str] | None:
    """The response headers for a request toolerr reported on.

    Args:
        data: the request as the proxy holds it, with toolerr's report in its metadata.

    Returns:
        ``{"x-toolerr": JSON}`` (one entry per failure at the decision step), or ``None``
        when toolerr did not report on the request.
    """
    report = _report_in(data)
    return None if report is None else {REPORT_HEADER: report_header(report)}
