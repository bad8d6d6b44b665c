"""Rules for what agents' tools talk to besides HTTP: account and storage state, protocols
with codes of their own (Redis, SMTP and FTP replies, SSH, DNS, WebSocket close codes, AMQP,
Kafka), SaaS error codes (also sent on HTTP 200), parsers fed the model's arguments, and the
words that name a conflict. Each entry names its source.

Written from the protocols' and services' documentation, not from the live corpus's
held-out cases (``shared_core/tests/real_errors/libraries``): those measure these rules.
"""

from __future__ import annotations

from ._base import NE, UO, CodeRule, ExceptionRule, F, RuleKind, RuleOutcome, T, U, Word

# ---------------------------------------------------------------------------------------------
# State that no retry and no other argument changes: traps (they beat the status, a rate
# limit and every other word, as the quota traps do).
# ---------------------------------------------------------------------------------------------


def _trap(text: str, family: str, source: str) -> Word:
    return Word(text, U, family, None, source, trap=True)


STATE_WORDS: tuple[Word, ...] = (
    _trap("ccount suspended", "account", "account state (SaaS APIs)"),
    _trap("ccount has been suspended", "account", "account state (SaaS APIs)"),
    _trap("ccount is suspended", "account", "account state (SaaS APIs)"),
    _trap("ccount disabled", "account", "account state (SaaS APIs)"),
    _trap("ccount has been disabled", "account", "account state (SaaS APIs)"),
    _trap("ccount is disabled", "account", "account state (SaaS APIs)"),
    _trap("ccount inactive", "account", "account state (Slack account_inactive)"),
    _trap("ccount is not active", "account", "account state (Twilio 20005 'Account not active')"),
    _trap("ccount not active", "account", "account state (Twilio 20005)"),
    _trap("ccount has been deactivated", "account", "account state (SaaS APIs)"),
    _trap("ccount deactivated", "account", "account state (SaaS APIs)"),
    _trap("ccount is on hold", "account", "account state (billing hold)"),
    _trap("ccount on hold", "account", "account state (billing hold)"),
    _trap("pend limit", "quota", "spend limits (LLM providers, cloud budgets)"),
    _trap("pending limit", "quota", "spending limits"),
    Word(
        "udget exceeded", U, "quota", None, "cloud budgets", unless_before=r"[Rr]ate[ -]?limit b\Z", trap=True
    ),
    _trap("udget has been exceeded", "quota", "cloud budgets"),
    _trap("pgrade your plan", "quota", "plan limits ('upgrade your plan')"),
    _trap("nable Billing", "quota", "Google 'You must enable Billing on the Google Cloud Project'"),
    _trap("nable billing", "quota", "'enable billing' for the project or account"),
    _trap("limit of your plan", "quota", "plan limits"),
    _trap("lan limit", "quota", "plan limits ('plan limit reached')"),
    _trap("ubscription has expired", "quota", "subscription state"),
    _trap("ubscription expired", "quota", "subscription state"),
    _trap("rial has expired", "quota", "trial state"),
    _trap("rial expired", "quota", "trial state"),
    _trap("redits exhausted", "quota", "prepaid credits"),
    _trap("uota exhausted", "quota", "quota state"),
    _trap("uota has been exhausted", "quota", "quota state"),
    _trap("llowance exceeded", "quota", "usage allowances"),
    _trap("sed up your allowance", "quota", "usage allowances"),
    _trap("torage quota", "disk_full", "storage quotas (cloud drives, object stores)"),
    _trap("torage limit", "disk_full", "storage limits"),
    _trap("isk quota exceeded", "disk_full", "strerror(EDQUOT)"),
    Word("o space left on device", U, "disk_full", None, "strerror(ENOSPC), lower-case in Go and Docker"),
    Word("space left on the device", U, "disk_full", None, "ENOSPC in prose"),
    Word(
        "to be installed",
        U,
        "missing_dependency",
        None,
        "'RS256 requires 'cryptography' to be installed' (PyJWT), 'requires lxml to be installed'",
        only_before=r"\brequires? [\w'\"., -]{1,60}\Z",
    ),
    _trap("isk full", "disk_full", "'disk full' (databases, SMTP 452/552)"),
    _trap("isk is full", "disk_full", "'the disk is full'"),
    _trap("isk usage exceeded", "disk_full", "Elasticsearch flood-stage watermark block"),
    _trap("Insufficient Storage", "disk_full", "HTTP 507 reason phrase (RFC 4918)"),
    _trap("xceeded storage allocation", "disk_full", "SMTP/FTP 552 (RFC 5321, RFC 959)"),
    _trap("ut of memory", "memory", "'out of memory' (allocators, CUDA, databases)"),
    _trap("OutOfMemory", "memory", "OutOfMemoryError class names"),
    _trap("OOM command not allowed", "memory", "Redis maxmemory reached (OOM prefix)"),
    _trap("Cannot allocate memory", "memory", "strerror(ENOMEM)"),
    _trap("emory limit exceeded", "memory", "container and runtime memory limits"),
    Word("ddress already in use", U, "port_taken", None, "strerror(EADDRINUSE)"),
    Word("port is already allocated", U, "port_taken", None, "Docker Engine 500 on container start"),
    Word("is not a swarm manager", U, "config", None, "Docker Engine 503 'This node is not a swarm manager'"),
    Word("ignature verification failed", U, "auth", None, "signed requests and webhooks (not an edit)"),
    Word("ertificate verify failed", U, "tls", None, "OpenSSL CERTIFICATE_VERIFY_FAILED"),
    Word(
        "uthentication failed",
        U,
        "auth",
        None,
        "git, SSH (paramiko), SMTP, databases; not a cipher's 'message authentication failed'",
        unless_before=r"[Mm]essage a\Z",
    ),
    Word("uthentication credentials invalid", U, "auth", None, "SMTP 535 5.7.8 (RFC 4954)"),
    Word("uthentication required", U, "auth", None, "SMTP 530 5.7.0 (RFC 4954), proxies"),
    Word("Login incorrect", U, "auth", None, "FTP 530 (vsftpd, pyftpdlib)"),
    Word("Not logged in", U, "auth", None, "FTP 530 (RFC 959)"),
    Word("could not read Username", U, "auth", None, "git over HTTPS without credentials"),
    Word("Host key for server", U, "host_key", None, "paramiko BadHostKeyException"),
    Word("Host key verification failed", U, "host_key", None, "OpenSSH client"),
    Word("HOST IDENTIFICATION HAS CHANGED", U, "host_key", None, "OpenSSH client"),
)

# ---------------------------------------------------------------------------------------------
# Conflicts and existing resources: the failure stays ambiguous whatever the status says
# (DELIVERY.md 3: the row may exist; a retry or another argument may or may not help).
# ---------------------------------------------------------------------------------------------


_MISSING_BEFORE = (
    r"(?:not found|does not exist|doesn't exist|no such|[Nn]o \w+ with the given \w+)[^.\n]{0,80}\Z"
)


# Records an agent names by id or name (not a table, a column, a field or a node of a graph
# the model itself gave: those are the model's vocabulary, fixable).
_NOUNS = (
    r"(?:[Uu]ser|[Cc]hat|[Mm]essage|[Rr]ecord|[Cc]ommit|[Ii]ssue|[Pp]roject|[Aa]ccount"
    r"|[Rr]epository|[Bb]ranch|[Cc]hannel|[Cc]ustomer|[Cc]ontact|[Tt]ask|[Tt]icket|[Ss]pace"
    r"|[Tt]eam|[Oo]rder|[Ii]nvoice|[Pp]roduct|[Pp]laylist|[Ee]vent|[Cc]alendar|[Ww]orkspace"
    r"|[Oo]rganization|[Dd]ocument|[Pp]age|[Bb]ucket|[Cc]ollection|[Ss]tream|[Cc]onsumer)s?"
)
# the noun opens the message or a clause ("Chat not found", ": User 'x' does not exist", "the
# project ..."), not a name that happens to be one ("Table with name orders does not exist")
_ENTITY = r"(?:\A|(?<=[:.!(\['\"])|(?<=[:.!(\['\"] )|\b[Tt]h(?:e|is|at) )" + _NOUNS
# a login that names the user it could not find is a credentials failure, not a record
_LOGIN = r"[Aa]uthenticat|[Uu]nauthori[sz]ed|[Cc]redential|[Ll]og ?in\b|[Ss]ign ?in\b|\b401\b"
_NAMED = r"(?:'[^'\n]{0,80}'\s*|\"[^\"\n]{0,80}\"\s*|[\w.:/-]{1,60}\s+)?"


def _stays(text: str, family: str, source: str, boundary: bool = False) -> Word:
    return Word(text, None, family, None, source, boundary=boundary, decisive=True)


