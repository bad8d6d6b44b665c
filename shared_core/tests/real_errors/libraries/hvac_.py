"""hvac (HashiCorp Vault's Python client): Vault's API errors as hvac raises them
(``hvac.exceptions.InvalidRequest`` 400, ``Forbidden`` 403, ``InvalidPath`` 404,
``RateLimitExceeded`` 429, ``InternalServerError`` 500, ``VaultNotInitialized`` 501,
``BadGateway`` 502, ``VaultDown`` 503, ``UnexpectedError`` for the other statuses: 405,
412), ``requests``' transport failures, and hvac's own checks of its arguments
(``ParamValidationError``), through ``hvac.Client(url=...)`` pointed at a local stand-in of
a Vault server.

Statuses, their meanings and the ``{"errors": [...]}`` body are those of Vault's HTTP API
overview (developer.hashicorp.com/vault/api-docs#http-status-codes: 400 invalid request,
403 forbidden "permission denied or invalid token", 404 invalid path, 405 unsupported
operation, 412 precondition failed "should be retried, perhaps with a little backoff",
429 rate limit quota / standby, 500 internal server error, 501 not initialized, 502 "a
request to Vault required Vault making a request to a third party; the third party
responded with an error", 503 "Vault is down for maintenance or is currently sealed");
the messages are Vault's own: KV v2 (developer.hashicorp.com/vault/api-docs/secret/kv/kv-v2:
``cas`` "check-and-set parameter did not match the current version" / "... required for
this call", a deleted version answered 404 with its metadata), transit
(developer.hashicorp.com/vault/api-docs/secret/transit: "encryption key not found",
"invalid ciphertext: no prefix", "cipher: message authentication failed", base64
plaintext), PKI (developer.hashicorp.com/vault/api-docs/secret/pki: "unknown role", common
name "not allowed by this role"), database / AWS credentials, AppRole / userpass logins,
rate limit quotas (developer.hashicorp.com/vault/docs/concepts/resource-quotas: 429 with
``Retry-After``), policies (HCL parse errors), mounts ("path is already in use").

Labels: a path, mount, key, role, ciphertext, policy text, TTL (one past the
CA's expiry included) or option the model wrote
-> fixable; a token, policy or login that denies, a Vault never initialised -> unrecoverable; a secret not found (Vault answers 404 both for a path
never written and one deleted), a version deleted, a check-and-set conflict with a
concurrent write, a mount already there, a lease gone, a ciphertext READ from the tool's
database that does not decrypt, and a 500 "internal error" with nothing more said ->
ambiguous; 429 / 412 / 503 sealed / refused / DNS -> transient, not executed; 502 (a
third party failed after Vault acted), read timeout, reset, close -> transient, unknown
outcome. hvac does not retry. ``import hvac`` without ``requests`` installed:
unrecoverable.

Not triggered: 401 (Vault answers 403 for a bad token), 473 performance standby and 429
standby health answers (``read_health_status`` asks Vault not to raise them), TLS failures
(the stand-in speaks plain HTTP).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _pkgcopy, _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "hvac"
REQUIRES = ["hvac>=2.1,<3"]

_API = "Vault HTTP API (developer.hashicorp.com/vault/api-docs#http-status-codes)"
_KV = "Vault KV v2 API (developer.hashicorp.com/vault/api-docs/secret/kv/kv-v2)"
_TRANSIT = "Vault transit API (developer.hashicorp.com/vault/api-docs/secret/transit)"
_PKI = "Vault PKI API (developer.hashicorp.com/vault/api-docs/secret/pki)"
_QUOTA = "Vault resource quotas (developer.hashicorp.com/vault/docs/concepts/resource-quotas)"
_TOKEN = "hvs.CAESIJ1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2GhsKHGh2cy5aWTFhMmIzYzRkNWU2ZjdnOGg5aTA"
_REQ = {"request_id": "5b9c6a1e-2f3d-4c7b-8a9e-0d1f2a3b4c5d"}


def _e(status: int, *errors: str, source: str = _API, **headers: str) -> Reply:
    return Reply(status, {"errors": list(errors)}, headers, source)


def _deleted(version: int) -> Reply:
    """KV v2's answer for a version soft-deleted: 404, its metadata and no ``errors``."""
    body = {
        **_REQ,
        "lease_id": "",
        "renewable": False,
        "lease_duration": 0,
        "data": {
            "data": None,
            "metadata": {
                "created_time": "2026-11-02T10:00:00.000000Z",
                "custom_metadata": None,
                "deletion_time": "2026-11-30T08:15:00.000000Z",
                "destroyed": False,
                "version": version,
            },
        },
        "wrap_info": None,
        "warnings": None,
        "auth": None,
    }
    return Reply(404, body, {}, _KV)


