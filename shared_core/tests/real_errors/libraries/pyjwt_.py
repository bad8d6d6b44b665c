# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""PyJWT behind an agent's token tools: tokens and options the model passed or wrote
(fixable when the model copied or wrote them wrong), tokens the model passed intact that
are not valid for the tool (unrecoverable: expired, another key, another audience or
issuer; ambiguous: malformed by their issuer), the tool's own service token and keys read
from its configuration (unrecoverable), a JWKS fetched with ``PyJWKClient`` from a
127.0.0.1 stand-in of an Okta authorization server that is down, rate limited, failing or
answering a malformed key set (transient / ambiguous), and clock skew (transient).

The tools (their secret, RSA key, audience ``orders-api`` and issuer
``https://id.example.com/`` are the tool's configuration, never in the arguments):

- ``verify_token`` ``{"token", "audience"?, "issuer"?, "algorithms"?, "leeway"?}``:
  ``jwt.decode`` with the tool's HS256 secret, the model's options overriding the tool's;
- ``call_orders_api`` ``{"order_id"}``: before calling, the tool checks the service token
  of its configuration directory (``service-token.jwt``, ``signing.key`` / ``idp.pem``,
  ``settings.json``) with ``jwt.decode``;
- ``sign_test_token`` ``{"claims", "algorithm"?, "headers"?}``: ``jwt.encode`` with the
  tool's secret;
- ``verify_id_token`` ``{"id_token", "authorization_server"?}``: ``PyJWKClient`` fetches the
  signing key from the authorization server's ``/oauth2/<server>/v1/keys`` (a local stand-in
  of Okta) and ``jwt.decode`` checks the token with it.

Labels follow the cause that was set up (PyJWT docs: https://pyjwt.readthedocs.io/en/stable/api.html
``jwt.decode`` / ``jwt.encode`` / ``PyJWKClient`` and the exceptions listed there;
https://pyjwt.readthedocs.io/en/stable/usage.html "Expiration Time Claim", "Not Before Time
Claim", "Audience Claim", "Issuer Claim", "Retrieve RSA signing keys from a JWKS endpoint").

Fixable: a token the model copied wrong (truncated, without its signature segment, with
the ``Bearer`` prefix or its JSON quotes, a line break, elided with ``...``, one character
mistyped in the signature or the claims: ``DecodeError`` / ``InvalidSignatureError``), an
API key or the decoded claims passed instead of the token, and options the model wrote
(an audience or issuer misspelled: ``InvalidAudienceError`` / ``InvalidIssuerError``; an
issuer or audience of the wrong type; an algorithm list without the token's algorithm or
with a misspelled name: ``InvalidAlgorithmError``; a leeway as text); claims, algorithm
and headers the model asked the tool to sign with (a list instead of an object, ``iss``
not a string, an unknown algorithm, ``none`` or ``RS256`` with the tool's HMAC secret:
``InvalidKeyError``, a ``kid`` that is not a string: ``InvalidTokenError``, headers as
text). The same exceptions raised by tokens the model passed INTACT carry other labels:

- unrecoverable: a token that has expired (``ExpiredSignatureError``), was signed by
  another environment's key, is unsigned (``alg: none``), is for another audience or
  issuer, or has no audience: credentials not valid for this tool, which no retry and no
  argument the model can write fixes (a new token has to be issued). The tool's own
  service token read from its configuration (expired, signed with a rotated key, for the
  staging audience, truncated in its file, without the ``scope`` claim the tool requires),
  a configuration whose algorithms do not match its token or whose public key file is not
  a PEM key (``InvalidKeyError``), a JWKS URL configured as ``file://`` (PyJWKClient only
  fetches http(s)), and installations without ``cryptography`` (RS256, JWK sets:
  ``InvalidAlgorithmError`` / ``MissingCryptographyError``) or without PyJWT: not the
  model's to fix, unrecoverable within the run.