CONFLICT_WORDS: tuple[Word, ...] = (
    _stays("already exists", "conflict", "'X already exists' (APIs, filesystems, Kubernetes, git)"),
    _stays("Already exists", "conflict", "'Already exists'"),
    _stays("AlreadyExists", "conflict", "Kubernetes Status reason, gRPC Go name"),
    _stays("already_exists", "conflict", "GitHub 422 error code, SaaS codes"),
    _stays("is already in use", "conflict", "Docker 409 'name ... is already in use'"),
    _stays("is already taken", "conflict", "names and handles"),
    _stays("name_taken", "conflict", "Slack name_taken"),
    _stays("duplicate key", "conflict", "MongoDB E11000, PostgreSQL 23505"),
    _stays("version_conflict", "conflict", "Elasticsearch version_conflict_engine_exception"),
    _stays("non-fast-forward", "conflict", "git push rejected"),
    _stays("Merge conflict", "conflict", "git merge"),
    _stays("CONFLICT (", "conflict", "git merge 'CONFLICT (content)'"),
    _stays("did not match any file(s) known to git", "not_found", "git checkout of a missing ref"),
    _stays("unknown revision or path", "not_found", "git rev-parse"),
    _stays("is not running", "state", "Docker 409 'Container ... is not running'"),
    _stays("No such container", "not_found", "Docker Engine 404"),
    _stays("No such image", "not_found", "Docker Engine 404"),
    _stays("NXDOMAIN", "not_found", "DNS rcode 3 (RFC 1035)", boundary=True),
    _stays("query name does not exist", "not_found", "dnspython NXDOMAIN"),
    _stays("ser unknown", "not_found", "SMTP 550 5.1.1 'User unknown'"),
    _stays("PRECONDITION_FAILED - ", "conflict", "AMQP 406: a queue or exchange declared otherwise"),
    _stays("NOT_FOUND - ", "not_found", "AMQP 404 not-found (no queue or exchange of that name)"),
    _stays(
        "COMMAND_INVALID - ", "command_invalid", "AMQP 503 (a mistyped type, or a plugin the broker lacks)"
    ),
    _stays("Duplicate entry '", "conflict", "MySQL / MariaDB 1062 ER_DUP_ENTRY"),
    _stays("foreign key constraint fails", "conflict", "MySQL 1451 / 1452: the referenced row's state"),
    _stays("FOREIGN KEY constraint failed", "conflict", "SQLite: the referenced row's state"),
    _stays("violates foreign key constraint", "conflict", "PostgreSQL 23503"),
    _stays("did not match the current version", "conflict", "Vault KV v2 check-and-set"),
    _stays("wrong last sequence", "conflict", "NATS JetStream 10071 (expected last sequence)"),
    _stays("wrong last msg ID", "conflict", "NATS JetStream 10070"),
    _stays(
        "overlap with an existing",
        "conflict",
        "NATS JetStream 10065 'subjects overlap with an existing stream'",
    ),
    _stays(
        "already in use with a different", "conflict", "NATS JetStream 10058 'stream name already in use ...'"
    ),
    # a record the model named by id or name that is not there: deleted, never created, or
    # mistyped; the service's status (often a 400) does not say which
    *(
        Word(text, None, "not_found", None, source, only_before=before, decisive=True, unless_before=_LOGIN)
        for text, before, source in (
            (
                "not found",
                _ENTITY + r"(?: to \w+)?\s*" + _NAMED + r"\Z",
                "'Chat not found', 'User not found' (Telegram 400)",
            ),
            ("does not exist", _ENTITY + r"\s*" + _NAMED + r"\Z", "'User 'jdoe2' does not exist' (Jira 400)"),
            (
                "found",
                r"\b[Nn]o " + _NOUNS + r"(?: could be)? \Z",
                "'No project could be found with key', 'No commit found for SHA'",
            ),
        )
    ),
    # "not found, or you may not see it": the service will not say which (Atlassian, Snowflake,
    # AWS and others hide what the caller may not read behind a not-found)
    *(
        Word(
            text,
            None,
            "not_found",
            None,
            "'no X with the given id, or no permission to view it'",
            only_before=_MISSING_BEFORE,
            decisive=True,
        )
        for text in (
            "or the calling user does not have permission",
            "or you do not have permission",
            "or you don't have permission",
            "or you do not have access",
            "or you don't have access",
            "or not authorized",
            "or access is denied",
        )
    ),
)

# ---------------------------------------------------------------------------------------------
# Rate limits and temporary refusals, as other services spell them.
# ---------------------------------------------------------------------------------------------

TEMPORARY_WORDS: tuple[Word, ...] = (
    Word("ratelimited", T, "rate_limit", NE, "Slack 'ratelimited' (sent on HTTP 200 or 429)"),
    Word("token is not yet valid", T, "not_yet_valid", NE, "JWT 'nbf' / 'iat' in the future (PyJWT)"),
    Word("ate-limit", T, "rate_limit", NE, "'rate-limited'"),
    Word("oo many requests", T, "rate_limit", NE, "'too many requests' in prose"),
    Word("toomanyrequests", T, "rate_limit", NE, "Docker registry error code"),
    Word("ry again in ", T, "rate_limit", NE, "'Please try again in 20s'", only_after=r"\d"),
    Word("oo many connections", T, "busy", NE, "FTP/SMTP 421, MySQL 1040"),
    Word("'max_user_connections' resource", T, "busy", NE, "MySQL 1226 for connections held now"),
    Word("max number of clients reached", T, "busy", NE, "Redis maxclients"),
    Word("Redis is loading the dataset", T, "unavailable", NE, "Redis LOADING"),
    Word("Redis is busy", T, "busy", NE, "Redis BUSY (a script runs)"),
    Word("MASTERDOWN", T, "unavailable", NE, "Redis replica without its master", boundary=True),
    Word("TRYAGAIN", T, "unavailable", NE, "Redis Cluster resharding", boundary=True),
    Word("CLUSTERDOWN", T, "unavailable", NE, "Redis Cluster down", boundary=True),
    Word("Another git process seems to be running", T, "locked", NE, "git index.lock"),
    Word("answered SERVFAIL", T, "dns", NE, "dnspython NoNameservers (rcode 2)"),
    Word("SERVFAIL", T, "dns", NE, "DNS rcode 2 (RFC 1035)", boundary=True),
    Word("Error reading SSH protocol banner", T, "connection", UO, "paramiko"),
    Word("Unable to connect to port", T, "connection_refused", NE, "paramiko NoValidConnectionsError"),
    Word("(try again later)", T, "unavailable", NE, "WebSocket close 1013 (RFC 6455 registry)"),
    Word("(service restart)", T, "unavailable", NE, "WebSocket close 1012"),
    Word("(internal error)", T, "server_error", UO, "WebSocket close 1011"),
    Word("(going away)", T, "unavailable", UO, "WebSocket close 1001"),
    Word("es_rejected_execution_exception", T, "busy", NE, "Elasticsearch 429"),
    Word("circuit_breaking_exception", T, "busy", NE, "Elasticsearch 429 (memory pressure)"),
    Word("LEADER_NOT_AVAILABLE", T, "unavailable", NE, "Kafka error 5 (retriable)", boundary=True),
    Word("NOT_LEADER_OR_FOLLOWER", T, "unavailable", NE, "Kafka error 6 (retriable)", boundary=True),
    Word("NOT_LEADER_FOR_PARTITION", T, "unavailable", NE, "Kafka error 6 (retriable)", boundary=True),
    Word("REQUEST_TIMED_OUT", T, "timeout", UO, "Kafka error 7 (retriable)", boundary=True),
    Word("RESOURCE_LOCKED", T, "locked", NE, "AMQP 405 resource-locked", boundary=True),
    Word("CONNECTION_FORCED - ", T, "unavailable", UO, "AMQP 320 connection-forced (an operator)"),
    Word("RESOURCE_ERROR - ", T, "busy", NE, "AMQP 506 resource-error"),
    Word("INTERNAL_ERROR - ", T, "server_error", UO, "AMQP 541 internal-error"),
)

# ---------------------------------------------------------------------------------------------
# Arguments the model wrote, refused by a protocol or a parser.
# ---------------------------------------------------------------------------------------------