_CIPHER = "vault:v1:8SDd3WHDOjf7mq69CyCqYjBXAiQQAVZRkFM13ok481zoCmHnSeDX9vyf7w=="

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    (
        "kv-mount-unknown",
        "kv_read_mount",
        _e(404, 'no handler for route "secrets/data/payments/db". route entry not found.'),
        F,
        None,
        "KV mount path misspelt (no such mount)",
    ),
    (
        "kv-cas-required",
        "kv_write",
        _e(400, "check-and-set parameter required for this call", source=_KV),
        F,
        None,
        "mount requires cas and the call gave none",
    ),
    (
        "transit-key-not-found",
        "decrypt",
        _e(400, "encryption key not found", source=_TRANSIT),
        F,
        None,
        "transit key name unknown",
    ),
    (
        "transit-ciphertext-no-prefix",
        "decrypt",
        _e(400, "invalid ciphertext: no prefix", source=_TRANSIT),
        F,
        None,
        "ciphertext without its vault:v1: prefix",
    ),
    (
        "transit-plaintext-not-base64",
        "encrypt",
        _e(400, "illegal base64 data at input byte 4", source=_TRANSIT),
        F,
        None,
        "plaintext not base64-encoded",
    ),
    (
        "transit-key-type-unsupported",
        "sign",
        _e(400, "key type aes256-gcm96 does not support signing", source=_TRANSIT),
        F,
        None,
        "sign with an encryption-only key",
    ),
    (
        "pki-unknown-role",
        "issue_cert",
        _e(400, "unknown role: web-servr", source=_PKI),
        F,
        None,
        "PKI role name misspelt",
    ),
    (
        "pki-cn-not-allowed",
        "issue_cert",
        _e(400, "common name api.internal.example.net not allowed by this role", source=_PKI),
        F,
        None,
        "common name outside the role's allowed domains",
    ),
    (
        "db-unknown-role",
        "db_creds",
        _e(400, "unknown role: readonlyy"),
        F,
        None,
        "database role name misspelt",
    ),
    (
        "token-ttl-unit",
        "create_token",
        _e(
            400,
            'error converting input 30days for field "ttl": time: unknown unit "days" in duration "30days"',
        ),
        F,
        None,
        "TTL with an unknown unit",
    ),
    (
        "policy-hcl-syntax",
        "write_policy_hcl",
        _e(400, "failed to parse policy: At 1:40: illegal char"),
        F,
        None,
        "policy HCL does not parse",
    ),
    (
        "policy-capability-unknown",
        "write_policy",
        _e(400, 'failed to parse policy: path "secret/data/*": invalid capability "write"'),
        F,
        None,
        "policy names a capability Vault does not have",
    ),
    (
        "unsupported-operation",
        "vault_write",
        Reply(405, {"errors": ["1 error occurred:\n\t* unsupported operation\n\n"]}, {}, _API),
        F,
        None,
        "write to a path that only reads",
    ),
    # credentials, policies, the server's setup
    (
        "permission-denied",
        "kv_read",
        _e(403, "1 error occurred:\n\t* permission denied\n\n"),
        U,
        None,
        "token's policies deny the path",
    ),
    (
        "invalid-token",
        "kv_read",
        _e(403, "2 errors occurred:\n\t* permission denied\n\t* invalid token\n\n"),
        U,
        None,
        "token expired or revoked",
    ),
    (
        "approle-login-invalid",
        "approle_login",
        _e(400, "invalid role or secret ID"),
        U,
        None,
        "AppRole secret ID invalid or expired",
    ),
    (
        "userpass-login-invalid",
        "userpass_login",
        _e(400, "invalid username or password"),
        U,
        None,
        "configured password wrong",
    ),
    (
        "child-policies-not-subset",
        "create_token",
        _e(400, "child policies must be subset of parent"),
        U,
        None,
        "token may not grant policies it lacks",
    ),
    (
        "pki-ttl-beyond-ca",
        "issue_cert",
        _e(
            400,
            "cannot satisfy request, as TTL would result in notAfter 2036-12-01T00:00:00Z that is beyond the"
            " expiration of the CA certificate at 2027-06-01T00:00:00Z",
            source=_PKI,
        ),
        F,
        None,
        "requested TTL runs past the CA's expiry",
    ),
    (
        "not-initialized",
        "kv_read",
        _e(501, "Vault is not initialized"),
        U,
        None,
        "Vault never initialised",
    ),
    # not found, conflicts, state the model did not write
    (
        "kv-secret-missing",
        "kv_read",
        Reply(404, {"errors": []}, {}, _KV),
        A,
        None,
        "secret not found (never written or deleted)",
    ),
    (
        "kv-version-deleted",
        "kv_read_version",
        _deleted(3),
        A,
        None,
        "secret version soft-deleted",
    ),
    (
        "kv-cas-mismatch",
        "kv_write_cas",
        _e(400, "check-and-set parameter did not match the current version", source=_KV),
        A,
        None,
        "secret changed since it was read (check-and-set conflict)",
    ),
    (
        "mount-in-use",
        "enable_engine",
        _e(400, "path is already in use at payments/"),
        A,
        None,
        "a mount already there",
    ),
    (
        "lease-not-found",
        "renew_lease",
        _e(400, "lease not found"),
        A,
        None,
        "lease expired and revoked, or never issued",
    ),
    (
        "internal-error",
        "kv_write",
        _e(500, "internal error"),
        A,
        None,
        "internal error with nothing more said",
    ),
    # load, outages
    (
        "rate-limit-quota",
        "kv_read",
        _e(
            429,
            'request path "secret/data/payments/db": rate limit quota exceeded',
            source=_QUOTA,
            **{"Retry-After": "1"},
        ),
        T,
        NE,
        "rate limit quota exceeded",
    ),
    (
        "precondition-failed",
        "kv_read",
        _e(412, "required index state not present"),
        T,
        NE,
        "replica not caught up yet (412: retry with backoff)",
    ),
    (
        "sealed",
        "kv_write",
        _e(503, "Vault is sealed"),
        T,
        NE,
        "Vault sealed (503)",
    ),
    (
        "standby-no-leader",
        "kv_read",
        _e(503, "local node not active but active cluster node not found"),
        T,
        NE,
        "standby without an active node (503)",
    ),
    (
        "aws-throttled",
        "aws_creds",
        _e(
            502,
            "Error creating IAM user: Throttling: Rate exceeded\n\tstatus code: 400, request id:"
            " 9f8e7d6c-5b4a-3c2d-1e0f-a9b8c7d6e5f4",
        ),
        T,
        UO,
        "AWS throttled Vault's call (502, after Vault acted)",
    ),
    (
        "proxy-bad-gateway",
        "kv_write",
        Reply(
            502,
            "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center>"
            "<hr><center>nginx</center></body></html>",
            {},
            "an nginx reverse proxy's page",
        ),
        T,
        UO,
        "proxy in front of Vault: bad gateway",
    ),
]


