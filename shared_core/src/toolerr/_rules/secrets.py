"""Credentials that toolerr never restates (issue 27): each pattern with the source of its
format. Data only; :mod:`toolerr._secrets` matches them.

Each entry: (name, regex, mode, triggers, source). The regex's group ``secret`` (or,
without one, the whole match) is what is masked; what surrounds it (the URL's user, the
header's scheme, ``password=``) stays, so the note still says what failed. ``triggers``:
lower-case strings one of which the text holds wherever the regex can match; a text
without any skips the regex (none: the regex starts with a literal and always runs, its own
scan for that literal is cheaper than the check). ``mode``: ``case`` (the regex runs on the text), ``lower``
(written in lower case, it runs on the lowered text: case-insensitive). A
regex starts with a literal where it can (the engine then skips to it): word boundaries
are checked after it (``eyJ(?<!\\weyJ)``).
"""

from __future__ import annotations

_AWS_PREFIXES = (
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "AGPA",
    "AIDA",
    "AIPA",
    "ANPA",
    "ANVA",
    "AROA",
    "APKA",
    "ASCA",
)
_NAMED = (
    "api_key",
    "api-key",
    "apikey",
    "api_secret",
    "client_secret",
    "client-secret",
    "secret_key",
    "secret",
    "access_token",
    "auth_token",
    "refresh_token",
    "id_token",
    "session_token",
    "token",
    "password",
    "passwd",
    "pwd",
    "private_key",
)
# The separator first (the engine skips to it), then what stands before it: a name above,
# a quote or not, a space or not. A bare "key" is not a credential ("duplicate key: 42").
_NAMED_BEFORE = "|".join(
    f"(?<={name}{quote}{space}[:=])" for name in _NAMED for quote in ("", '"', "'") for space in ("", " ")
)

SECRET_PATTERNS: tuple[tuple[str, str, str, tuple[str, ...], str], ...] = (
    (
        "private key block",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?P<secret>[\s\S]*?)"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        "case",
        (),
        "RFC 7468 section 2 (PEM encapsulation boundaries); OpenSSH and PGP key files",
    ),
    (
        "password in a URL",
        r"://[^\s:/?#@\"'<>]{1,128}:(?P<secret>[^\s/?#@\"'<>]{1,256})@",
        "case",
        (),
        "RFC 3986 section 3.2.1: userinfo `user:password` (deprecated, still what database "
        "and broker URLs carry)",
    ),
    (
        "JSON Web Token",
        r"eyJ(?<!\weyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        "case",
        (),
        'RFC 7519 section 3 (base64url JOSE header `{"...` then claims, signature)',
    ),
    (
        "authorization header",
        r"authorization(?<!\wauthorization)[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?:bearer|basic|token|digest|apikey|sso-key)\s+)?(?P<secret>[^\s\"',;}]{6,})",
        "lower",
        ("authorization",),
        "RFC 9110 section 11.6.2 (Authorization: scheme credentials), as dumped by HTTP clients",
    ),
    (
        "bearer token",
        r"Bearer(?<!\wBearer)\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
        "case",
        (),
        "RFC 6750 section 2.1 (b64token after `Bearer`)",
    ),
    (
        "OpenAI or Anthropic API key",
        r"sk-(?<!\wsk-)(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-|None-)?[A-Za-z0-9_*-]{20,}",
        "case",
        (),
        "OpenAI API keys (`sk-`, `sk-proj-`, `sk-svcacct-`; the 401 body echoes them half "
        "starred); Anthropic (`sk-ant-api03-`, `sk-ant-admin01-`)",
    ),
    (
        "AWS access key id",
        r"A(?<![A-Za-z0-9]A)(?:" + "|".join(p[1:] for p in _AWS_PREFIXES) + r")[A-Z2-7]{16}(?![A-Za-z0-9])",
        "case",
        (),
        "AWS IAM user guide, 'Unique identifiers' (prefixes of access key ids; base32 body)",
    ),
    (
        "AWS secret access key",
        r"secret_?access_?key[\"']?\s*[:=]\s*[\"']?(?P<secret>[a-z0-9/+]{40})(?![a-z0-9/+])",
        "lower",
        ("secret",),
        "AWS CLI configuration files (`aws_secret_access_key`), SDK credential dumps",
    ),
    (
        "GitHub token",
        r"gh[pousr]_(?<!\wgh[pousr]_)[A-Za-z0-9]{36,255}|github_pat_(?<!\wgithub_pat_)[A-Za-z0-9_]{22,255}",
        "case",
        (),
        "GitHub docs, 'About authentication: GitHub's token formats' (ghp_, gho_, ghu_, ghs_, "
        "ghr_, github_pat_)",
    ),
    (
        "Slack token",
        r"xox[abposer]-(?<!\wxox[abposer]-)[A-Za-z0-9-]{10,}",
        "case",
        (),
        "Slack API docs, 'Token types' (xoxb-, xoxp-, xoxa-, xoxe-, xoxs-, xoxo-, xoxr-)",
    ),
    (
        "Stripe key",
        r"_(?:live|test)_(?<=[srp]k_live_|[srp]k_test_)(?P<secret>[A-Za-z0-9]{16,})",
        "case",
        (),
        "Stripe docs, 'API keys' (sk_live_, rk_live_, ...; publishable keys too: they name the account)",
    ),
    (
        "Google API key",
        r"AIza(?<!\wAIza)[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",
        "case",
        (),
        "Google Cloud docs, 'API keys' (39 characters starting AIza)",
    ),
    (
        "Hugging Face token",
        r"hf_(?<![A-Za-z0-9]hf_)[A-Za-z0-9]{30,}(?![A-Za-z0-9])",
        "case",
        (),
        "Hugging Face docs, 'User access tokens' (hf_ prefix)",
    ),
    (
        "secret parameter",
        r"[:=](?:" + _NAMED_BEFORE + r")\s*[\"']?"
        # the whole word or nothing (a lookahead is atomic): "b64encode(x)" is a call, not "b64encod"
        r"(?=[^\s\"',;&}()\[\]<>]*[0-9]|(?=[^\s\"',;&}()\[\]<>]*[/+=!@#$%^*~-])[^\s\"',;&}()\[\]<>]{12})(?=(?P<secret>[^\s\"',;&}()\[\]<>]{6,}))(?P=secret)(?![(\[])",
        "lower",
        ("key", "secret", "token", "passw", "pwd"),
        "query strings, JSON bodies, DSNs and config dumps that name a credential: a value of "
        "one word with a digit, or of 12 characters or more with a symbol; not a call "
        "('password: must be longer' and 'token = self.get_token()' keep their words)",
    ),
)
"""A text's spans found by several patterns are masked once (overlaps merge)."""