_F_WORDS: tuple[tuple[str, str, str], ...] = (
    ("WRONGTYPE", "bad_arguments", "Redis WRONGTYPE (a command for another type of key)"),
    ("CROSSSLOT", "bad_arguments", "Redis Cluster CROSSSLOT"),
    ("EXECABORT", "bad_arguments", "Redis EXECABORT (a queued command was refused)"),
    ("unknown command", "bad_arguments", "Redis 'ERR unknown command', SMTP/FTP 500"),
    ("wrong number of arguments", "bad_arguments", "Redis 'ERR wrong number of arguments'"),
    ("is not an integer or out of range", "bad_arguments", "Redis 'ERR value is not an integer'"),
    ("is not a valid float", "bad_arguments", "Redis 'ERR value is not a valid float'"),
    ("Syntax error", "syntax", "SMTP/FTP 500/501 'Syntax error', parsers"),
    ("yntax error in parameters", "syntax", "SMTP/FTP 501 (RFC 5321, RFC 959)"),
    ("ommand unrecognized", "syntax", "SMTP/FTP 500"),
    ("File name not allowed", "bad_arguments", "FTP 553 (RFC 959)"),
    ("ailbox name not allowed", "bad_arguments", "SMTP 553 (RFC 5321)"),
    ("(message too big)", "too_large", "WebSocket close 1009"),
    ("(invalid frame payload data)", "bad_arguments", "WebSocket close 1007"),
    ("answered FORMERR", "bad_arguments", "DNS rcode 1 (RFC 1035)"),
    ("MESSAGE_TOO_LARGE", "too_large", "Kafka error 10"),
    ("SYNTAX_ERROR - ", "syntax", "AMQP 502 syntax-error"),
    ("NOT_IMPLEMENTED - ", "bad_arguments", "AMQP 540 not-implemented (an option the broker lacks)"),
    ("mapper_parsing_exception", "validation", "Elasticsearch 400"),
    ("parsing_exception", "syntax", "Elasticsearch 400 query DSL"),
    ("illegal_argument_exception", "bad_arguments", "Elasticsearch 400"),
    ("action_request_validation_exception", "validation", "Elasticsearch 400"),
    ("query_shard_exception", "bad_arguments", "Elasticsearch 400"),
    ("alidation Failed", "validation", "GitHub 422 'Validation Failed'"),
    ("alidation failed", "validation", "'validation failed' (APIs, SMTP, schemas)"),
    ("is not a valid phone number", "bad_arguments", "Twilio 21211"),
    ("invalid_arguments", "bad_arguments", "Slack invalid_arguments"),
    # YAML (PyYAML, ruamel), TOML, XML, XPath, CSV, dates, regexes, images, data frames,
    # templates, JSON written by the model
    ("mapping values are not allowed here", "syntax", "PyYAML ScannerError"),
    ("while scanning a", "syntax", "PyYAML ScannerError"),
    ("while parsing a", "syntax", "PyYAML ParserError"),
    ("could not find expected ':'", "syntax", "PyYAML ScannerError"),
    ("that cannot start any token", "syntax", "PyYAML ScannerError"),
    ("found duplicate key", "syntax", "ruamel.yaml DuplicateKeyError"),
    ("(at line ", "syntax", "tomllib/tomli TOMLDecodeError '... (at line 1, column 5)'"),
    ("not well-formed (invalid token)", "syntax", "expat / ElementTree ParseError"),
    ("mismatched tag", "syntax", "expat / ElementTree ParseError"),
    ("unclosed token", "syntax", "expat / ElementTree ParseError"),
    ("junk after document element", "syntax", "expat / ElementTree ParseError"),
    ("no element found", "syntax", "expat / ElementTree ParseError"),
    ("Opening and ending tag mismatch", "syntax", "libxml2 (lxml XMLSyntaxError)"),
    ("Premature end of data", "syntax", "libxml2 (lxml XMLSyntaxError)"),
    ("StartTag: invalid element name", "syntax", "libxml2 (lxml XMLSyntaxError)"),
    ("Invalid expression", "syntax", "libxml2 XPath (lxml XPathEvalError)"),
    ("Undefined namespace prefix", "syntax", "libxml2 XPath"),
    ("Invalid predicate", "syntax", "libxml2 XPath"),
    ("new-line character seen in unquoted field", "syntax", "csv.Error"),
    ("field larger than field limit", "too_large", "csv.Error"),
    ("Unknown string format", "bad_arguments", "dateutil ParserError"),
    ("String does not contain a date", "bad_arguments", "dateutil ParserError"),
    ("unterminated character set", "syntax", "re.error"),
    ("unbalanced parenthesis", "syntax", "re.error"),
    ("missing ), unterminated subpattern", "syntax", "re.error"),
    ("look-behind requires fixed-width pattern", "syntax", "re.error"),
    ("multiple repeat at position", "syntax", "re.error"),
    ("bad escape", "syntax", "re.error"),
    ("cannot identify image file", "bad_arguments", "Pillow UnidentifiedImageError"),
    ("not in index", "bad_arguments", "pandas KeyError (a column the caller named)"),
    ("are in the [columns]", "bad_arguments", "pandas KeyError 'None of [...] are in the [columns]'"),
    ("unexpected end of template", "syntax", "Jinja2 TemplateSyntaxError"),
    ("Expecting property name enclosed in double quotes", "syntax", "json.JSONDecodeError"),
    ("Unterminated string starting at", "syntax", "json.JSONDecodeError"),
    ("Expecting ',' delimiter", "syntax", "json.JSONDecodeError"),
    ("Expecting ':' delimiter", "syntax", "json.JSONDecodeError"),
    ("Invalid control character at", "syntax", "json.JSONDecodeError"),
)
ARGUMENT_WORDS: tuple[Word, ...] = tuple(
    Word(
        text,
        F,
        family,
        None,
        source,
        boundary=text.isupper() and text.isalpha(),
    )
    for text, family, source in _F_WORDS
)

_U_WORDS: tuple[tuple[str, str, str], ...] = (
    ("NOAUTH", "auth", "Redis NOAUTH (a password is required)"),
    ("WRONGPASS", "auth", "Redis WRONGPASS"),
    ("NOPERM", "permission", "Redis ACL NOPERM"),
    ("READONLY You can't write", "read_only", "Redis READONLY (a replica)"),
    ("(policy violation)", "policy", "WebSocket close 1008"),
    ("answered REFUSED", "policy", "DNS rcode 5 (RFC 1035): the server refuses the query"),
    ("answered NOTIMP", "not_implemented", "DNS rcode 4 (RFC 1035)"),
    ("ACCESS_REFUSED", "permission", "AMQP 403 access-refused"),
    ("TOPIC_AUTHORIZATION_FAILED", "permission", "Kafka error 29"),
    ("GROUP_AUTHORIZATION_FAILED", "permission", "Kafka error 30"),
    ("SASL_AUTHENTICATION_FAILED", "auth", "Kafka error 58"),
    ("security_exception", "auth", "Elasticsearch 401/403"),
    ("invalid_auth", "auth", "Slack invalid_auth"),
    ("not_authed", "auth", "Slack not_authed"),
    ("account_inactive", "auth", "Slack account_inactive"),
    ("token_revoked", "auth", "Slack token_revoked"),
    ("token_expired", "auth", "Slack token_expired"),
    ("missing_scope", "permission", "Slack missing_scope"),
    ("no_permission", "permission", "Slack no_permission"),
    ("restricted_action", "permission", "Slack restricted_action"),
    ("Bad credentials", "auth", "GitHub 401 'Bad credentials'"),
    # an API key that is missing or refused, as SDKs and services word it
    ("PI key is invalid", "auth", "'The provided API key is invalid' (Google Maps, geocoders)"),
    ("PI key not valid", "auth", "Google 'API key not valid. Please pass a valid API key.'"),
    ("PI key is not valid", "auth", "'API key is not valid'"),
    ("ust provide API key", "auth", "googlemaps 'Must provide API key or enterprise credentials'"),
    ("ust provide an API key", "auth", "'You must provide an API key'"),
    ("equires an API key", "auth", "'this endpoint requires an API key'"),
    ("PI key is required", "auth", "'API key is required'"),
    ("issing API key", "auth", "'Missing API key'"),
    # MySQL / MariaDB server errors whose SQLSTATE (42000) is also the syntax errors'
    ("command denied to user", "permission", "MySQL 1142 / 1143 ER_TABLE/COLUMNACCESS_DENIED_ERROR"),
    ("_per_hour' resource", "quota", "MySQL 1226 ER_USER_LIMIT_REACHED for an hourly limit"),
    # rights the caller lacks, as messaging services word them inside a 400
    ("ermissions violation", "permission", "NATS '-ERR Permissions Violation for Publish to ...'"),
    ("ot enough rights", "permission", "Telegram Bot API 400 'not enough rights to ...'"),
    ("dministrator rights", "permission", "Telegram Bot API 400 'need administrator rights ...'"),
    # a library the tool needs is missing from the installation
    ("ptional dependency", "missing_dependency", "pandas 'Missing optional dependency 'x''"),
    # limits of the installation, not of the call
    ("for integer string conversion", "limit", "CPython int_max_str_digits (ValueError, 3.11+)"),
    ("larger than the maximum possible size", "memory", "NumPy 'array is too big' (ValueError)"),
    ("shards, but this cluster currently has", "quota", "Elasticsearch/OpenSearch max shards per node"),
)
AUTH_WORDS: tuple[Word, ...] = tuple(
    Word(text, U, family, None, source, boundary=text.replace("_", "").isalpha() and " " not in text)
    for text, family, source in _U_WORDS
)