def _calls(client: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    kv = client.secrets.kv.v2
    transit = client.secrets.transit
    return {
        "kv_read": (
            "read_secret",
            {"path": "payments/db"},
            lambda: kv.read_secret_version(path="payments/db", raise_on_deleted_version=True),
        ),
        "kv_read_mount": (
            "read_secret",
            {"path": "payments/db", "mount_point": "secrets"},
            lambda: kv.read_secret_version(
                path="payments/db", mount_point="secrets", raise_on_deleted_version=True
            ),
        ),
        "kv_read_version": (
            "read_secret",
            {"path": "payments/db", "version": 3},
            lambda: kv.read_secret_version(path="payments/db", version=3, raise_on_deleted_version=True),
        ),
        "kv_write": (
            "write_secret",
            {"path": "payments/db", "data": {"username": "app", "password": "s3cr3t-rotated"}},
            lambda: kv.create_or_update_secret(
                path="payments/db", secret={"username": "app", "password": "s3cr3t-rotated"}
            ),
        ),
        "kv_write_cas": (
            "write_secret",
            {"path": "payments/db", "data": {"password": "s3cr3t-rotated"}, "cas": 4},
            lambda: kv.create_or_update_secret(
                path="payments/db", secret={"password": "s3cr3t-rotated"}, cas=4
            ),
        ),
        "decrypt": (
            "decrypt",
            {"key": "payments", "ciphertext": "8SDd3WHDOjf7mq69CyCqYjBXAiQQAVZRkFM13ok481zoCmHnSeDX9vyf7w=="},
            lambda: transit.decrypt_data(
                name="payments", ciphertext="8SDd3WHDOjf7mq69CyCqYjBXAiQQAVZRkFM13ok481zoCmHnSeDX9vyf7w=="
            ),
        ),
        "encrypt": (
            "encrypt",
            {"key": "payments", "plaintext": "card 4111-1111"},
            lambda: transit.encrypt_data(name="payments", plaintext="card 4111-1111"),
        ),
        "sign": (
            "sign",
            {"key": "payments", "input": "aGVsbG8gd29ybGQ="},
            lambda: transit.sign_data(name="payments", hash_input="aGVsbG8gd29ybGQ="),
        ),
        "issue_cert": (
            "issue_certificate",
            {"role": "web-servr", "common_name": "api.internal.example.net", "ttl": "87600h"},
            lambda: client.secrets.pki.generate_certificate(
                name="web-servr", common_name="api.internal.example.net", extra_params={"ttl": "87600h"}
            ),
        ),
        "db_creds": (
            "database_credentials",
            {"role": "readonlyy"},
            lambda: client.secrets.database.generate_credentials(name="readonlyy"),
        ),
        "aws_creds": (
            "aws_credentials",
            {"role": "deploy"},
            lambda: client.secrets.aws.generate_credentials(name="deploy"),
        ),
        "create_token": (
            "create_token",
            {"policies": ["admin"], "ttl": "30days"},
            lambda: client.auth.token.create(policies=["admin"], ttl="30days"),
        ),
        "write_policy": (
            "write_policy",
            {"name": "payments-read", "policy": 'path "secret/data/*" { capabilities = ["write"] }'},
            lambda: client.sys.create_or_update_policy(
                name="payments-read", policy='path "secret/data/*" { capabilities = ["write"] }'
            ),
        ),
        "write_policy_hcl": (
            "write_policy",
            {"name": "payments-read", "policy": "path \"secret/data/*\" { capabilities = ['read'] }"},
            lambda: client.sys.create_or_update_policy(
                name="payments-read", policy="path \"secret/data/*\" { capabilities = ['read'] }"
            ),
        ),
        "vault_write": (
            "vault_write",
            {"path": "sys/health", "data": {"standbyok": True}},
            lambda: client.write_data("sys/health", data={"standbyok": True}),
        ),
        "approle_login": (
            "vault_login",
            {"method": "approle"},
            lambda: client.auth.approle.login(
                role_id="3c8f2a1e-9b7d-4e6f-a5c4-b3d2e1f0a9b8",
                secret_id="0f1e2d3c-4b5a-6978-8a9b-c0d1e2f3a4b5",
            ),
        ),
        "userpass_login": (
            "vault_login",
            {"method": "userpass", "username": "deploy-bot"},
            lambda: client.auth.userpass.login(username="deploy-bot", password="configured-password"),
        ),
        "enable_engine": (
            "enable_secrets_engine",
            {"backend_type": "kv", "path": "payments", "options": {"version": "2"}},
            lambda: client.sys.enable_secrets_engine(
                backend_type="kv", path="payments", options={"version": "2"}
            ),
        ),
        "renew_lease": (
            "renew_lease",
            {"lease_id": "database/creds/readonly/2f6a614c-4aa2-7b19-24b9-ad944a8d4de6"},
            lambda: client.sys.renew_lease(
                lease_id="database/creds/readonly/2f6a614c-4aa2-7b19-24b9-ad944a8d4de6"
            ),
        ),
    }


def _local(client: Any) -> list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]]:
    """(key, cause, tool, the model's arguments, call) of hvac's own checks (no request sent)."""
    kv = client.secrets.kv.v2
    transit = client.secrets.transit
    return [
        (
            "param-versions-not-list",
            "versions given as a string",
            "destroy_secret_versions",
            {"path": "payments/db", "versions": "3"},
            lambda: kv.destroy_secret_versions(path="payments/db", versions="3"),
        ),
        (
            "param-versions-empty",
            "versions given empty",
            "delete_secret_versions",
            {"path": "payments/db", "versions": []},
            lambda: kv.delete_secret_versions(path="payments/db", versions=[]),
        ),
        (
            "param-cas-required-string",
            "cas_required given as text",
            "configure_secret",
            {"path": "payments/db", "cas_required": "true"},
            lambda: kv.update_metadata(path="payments/db", cas_required="true"),
        ),
        (
            "param-custom-metadata-string",
            "custom metadata as a string",
            "configure_secret",
            {"path": "payments/db", "custom_metadata": "team=payments"},
            lambda: kv.update_metadata(path="payments/db", custom_metadata="team=payments"),
        ),
        (
            "param-key-type",
            "transit key type unknown",
            "create_key",
            {"name": "payments", "key_type": "aes128"},
            lambda: transit.create_key(name="payments", key_type="aes128"),
        ),
        (
            "param-convergent-not-derived",
            "convergent encryption without key derivation",
            "create_key",
            {"name": "payments", "convergent_encryption": True},
            lambda: transit.create_key(name="payments", convergent_encryption=True),
        ),
        (
            "param-data-key-type",
            "data key type unknown",
            "generate_data_key",
            {"name": "payments", "key_type": "both"},
            lambda: transit.generate_data_key(name="payments", key_type="both"),
        ),
        (
            "param-data-key-bits",
            "data key size unsupported",
            "generate_data_key",
            {"name": "payments", "key_type": "plaintext", "bits": 384},
            lambda: transit.generate_data_key(name="payments", key_type="plaintext", bits=384),
        ),
        (
            "param-hash-algorithm",
            "hash algorithm unknown",
            "hash_data",
            {"input": "aGVsbG8=", "algorithm": "md5"},
            lambda: transit.hash_data(hash_input="aGVsbG8=", algorithm="md5"),
        ),
        (
            "param-hash-output-format",
            "hash output format unknown",
            "hash_data",
            {"input": "aGVsbG8=", "output_format": "hexadecimal"},
            lambda: transit.hash_data(hash_input="aGVsbG8=", output_format="hexadecimal"),
        ),
        (
            "param-sign-hash-algorithm",
            "signature hash algorithm unknown",
            "sign",
            {"key": "signing", "input": "aGVsbG8=", "hash_algorithm": "sha1024"},
            lambda: transit.sign_data(name="signing", hash_input="aGVsbG8=", hash_algorithm="sha1024"),
        ),
        (
            "param-marshaling",
            "marshaling algorithm unknown",
            "sign",
            {"key": "signing", "input": "aGVsbG8=", "marshaling_algorithm": "der"},
            lambda: transit.sign_data(name="signing", hash_input="aGVsbG8=", marshaling_algorithm="der"),
        ),
        (
            "param-verify-both",
            "signature and hmac both given",
            "verify",
            {"key": "signing", "input": "aGVsbG8=", "signature": "vault:v1:MEUCIQ", "hmac": "vault:v1:3b1f"},
            lambda: transit.verify_signed_data(
                name="signing", hash_input="aGVsbG8=", signature="vault:v1:MEUCIQ", hmac="vault:v1:3b1f"
            ),
        ),
        (
            "param-key-versions",
            "min encryption version below min decryption version",
            "configure_key",
            {"name": "payments", "min_encryption_version": 1, "min_decryption_version": 3},
            lambda: transit.update_key_configuration(
                name="payments", min_encryption_version=1, min_decryption_version=3
            ),
        ),
        (
            "param-export-key-type",
            "export key type unknown",
            "export_key",
            {"name": "payments", "key_type": "private-key"},
            lambda: transit.export_key(name="payments", key_type="private-key"),
        ),
        (
            "param-approle-token-type",
            "AppRole token type unknown",
            "create_approle",
            {"role_name": "ci", "token_type": "short-lived"},
            lambda: client.auth.approle.create_or_update_approle(role_name="ci", token_type="short-lived"),
        ),
        (
            "param-health-method",
            "health check method unknown",
            "vault_health",
            {"method": "POST"},
            lambda: client.sys.read_health_status(method="POST"),
        ),
    ]