- ambiguous: a token whose issuer wrote its claims wrongly (``exp`` / ``nbf`` / ``iat`` as
  text, ``aud`` as an object, ``sub`` / ``jti`` as numbers, claims that are a JSON array,
  a header that is not JSON): data the model passed along but did not write; a JWKS that
  is an HTML page, a bare array, empty, holds only encryption keys, keys of an unknown
  type, without ``kty`` or with a corrupt modulus, or lacks the token's key id (rotation),
  and an ID token without a key id; an authorization server the model named that Okta
  does not know (404 ``E0000007``).
- transient: a token whose ``nbf`` or ``iat`` is 15-20 s ahead of the verifier's clock
  (clock skew: the same call works seconds later, ``ImmatureSignatureError``; not
  executed); the JWKS fetch turned away (429 ``E0000047`` with Okta's ``X-Rate-Limit-*``
  headers, 503 from the proxy, connection refused, a host name that does not resolve: not
  executed) or failing after the request was sent (500 ``E0000009``, 502, 504, a read
  timeout, a reset: unknown outcome). Okta's bodies follow its error-code reference
  (https://developer.okta.com/docs/reference/error-codes/) and rate-limit headers
  (https://developer.okta.com/docs/reference/rl-best-practices/); the 502/503/504 pages are
  nginx's default error pages.

PyJWT checks ``exp`` / ``nbf`` / ``iat`` against ``datetime.now``: for the tokens in the
arguments to be the same each run, the verifier's clock (``jwt.api_jwt.datetime``) is
fixed at 2026-12-01T00:00:00Z for the module's cases and the tokens carry fixed times; RSA
tokens use a fixed test key (PKCS#1 v1.5 signatures are deterministic).

Not triggered: ``InvalidKeyError`` for a PEM passed as an HMAC secret needs the model to
pass a key, which these tools never take; a PyJWKClient JWKS cache or rate limit of its
own (PyJWT has none besides the refresh cooldown, which raises nothing); a ``jku`` header
(PyJWT does not follow it).
"""

from __future__ import annotations

import calendar
import importlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _pkgcopy, _saas
from ._common import NE, UO, A, F, T, U
from ._saas import HANG, RESET, Reply

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "PyJWT"
REQUIRES = ["PyJWT==2.15.1", "cryptography>=41,<51"]

# the verifier's clock (see the docstring): 2026-12-01T00:00:00Z
NOW = calendar.timegm((2026, 12, 1, 0, 0, 0))
SECRET = "orders-api-signing-secret-7f3c9a1e5b2d4c6a8e0f"
OTHER_SECRET = "staging-signing-secret-2b4d6f8a0c1e3a5b7d9f"
ISS = "https://id.example.com/"
AUD = "orders-api"
OKTA = "https://example.okta.com/oauth2/default"
CLIENT_ID = "0oa1b2c3d4e5f6g7h8i9"
KID = "Rk7x3p9Q2sV8mN4bT6yW1zE5cJ0uH2aL"
RSA_PRIVATE = """-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCjND69hCNKQdtS
Imcc3OCHiAe8cO0WAEnzv6r5qIyQ6CL4MtDwb+DifUaQS9snFcvToaHVSBf/+VMY
IgscflSINLbYafMAwgoTrZYSHcjh5YyS5PKGJCqYPT1Wxh05ujZ7Q1KMRhDxey0p
M9aCnY+481gIx3OHvpu6WkvS9XsWwmrP0QZEGhddfh28QeeLIdx/XvjCndYQ8bgd
pD03lHZsWQ8FB3mGpYj6iJLwcMXZO311OQt0XhbWhF6/jgwBItkojl7VlBF2zlkI
kM4n4ez8E+dlvjvjlsls+DD1fSraMSCRxqXI3eJqFntaVyMhHWsdRa7P7ju5cMGx
G6/1KwvtAgMBAAECggEABr83g3OIV0mMXO451Qz3O03PBBCnEdcb4jfKRF1Ix7TR
Epxchulud+6LPEE743cYi2c4iYNcJU4+toCxyjvEGDLAXFyvmcMWfORwOnoraStU
Ob5n8vkLyb9pCcKm8qaqxJhukTNUVVICS/HDVyMBuLkBVVuUKx3LfP4T+boBnK8x
RAnyZ+vESnsHOSCKLgQHMWwuNWCGbU/DlIBH7bWLi17oBKrW0Teals7dqbVTxm3T
M30vuyayBBD+vQBn3lDqt+yGJ2PNi8Gc0m3Yr2C3rmMfwdtqsSoilTDUzPR9/cXf
YC3hFj9b8goHuOmJ9PkMmAPRnJJ9obvv+FuMynBbAQKBgQDfKBWaeCn0BM/i8YwZ
TW3Y3uEy20rw+1eLuJQTfnYRkvkbtnQOWbBhdttyqXIvI2NRjyHr9IrGjcwUIlps
n9pArs6leXa1uLZ3pjzLUW3/yKokjab79K//QD4UB12xn9x1oYjozO30yYTfS+us
V2DWkzVADbnJCwpwigXekuWPOwKBgQC7OVF9QgguWL6y1xQ7u1pTPOWecwi1ai7A
JjXKqz9Iisfx9h3sjl3dle64KPrLhVC12naRGu9MPltNUrMplFvmQSCpXjKPsJEF
yiOXQekuSxXHaa5AwppXVz0zUAQ8CZZy7v0dWaCaWHHydJmOHBkoF6GqL6zuwSYn
7Y5GvT/u9wKBgHzd0hDIEjmPg79qB0mVMNT8CajKWgmzqg3tbzXlOi2lPqyKEDCD
cRVoS2zCcbj8pTNa0tFT2V82sq3FdzF21MoCxnCDIbCXNcqHg1cFLnbEkqe3d2te
RCigitvsLzoXyGUtyQzytmeVZzsHIU0i63XFkzNPOtjKy8GjCZu8OKVHAoGBAJsP
+vz6Hpp8J90pI3nhTwsXqbnU3oaaXgQI4Y5szKoBP16YD+qncvieQCvIzQaY8OLd
AExn+X+1OZtN/lNWq9KFaE6+VLQLceFQrK+PCFiuGWiij47VXk0uVOLVx9wNuMyS
QZL4c3rB/AXqKm+3t+IryFqSx/CqijaRmr/d6EC7AoGAXgM9HVhZGBN+YEfB+CZB
BgreeJ6q81vuwQgQTV1yrM8WPg2XSpbR+dHjZc/gu8FvDhfSN+eCsjO0keI0YUuR
iIzj+NCg4uJY93mnHv0UXEj6NhQLSn+jYTs1nYsYEStiSV0I/yhoDZGsfHwdtVG3
/JO0QTPlA1GfTZ7wwzfOcyA=
-----END PRIVATE KEY-----
"""  # a fixed test key (the tokens in the arguments are the same each run)

_OKTA_ERRORS = "Okta error codes (https://developer.okta.com/docs/reference/error-codes/)"
_NGINX = "nginx default error pages (https://nginx.org/en/docs/http/ngx_http_core_module.html#error_page)"


def _okta(status: int, code: str, summary: str, **headers: str) -> Reply:
    body = {"errorCode": code, "errorSummary": summary, "errorLink": code, "errorId": "oaeQPivGUjND5v78vbYWW047", "errorCauses": []}  # fmt: skip
    return Reply(status, body, headers, _OKTA_ERRORS)


def _nginx(status: int, reason: str) -> Reply:
    page = f"<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n<center><h1>{status} {reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"  # fmt: skip
    return Reply(status, page, {}, _NGINX)


@contextmanager
def fixed_clock() -> Iterator[None]:
    """PyJWT's claim checks read ``datetime.now`` in ``jwt.api_jwt``: fixed at :data:`NOW`."""
    import jwt.api_jwt as api

    real = api.datetime

    class Fixed(real):  # type: ignore[misc, valid-type]
        @classmethod
        def now(cls, tz: Any = None) -> datetime:
            return real.fromtimestamp(NOW, tz)

    api.datetime = Fixed
    try:
        yield
    finally:
        api.datetime = real


def _claims(**changes: Any) -> dict[str, Any]:
    claims = {"iss": ISS, "aud": AUD, "sub": "user-1042", "iat": NOW - 600, "exp": NOW + 3000, **changes}
    return {k: v for k, v in claims.items() if v is not ...}


def _hs(secret: str = SECRET, headers: dict[str, Any] | None = None, **changes: Any) -> str:
    import jwt

    return jwt.encode(_claims(**changes), secret, algorithm="HS256", headers=headers)


def _rs(**changes: Any) -> str:
    import jwt

    return jwt.encode(_claims(**changes), _rsa(), algorithm="RS256")


def _raw(header: bytes, payload: bytes, secret: str = SECRET) -> str:
    """A token whose header or payload bytes are not what PyJWT writes, signed with the secret."""
    import base64
    import hashlib
    import hmac

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    signing = f"{b64(header)}.{b64(payload)}"
    sig = hmac.new(secret.encode(), signing.encode(), hashlib.sha256).digest()
    return f"{signing}.{b64(sig)}"


def _verify(token: Any, **options: Any) -> Any:
    """The ``verify_token`` tool: the tool's secret, audience and issuer, unless the model
    passed its own ``audience`` / ``issuer`` / ``algorithms`` / ``leeway``."""
    import jwt

    return jwt.decode(
        token,
        SECRET,
        algorithms=options.get("algorithms", ["HS256"]),
        audience=options.get("audience", AUD),
        issuer=options.get("issuer", ISS),
        leeway=options.get("leeway", 0),
    )


def _flip(token: str, at: int) -> str:
    return token[:at] + ("A" if token[at] != "A" else "B") + token[at + 1 :]


def _model_tokens(good: str) -> list[tuple[str, Any, dict[str, Any], str]]:
    """(slug, the token the model passed, its options, cause): the model copied or wrote it wrong."""
    head, payload, _sig = good.split(".")
    return [
        ("truncated", good[:-12], {}, "token truncated when copied"),
        ("signature-dropped", f"{head}.{payload}", {}, "token copied without its signature segment"),
        ("bearer-prefix", f"Bearer {good}", {}, "token passed with the Authorization header's Bearer prefix"),
        ("quoted", f'"{good}"', {}, "token passed with its JSON quotes"),
        ("line-break", f"{good[:64]}\n{good[64:]}", {}, "token copied with a line break"),
        ("elided", f"{good[:24]}...{good[-16:]}", {}, "token elided in the middle when copied"),
        ("typo-in-signature", _flip(good, len(good) - 5), {}, "one character of the signature mistyped"),
        ("typo-in-payload", _flip(good, len(head) + 20), {}, "one character of the claims mistyped"),
        (
            "api-key-instead",
            "sk_live_51Hx9KLmN2pQrS3tUvW4xYz",
            {},
            "API key passed where the token was asked",
        ),
        (
            "claims-instead",
            {"sub": "user-1042", "aud": AUD},
            {},
            "decoded claims passed instead of the token",
        ),
        ("audience-typo", good, {"audience": "order-api"}, "audience misspelled"),
        ("issuer-no-slash", good, {"issuer": "https://id.example.com"}, "issuer without its trailing slash"),
        ("issuer-number", good, {"issuer": 42}, "issuer given as a number"),
        ("audience-number", good, {"audience": 7}, "audience given as a number"),
        ("algorithms-rs256", good, {"algorithms": ["RS256"]}, "algorithm list without the token's HS256"),
        ("algorithms-typo", good, {"algorithms": ["HS-256"]}, "algorithm name misspelled"),
        ("leeway-text", good, {"leeway": "30s"}, "leeway given as text"),
    ]


def _passed_intact() -> list[tuple[str, str, str, str | None, str]]:
    """(slug, a token the model passed as it was given, kind, outcome, cause)."""
    none_token = _raw(b'{"alg":"none","typ":"JWT"}', json.dumps(_claims()).encode()).rsplit(".", 1)[0] + "."
    return [
        ("expired", _hs(exp=NOW - 3600), U, None, "token expired an hour ago"),
        ("expired-long-ago", _hs(iat=NOW - 90 * 86400, exp=NOW - 89 * 86400), U, None, "token expired months ago"),
        ("other-key", _hs(OTHER_SECRET), U, None, "token signed by the staging issuer's key"),
        ("unsigned-alg-none", none_token, U, None, "unsigned token (alg none)"),
        ("other-audience", _hs(aud="billing-api"), U, None, "token issued for another API"),
        ("other-issuer", _hs(iss="https://login.partner.example/"), U, None, "token issued by another identity provider"),
        ("no-audience", _hs(aud=...), U, None, "token issued without an audience"),
        ("not-yet-valid", _hs(nbf=NOW + 20), T, NE, "token's nbf 20 s ahead of the verifier's clock (skew)"),
        ("issued-in-future", _hs(iat=NOW + 20), T, NE, "token's iat 20 s ahead of the verifier's clock (skew)"),
        ("exp-as-text", _hs(exp="2026-12-01T01:00:00Z"), A, None, "issuer wrote exp as a date string"),
        ("iat-as-text", _hs(iat="now"), A, None, "issuer wrote iat as text"),
        ("nbf-as-text", _hs(nbf="2026-11-30"), A, None, "issuer wrote nbf as a date string"),
        ("aud-as-object", _hs(aud={"id": AUD}), A, None, "issuer wrote aud as an object"),
        ("sub-as-number", _hs(sub=1042), A, None, "issuer wrote sub as a number"),
        ("jti-as-number", _hs(jti=99812), A, None, "issuer wrote jti as a number"),
        ("payload-array", _raw(b'{"alg":"HS256","typ":"JWT"}', b'["user-1042","orders-api"]'), A, None, "token's claims are a JSON array"),
        ("header-not-json", _raw(b"alg=HS256;typ=JWT", json.dumps(_claims()).encode()), A, None, "token's header is not JSON"),
    ]  # fmt: skip


# --- the tool's own service token and keys, read from its configuration --------------------


def _call_orders_api(config: Path) -> Any:
    """``call_orders_api``: before calling, the tool checks the service token of its
    configuration (``service-token.jwt``) with its key (``signing.key`` or ``idp.pem``),
    its algorithms and the claims it requires."""
    import jwt

    settings = json.loads((config / "settings.json").read_text())
    token = (config / "service-token.jwt").read_text().strip()
    key = (config / settings["key_file"]).read_text()
    return jwt.decode(
        token,
        key,
        algorithms=settings["algorithms"],
        audience=AUD,
        issuer=ISS,
        options={"require": settings.get("require", ["exp"])},
    )


def _config_cases() -> list[tuple[str, str, dict[str, Any], str, str | None, str]]:
    """(slug, the service token, settings changes, kind, outcome, cause)."""
    good = _hs(scope="orders:read")
    return [
        ("expired", _hs(scope="orders:read", exp=NOW - 120), {}, U, None, "the tool's service token has expired"),
        ("rotated-key", _hs(OTHER_SECRET, scope="orders:read"), {}, U, None, "the tool's service token was signed with a key since rotated"),
        ("staging-audience", _hs(scope="orders:read", aud="orders-api-staging"), {}, U, None, "the tool's service token is for the staging API"),
        ("truncated", good[: len(good) // 2], {}, U, None, "the tool's service token file is truncated"),
        ("missing-scope", _hs(), {"require": ["exp", "scope"]}, U, None, "the tool's service token lacks the scope claim it requires"),
        ("algorithm-mismatch", good, {"algorithms": ["RS256"]}, U, None, "the tool is configured for RS256, its token is HS256"),
        ("key-file-bad-pem", _rs(scope="orders:read"), {"algorithms": ["RS256"], "key_file": "idp.pem"}, U, None, "the tool's public key file is not a valid PEM key"),
        ("not-yet-valid", _hs(scope="orders:read", nbf=NOW + 15), {}, T, NE, "the tool's token was just refreshed; its nbf is 15 s ahead (skew)"),
    ]  # fmt: skip


# --- tokens the model asks the tool to sign -------------------------------------------------


def _sign(claims: Any, algorithm: str = "HS256", headers: Any = None) -> str:
    """``sign_test_token``: signs the model's claims with the tool's secret."""
    import jwt

    return jwt.encode(claims, SECRET, algorithm=algorithm, headers=headers)


SIGN: list[tuple[str, dict[str, Any], str]] = [
    ("claims-list", {"claims": [["sub", "user-1042"], ["aud", AUD]]}, "claims given as a list of pairs"),
    ("issuer-number", {"claims": {"iss": 1, "sub": "user-1042"}}, "iss given as a number"),
    ("algorithm-unknown", {"claims": {"sub": "user-1042"}, "algorithm": "HS257"}, "algorithm that does not exist"),
    ("algorithm-none", {"claims": {"sub": "user-1042"}, "algorithm": "none"}, "alg none with the tool's key"),
    ("algorithm-rs256", {"claims": {"sub": "user-1042"}, "algorithm": "RS256"}, "RS256 asked of a tool that holds an HMAC secret"),
    ("kid-number", {"claims": {"sub": "user-1042"}, "headers": {"kid": 7}}, "kid header given as a number"),
    ("headers-text", {"claims": {"sub": "user-1042"}, "headers": "kid=orders-1"}, "headers given as text"),
]  # fmt: skip


# --- ID tokens checked against the identity provider's JWKS (PyJWKClient) -------------------


def _rsa() -> Any:
    from cryptography.hazmat.primitives import serialization

    return serialization.load_pem_private_key(RSA_PRIVATE.encode(), None)


def _jwk(**changes: Any) -> dict[str, Any]:
    from jwt.algorithms import RSAAlgorithm

    jwk = RSAAlgorithm.to_jwk(_rsa().public_key(), as_dict=True)
    jwk = {**jwk, "kid": KID, "use": "sig", "alg": "RS256", **changes}
    return {k: v for k, v in jwk.items() if v is not ...}


def _id_token(headers: dict[str, Any] | None = None, **changes: Any) -> str:
    import jwt

    claims = {"iss": OKTA, "aud": CLIENT_ID, "sub": "00u1a2b3c4d5e6f7g8h9", "iat": NOW - 60, "exp": NOW + 3540, **changes}  # fmt: skip
    return jwt.encode(claims, _rsa(), algorithm="RS256", headers={"kid": KID} if headers is None else headers)


def _verify_id_token(jwks_url: str, id_token: Any) -> Any:
    """``verify_id_token``: the signing key comes from the authorization server's JWKS."""
    import jwt

    client = jwt.PyJWKClient(jwks_url, timeout=_saas.TIMEOUT)
    key = client.get_signing_key_from_jwt(id_token)
    return jwt.decode(id_token, key, algorithms=["RS256"], audience=CLIENT_ID, issuer=OKTA)


# (slug, reply, kind, outcome, cause)
JWKS_REPLIES: list[tuple[str, Reply | str, str, str | None, str]] = [
    ("rate-limited", _okta(429, "E0000047", "API call exceeded rate limit due to too many requests.", **{"X-Rate-Limit-Limit": "600", "X-Rate-Limit-Remaining": "0", "X-Rate-Limit-Reset": str(NOW + 60)}), T, NE, "JWKS endpoint rate limited (429 E0000047)"),
    ("internal-error", _okta(500, "E0000009", "Internal Server Error"), T, UO, "JWKS endpoint internal error (500 E0000009)"),
    ("unavailable", _nginx(503, "Service Temporarily Unavailable"), T, NE, "JWKS endpoint unavailable (503 from the proxy)"),
    ("bad-gateway", _nginx(502, "Bad Gateway"), T, UO, "JWKS endpoint's proxy answered 502"),
    ("gateway-timeout", _nginx(504, "Gateway Time-out"), T, UO, "JWKS endpoint's proxy answered 504"),
    ("hang", HANG, T, UO, "JWKS endpoint did not answer in time"),
    ("reset", RESET, T, UO, "JWKS connection reset"),
    ("html-page", Reply(200, "<html><head><title>Sign In</title></head><body><div id=\"okta-sign-in\"></div></body></html>"), A, None, "JWKS URL answered an HTML page"),
    ("json-array", Reply(200, [_jwk()]), A, None, "JWKS endpoint answered a bare array of keys"),
    ("no-keys", Reply(200, {"keys": []}), A, None, "JWKS holds no keys"),
    ("only-encryption-keys", Reply(200, {"keys": [_jwk(use="enc")]}), A, None, "JWKS holds only encryption keys"),
    ("unknown-key-type", Reply(200, {"keys": [{"kty": "XYZ", "kid": KID, "use": "sig"}]}), A, None, "JWKS holds a key of an unknown type"),
    ("kid-rotated", Reply(200, {"keys": [_jwk(kid="a9Vd3Lw0Qx7Ze2Rt5Yu8Io1Pk4Jm6Nb3")]}), A, None, "token's key id not in the JWKS (rotated)"),
    ("modulus-corrupt", Reply(200, {"keys": [_jwk(n="!!not-base64url!!")]}), A, None, "JWKS key with a corrupt modulus"),
    ("key-without-kty", Reply(200, {"keys": [_jwk(kty=...)]}), A, None, "JWKS key without kty"),
]  # fmt: skip


def _jwks_cases(ctx: Context) -> Iterator[Case]:
    good = _id_token()
    args = {"id_token": good}
    with _saas.service(ctx, "OKTAPORT", "nginx") as svc:
        url = f"{svc.base}/oauth2/default/v1/keys"
        for slug, reply, kind, outcome, cause in JWKS_REPLIES:
            svc.reply(reply)
            exc = _saas.catch(lambda: _verify_id_token(url, good))
            yield Case(f"pyjwt-jwks-{slug}", LIBRARY, cause, kind, outcome, exc, "verify_id_token", args)

        # the ID token the model passed (copied wrong / issued without a key id)
        svc.reply(Reply(200, {"keys": [_jwk()]}))
        for slug, token, kind, cause in [
            ("id-token-truncated", good[:30], F, "ID token truncated when copied"),
            ("id-token-bearer", f"Bearer {good}", F, "ID token passed with the Bearer prefix"),
            ("id-token-no-kid", _id_token(headers={}), A, "ID token issued without a key id"),
        ]:
            exc = _saas.catch(lambda: _verify_id_token(url, token))
            yield Case(
                f"pyjwt-jwks-{slug}", LIBRARY, cause, kind, None, exc, "verify_id_token", {"id_token": token}
            )

        # a multi-tenant tool: the model names the authorization server
        svc.reply(_okta(404, "E0000007", "Not found: Resource not found: partners (AuthorizationServer)"))
        exc = _saas.catch(lambda: _verify_id_token(f"{svc.base}/oauth2/partners/v1/keys", good))
        yield Case(
            "pyjwt-jwks-server-not-found",
            LIBRARY,
            "authorization server the model named not found (404 E0000007)",
            A,
            None,
            exc,
            "verify_id_token",
            {"id_token": good, "authorization_server": "partners"},
        )

    for slug, url, kind, outcome, cause in [
        (
            "refused",
            f"{_saas.dead_base(ctx)}/oauth2/default/v1/keys",
            T,
            NE,
            "JWKS endpoint refuses connections",
        ),
        ("dns", f"{_saas.DNS_BASE}/oauth2/default/v1/keys", T, NE, "JWKS host name does not resolve"),
        ("file-scheme", "file:///etc/okta/keys.json", U, None, "the tool's JWKS URL is a file:// URL"),
    ]:
        exc = _catch(lambda: _verify_id_token(url, good))
        yield Case(f"pyjwt-jwks-{slug}", LIBRARY, cause, kind, outcome, exc, "verify_id_token", args)


def cases(ctx: Context) -> Iterator[Case]:
    with fixed_clock():
        yield from _cases(ctx)


def _cases(ctx: Context) -> Iterator[Case]:
    good = _hs()
    for slug, token, options, cause in _model_tokens(good):
        exc = _catch(lambda: _verify(token, **options))
        yield Case(
            f"pyjwt-verify-{slug}", LIBRARY, cause, F, None, exc, "verify_token", {"token": token, **options}
        )
    for slug, token, kind, outcome, cause in _passed_intact():
        exc = _catch(lambda: _verify(token))
        yield Case(
            f"pyjwt-verify-{slug}", LIBRARY, cause, kind, outcome, exc, "verify_token", {"token": token}
        )

    for n, (slug, token, changes, kind, outcome, cause) in enumerate(_config_cases()):
        config = ctx.tmp / f"orders-tool-{n}"
        config.mkdir()
        settings = {"key_file": "signing.key", "algorithms": ["HS256"], **changes}
        (config / "settings.json").write_text(json.dumps(settings))
        (config / "service-token.jwt").write_text(token + "\n")
        (config / "signing.key").write_text(SECRET)
        (config / "idp.pem").write_text("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAozQ+vYQjSkHbUiJnHNzg\n-----END PUBLIC KEY-----\n")  # fmt: skip
        exc = _catch(lambda: _call_orders_api(config))
        yield Case(
            f"pyjwt-config-{slug}",
            LIBRARY,
            cause,
            kind,
            outcome,
            exc,
            "call_orders_api",
            {"order_id": "A-1042"},
        )

    for slug, args, cause in SIGN:
        exc = _catch(lambda: _sign(**args))
        yield Case(
            f"pyjwt-sign-{slug}",
            LIBRARY,
            f"the model's token request: {cause}",
            F,
            None,
            exc,
            "sign_test_token",
            args,
        )

    yield from _jwks_cases(ctx)

    # an installation without cryptography (RS256 and JWKs need it)
    token = _id_token()
    public = _rsa().public_key()
    from cryptography.hazmat.primitives import serialization

    pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    plain = _jwk()
    with _pkgcopy.broken_install(ctx.tmp, ["jwt"], hide=("cryptography",)):
        jwt = importlib.import_module("jwt")
        exc = _catch(lambda: jwt.decode(token, pem, algorithms=["RS256"], audience=CLIENT_ID, issuer=OKTA))
        exc_set = _catch(lambda: jwt.PyJWKSet.from_dict({"keys": [plain]}))
    yield Case("pyjwt-no-cryptography", LIBRARY, "cryptography is not installed (RS256)", U, None, exc, "verify_id_token", {"id_token": token})  # fmt: skip
    yield Case("pyjwt-no-cryptography-jwks", LIBRARY, "cryptography is not installed (JWK set)", U, None, exc_set, "verify_id_token", {"id_token": token})  # fmt: skip
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("jwt",)):
        exc = _catch(lambda: importlib.import_module("jwt"))
    yield Case(
        "pyjwt-module-missing",
        LIBRARY,
        "PyJWT is not installed",
        U,
        None,
        exc,
        "verify_token",
        {"token": good},
    )