# Phrasings of a validation that names the argument or the value it refused (the issue's
# "city must be a city name, got '12345'"), of state the caller cannot change, and of
# temporary refusals, as libraries and services word them.
_MUST_GUARD = r"\b(?:must|should|[Ee]xpected|[Ee]xpecting)\b[^\n]{0,160}\Z"
GENERIC_WORDS: tuple[Word, ...] = (
    Word("got '", F, "bad_arguments", None, "'X must be a Y, got 'v''", only_before=_MUST_GUARD),
    Word('got "', F, "bad_arguments", None, "'X must be a Y, got \"v\"'", only_before=_MUST_GUARD),
    Word("but should be", F, "bad_arguments", None, "'Argument days has type 'string' but should be ...'"),
    Word("must be '", F, "bad_arguments", None, "'side must be 'left' or 'right''"),
    Word("' must be", F, "bad_arguments", None, "''name' must be ...'"),
    Word('" must be', F, "bad_arguments", None, "'\"delimiter\" must be a 1-character string'"),
    Word("' is not supported", F, "bad_arguments", None, "'mode 'mirror' is not supported'"),
    Word("nvalid literal for", F, "bad_arguments", None, "int(), Fraction(), Decimal() literals"),
    Word("is an invalid keyword argument", F, "bad_arguments", None, "Python TypeError (C functions)"),
    Word("nknown option", F, "bad_arguments", None, "command-line tools, git"),
    Word("nknown parameter", F, "bad_arguments", None, "APIs and libraries"),
    Word("nknown subcommand", F, "bad_arguments", None, "Redis, CLIs"),
    Word("nknown function", F, "bad_arguments", None, "query languages (JMESPath, SQL)"),
    Word("nknown field", F, "bad_arguments", None, "APIs and schemas"),
    Word("nrecognized argument", F, "bad_arguments", None, "argparse 'unrecognized arguments'"),
    Word("nvalid choice", F, "bad_arguments", None, "argparse 'invalid choice'"),
    Word("is out of range", F, "bad_arguments", None, "'value is out of range'"),
    Word("could not be broadcast", F, "bad_arguments", None, "NumPy shape mismatch"),
    Word("nvalid value", F, "bad_arguments", None, "'Invalid value for X'"),
    Word("nvalid format", F, "bad_arguments", None, "'Invalid format'"),
    Word("is not verified", U, "account", None, "sender and number verification (SES, Twilio)"),
    Word("is unverified", U, "account", None, "Twilio trial accounts"),
    Word("rial accounts", U, "account", None, "trial account limits"),
    Word("has not been enabled", U, "account", None, "features not enabled for the account"),
    Word("has not been activated", U, "account", None, "features not activated"),
    Word("been disabled", U, "account", None, "'X has been disabled', 'Payouts have been disabled'"),
    Word("reached the maximum number of", U, "quota", None, "resource limits of an account"),
    Word("nsufficient permissions", U, "permission", None, "APIs"),
    Word("nsufficient privileges", U, "permission", None, "databases, APIs"),
    Word("Not enough privileges", U, "permission", None, "FTP servers (pyftpdlib)"),
    Word("protected branch", U, "permission", None, "git hosting: pushes to a protected branch"),
    Word("refusing to update checked out branch", U, "config", None, "git push to a non-bare repository"),
    Word("Author identity unknown", U, "config", None, "git commit without user.name/user.email"),
    Word("tag:yaml.org,2002:python/", U, "policy", None, "PyYAML safe_load refuses Python tags"),
    Word("authorization has expired", U, "payment", None, "card authorizations (Stripe)"),
    Word("unsubscribed recipient", U, "policy", None, "SMS opt-out (Twilio 21610)"),
    Word("Limit of total fields", U, "quota", None, "Elasticsearch index.mapping.total_fields.limit"),
    Word("esource limit exceeded", U, "limit", None, "libxml2 (lxml) without XML_PARSE_HUGE"),
    Word("Excessive depth in document", U, "limit", None, "libxml2 (lxml) depth limit"),
    Word("amplification factor exceeded", U, "policy", None, "libxml2 (lxml) entity amplification"),
    Word("oken expired", U, "auth", None, "'token expired'"),
    Word("oken has expired", U, "auth", None, "'token has expired'"),
    Word("ry again in a ", T, "unavailable", NE, "'try again in a few minutes / a little bit'"),
    Word("NOREPLICAS", T, "unavailable", NE, "Redis NOREPLICAS", boundary=True),
    _stays("has already been", "conflict", "'has already been refunded / captured / sent'"),
    # a message that opens with "invalid" names what the caller sent wrong (Redis "ERR
    # invalid cursor", "Invalid stream ID"); credentials, tokens and keys have their own
    # unrecoverable words, which outrank it
    Word(
        "nvalid ",
        F,
        "bad_arguments",
        None,
        "'invalid X' at the start of a message",
        only_before=r"(?:^|[:(]\s*'?|ERR )\Z",
    ),
    Word("nvalid credentials", U, "auth", None, "'Invalid credentials'"),
    Word("nvalid access token", U, "auth", None, "OAuth"),
    Word("nvalid password", U, "auth", None, "'Invalid password'"),
    Word("nvalid username or password", U, "auth", None, "'Invalid username or password'"),
    Word("invalid_grant", U, "auth", None, "OAuth 2.0 (RFC 6749 5.2)"),
    Word("invalid_client", U, "auth", None, "OAuth 2.0 (RFC 6749 5.2)"),
    Word("must be authenticated", U, "auth", None, "'You must be authenticated'"),
    Word("must be logged in", U, "auth", None, "'You must be logged in'"),
    Word("is not a float", F, "bad_arguments", None, "Redis 'min or max is not a float'"),
    Word("can't be converted", F, "bad_arguments", None, "Redis, databases"),
    Word("are not compatible", F, "bad_arguments", None, "'X and Y options ... are not compatible'"),
    Word("is negative", F, "bad_arguments", None, "'timeout is negative'"),
    Word("is not a valid", F, "bad_arguments", None, "'... is not a valid branch name / value'"),
    Word("is not a git command", F, "bad_arguments", None, "git"),
    Word("not a git repository", F, "bad_arguments", None, "git (a path the caller gave)"),
    Word("nothing to amend", F, "bad_arguments", None, "git commit --amend"),
    Word("no tracking information", F, "bad_arguments", None, "git pull without an upstream"),
    Word("empty commit message", F, "bad_arguments", None, "git commit"),
    Word("You have unstaged changes", F, "state", None, "git rebase/pull with a dirty tree"),
    Word("patch failed", F, "bad_arguments", None, "git apply"),
    Word("corrupt patch", F, "bad_arguments", None, "git apply"),
    Word("refusing to merge unrelated histories", F, "bad_arguments", None, "git merge"),
    Word("not currently on a branch", F, "state", None, "git push from a detached HEAD"),
    Word("denying non-fast-forward", U, "policy", None, "git receive.denyNonFastForwards"),
    Word("denying ref deletion", U, "policy", None, "git receive.denyDeletes"),
    Word("pack exceeds maximum allowed size", U, "limit", None, "git receive.maxInputSize"),
    Word("answered NOTAUTH", U, "policy", None, "DNS rcode 9 (RFC 2845)"),
    Word("error: REFUSED", U, "policy", None, "dnspython zone transfer refused"),
    Word("error: NOTAUTH", U, "policy", None, "dnspython zone transfer not authoritative"),
    Word("not allowed. If the", U, "config", None, "Redis 'DEBUG command not allowed. If the enable-...'"),
    Word("MISCONF", U, "disk_full", None, "Redis cannot persist to disk", boundary=True),
    Word("is not mapped", F, "bad_arguments", None, "SQLAlchemy UnmappedInstanceError"),
)

PROTOCOL_WORDS: tuple[Word, ...] = (
    *GENERIC_WORDS,
    *STATE_WORDS,
    *CONFLICT_WORDS,
    *TEMPORARY_WORDS,
    *ARGUMENT_WORDS,
    *AUTH_WORDS,
)

# ---------------------------------------------------------------------------------------------
# SaaS error codes (JSON bodies: ``error.code``/``error.type``, Slack's ``{"ok": false,
# "error": ...}`` on HTTP 200, Kubernetes' Status ``reason``).
# ---------------------------------------------------------------------------------------------