def cases(ctx: Any) -> Iterator[generate.Case]:
    import hvac

    def client(base: str) -> Any:
        return hvac.Client(url=base, token=_TOKEN, timeout=_saas.TIMEOUT)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"hvac-{cid}", LIBRARY, cause, kind, outcome, exc, tool, args)

    with _saas.service(ctx, "VAULTPORT", "") as svc:
        calls = _calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)

        # ciphertexts the tool READ from its own database, not written by the model
        for key, message, cause in (
            ("db-ciphertext-no-prefix", "invalid ciphertext: no prefix", "stored ciphertext lost its prefix"),
            (
                "db-ciphertext-auth-failed",
                "cipher: message authentication failed",
                "stored ciphertext corrupt or from another key",
            ),
            (
                "db-ciphertext-version",
                "ciphertext version is disallowed by policy (too old)",
                "stored ciphertext under a retired key version",
            ),
        ):
            svc.reply(_e(400, message, source=_TRANSIT))
            exc = _saas.catch(
                lambda: client(svc.base).secrets.transit.decrypt_data(name="payments", ciphertext=_CIPHER)
            )
            yield case(key, cause, A, None, exc, "reveal_card", {"customer_id": "cus_4471"})

        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            tool, args, fn = _calls(client(base))["kv_write"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)

    for key, cause, tool, args, fn in _local(client(_saas.dead_base(ctx))):
        yield case(key, cause, F, None, _saas.catch(fn), tool, args)

    with _pkgcopy.broken_install(ctx.tmp, ["hvac"], hide=("requests", "urllib3")):
        exc = _saas.catch(lambda: importlib.import_module("hvac"))
    yield case(
        "requests-not-installed",
        "requests not installed",
        U,
        None,
        exc,
        "read_secret",
        {"path": "payments/db"},
    )
