"""cloudflare: the official Python SDK (4.x, Stainless-generated, httpx under it) behind a
DNS / cache / Workers KV / WAF tool, pointed at a local stand-in of
``https://api.cloudflare.com/client/v4`` through its ``base_url`` option, with the tool's
token, ``max_retries=0`` (a tool that reports the first failure; the ``-retried`` cases keep
one retry) and a 1 s timeout.

The tools: ``create_dns_record`` / ``update_dns_record`` / ``delete_dns_record`` (zone id,
record id, type, name, content, ttl, proxied: all the model's), ``list_zones`` (a name
filter), ``purge_cache`` (zone id and the URLs), ``put_kv_entry`` (namespace id, key, value,
metadata; the account id is the tool's) and ``create_firewall_rule`` (zone id, ruleset id,
action, expression, description). What they raise: ``cloudflare.BadRequestError`` (400),
``AuthenticationError`` (401), ``PermissionDeniedError`` (403), ``NotFoundError`` (404),
``RateLimitError`` (429), ``InternalServerError`` (5xx), each with the v4 envelope in its
text; ``APITimeoutError`` / ``APIConnectionError`` for the transport; the generated
methods' own ``ValueError`` (an empty path id), ``TypeError`` (a required argument left
out, an unknown keyword, a client without credentials); and what the SDK raises on a reply
it cannot read (``AttributeError``, ``JSONDecodeError``).

Every error reply is the v4 envelope ``{"success": false, "errors": [{"code", "message"}],
"messages": [], "result": null}`` (developers.cloudflare.com/fundamentals/api/how-to/make-api-calls/
and the API reference's error schema). Codes and where they are documented: 7003 "Could not
route to ..., perhaps your object identifier is invalid?" with 7000 "No route for that
URI", 10000 "Authentication error" and 9106 "Missing X-Auth-Key, X-Auth-Email or
Authorization headers" (the Workers API "Making requests" page,
developers.cloudflare.com/workers/tooling/api/requests/); 81056 "NS records with that host
already exist." (developers.cloudflare.com/dns/manage-dns-records/troubleshooting/existing-ns-record/);
81053 for a name already held by a CNAME / A record
(developers.cloudflare.com/dns/manage-dns-records/troubleshooting/records-with-same-name/);
the TTL bounds (developers.cloudflare.com/dns/manage-dns-records/reference/ttl/); the record
types that can be proxied (developers.cloudflare.com/dns/proxy-status/); 429 with
``Retry-After`` and the ``x-ratelimit-*`` headers for 1200 requests / 5 minutes, and code 971
"Please wait and consider throttling your request speed"
(developers.cloudflare.com/fundamentals/api/reference/limits/); the purge token bucket
(developers.cloudflare.com/cache/how-to/purge-cache/); token IP filtering, 9109 "Cannot use
the access token from location: ..." (developers.cloudflare.com/fundamentals/api/how-to/restrict-tokens/);
the rules language's "Filter parsing error (line:col)" (developers.cloudflare.com/ruleset-engine/rules-language/expressions/,
"Expression validation"); the number of custom rules per plan
(developers.cloudflare.com/waf/custom-rules/#availability). The messages of 1003, 1004 /
9005-9007, 1012, 81044, 81057, 81058, 9004, 9021, 6003 / 6111, 1000 and the ruleset errors
are the texts the API returns for those codes (no reference page lists them).

Labels by the cause set up. Fixable: a value the model wrote (an IPv4 / IPv6 address, a
CNAME target written as a URL, a proxied TXT record, a TTL out of range, a zone or record
NAME where the API wants the 32-hex id, a malformed zone id, a purge with nothing to purge,
a rule expression naming an unknown field, an empty id, a required argument left out, an
option name the SDK does not have). Unrecoverable: the token (invalid, refused from this
address, without the permission, malformed in the tool's configuration, missing), the
plan's number of custom rules, a tool set up without credentials. Ambiguous: a record
already there (identical, same name, a CNAME or NS record on the host), a record or zone id
that is well formed but not found (deleted, another account, a typo), replies the SDK
cannot read. Transient: 971 throttling / 429 on purge / 503 / refused / DNS -> not executed;
502 / 504 / 500 pages, read timeout, reset, close -> unknown outcome.

Not triggered: code 10013 (its meaning is not documented: it is not used here); the KV
limits (key size, value size, writes per key per second) and the Enterprise-only purge
modes, whose error codes and texts are not published; OAuth / API-key login (the SDK only
sends headers).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "cloudflare"
REQUIRES = ["cloudflare>=4.3,<5"]

# the identifiers of Cloudflare's API reference examples
_ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
_RECORD = "372e67954025e0ba6aaa6d586b9e0b59"
_ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
_NAMESPACE = "0f2ac74b498b48028cb68387c421e279"
_RULESET = "2f2feab2026849078ba485f918791bdc"
_TOKEN = "YQSn-xWAQiiEh9qM58wZNnyQS7FUdoqGIUAbrh7T"

_ENV = "Cloudflare API v4 envelope (developers.cloudflare.com/fundamentals/api/how-to/make-api-calls/)"
_ROUTE = "Cloudflare Workers API, Making requests (developers.cloudflare.com/workers/tooling/api/requests/)"
_LIMITS = "Cloudflare API rate limits (developers.cloudflare.com/fundamentals/api/reference/limits/)"
_PURGE = "Cloudflare purge limits (developers.cloudflare.com/cache/how-to/purge-cache/)"
_DNS = "Cloudflare DNS troubleshooting (developers.cloudflare.com/dns/manage-dns-records/troubleshooting/)"
_TTL = "Cloudflare TTL (developers.cloudflare.com/dns/manage-dns-records/reference/ttl/)"
_RULES = "Cloudflare rules language, Expression validation (developers.cloudflare.com/ruleset-engine/rules-language/expressions/)"
_TOKENS = "Cloudflare restrict tokens (developers.cloudflare.com/fundamentals/api/how-to/restrict-tokens/)"
_RATE_HEADERS = {"Retry-After": "30", "x-ratelimit-limit": "1200", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "Tue, 01 Dec 2026 00:05:00 GMT"}  # fmt: skip


def _e(status: int, *errors: dict[str, Any], source: str = _ENV, **headers: str) -> Reply:
    body = {"success": False, "errors": list(errors), "messages": [], "result": None}
    return Reply(status, body, headers, source)


def _err(code: int, message: str, *chain: tuple[int, str]) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if chain:
        err["error_chain"] = [{"code": c, "message": m} for c, m in chain]
    return err


def _route(path: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return (
        _err(7003, f"Could not route to {path}, perhaps your object identifier is invalid?"),
        _err(7000, "No route for that URI"),
    )


def _page(title: str, status: str) -> str:
    return f"<html><head><title>{title}</title></head><body><center><h1>{status}</h1></center><hr><center>cloudflare</center></body></html>"  # fmt: skip


_DNS_VALIDATION = "DNS Validation Error"
_PARSE = 'Filter parsing error (1:1):\nhttp.request.uri.pth contains "/wp-login.php"\n^^^^^^^^^^^^^^^^^^^^ unknown identifier\n'  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    # the model's values
    ("a-invalid-ipv4", "create_a_bad", _e(400, _err(1004, _DNS_VALIDATION, (9005, "Content for A record must be a valid IPv4 address."))), F, None, "A record content is not an IPv4 address"),
    ("aaaa-invalid-ipv6", "create_aaaa_bad", _e(400, _err(1004, _DNS_VALIDATION, (9006, "Content for AAAA record must be a valid IPv6 address."))), F, None, "AAAA record content is not an IPv6 address"),
    ("cname-content-url", "create_cname_url", _e(400, _err(1004, _DNS_VALIDATION, (9007, "Content for CNAME record is invalid."))), F, None, "CNAME target written as a URL"),
    ("txt-cannot-proxy", "create_txt_proxied", _e(400, _err(9004, "This record type cannot be proxied."), source="Cloudflare proxy status (developers.cloudflare.com/dns/proxy-status/)"), F, None, "TXT record asked to be proxied"),
    ("ttl-out-of-range", "create_a_ttl", _e(400, _err(9021, "Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic."), source=_TTL), F, None, "TTL below the minimum"),
    ("zone-name-not-id", "create_a_zone_name", _e(400, *_route("/zones/example.com/dns_records"), source=_ROUTE), F, None, "zone name given where the zone id goes"),
    ("record-name-not-id", "delete_by_name", _e(400, *_route(f"/zones/{_ZONE}/dns_records/www.example.com"), source=_ROUTE), F, None, "record name given where the record id goes"),
    ("zone-id-malformed", "update_zone_bad", _e(400, _err(1003, "Invalid or missing zone id.")), F, None, "zone id malformed"),
    ("purge-nothing", "purge_nothing", _e(400, _err(1012, "Request must contain one of 'purge_everything' or 'files'"), source=_PURGE), F, None, "purge request names nothing to purge"),
    ("rule-unknown-field", "rule_bad_field", _e(400, _err(20021, _PARSE), source=_RULES), F, None, "rule expression names an unknown field"),
    # the token, the plan
    ("authentication-error", "list_zones", _e(401, _err(10000, "Authentication error"), source=_ROUTE), U, None, "token not valid"),
    ("invalid-api-token", "create_a", _e(401, _err(1000, "Invalid API Token")), U, None, "token revoked or expired"),
    ("token-ip-restricted", "create_a", _e(403, _err(9109, "Cannot use the access token from location: 203.0.113.7"), source=_TOKENS), U, None, "token refused from this client address"),
    ("unauthorized-resource", "purge_files", _e(403, _err(9109, "Unauthorized to access requested resource")), U, None, "token lacks the cache purge permission"),
    ("authentication-error-rule", "rule_create", _e(403, _err(10000, "Authentication error"), source=_ROUTE), U, None, "token not allowed on the zone's rulesets"),
    ("invalid-request-headers", "delete", _e(400, _err(6003, "Invalid request headers", (6111, "Invalid format for Authorization header"))), U, None, "token in the tool's configuration malformed"),
    ("missing-auth-headers", "kv_put", _e(400, _err(9106, "Missing X-Auth-Key, X-Auth-Email or Authorization headers"), source=_ROUTE), U, None, "credentials did not reach the API"),
    ("rule-limit", "rule_create", _e(400, _err(20217, "exceeded maximum number of rules in the phase http_request_firewall_custom: 5 out of 5"), source="Cloudflare custom rules availability (developers.cloudflare.com/waf/custom-rules/#availability)"), U, None, "plan's number of custom rules used up"),
    # stored state
    ("record-already-exists", "create_a", _e(400, _err(81057, "Record already exists.")), A, None, "record already exists"),
    ("identical-record", "create_a", _e(400, _err(81058, "An identical record already exists.")), A, None, "identical record already exists"),
    ("host-has-record", "create_cname", _e(400, _err(81053, "An A, AAAA, or CNAME record with that host already exists."), source=_DNS), A, None, "name already held by an A / CNAME record"),
    ("ns-record-exists", "create_a_blog", _e(400, _err(81056, "NS records with that host already exist."), source=_DNS), A, None, "name delegated to a subdomain zone"),
    ("record-not-found", "update_a", _e(404, _err(81044, "Record does not exist.")), A, None, "record id not found"),
    ("record-already-deleted", "delete", _e(404, _err(81044, "Record does not exist.")), A, None, "record already deleted"),
    ("zone-not-found", "create_a", _e(404, *_route(f"/zones/{_ZONE}/dns_records"), source=_ROUTE), A, None, "zone id well formed but not in the account"),
    # load, outages
    ("throttled", "list_zones", _e(429, _err(971, "Please wait and consider throttling your request speed"), source=_LIMITS, **_RATE_HEADERS), T, NE, "API rate limit (1200 / 5 min) hit"),
    ("purge-throttled", "purge_files", _e(429, _err(971, "Please wait and consider throttling your request speed"), source=_PURGE, **{"Retry-After": "12"}), T, NE, "purge token bucket empty"),
    ("service-unavailable", "create_a", Reply(503, _page("503 Service Temporarily Unavailable", "503 Service Temporarily Unavailable"), {}, "an edge page"), T, NE, "service unavailable"),
    ("bad-gateway", "update_a", Reply(502, _page("502 Bad Gateway", "502 Bad Gateway"), {}, "an edge page"), T, UO, "502 after the write was sent"),
    ("gateway-timeout", "purge_files", Reply(504, _page("504 Gateway Time-out", "504 Gateway Time-out"), {}, "an edge page"), T, UO, "504 after the purge was sent"),
    ("internal-error", "kv_put", Reply(500, _page("500 Internal Server Error", "500 Internal Server Error"), {}, "an edge page"), T, UO, "500 after the write was sent"),
]  # fmt: skip

# the SDK's retries (max_retries=1): (key, call, reply, kind, outcome, cause)
_RETRIED: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    ("throttled-retried", "list_zones", _e(429, _err(971, "Please wait and consider throttling your request speed"), source=_LIMITS, **{"Retry-After": "1"}), T, NE, "API rate limit hit (after the SDK's retry)"),
    ("service-unavailable-retried", "create_a", Reply(503, _page("503 Service Temporarily Unavailable", "503 Service Temporarily Unavailable"), {}, "an edge page"), T, NE, "service unavailable (after the SDK's retry)"),
    ("hang-retried", "create_a", _saas.HANG, T, UO, "read timeout (after the SDK's retry)"),
]  # fmt: skip

# replies the SDK cannot read: (key, call, reply, cause)
_BAD_DATA: list[tuple[str, str, Reply, str]] = [
    ("html-200", "create_a", Reply(200, "<html><head><title>Attention Required! | Cloudflare</title></head><body>Please enable cookies.</body></html>"), "an HTML page instead of the envelope"),
    ("truncated-json", "create_a", Reply(200, '{"success": true, "errors": [], "messages": [], "result": {"id": "372e679', {}, "", "application/json"), "envelope cut off"),
    ("list-body", "create_a", Reply(200, [{"id": _RECORD}]), "a JSON list instead of the envelope"),
]  # fmt: skip


def _calls(cf: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the token, account and host are the tool's."""

    def create(tool_args: dict[str, Any]) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        return "create_dns_record", tool_args, lambda: cf.dns.records.create(**tool_args)

    a = {
        "zone_id": _ZONE,
        "type": "A",
        "name": "www.example.com",
        "content": "192.0.2.10",
        "ttl": 3600,
        "proxied": True,
    }
    upd = {
        "zone_id": _ZONE,
        "type": "A",
        "name": "www.example.com",
        "content": "192.0.2.20",
        "ttl": 1,
        "proxied": True,
    }
    upd_bad = dict(upd, zone_id="zone-example-com")
    files = ["https://www.example.com/css/app.css", "https://www.example.com/js/app.js"]
    kv = {"key": "feature-flags", "value": '{"beta": true}', "metadata": '{"owner": "ops"}'}
    rule = {"action": "block", "expression": '(http.request.uri.path contains "/wp-login.php" and ip.src.country ne "GB")', "description": "Block wp-login outside GB"}  # fmt: skip
    bad_rule = dict(rule, expression='http.request.uri.pth contains "/wp-login.php"')
    return {
        "create_a": create(a),
        "create_a_bad": create(dict(a, content="192.0.2.300")),
        "create_aaaa_bad": create({"zone_id": _ZONE, "type": "AAAA", "name": "v6.example.com", "content": "2001:db8:::1", "ttl": 3600}),
        "create_cname_url": create({"zone_id": _ZONE, "type": "CNAME", "name": "app.example.com", "content": "https://app.example.net/", "proxied": True}),
        "create_cname": create({"zone_id": _ZONE, "type": "CNAME", "name": "www.example.com", "content": "app.example.net", "proxied": True}),
        "create_txt_proxied": create({"zone_id": _ZONE, "type": "TXT", "name": "_acme-challenge.example.com", "content": "Xk3mZ9q-verification", "proxied": True}),
        "create_a_ttl": create(dict(a, ttl=30, proxied=False)),
        "create_a_zone_name": create(dict(a, zone_id="example.com")),
        "create_a_blog": create(dict(a, name="blog.example.com")),
        "update_a": ("update_dns_record", {"record_id": _RECORD, **upd}, lambda: cf.dns.records.update(_RECORD, **upd)),
        "update_zone_bad": ("update_dns_record", {"record_id": _RECORD, **upd_bad}, lambda: cf.dns.records.update(_RECORD, **upd_bad)),
        "delete": ("delete_dns_record", {"zone_id": _ZONE, "record_id": _RECORD}, lambda: cf.dns.records.delete(_RECORD, zone_id=_ZONE)),
        "delete_by_name": ("delete_dns_record", {"zone_id": _ZONE, "record_id": "www.example.com"}, lambda: cf.dns.records.delete("www.example.com", zone_id=_ZONE)),
        "list_zones": ("list_zones", {"name": "example.com"}, lambda: cf.zones.list(name="example.com").result),
        "purge_files": ("purge_cache", {"zone_id": _ZONE, "files": files}, lambda: cf.cache.purge(zone_id=_ZONE, files=files)),
        "purge_nothing": ("purge_cache", {"zone_id": _ZONE}, lambda: cf.cache.purge(zone_id=_ZONE)),
        "kv_put": ("put_kv_entry", {"namespace_id": _NAMESPACE, **kv}, lambda: cf.kv.namespaces.values.update(kv["key"], account_id=_ACCOUNT, namespace_id=_NAMESPACE, value=kv["value"], metadata=kv["metadata"])),
        "rule_create": ("create_firewall_rule", {"zone_id": _ZONE, "ruleset_id": _RULESET, **rule}, lambda: cf.rulesets.rules.create(_RULESET, zone_id=_ZONE, **rule)),
        "rule_bad_field": ("create_firewall_rule", {"zone_id": _ZONE, "ruleset_id": _RULESET, **bad_rule}, lambda: cf.rulesets.rules.create(_RULESET, zone_id=_ZONE, **bad_rule)),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    import cloudflare

    def client(base: str, retries: int = 0) -> Any:
        return cloudflare.Cloudflare(
            api_token=_TOKEN, base_url=f"{base}/client/v4", max_retries=retries, timeout=_saas.TIMEOUT
        )

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"cloudflare-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "CFPORT", "cloudflare") as svc:
        calls = _calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
        retrying = _calls(client(svc.base, retries=1))
        for key, call, reply, kind, outcome, cause in _RETRIED:
            tool, args, fn = retrying[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
        for key, call, reply, cause in _BAD_DATA:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, A, None, _saas.caught(key, fn), tool, args)
        for (key, kind, outcome, cause), call in zip(
            _saas.TRANSPORT, ("create_a", "list_zones", "create_a", "delete", "purge_files"), strict=True
        ):
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            tool, args, fn = _calls(client(base))[call]
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)

    # the SDK's own checks (nothing sent) and a tool set up without credentials
    cf = client(_saas.dead_base(ctx))
    a = {"zone_id": _ZONE, "type": "A", "name": "www.example.com", "content": "192.0.2.10", "proxied": True}
    no_name = {"zone_id": _ZONE, "type": "A", "content": "192.0.2.10"}
    proxy_kw = {
        "zone_id": _ZONE,
        "type": "A",
        "name": "www.example.com",
        "content": "192.0.2.10",
        "proxy": True,
    }
    kv_empty = {"namespace_id": _NAMESPACE, "key": "", "value": "on", "metadata": "{}"}
    kv_no_ns = {"namespace_id": "", "key": "feature-flags", "value": "on", "metadata": "{}"}
    rule = {"action": "block", "expression": '(ip.src.country eq "T1")', "description": "Block Tor exits"}

    def no_credentials() -> Any:
        # the SDK falls back on CLOUDFLARE_* variables: none in the tool's environment
        saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("CLOUDFLARE_")}
        try:
            bare = cloudflare.Cloudflare(base_url=f"{_saas.dead_base(ctx)}/client/v4", max_retries=0)
            return bare.zones.list(name="example.com")
        finally:
            os.environ.update(saved)

    # (key, cause, kind, tool, the model's arguments, the call)
    local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("empty-zone-id", "zone id empty", F, "create_dns_record", dict(a, zone_id=""), lambda: cf.dns.records.create(**dict(a, zone_id=""))),
        ("empty-record-id", "record id empty", F, "delete_dns_record", {"zone_id": _ZONE, "record_id": ""}, lambda: cf.dns.records.delete("", zone_id=_ZONE)),
        ("missing-name", "record name left out", F, "create_dns_record", no_name, lambda: cf.dns.records.create(**no_name)),
        ("unknown-option", "option name the SDK does not have (proxy for proxied)", F, "create_dns_record", proxy_kw, lambda: cf.dns.records.create(**proxy_kw)),
        ("kv-empty-key", "KV key empty", F, "put_kv_entry", kv_empty, lambda: cf.kv.namespaces.values.update("", account_id=_ACCOUNT, namespace_id=_NAMESPACE, value="on", metadata="{}")),
        ("kv-empty-namespace", "KV namespace id empty", F, "put_kv_entry", kv_no_ns, lambda: cf.kv.namespaces.values.update("feature-flags", account_id=_ACCOUNT, namespace_id="", value="on", metadata="{}")),
        ("rule-no-zone", "rule without a zone (nor account)", F, "create_firewall_rule", {"zone_id": "", "ruleset_id": _RULESET, **rule}, lambda: cf.rulesets.rules.create(_RULESET, zone_id="", **rule)),
        ("no-credentials", "tool set up without a token or key", U, "list_zones", {"name": "example.com"}, no_credentials),
    ]  # fmt: skip
    for key, cause, kind, tool, args, fn in local:
        yield case(key, cause, kind, None, _saas.caught(key, fn), tool, args)