_R = tuple[RuleKind | None, str, RuleOutcome | None, str]
_SAAS: dict[str, _R] = {
    # Slack Web API (api.slack.com/web#errors, per-method error lists)
    "ratelimited": (T, "rate_limit", NE, "Slack"),
    "invalid_auth": (U, "auth", None, "Slack"),
    "not_authed": (U, "auth", None, "Slack"),
    "account_inactive": (U, "auth", None, "Slack"),
    "token_revoked": (U, "auth", None, "Slack"),
    "token_expired": (U, "auth", None, "Slack"),
    "missing_scope": (U, "permission", None, "Slack"),
    "no_permission": (U, "permission", None, "Slack"),
    "restricted_action": (U, "permission", None, "Slack"),
    "invalid_arguments": (F, "bad_arguments", None, "Slack"),
    "invalid_arg_name": (F, "bad_arguments", None, "Slack"),
    "invalid_array_arg": (F, "bad_arguments", None, "Slack"),
    "invalid_blocks": (F, "bad_arguments", None, "Slack"),
    "no_text": (F, "bad_arguments", None, "Slack chat.postMessage"),
    "msg_too_long": (F, "too_large", None, "Slack chat.postMessage"),
    "too_many_attachments": (F, "too_large", None, "Slack chat.postMessage"),
    "channel_not_found": (None, "not_found", None, "Slack"),
    "user_not_found": (None, "not_found", None, "Slack"),
    "message_not_found": (None, "not_found", None, "Slack"),
    "fatal_error": (T, "server_error", UO, "Slack"),
    "internal_error": (T, "server_error", UO, "Slack"),
    "service_unavailable": (T, "unavailable", NE, "Slack"),
    "request_timeout": (T, "timeout", UO, "Slack"),
    # Stripe (docs.stripe.com/error-codes)
    "rate_limit": (T, "rate_limit", NE, "Stripe"),
    "lock_timeout": (T, "db_locked", NE, "Stripe"),
    "resource_missing": (None, "not_found", None, "Stripe"),
    "parameter_missing": (F, "bad_arguments", None, "Stripe"),
    "parameter_unknown": (F, "bad_arguments", None, "Stripe"),
    "parameter_invalid_empty": (F, "bad_arguments", None, "Stripe"),
    "parameter_invalid_integer": (F, "bad_arguments", None, "Stripe"),
    "parameter_invalid_string_empty": (F, "bad_arguments", None, "Stripe"),
    "url_invalid": (F, "bad_arguments", None, "Stripe"),
    "amount_too_small": (F, "bad_arguments", None, "Stripe"),
    "amount_too_large": (F, "bad_arguments", None, "Stripe"),
    "incorrect_number": (F, "bad_arguments", None, "Stripe"),
    "invalid_number": (F, "bad_arguments", None, "Stripe"),
    "incorrect_cvc": (F, "bad_arguments", None, "Stripe"),
    "invalid_expiry_year": (F, "bad_arguments", None, "Stripe"),
    "email_invalid": (F, "bad_arguments", None, "Stripe"),
    "card_declined": (U, "payment", None, "Stripe"),
    "expired_card": (U, "payment", None, "Stripe"),
    "insufficient_funds": (U, "quota", None, "Stripe"),
    "balance_insufficient": (U, "quota", None, "Stripe"),
    "account_invalid": (U, "auth", None, "Stripe"),
    "api_key_expired": (U, "auth", None, "Stripe"),
    "platform_api_key_expired": (U, "auth", None, "Stripe"),
    "secret_key_required": (U, "auth", None, "Stripe"),
    "testmode_charges_only": (U, "account", None, "Stripe"),
    "idempotency_key_in_use": (None, "conflict", None, "Stripe (a concurrent request with the same key)"),
    "payment_intent_unexpected_state": (None, "state", None, "Stripe"),
    "invalid_cvc": (F, "bad_arguments", None, "Stripe"),
    "invalid_expiry_month": (F, "bad_arguments", None, "Stripe"),
    "processing_error": (T, "server_error", NE, "Stripe (the card could not be processed; retry)"),
    # Elasticsearch error types (error.type)
    "es_rejected_execution_exception": (T, "busy", NE, "Elasticsearch"),
    "circuit_breaking_exception": (T, "busy", NE, "Elasticsearch"),
    "index_not_found_exception": (None, "not_found", None, "Elasticsearch"),
    "resource_already_exists_exception": (None, "conflict", None, "Elasticsearch"),
    "version_conflict_engine_exception": (None, "conflict", None, "Elasticsearch"),
    "document_missing_exception": (None, "not_found", None, "Elasticsearch"),
    "mapper_parsing_exception": (F, "validation", None, "Elasticsearch"),
    "parsing_exception": (F, "syntax", None, "Elasticsearch"),
    "illegal_argument_exception": (F, "bad_arguments", None, "Elasticsearch"),
    "action_request_validation_exception": (F, "validation", None, "Elasticsearch"),
    "security_exception": (U, "auth", None, "Elasticsearch"),
    # Kubernetes Status reasons (k8s.io/apimachinery metav1.StatusReason)
    "AlreadyExists": (None, "conflict", None, "Kubernetes"),
    "Conflict": (None, "conflict", None, "Kubernetes"),
    "Invalid": (F, "validation", None, "Kubernetes 422"),
    "NotFound": (None, "not_found", None, "Kubernetes"),
    "Gone": (None, "gone", None, "Kubernetes 410 (resourceVersion too old)"),
    "ServerTimeout": (T, "timeout", UO, "Kubernetes"),
    "TooManyRequests": (T, "rate_limit", NE, "Kubernetes 429"),
    # GitHub REST errors[].code
    "already_exists": (None, "conflict", None, "GitHub 422"),
}
SAAS_ERROR_CODES: dict[str, CodeRule] = {
    code: CodeRule(kind, family, outcome, source, decisive=kind is None)
    for code, (kind, family, outcome, source) in _SAAS.items()
}

# ---------------------------------------------------------------------------------------------
# SMTP (RFC 5321 4.2, enhanced codes RFC 3463) and FTP (RFC 959 4.2) replies: a 4yz reply
# is a transient refusal, a 5yz a permanent one, and the middle digit says what failed.
# Read from smtplib's ``smtp_code`` and ftplib's message, never as HTTP.
# ---------------------------------------------------------------------------------------------

REPLY_CODES: dict[int, CodeRule] = {
    421: CodeRule(T, "unavailable", NE, "SMTP/FTP 421 service not available"),
    425: CodeRule(T, "connection", NE, "FTP 425 cannot open data connection"),
    426: CodeRule(T, "connection", UO, "FTP 426 transfer aborted"),
    450: CodeRule(T, "busy", NE, "SMTP/FTP 450 mailbox/file unavailable (busy)"),
    451: CodeRule(T, "server_error", UO, "SMTP/FTP 451 local error in processing"),
    452: CodeRule(T, "busy", NE, "SMTP 452 insufficient system storage (transient), FTP 452"),
    454: CodeRule(T, "unavailable", NE, "SMTP 454 TLS/auth temporarily unavailable (RFC 4954)"),
    500: CodeRule(F, "syntax", None, "SMTP/FTP 500 syntax error, command unrecognised"),
    501: CodeRule(F, "syntax", None, "SMTP/FTP 501 syntax error in parameters or arguments"),
    502: CodeRule(U, "not_implemented", None, "SMTP/FTP 502 command not implemented"),
    503: CodeRule(None, "sequence", None, "SMTP/FTP 503 bad sequence of commands (the tool's order)"),
    504: CodeRule(F, "bad_arguments", None, "SMTP/FTP 504 command not implemented for that parameter"),
    530: CodeRule(U, "auth", None, "SMTP 530 authentication required, FTP 530 not logged in"),
    532: CodeRule(U, "auth", None, "FTP 532 need account for storing files"),
    534: CodeRule(U, "auth", None, "SMTP 534 authentication mechanism too weak"),
    535: CodeRule(U, "auth", None, "SMTP 535 authentication credentials invalid"),
    538: CodeRule(U, "auth", None, "SMTP 538 encryption required"),
    550: CodeRule(None, "not_found", None, "SMTP/FTP 550 mailbox/file unavailable (missing or refused)"),
    551: CodeRule(None, "not_found", None, "SMTP 551 user not local"),
    552: CodeRule(U, "disk_full", None, "SMTP/FTP 552 exceeded storage allocation"),
    553: CodeRule(F, "bad_arguments", None, "SMTP 553 mailbox name not allowed, FTP 553 file name"),
    554: CodeRule(None, "rejected", None, "SMTP 554 transaction failed (policy or content)"),
    555: CodeRule(F, "syntax", None, "SMTP 555 MAIL/RCPT parameters not recognised"),
}
# RFC 3463 enhanced status codes: class.subject.detail; the most specific first.
ENHANCED_CODES: dict[str, CodeRule] = {
    "5.1.1": CodeRule(None, "not_found", None, "RFC 3463 bad destination mailbox address"),
    "5.1.3": CodeRule(F, "bad_arguments", None, "RFC 3463 bad destination mailbox address syntax"),
    "5.2.2": CodeRule(U, "disk_full", None, "RFC 3463 mailbox full"),
    "5.3.4": CodeRule(F, "too_large", None, "RFC 3463 message too big for system"),
    "5.7": CodeRule(U, "policy", None, "RFC 3463 security or policy status"),
    "4": CodeRule(T, "unavailable", NE, "RFC 3463 persistent transient failure"),
}

# WebSocket close codes (RFC 6455 7.4.1 and the IANA registry).
WEBSOCKET_CLOSE: dict[int, CodeRule] = {
    1001: CodeRule(T, "unavailable", UO, "going away"),
    1003: CodeRule(F, "bad_arguments", None, "unsupported data"),
    1006: CodeRule(T, "connection", UO, "abnormal closure"),
    1007: CodeRule(F, "bad_arguments", None, "invalid frame payload data"),
    1008: CodeRule(U, "policy", None, "policy violation"),
    1009: CodeRule(F, "too_large", None, "message too big"),
    1011: CodeRule(T, "server_error", UO, "internal error"),
    1012: CodeRule(T, "unavailable", NE, "service restart"),
    1013: CodeRule(T, "unavailable", NE, "try again later"),
    1014: CodeRule(T, "bad_gateway", UO, "bad gateway"),
    1015: CodeRule(U, "tls", None, "TLS handshake failure"),
}


# AMQP 0-9-1 reply codes (the protocol's constants, amqp0-9-1.xml; RabbitMQ's
# Channel.Close / Connection.Close), carried by pika's ConnectionClosed / ChannelClosed
# ``reply_code``. 403 access-refused is left to the words (a reserved name is also refused
# with it) and 530 not-allowed (a missing vhost, a connection limit) to the words and the class.
AMQP_REPLY: dict[int, CodeRule] = {
    311: CodeRule(T, "too_large", NE, "AMQP content-too-large (the server may accept it later)"),
    313: CodeRule(T, "unavailable", NE, "AMQP no-consumers"),
    320: CodeRule(T, "unavailable", UO, "AMQP connection-forced (an operator closed it)"),
    402: CodeRule(F, "bad_arguments", None, "AMQP invalid-path (a virtual host name)"),
    404: CodeRule(None, "not_found", None, "AMQP not-found", decisive=True),
    406: CodeRule(None, "conflict", None, "AMQP precondition-failed (declared otherwise)", decisive=True),
    501: CodeRule(U, "protocol", None, "AMQP frame-error (a frame over the negotiated limit)"),
    502: CodeRule(F, "syntax", None, "AMQP syntax-error"),
    # command-invalid: an exchange type the model mistyped, a plugin the broker lacks, a
    # client library's protocol error
    503: CodeRule(None, "command_invalid", None, "AMQP command-invalid", decisive=True),
    506: CodeRule(T, "busy", NE, "AMQP resource-error (the server lacks resources)"),
    540: CodeRule(F, "bad_arguments", None, "AMQP not-implemented (an option the broker lacks)"),
    541: CodeRule(T, "server_error", UO, "AMQP internal-error"),
}


# NATS JetStream API errors (``err_code``, beside an HTTP-like ``code``): nats-server's own
# table, server/errors.json (nats-io/nats-server, 2026-08); each source is its constant. Only
# the codes whose meaning the status class (``code``) would misread are listed: a limit, a
# resource or a feature of the server (unrecoverable), stored state (ambiguous: a name in use,
# an expected sequence, a missing stream or message), a configuration error sent as a 500
# (fixable), a temporary refusal. The rest (most: a 400 for a configuration the caller sent)
# keep the status's reading.
def _js(kind: RuleKind | None, family: str, source: str, outcome: RuleOutcome | None = None) -> CodeRule:
    return CodeRule(kind, family, outcome, f"NATS JetStream {source}", decisive=kind is None)


NATS_JETSTREAM: dict[int, CodeRule] = {
    10002: _js(U, "quota", "JSAccountResourcesExceededErr"),
    10004: _js(T, "unavailable", "JSClusterIncompleteErr", NE),
    10008: _js(T, "unavailable", "JSClusterNotAvailErr", NE),
    10009: _js(T, "unavailable", "JSClusterNotLeaderErr", NE),
    10010: _js(U, "not_enabled", "JSClusterRequiredErr"),
    10013: _js(None, "conflict", "JSConsumerNameExistErr"),
    10014: _js(None, "not_found", "JSConsumerNotFoundErr"),
    10023: _js(U, "resources", "JSInsufficientResourcesErr"),
    10026: _js(U, "quota", "JSMaximumConsumersLimitErr"),
    10027: _js(U, "quota", "JSMaximumStreamsLimitErr"),
    10028: _js(U, "resources", "JSMemoryResourcesExceededErr"),
    10035: _js(U, "config", "JSNoAccountErr"),
    10036: _js(U, "not_enabled", "JSClusterUnSupportFeatureErr"),
    10037: _js(None, "not_found", "JSNoMessageFoundErr"),
    10039: _js(U, "not_enabled", "JSNotEnabledForAccountErr"),
    10043: _js(None, "not_found", "JSSequenceNotFoundErrF"),
    10047: _js(U, "disk_full", "JSStorageResourcesExceededErr"),
    10052: _js(F, "bad_arguments", "JSStreamInvalidConfigF (a 500)"),
    10058: _js(None, "conflict", "JSStreamNameExistErr"),
    10059: _js(None, "not_found", "JSStreamNotFoundErr"),
    10060: _js(None, "conflict", "JSStreamNotMatchErr"),
    10063: _js(None, "conflict", "JSStreamSequenceNotMatchErr (a 503)"),
    10065: _js(None, "conflict", "JSStreamSubjectOverlapErr"),
    10068: _js(None, "not_found", "JSStreamTemplateNotFoundErr"),
    10070: _js(None, "conflict", "JSStreamWrongLastMsgIDErrF"),
    10071: _js(None, "conflict", "JSStreamWrongLastSequenceErrF"),
    10074: _js(F, "bad_arguments", "JSStreamReplicasNotSupportedErr (a 500)"),
    10076: _js(U, "not_enabled", "JSNotEnabledErr"),
    10100: _js(None, "conflict", "JSConsumerWQConsumerNotUniqueErr"),
    10105: _js(None, "conflict", "JSConsumerExistingActiveErr"),
    10109: _js(U, "policy", "JSStreamSealedErr"),
    10120: _js(U, "config", "JSNoLimitsErr"),
    10124: _js(T, "busy", "JSStreamMoveInProgressErr", NE),
    10130: _js(None, "conflict", "JSStreamNameExistRestoreFailedErr"),
    10148: _js(None, "conflict", "JSConsumerAlreadyExists"),
    10149: _js(None, "not_found", "JSConsumerDoesNotExist"),
    10158: _js(None, "conflict", "JSStreamDuplicateMessageConflict"),
    10163: _js(T, "unavailable", "JSStreamExpectedLastSeqPerSubjectNotReady", NE),
    10164: _js(None, "conflict", "JSStreamWrongLastSequenceConstantErr"),
    10166: _js(U, "not_enabled", "JSMessageTTLDisabledErr"),
    10167: _js(T, "rate_limit", "JSStreamTooManyRequests", NE),
    10168: _js(U, "not_enabled", "JSMessageIncrDisabledErr"),
    10174: _js(U, "not_enabled", "JSAtomicPublishDisabledErr"),
    10180: _js(None, "conflict", "JSStreamMinLastSeqErr (a 412)"),
    10185: _js(U, "not_enabled", "JSRequiredApiLevelErr"),
    10188: _js(U, "not_enabled", "JSMessageSchedulesDisabledErr"),
    10202: _js(T, "busy", "JSClusterServerMemberChangeInflightErr", NE),
    10205: _js(U, "not_enabled", "JSBatchPublishDisabledErr"),
    10208: _js(None, "not_found", "JSBatchPublishUnknownBatchIDErr"),
    10210: _js(T, "rate_limit", "JSAtomicPublishTooManyInflight", NE),
    10211: _js(T, "rate_limit", "JSBatchPublishTooManyInflight", NE),
    10226: _js(T, "busy", "JSStreamReconfigureInProgressErr", NE),
}

# ---------------------------------------------------------------------------------------------
# Exception classes of protocol clients, SaaS SDKs and parsers.
# ---------------------------------------------------------------------------------------------

_P = "syntax"
PROTOCOL_EXCEPTIONS: tuple[ExceptionRule, ...] = (
    # redis-py (redis.exceptions)
    ExceptionRule("redis", "AuthenticationError", U, "auth", None, source="redis-py"),
    ExceptionRule("redis", "AuthenticationWrongNumberOfArgsError", U, "auth", None, source="redis-py"),
    ExceptionRule("redis", "AuthorizationError", U, "permission", None, source="redis-py"),
    ExceptionRule("redis", "NoPermissionError", U, "permission", None, source="redis-py NOPERM"),
    ExceptionRule("redis", "ReadOnlyError", U, "read_only", None, source="redis-py READONLY"),
    ExceptionRule("redis", "OutOfMemoryError", U, "memory", None, source="redis-py OOM"),
    ExceptionRule("redis", "BusyLoadingError", T, "unavailable", NE, source="redis-py LOADING"),
    ExceptionRule("redis", "MaxConnectionsError", T, "busy", NE, source="redis-py pool exhausted"),
    ExceptionRule("redis", "TimeoutError", T, "timeout", UO, source="redis-py socket timeout"),
    ExceptionRule("redis", "ConnectionError", T, "connection", None, source="redis-py (the cause decides)"),
    ExceptionRule("redis", "ClusterDownError", T, "unavailable", NE, source="redis-py CLUSTERDOWN"),
    ExceptionRule("redis", "TryAgainError", T, "unavailable", NE, source="redis-py TRYAGAIN"),
    ExceptionRule("redis", "MasterDownError", T, "unavailable", NE, source="redis-py MASTERDOWN"),
    ExceptionRule("redis", "DataError", F, "bad_arguments", None, source="redis-py (an argument's type)"),
    ExceptionRule("redis", "ExecAbortError", F, "bad_arguments", None, source="redis-py EXECABORT"),
    ExceptionRule(
        "redis", "ResponseError", None, "redis", None, source="redis-py (the reply's prefix decides)"
    ),
    # smtplib (the reply code decides where there is one)
    ExceptionRule("smtplib", "SMTPAuthenticationError", U, "auth", None, source="smtplib 535/534"),
    ExceptionRule("smtplib", "SMTPNotSupportedError", U, "not_implemented", None, source="smtplib"),
    ExceptionRule("smtplib", "SMTPServerDisconnected", T, "connection", UO, source="smtplib"),
    ExceptionRule("smtplib", "SMTPException", None, "smtp", None, source="smtplib (reply codes decide)"),
    # ftplib (error_temp: 4yz, error_perm: 5yz; the reply code decides)
    ExceptionRule("ftplib", "error_temp", T, "unavailable", NE, source="ftplib 4yz reply"),
    ExceptionRule("ftplib", "Error", None, "ftp", None, source="ftplib (reply codes decide)"),
    # paramiko, asyncssh
    ExceptionRule("paramiko", "BadHostKeyException", U, "host_key", None, source="paramiko"),
    ExceptionRule("paramiko", "AuthenticationException", U, "auth", None, source="paramiko"),
    ExceptionRule("paramiko", "NoValidConnectionsError", T, "connection_refused", NE, source="paramiko"),
    ExceptionRule("asyncssh", "PermissionDenied", U, "auth", None, source="asyncssh"),
    ExceptionRule("asyncssh", "HostKeyNotVerifiable", U, "host_key", None, source="asyncssh"),
    ExceptionRule("asyncssh", "ConnectionLost", T, "connection", UO, source="asyncssh"),
    # dnspython
    ExceptionRule("dns", "NXDOMAIN", None, "not_found", None, True, "dnspython NXDOMAIN (rcode 3)"),
    ExceptionRule("dns", "NoAnswer", None, "not_found", None, True, "dnspython NoAnswer (no record)"),
    ExceptionRule("dns", "Timeout", T, "dns", NE, source="dnspython resolution lifetime expired"),
    ExceptionRule("dns.name", "LabelTooLong", F, "bad_arguments", None, source="dnspython"),
    ExceptionRule("dns.name", "NameTooLong", F, "bad_arguments", None, source="dnspython"),
    ExceptionRule("dns.name", "EmptyLabel", F, "bad_arguments", None, source="dnspython"),
    ExceptionRule("dns.name", "BadEscape", F, "bad_arguments", None, source="dnspython"),
    ExceptionRule("dns.rdatatype", "UnknownRdatatype", F, "bad_arguments", None, source="dnspython"),
    # websockets (close codes decide; the handshake's status is an HTTP status)
    ExceptionRule("websockets", "InvalidURI", F, "bad_url", None, source="websockets"),
    ExceptionRule("websockets", "ConnectionClosed", None, "connection", None, source="websockets"),
    # pika (AMQP), kafka-python
    ExceptionRule("pika", "ProbableAuthenticationError", U, "auth", None, source="pika"),
    ExceptionRule("pika", "ProbableAccessDeniedError", U, "permission", None, source="pika"),
    ExceptionRule("pika", "AMQPConnectionError", T, "connection", NE, source="pika"),
    ExceptionRule("pika", "StreamLostError", T, "connection", UO, source="pika"),
    ExceptionRule("kafka", "NoBrokersAvailable", T, "unavailable", NE, source="kafka-python"),
    ExceptionRule("kafka", "KafkaTimeoutError", T, "timeout", UO, source="kafka-python"),
    # pymongo
    ExceptionRule("pymongo", "DuplicateKeyError", None, "conflict", None, True, "pymongo E11000"),
    ExceptionRule("pymongo", "ServerSelectionTimeoutError", T, "unavailable", NE, source="pymongo"),
    ExceptionRule("pymongo", "NetworkTimeout", T, "timeout", UO, source="pymongo"),
    ExceptionRule("pymongo", "ExecutionTimeout", None, "command_timeout", None, True, "pymongo maxTimeMS"),
    ExceptionRule("pymongo", "DocumentTooLarge", F, "too_large", None, source="pymongo"),
    ExceptionRule("pymongo", "InvalidName", F, "bad_arguments", None, source="pymongo"),
    # GitPython: the command's stderr decides
    ExceptionRule("git", "GitCommandError", None, "exit_code", None, source="GitPython (stderr decides)"),
    ExceptionRule("git", "GitCommandNotFound", U, "config", None, source="GitPython: no git binary"),
    # SQLAlchemy's own errors (its PEP 249 wrappers are read through the driver's error)
    ExceptionRule("sqlalchemy", "NotSupportedError", U, "not_implemented", None, source="PEP 249"),
    ExceptionRule("sqlalchemy", "CompileError", F, "syntax", None, source="SQLAlchemy (the statement)"),
    ExceptionRule("sqlalchemy", "ArgumentError", F, "bad_arguments", None, source="SQLAlchemy"),
    ExceptionRule(
        "sqlalchemy", "NoSuchTableError", F, "undefined_name", None, source="SQLAlchemy reflection"
    ),
    ExceptionRule("sqlalchemy", "NoReferencedTableError", F, "undefined_name", None, source="SQLAlchemy"),
    ExceptionRule("git", "InvalidGitRepositoryError", F, "bad_arguments", None, source="GitPython"),
    ExceptionRule("git", "NoSuchPathError", None, "not_found", None, True, "GitPython"),
    # SaaS and cloud SDKs (the status and the body's codes decide the rest)
    ExceptionRule("stripe", "RateLimitError", T, "rate_limit", NE, source="stripe"),
    ExceptionRule("stripe", "AuthenticationError", U, "auth", None, source="stripe"),
    ExceptionRule("stripe", "PermissionError", U, "permission", None, source="stripe"),
    ExceptionRule("stripe", "SignatureVerificationError", U, "auth", None, source="stripe"),
    ExceptionRule("stripe", "IdempotencyError", None, "conflict", None, True, "stripe"),
    ExceptionRule("stripe", "APIConnectionError", T, "connection", None, source="stripe"),
    ExceptionRule("github", "BadCredentialsException", U, "auth", None, source="PyGithub"),
    ExceptionRule("github", "TwoFactorException", U, "auth", None, source="PyGithub"),
    ExceptionRule("github", "BadUserAgentException", U, "config", None, source="PyGithub"),
    ExceptionRule("github", "RateLimitExceededException", T, "rate_limit", NE, source="PyGithub"),
    ExceptionRule("github", "UnknownObjectException", None, "not_found", None, True, "PyGithub 404"),
    ExceptionRule("docker", "NotFound", None, "not_found", None, True, "docker SDK 404"),
    ExceptionRule("docker", "ContainerError", None, "exit_code", None, True, "docker SDK non-zero exit"),
    ExceptionRule("docker", "InvalidArgument", F, "bad_arguments", None, source="docker SDK"),
    ExceptionRule(
        "huggingface_hub", "RepositoryNotFoundError", None, "not_found", None, True, "huggingface_hub"
    ),
    ExceptionRule(
        "huggingface_hub", "RevisionNotFoundError", None, "not_found", None, True, "huggingface_hub"
    ),
    ExceptionRule("huggingface_hub", "EntryNotFoundError", None, "not_found", None, True, "huggingface_hub"),
    ExceptionRule("huggingface_hub", "GatedRepoError", U, "permission", None, source="huggingface_hub"),
    ExceptionRule("elasticsearch", "ConnectionTimeout", T, "timeout", UO, source="elasticsearch-py"),
    ExceptionRule("elastic_transport", "ConnectionTimeout", T, "timeout", UO, source="elastic-transport"),
    ExceptionRule("elastic_transport", "ConnectionError", T, "connection", None, source="elastic-transport"),
    # parsers of what the model wrote (YAML, TOML, XML, XPath, CSV, dates, regexes, images,
    # templates, queries)
    ExceptionRule("yaml", "YAMLError", F, _P, None, source="PyYAML"),
    ExceptionRule("yaml", "ScannerError", F, _P, None, source="PyYAML (printed name)"),
    ExceptionRule("yaml", "ParserError", F, _P, None, source="PyYAML (printed name)"),
    ExceptionRule("yaml", "ComposerError", F, _P, None, source="PyYAML (printed name)"),
    ExceptionRule("yaml", "ConstructorError", F, _P, None, source="PyYAML (printed name)"),
    ExceptionRule("ruamel", "YAMLError", F, _P, None, source="ruamel.yaml"),
    ExceptionRule("ruamel", "MarkedYAMLError", F, _P, None, source="ruamel.yaml"),
    ExceptionRule("tomllib", "TOMLDecodeError", F, _P, None, source="tomllib"),
    ExceptionRule("tomli", "TOMLDecodeError", F, _P, None, source="tomli"),
    ExceptionRule("toml", "TomlDecodeError", F, _P, None, source="toml"),
    ExceptionRule("tomlkit", "ParseError", F, _P, None, source="tomlkit"),
    ExceptionRule("xml.etree.ElementTree", "ParseError", F, _P, None, source="ElementTree"),
    ExceptionRule("xml.parsers.expat", "ExpatError", F, _P, None, source="pyexpat"),
    ExceptionRule("pyexpat", "ExpatError", F, _P, None, source="pyexpat"),
    ExceptionRule(
        "defusedxml", "DefusedXmlException", F, _P, None, source="defusedxml (forbidden constructs)"
    ),
    ExceptionRule("lxml.etree", "XMLSyntaxError", F, _P, None, source="lxml"),
    ExceptionRule("lxml.etree", "XPathError", F, _P, None, source="lxml XPathEvalError/XPathSyntaxError"),
    ExceptionRule("lxml.etree", "XSLTParseError", F, _P, None, source="lxml"),
    ExceptionRule("lxml.etree", "DocumentInvalid", F, "validation", None, source="lxml schema validation"),
    ExceptionRule("_csv", "Error", F, _P, None, source="csv.Error"),
    ExceptionRule("dateutil", "ParserError", F, "bad_arguments", None, source="dateutil"),
    ExceptionRule("re", "error", F, _P, None, source="re.error"),
    ExceptionRule("re", "PatternError", F, _P, None, source="re.PatternError (3.13)"),
    ExceptionRule("regex", "error", F, _P, None, source="regex"),
    ExceptionRule("PIL", "UnidentifiedImageError", F, "bad_arguments", None, source="Pillow"),
    ExceptionRule("jinja2", "TemplateSyntaxError", F, _P, None, source="Jinja2"),
    ExceptionRule(
        "jinja2", "UndefinedError", F, "bad_arguments", None, source="Jinja2 (a name the template uses)"
    ),
    ExceptionRule("jmespath", "ParseError", F, _P, None, source="jmespath"),
    ExceptionRule("jsonpath_ng", "JsonPathParserError", F, _P, None, source="jsonpath-ng"),
    ExceptionRule("jsonpath_ng", "JsonPathLexerError", F, _P, None, source="jsonpath-ng"),
    ExceptionRule("sqlglot", "ParseError", F, _P, None, source="sqlglot"),
    ExceptionRule("sqlglot", "TokenError", F, _P, None, source="sqlglot"),
    ExceptionRule(
        "pandas", "UndefinedVariableError", F, "bad_arguments", None, source="pandas DataFrame.query"
    ),
    ExceptionRule(
        "email_validator", "EmailNotValidError", F, "bad_arguments", None, source="email-validator"
    ),
    ExceptionRule("phonenumbers", "NumberParseException", F, "bad_arguments", None, source="phonenumbers"),
)

# Bare exception names printed without their module that several libraries give different
# meanings (httpx's ReadError is a network error, tarfile's a bad archive; redis-py's
# ResponseError is the server's error reply, urllib3's too many error responses): only a
# qualified name is looked up.
AMBIGUOUS_BARE_NAMES: frozenset[str] = frozenset(
    {
        "ReadError",
        "WriteError",
        "ResponseError",
        "RetryError",
        "ProtocolError",
        "DataError",
        "ParseError",
        "ConnectionClosedError",
        "NotSupportedError",
        "CompileError",
        "ArgumentError",
    }
)

# A reply line of SMTP or FTP: a code followed by one of these is that protocol's reply, not
# an HTTP status ("500 Syntax error, command unrecognized", "530 Login incorrect.").
REPLY_PHRASE = (
    r"[ \t-](?:Syntax error|Login incorrect|Not logged in|Bad sequence|Requested (?:file )?action"
    r"|Requested mail action|Service not available|Can't open data connection|Connection closed; transfer"
    r"|Command not implemented|Command unrecognized|Permission denied|No such file|[Mm]ailbox"
    r"|Authentication|Relay|User unknown|Recipient|Sender|Transaction failed|Insufficient|Exceeded storage"
    r"|File name not allowed|Too many connections|Please login|Need account|Local error|Error on input file"
    r"|[245]\.\d{1,3}\.\d{1,3}\b)"
)

# ---------------------------------------------------------------------------------------------
# The words of an error code or exception name that no table knows (``SendingPausedException``,
# ``invalid_blocks_format``, ``MailFromDomainNotVerified``), split at case changes and
# underscores; the first group with a phrase decides (a name that says "not found" or
# "already exists" stays ambiguous). The fallback where no rule decided.
# ---------------------------------------------------------------------------------------------

NAME_PHRASES: tuple[tuple[RuleKind | None, str, RuleOutcome | None, tuple[str, ...]], ...] = (
    (
        None,
        "not_found",
        None,
        ("not found", "notfound", "no such", "does not exist", "missing resource", "resource missing"),
    ),
    (
        None,
        "conflict",
        None,
        ("already exists", "exists", "conflict", "in use", "duplicate", "duplicates", "already"),
    ),
    (
        U,
        "permission",
        None,
        (
            "access denied",
            "denied",
            "forbidden",
            "unauthorized",
            "unauthenticated",
            "not authorized",
            "permission",
            "not allowed",
            "disabled",
            "suspended",
            "paused",
            "account inactive",
            "revoked",
            "expired",
            "deprecated",
            "not verified",
            "unverified",
            "quota",
            "login required",
            "setup required",
            "restricted",
            "blocked",
            "unsafe",
            "credentials",
            "not enabled",
            "insufficient access",
            "insufficient privileges",
            "insufficient permissions",
            "insufficient scope",
            "no space",
            "invalid token",
            "invalid auth",
            "access key",
            "api key",
            "signature",
        ),
    ),
    (T, "rate_limit", NE, ("throttling", "throttled", "rate limit", "ratelimit", "ratelimited", "slow down")),
    (
        T,
        "unavailable",
        NE,
        ("unavailable", "overloaded", "busy", "too many requests", "try again", "unable to lock"),
    ),
    (T, "timeout", UO, ("timeout", "timed out", "running too long")),
    (
        F,
        "bad_arguments",
        None,
        (
            "invalid",
            "malformed",
            "too large",
            "too long",
            "too small",
            "too big",
            "bad request",
            "validation",
            "mismatch",
            "syntax",
            "parse",
            "unknown function",
            "unknown parameter",
            "unknown field",
            "unknown option",
            "missing parameter",
            "parameter missing",
            "bad value",
        ),
    ),
)

# A parser's message that names the file it read (``in "/etc/app/values.yaml"``,
# ``(sitemap.xml, line 3)``, ``cannot identify image file '/tmp/a.jpg'``): the input was a
# file on disk, not the model's argument, so the failure stays ambiguous.
FILE_INPUT = (
    r"""(?:in "|file '|\(|from ')(?!<)[^"'()\n]{0,200}\.(?:ya?ml|toml|xml|json|csv|tsv|jpe?g|png|gif|webp"""
    r"""|bmp|tiff?|html?|j2|jinja2?|txt|sql|ini|cfg|conf)\b"""
)
