"""ldap3 behind directory tools, against real OpenLDAP ``slapd`` processes (Debian package
slapd) that the module configures with a ``slapd.conf`` under its temporary directory (mdb
databases loaded with ``slapadd``, the schemas of /etc/ldap/schema, the overlays ``sssvlv``,
``ppolicy``, ``constraint`` and ``unique``, ACLs, per-identity limits, a read-only
database, a ``back-ldap`` proxy to a port nobody listens on and a database at its
``maxsize``) and starts on free 127.0.0.1 ports; a second ``slapd`` with ``idletimeout 1``
is stopped (``SIGSTOP``) and killed while the tools use it.

The tools (the server's URL, the service account ``cn=agent`` and the reporting account
``cn=reader`` are the tool's configuration): ``ldap_search``, ``ldap_lookup_person`` (a
``(uid=...)`` filter built from the model's uid), ``ldap_add_entry``, ``ldap_modify_entry``
(the model's changes as ``[operation, values]`` with ldap3's operation names),
``ldap_move_entry``, ``ldap_sorted_search`` (a server-side sort control,
RFC 2891), ``ldap_add_group_member``, ``ldap_report_search`` (as the reporting account),
``ldap_partner_lookup`` (the partners' directory behind the proxy), ``ldap_my_profile`` (the
user's own entry, bound as that user) and ``ldap_log_event`` (an entry in the audit
database) raise ldap3's own exceptions (``raise_exceptions=True``; the schema-checking
client reads the server's schema, ``get_info=SCHEMA``); ``ldap_create_user`` and
``ldap_import_users`` (users read from a JSON file the model names) use a client without
the schema (``get_info=NONE``), so the server checks; ``ldap_delete_entry``,
``ldap_find_people``, ``ldap_set_password``, ``ldap_change_own_password`` (RFC 3062
password modify) and ``ldap_authenticate`` (a simple bind as the user) read ldap3's result
dictionaries (``raise_exceptions=False``) and raise ``RuntimeError`` with the result's
description, code and message, as a tool checking ``conn.result`` would.

Labels by the cause set up (result codes: RFC 4511 appendix A,
https://www.rfc-editor.org/rfc/rfc4511#appendix-A; slapd's behaviour: the OpenLDAP admin
guide https://www.openldap.org/doc/admin25/ and the manual pages slapd.conf(5),
slapd.access(5), slapd-mdb(5), slapd-ldap(5), slapo-sssvlv(5), slapo-ppolicy(5),
slapo-constraint(5), slapo-unique(5); ldap3's exceptions:
https://ldap3.readthedocs.io/en/latest/exceptions.html):

- fixable: what the model wrote: a filter ldap3 cannot parse (``LDAPInvalidFilterError``),
  an attribute, object class, scope or DN that ldap3 refuses against the schema or the DN
  grammar (``LDAPAttributeError``, ``LDAPObjectClassError``, ``LDAPInvalidScopeError``,
  ``LDAPInvalidDnError``), a change list not in ldap3's form (``LDAPChangeError``), an
  attribute value that is not a string, an empty password (``LDAPPasswordIsMandatoryError``);
  and the server's refusals of it: objectClassViolation (a required attribute missing or
  removed, an attribute the classes do not allow), undefinedAttributeType,
  invalidAttributeSyntax, constraintViolation (a single-valued attribute given two values,
  a ``constraint`` overlay regex, an operational attribute, a password that fails the
  policy's quality check or is in its history), namingViolation (the RDN's value replaced),
  objectClassModsProhibited, invalidDNSyntax in a bind DN, unwillingToPerform for a DN with
  a trailing comma (outside every naming context) and for more sort keys than
  ``sssvlv-maxkeys``, inappropriateMatching / noSuchAttribute for a sort key without an
  ordering rule or not in the schema, sizeLimitExceeded for the model's ``size_limit``
  (ldap3 returns the entries it got; the tool refuses the partial result), and
  adminLimitExceeded for a substring filter no index serves (``size.unchecked``: an exact
  ``uid`` filter passes).
- ambiguous: an entry, parent, new superior or group the model named that does not exist
  (noSuchObject: deleted, never there or mistyped), conflicts with stored state
  (entryAlreadyExists, attributeOrValueExists for a member already there, noSuchAttribute
  for a value not there,
  notAllowedOnNonLeaf, a mail another entry holds: the ``unique`` overlay's
  constraintViolation), an alias whose target was deleted (aliasProblem), and bad data the
  tool READ from a JSON file the model named (a user without ``sn``, an object class not in
  the schema, an existing uid, a mail the ``constraint`` overlay refuses).
- unrecoverable: the tool's configured credentials (``LDAPBindError`` of ``auto_bind``,
  invalidCredentials, inappropriateAuthentication for an anonymous bind the server
  disallows), a user's wrong password (invalidCredentials) and a wrong old password
  (unwillingToPerform "unwilling to verify old password"), the ACLs
  (insufficientAccessRights: no write access to a parent, a new superior, another
  account's password), a user whose password must be
  changed first (ppolicy's ``pwdReset``), a read-only database (unwillingToPerform
  "operation restricted"), a database without the sort overlay (unavailableCriticalExtension),
  a rename between databases (affectsMultipleDSAs), a database at its ``maxsize`` (other
  "txn_commit failed"), StartTLS on a server without TLS, an authentication method the
  server does not offer (NTLM: authMethodNotSupported) or whose client package is missing
  (Kerberos without ``gssapi``: ``LDAPPackageUnavailableError``) and an installation without
  ``pyasn1`` (:mod:`libraries._pkgcopy`).
- transient: a refused connection and a host name that does not resolve
  (``LDAPSocketOpenError``), busy (another connection's paged sort holds the server's only
  sort slot, ``sssvlv-max 1``), unavailable (the proxy cannot reach the partners'
  directory), a connection the server closed for being idle (``idletimeout``:
  ``LDAPSessionTerminatedByServerError`` before the operation was read) and a bind on a new
  connection to a stopped server (the model's operation was never sent) -> not executed; a
  search or add on a bound connection to a stopped server (``LDAPSocketReceiveError``
  timed out) and a modify on a server killed while it held the request (reset) -> unknown
  outcome.

Not triggered: timeLimitExceeded (no operation runs long enough on a small database without
a slow backend), a server at its connection limit (slapd has none but the descriptor
table), referrals (ldap3 chases them), SASL DIGEST-MD5 / EXTERNAL (their texts come from the Cyrus SASL modules installed,
which vary), LDAPS to a plain port (the text holds ``_ssl.c`` line numbers), a server pool
exhausted (ldap3 waits ``POOLING_LOOP_TIMEOUT`` seconds between rounds) and the
sizeLimitExceeded / timeLimitExceeded exceptions (ldap3 never raises them: the result
dictionary carries them). A locked account (ppolicy) answers a bind exactly as a wrong
password does, so it is not a case of its own. Texts are OpenLDAP 2.5's (Debian 12).
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case

from . import _pkgcopy
from ._common import NE, UO, A, F, T, U, catch, free_port, wait_port

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "ldap3"
REQUIRES = ["ldap3==2.9.1"]

SUFFIX = "dc=example,dc=com"
PEOPLE = f"ou=people,{SUFFIX}"
GROUPS = f"ou=groups,{SUFFIX}"
SERVICES = f"ou=services,{SUFFIX}"
AGENT_DN, AGENT_PW = f"cn=agent,{SERVICES}", "agent-pw-7"
READER_DN, READER_PW = f"cn=reader,{SERVICES}", "reader-pw-7"
ROOT_DN, ROOT_PW = f"cn=admin,{SUFFIX}", "admin-pw-7"

_SEARCH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/bin", "/usr/local/sbin"])
_MODULES = Path("/usr/lib/ldap")
_SCHEMAS = Path("/etc/ldap/schema")
_NEEDED_MODULES = ("back_mdb", "back_ldap", "sssvlv", "ppolicy", "constraint", "unique")
_NEEDED_SCHEMAS = ("core", "cosine", "nis", "inetorgperson")

SEARCH, LOOKUP, ADD, MODIFY, MOVE = (
    "ldap_search",
    "ldap_lookup_person",
    "ldap_add_entry",
    "ldap_modify_entry",
    "ldap_move_entry",
)
SORTED, MEMBER, REPORT, PARTNER, PROFILE, LOG = (
    "ldap_sorted_search",
    "ldap_add_group_member",
    "ldap_report_search",
    "ldap_partner_lookup",
    "ldap_my_profile",
    "ldap_log_event",
)
CREATE, IMPORT, DELETE, FIND = (
    "ldap_create_user",
    "ldap_import_users",
    "ldap_delete_entry",
    "ldap_find_people",
)
SETPW, OWNPW, AUTH = "ldap_set_password", "ldap_change_own_password", "ldap_authenticate"


def _which(name: str) -> str | None:
    return shutil.which(name, path=_SEARCH)


def available() -> str | None:
    for name in ("slapd", "slapadd"):
        if _which(name) is None:
            return f"OpenLDAP's {name} is not installed (Debian package slapd)"
    for module in _NEEDED_MODULES:
        if not (_MODULES / f"{module}.so").exists():
            return f"slapd module {module} is not in {_MODULES} (Debian package slapd)"
    for schema in _NEEDED_SCHEMAS:
        if not (_SCHEMAS / f"{schema}.schema").exists():
            return f"schema {schema} is not in {_SCHEMAS} (Debian package slapd)"
    return None


NAMES = [
    "alice",
    "bob",
    "carol",
    "dave",
    "erin",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
    "niaj",
    "olivia",
    "peggy",
    "rupert",
    "sybil",
    "trent",
    "victor",
    "walter",
    "xena",
    "yusuf",
    "zoe",
]


def _people_ldif() -> str:
    blocks = []
    for i, name in enumerate(NAMES):
        blocks.append(
            f"dn: uid={name},{PEOPLE}\nobjectClass: inetOrgPerson\nuid: {name}\n"
            f"cn: {name.title()} Example\nsn: Example\nmail: {name}@example.com\n"
            f"telephoneNumber: +1 555 01{i:02d}\nemployeeNumber: {1000 + i}\n"
            f"userPassword: {name}-pw-1234\n"
        )
    return "\n".join(blocks)


MAIN_LDIF = f"""dn: {SUFFIX}
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: {PEOPLE}
objectClass: organizationalUnit
ou: people

dn: {GROUPS}
objectClass: organizationalUnit
ou: groups

dn: {SERVICES}
objectClass: organizationalUnit
ou: services

dn: ou=policies,{SUFFIX}
objectClass: organizationalUnit
ou: policies

dn: cn=default,ou=policies,{SUFFIX}
objectClass: organizationalRole
objectClass: pwdPolicy
cn: default
pwdAttribute: userPassword
pwdMinLength: 8
pwdCheckQuality: 2
pwdInHistory: 3
pwdLockout: TRUE
pwdMaxFailure: 3
pwdMustChange: TRUE
pwdAllowUserChange: TRUE

dn: {AGENT_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: agent
userPassword: {AGENT_PW}

dn: {READER_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: {READER_PW}

dn: cn=engineering,{GROUPS}
objectClass: groupOfNames
cn: engineering
member: uid=alice,{PEOPLE}

{_people_ldif()}
dn: uid=newhire,{PEOPLE}
objectClass: inetOrgPerson
uid: newhire
cn: New Hire
sn: Hire
userPassword: newhire-pw-1
pwdReset: TRUE

dn: ou=contractors,{PEOPLE}
objectClass: organizationalUnit
ou: contractors

dn: uid=temp1,ou=contractors,{PEOPLE}
objectClass: inetOrgPerson
uid: temp1
cn: Temp One
sn: One

dn: uid=former,{PEOPLE}
objectClass: alias
objectClass: extensibleObject
uid: former
aliasedObjectName: uid=gone,{PEOPLE}
"""

ARCHIVE_LDIF = """dn: o=archive
objectClass: organization
o: archive

dn: ou=people,o=archive
objectClass: organizationalUnit
ou: people

dn: uid=old,ou=people,o=archive
objectClass: account
uid: old
"""

AUDIT_LDIF = """dn: o=audit
objectClass: organization
o: audit
"""


def _config(base: Path, dead: int, idletimeout: int = 0) -> str:
    schemas = "".join(f"include {_SCHEMAS / f'{s}.schema'}\n" for s in _NEEDED_SCHEMAS)
    loads = "".join(f"moduleload {m}\n" for m in _NEEDED_MODULES)
    agent = f'dn.exact="{AGENT_DN}"'
    idle = f"idletimeout {idletimeout}\n" if idletimeout else ""
    return f"""{schemas}modulepath {_MODULES}
{loads}pidfile {base / "slapd.pid"}
argsfile {base / "slapd.args"}
disallow bind_anon
{idle}sizelimit 500

database mdb
suffix "{SUFFIX}"
rootdn "{ROOT_DN}"
rootpw {ROOT_PW}
directory {base / "main"}
maxsize 33554432
index objectClass eq
index uid eq
limits dn.exact="{AGENT_DN}" size=10
limits dn.exact="{READER_DN}" size.unchecked=5
overlay sssvlv
sssvlv-max 1
sssvlv-maxkeys 2
overlay ppolicy
ppolicy_default "cn=default,ou=policies,{SUFFIX}"
overlay constraint
constraint_attribute mail regex ^[a-z0-9.]+@example\\.com$
constraint_attribute description size 200
overlay unique
unique_uri ldap:///{PEOPLE}?mail?sub
access to dn.subtree="{PEOPLE}" attrs=userPassword
  by self write
  by anonymous auth
  by {agent} write
  by * none
access to attrs=userPassword
  by self write
  by anonymous auth
  by * none
access to dn.subtree="{PEOPLE}"
  by {agent} write
  by users read
access to dn.one="{GROUPS}" attrs=member
  by {agent} write
  by users read
access to *
  by users read
  by anonymous auth

database mdb
suffix "o=archive"
rootdn "cn=admin,o=archive"
rootpw {ROOT_PW}
directory {base / "archive"}
maxsize 1048576
readonly on
access to * by users read

database mdb
suffix "o=audit"
rootdn "cn=admin,o=audit"
rootpw {ROOT_PW}
directory {base / "audit"}
maxsize 131072
access to * by users write

database ldap
suffix "o=partners"
uri ldap://127.0.0.1:{dead}/
"""


@contextmanager
def _slapd(ctx: Context, name: str, idletimeout: int = 0) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A throwaway slapd on 127.0.0.1 (its configuration and databases under ``ctx.tmp``)."""
    slapd, slapadd = _which("slapd"), _which("slapadd")
    assert slapd is not None and slapadd is not None
    base = ctx.tmp / name
    for sub in ("main", "archive", "audit"):
        (base / sub).mkdir(parents=True)
    conf = base / "slapd.conf"
    conf.write_text(_config(base, ctx.dead, idletimeout))
    for suffix, text in (
        ("dc=example,dc=com", MAIN_LDIF),
        ("o=archive", ARCHIVE_LDIF),
        ("o=audit", AUDIT_LDIF),
    ):
        ldif = base / f"{suffix.split('=')[1].split(',')[0]}.ldif"
        ldif.write_text(text)
        done = subprocess.run(
            [slapadd, "-f", str(conf), "-b", suffix, "-l", str(ldif)], capture_output=True, timeout=60
        )
        if done.returncode != 0:
            raise RuntimeError(f"slapadd failed: {done.stderr[-2000:]!r}")
    port = free_port()
    ctx.name_port(port, "SLAPDPORT" if name == "main" else f"SLAPD{name.upper()}PORT")
    proc = subprocess.Popen(
        [slapd, "-f", str(conf), "-h", f"ldap://127.0.0.1:{port}/", "-d", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_port(port, timeout=30)
        yield port, proc
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
        proc.wait(timeout=10)


def _failed(operation: str, result: dict[str, Any]) -> RuntimeError:
    """The error a tool raises from ldap3's result dictionary (``raise_exceptions=False``)."""
    text = f"LDAP {operation} failed: {result['description']} (result {result['result']})"
    if result.get("message"):
        text += f": {result['message']}"
    if result.get("dn"):
        text += f" (matched DN {result['dn']})"
    return RuntimeError(text)


class _SortKey:
    """The server-side sort control's value (RFC 2891 SortKeyList), built with pyasn1 as
    ldap3 has no helper for it."""

    @staticmethod
    def control(keys: list[str], critical: bool = True) -> tuple[str, bool, bytes]:
        from pyasn1.codec.ber import encoder
        from pyasn1.type import namedtype, tag, univ

        class SortKey(univ.Sequence):
            componentType = namedtype.NamedTypes(
                namedtype.NamedType("attributeType", univ.OctetString()),
                namedtype.OptionalNamedType(
                    "orderingRule",
                    univ.OctetString().subtype(
                        implicitTag=tag.Tag(tag.tagClassContext, tag.tagFormatSimple, 0)
                    ),
                ),
                namedtype.DefaultedNamedType(
                    "reverseOrder",
                    univ.Boolean(False).subtype(
                        implicitTag=tag.Tag(tag.tagClassContext, tag.tagFormatSimple, 1)
                    ),
                ),
            )

        class SortKeyList(univ.SequenceOf):
            componentType = SortKey()

        value = SortKeyList()
        for key in keys:
            item = SortKey()
            item["attributeType"] = key.lstrip("-")
            if key.startswith("-"):
                item["reverseOrder"] = True
            value.append(item)
        return ("1.2.840.113556.1.4.473", critical, encoder.encode(value))


class Tools:
    """The agent's directory tools, configured for one slapd."""

    def __init__(self, port: int, tmp: Path) -> None:
        self.url = f"ldap://127.0.0.1:{port}"
        self.tmp = tmp
        self.kept: list[Any] = []

    def server(self, schema: bool = True, url: str | None = None) -> Any:
        from ldap3 import NONE, SCHEMA, Server

        return Server(url or self.url, get_info=SCHEMA if schema else NONE, connect_timeout=5)

    def conn(
        self,
        user: str | None = AGENT_DN,
        password: str | None = AGENT_PW,
        schema: bool = True,
        raise_exceptions: bool = True,
        receive_timeout: int = 10,
        url: str | None = None,
        **kw: Any,
    ) -> Any:
        from ldap3 import Connection

        conn = Connection(
            self.server(schema, url),
            user,
            password,
            auto_bind=True,
            raise_exceptions=raise_exceptions,
            receive_timeout=receive_timeout,
            **kw,
        )
        self.kept.append(conn)
        return conn

    def close(self) -> None:
        for conn in self.kept:
            try:
                conn.unbind()
            except Exception:
                pass
        self.kept.clear()

    # raise_exceptions=True, schema-checking client
    def search(self, a: dict[str, Any], conn: Any = None) -> Any:
        conn = conn or self.conn()
        conn.search(
            a["base"],
            a["filter"],
            search_scope=a.get("scope", "SUBTREE"),
            attributes=a.get("attributes", ["cn", "mail"]),
            size_limit=a.get("size_limit", 0),
            dereference_aliases=a.get("dereference_aliases", "ALWAYS"),
        )
        return conn.entries

    def lookup(self, a: dict[str, Any]) -> Any:
        conn = self.conn()
        conn.search(PEOPLE, f"(uid={a['uid']})", attributes=["cn", "mail", "telephoneNumber"])
        return conn.entries

    def add(self, a: dict[str, Any], conn: Any = None) -> Any:
        conn = conn or self.conn()
        return conn.add(a["dn"], a["object_class"], a.get("attributes", {}))

    def modify(self, a: dict[str, Any], conn: Any = None) -> Any:
        conn = conn or self.conn()
        changes = {attr: [(op, values)] for attr, (op, values) in a["changes"].items()}
        return conn.modify(a["dn"], changes)

    def move(self, a: dict[str, Any]) -> Any:
        return self.conn().modify_dn(a["dn"], a["new_rdn"], new_superior=a.get("new_superior"))

    def sorted_search(self, a: dict[str, Any]) -> Any:
        conn = self.conn()
        conn.search(a["base"], a["filter"], attributes=["cn"], controls=[_SortKey.control(a["sort_by"])])
        return conn.entries

    def add_member(self, a: dict[str, Any]) -> Any:
        from ldap3 import MODIFY_ADD

        group = f"cn={a['group']},{GROUPS}"
        return self.conn().modify(group, {"member": [(MODIFY_ADD, [f"uid={a['uid']},{PEOPLE}"])]})

    def report(self, a: dict[str, Any], password: str = READER_PW) -> Any:
        conn = self.conn(READER_DN, password)
        conn.search(SUFFIX, a["filter"], attributes=["cn"])
        return conn.entries

    def partner(self, a: dict[str, Any]) -> Any:
        conn = self.conn()
        conn.search("o=partners", f"(uid={a['uid']})", attributes=["cn", "mail"])
        return conn.entries

    def profile(self, a: dict[str, Any]) -> Any:
        dn = f"uid={a['uid']},{PEOPLE}"
        conn = self.conn(dn, a["password"])
        conn.search(dn, "(objectClass=*)", search_scope="BASE", attributes=["cn", "mail"])
        return conn.entries

    def log_event(self, a: dict[str, Any], n: int) -> Any:
        conn = self.conn(schema=False)
        return conn.add(
            f"cn=event-{n:05d},o=audit",
            ["device", "extensibleObject"],
            {"cn": f"event-{n:05d}", "description": f"{a['event']}: {a['detail']}"},
        )

    # raise_exceptions=True, no schema on the client: the server checks
    def create_user(self, a: dict[str, Any]) -> Any:
        conn = self.conn(schema=False)
        attrs = {"cn": a["cn"], "sn": a["sn"], "mail": a["mail"], **a.get("extra", {})}
        return conn.add(f"uid={a['uid']},{PEOPLE}", ["inetOrgPerson"], attrs)

    def import_users(self, a: dict[str, Any]) -> Any:
        conn = self.conn(schema=False)
        users = json.loads((self.tmp / a["path"]).read_text())
        for user in users:
            uid = user.pop("uid")
            classes = user.pop("objectClass", ["inetOrgPerson"])
            conn.add(f"uid={uid},{PEOPLE}", classes, user)
        return len(users)

    # result dictionaries (raise_exceptions=False)
    def delete(self, a: dict[str, Any], conn: Any = None) -> Any:
        conn = conn or self.conn(schema=False, raise_exceptions=False)
        if not conn.delete(a["dn"]):
            raise _failed("delete", conn.result)
        return True

    def find(self, a: dict[str, Any]) -> Any:
        conn = self.conn(schema=False, raise_exceptions=False)
        conn.search(PEOPLE, a["filter"], attributes=["cn", "mail"], size_limit=a.get("size_limit", 0))
        if conn.result["result"] != 0:
            raise _failed("search", conn.result)
        return conn.entries

    def set_password(self, a: dict[str, Any]) -> Any:
        conn = self.conn(schema=False, raise_exceptions=False)
        if not conn.extend.standard.modify_password(a["dn"], None, a["new_password"]):
            raise _failed("password modify", conn.result)
        return True

    def change_own_password(self, a: dict[str, Any]) -> Any:
        from ldap3 import Connection

        conn = Connection(
            self.server(False), f"uid={a['uid']},{PEOPLE}", a["old_password"], receive_timeout=10
        )
        self.kept.append(conn)
        if not conn.bind():
            raise _failed("bind", conn.result)
        if not conn.extend.standard.modify_password(None, a["old_password"], a["new_password"]):
            raise _failed("password modify", conn.result)
        return True

    def authenticate(self, a: dict[str, Any]) -> Any:
        from ldap3 import Connection

        conn = Connection(self.server(False), a["user_dn"], a["password"], receive_timeout=10)
        self.kept.append(conn)
        if not conn.bind():
            raise _failed("bind", conn.result)
        return True


Call = tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]


def _model_calls(t: Tools) -> list[Call]:
    """(slug, cause, kind, tool, the model's arguments, the call): what the model wrote."""
    p = PEOPLE

    def search(slug: str, cause: str, **a: Any) -> Call:
        return (slug, cause, F, SEARCH, a, lambda: t.search(a))

    def add(slug: str, cause: str, kind: str, dn: str, object_class: Any, attributes: dict[str, Any]) -> Call:
        a = {"dn": dn, "object_class": object_class, "attributes": attributes}
        return (slug, cause, kind, ADD, a, lambda: t.add(a))

    def modify(slug: str, cause: str, kind: str, dn: str, changes: dict[str, Any]) -> Call:
        a = {"dn": dn, "changes": changes}
        return (slug, cause, kind, MODIFY, a, lambda: t.modify(a))

    def call(
        slug: str, cause: str, kind: str, tool: str, fn: Callable[[dict[str, Any]], Any], **a: Any
    ) -> Call:
        return (slug, cause, kind, tool, a, lambda: fn(a))

    person = {"cn": "Zed Example", "sn": "Example"}
    return [
        search("filter-unbalanced", "filter missing its closing parenthesis", base=p, filter="(uid=alice"),
        search("filter-operator", "'~' is not a filter operator ('~=' is)", base=p, filter="(uid~alice)"),
        call(
            "lookup-parentheses",
            "uid with parentheses breaks the filter the tool builds",
            F,
            LOOKUP,
            t.lookup,
            uid="alice (HR)",
        ),
        search(
            "filter-unknown-attribute",
            "filter on an attribute the schema lacks (misspelt)",
            base=p,
            filter="(emial=alice@example.com)",
        ),
        search(
            "attributes-unknown",
            "requested attribute misspelt",
            base=p,
            filter="(uid=alice)",
            attributes=["cn", "emial"],
        ),
        search(
            "scope-name",
            "scope 'sub' is not one of BASE / LEVEL / SUBTREE",
            base=p,
            filter="(uid=alice)",
            scope="sub",
        ),
        search("base-not-dn", "search base 'people' is not a DN", base="people", filter="(uid=alice)"),
        add(
            "add-missing-sn",
            "inetOrgPerson without its required sn",
            F,
            f"uid=zed,{p}",
            "inetOrgPerson",
            {"cn": "Zed"},
        ),
        add(
            "add-objectclass-typo",
            "object class name misspelt",
            F,
            f"uid=zed,{p}",
            "inetOrgPersn",
            person,
        ),
        add(
            "add-attribute-typo",
            "attribute 'phone' not in the schema (telephoneNumber)",
            F,
            f"uid=zed,{p}",
            "inetOrgPerson",
            {**person, "phone": "+1 555 0199"},
        ),
        add(
            "add-attribute-not-allowed",
            "uidNumber is not allowed by inetOrgPerson (needs posixAccount)",
            F,
            f"uid=zed,{p}",
            "inetOrgPerson",
            {**person, "uidNumber": "5001"},
        ),
        add(
            "add-mail-regex",
            "mail outside the example.com pattern of the constraint overlay",
            F,
            f"uid=zed,{p}",
            "inetOrgPerson",
            {**person, "mail": "Zed@gmail.com"},
        ),
        add(
            "add-single-valued",
            "two values for the single-valued displayName",
            F,
            f"uid=zed,{p}",
            "inetOrgPerson",
            {**person, "displayName": ["Zed", "Z. Example"]},
        ),
        add(
            "add-trailing-comma",
            "DN with a trailing comma, outside every naming context",
            F,
            f"uid=zed,{p},",
            "inetOrgPerson",
            person,
        ),
        add(
            "add-value-object",
            "an attribute value written as a JSON object",
            F,
            f"uid=zed,{p}",
            "inetOrgPerson",
            {**person, "description": {"team": "platform"}},
        ),
        modify(
            "modify-remove-sn", "deleting the required sn", F, f"uid=bob,{p}", {"sn": ["MODIFY_DELETE", []]}
        ),
        modify(
            "modify-structural-class",
            "replacing the structural object class",
            F,
            f"uid=bob,{p}",
            {"objectClass": ["MODIFY_REPLACE", ["account"]]},
        ),
        modify(
            "modify-rdn-value",
            "replacing the uid the DN is named by (a rename is needed)",
            F,
            f"uid=bob,{p}",
            {"uid": ["MODIFY_REPLACE", ["robert"]]},
        ),
        modify(
            "modify-operational",
            "writing the operational entryUUID",
            F,
            f"uid=bob,{p}",
            {"entryUUID": ["MODIFY_REPLACE", ["0e5b2f5e-1d2c-4a3b-9c8d-7e6f5a4b3c2d"]]},
        ),
        modify(
            "modify-operation-name",
            "operation 'replace' instead of ldap3's MODIFY_REPLACE",
            F,
            f"uid=bob,{p}",
            {"mail": ["replace", ["bob.example@example.com"]]},
        ),
        call(
            "sort-too-many-keys",
            "three sort keys, the server allows two (sssvlv-maxkeys)",
            F,
            SORTED,
            t.sorted_search,
            base=p,
            filter="(uid=a*)",
            sort_by=["createTimestamp", "modifyTimestamp", "entryCSN"],
        ),
        call(
            "sort-no-ordering-rule",
            "sort by sn, which has no ordering rule",
            F,
            SORTED,
            t.sorted_search,
            base=p,
            filter="(uid=a*)",
            sort_by=["sn"],
        ),
        call(
            "sort-unknown-attribute",
            "sort key not in the schema",
            F,
            SORTED,
            t.sorted_search,
            base=p,
            filter="(uid=a*)",
            sort_by=["lastName"],
        ),
        call(
            "create-undefined-attribute",
            "extra attribute the schema lacks (server check)",
            F,
            CREATE,
            t.create_user,
            uid="zed",
            cn="Zed Example",
            sn="Example",
            mail="zed@example.com",
            extra={"phone": "+1 555 0199"},
        ),
        call(
            "create-mail-syntax",
            "mail with a non-ASCII character (IA5String)",
            F,
            CREATE,
            t.create_user,
            uid="zed",
            cn="Zed Example",
            sn="Example",
            mail="zé@example.com",
        ),
        call(
            "set-password-quality",
            "new password shorter than the policy's pwdMinLength",
            F,
            SETPW,
            t.set_password,
            dn=f"uid=carol,{p}",
            new_password="short",
        ),
        call(
            "own-password-history",
            "new password is one of the last three",
            F,
            OWNPW,
            t.change_own_password,
            uid="dave",
            old_password="Dave-New-Pass-1",
            new_password="dave-pw-1234",
        ),
        call(
            "authenticate-empty-password",
            "bind with the password left empty",
            F,
            AUTH,
            t.authenticate,
            user_dn=f"uid=alice,{p}",
            password="",
        ),
        call(
            "authenticate-dn-syntax",
            "bare user name where the tool takes a DN",
            F,
            AUTH,
            t.authenticate,
            user_dn="alice",
            password="alice-pw-1234",
        ),
        call(
            "find-size-limit",
            "the model's size_limit is below the number of matches",
            F,
            FIND,
            t.find,
            filter="(uid=*)",
            size_limit=3,
        ),
        call(
            "report-unindexed",
            "substring filter on an unindexed attribute, past size.unchecked",
            F,
            REPORT,
            t.report,
            filter="(mail=*@example.com)",
        ),
    ]


def _stored(t: Tools) -> list[Call]:
    """Names the model gave that do not exist, and conflicts with stored state."""
    p = PEOPLE

    def call(slug: str, cause: str, tool: str, fn: Callable[[dict[str, Any]], Any], **a: Any) -> Call:
        return (slug, cause, A, tool, a, lambda: fn(a))

    person = {"cn": "Zed Example", "sn": "Example"}
    return [
        call(
            "search-base-missing",
            "search base ou=staff does not exist",
            SEARCH,
            t.search,
            base=f"ou=staff,{SUFFIX}",
            filter="(uid=alice)",
        ),
        call(
            "modify-missing",
            "entry uid=zoey does not exist (zoe?)",
            MODIFY,
            t.modify,
            dn=f"uid=zoey,{p}",
            changes={"mail": ["MODIFY_REPLACE", ["zoey@example.com"]]},
        ),
        call("delete-missing", "entry to delete does not exist", DELETE, t.delete, dn=f"uid=zoey,{p}"),
        call(
            "add-missing-parent",
            "parent ou=staff does not exist",
            ADD,
            t.add,
            dn=f"uid=zed,ou=staff,{SUFFIX}",
            object_class="inetOrgPerson",
            attributes=person,
        ),
        call(
            "add-exists",
            "entry uid=alice already exists",
            ADD,
            t.add,
            dn=f"uid=alice,{p}",
            object_class="inetOrgPerson",
            attributes={"cn": "Alice Other", "sn": "Other"},
        ),
        call(
            "move-superior-missing",
            "new superior ou=staff does not exist",
            MOVE,
            t.move,
            dn=f"uid=bob,{p}",
            new_rdn="uid=bob",
            new_superior=f"ou=staff,{SUFFIX}",
        ),
        call(
            "add-mail-not-unique",
            "mail already held by another person (unique overlay)",
            ADD,
            t.add,
            dn=f"uid=zed,{p}",
            object_class="inetOrgPerson",
            attributes={**person, "mail": "alice@example.com"},
        ),
        call(
            "delete-non-leaf", "ou=contractors still has entries", DELETE, t.delete, dn=f"ou=contractors,{p}"
        ),
        call(
            "modify-value-missing",
            "deleting a telephone number the entry does not have",
            MODIFY,
            t.modify,
            dn=f"uid=bob,{p}",
            changes={"telephoneNumber": ["MODIFY_DELETE", ["+1 555 0999"]]},
        ),
        call(
            "member-exists",
            "alice is already a member",
            MEMBER,
            t.add_member,
            group="engineering",
            uid="alice",
        ),
        call(
            "member-group-missing",
            "group cn=sales does not exist",
            MEMBER,
            t.add_member,
            group="sales",
            uid="bob",
        ),
        call(
            "alias-target-gone",
            "the alias uid=former points at a deleted entry",
            SEARCH,
            t.search,
            base=f"uid=former,{p}",
            filter="(objectClass=*)",
            scope="BASE",
        ),
        call(
            "set-password-missing-user",
            "password reset for an entry that does not exist",
            SETPW,
            t.set_password,
            dn=f"uid=zoey,{p}",
            new_password="Fresh-Pass-2024",
        ),
    ]


IMPORTS: dict[str, list[dict[str, Any]]] = {
    "no-sn": [{"uid": "gwen", "cn": "Gwen Example", "sn": "Example"}, {"uid": "hank", "cn": "Hank Example"}],
    "class-typo": [{"uid": "ines", "cn": "Ines Example", "sn": "Example", "objectClass": ["inetOrgPersn"]}],
    "duplicate": [{"uid": "carol", "cn": "Carol Example", "sn": "Example"}],
    "bad-mail": [{"uid": "jack", "cn": "Jack Example", "sn": "Example", "mail": "jack@contractor.org"}],
}


def _imports(t: Tools) -> list[Call]:
    """Users read from JSON files the model named (bad data it did not write)."""
    causes = {
        "no-sn": "a user in the file without sn",
        "class-typo": "an object class in the file not in the schema",
        "duplicate": "a uid in the file that already exists",
        "bad-mail": "a mail in the file the constraint overlay refuses",
    }
    out: list[Call] = []
    for name, users in IMPORTS.items():
        path = f"imports/{name}.json"
        (t.tmp / "imports").mkdir(exist_ok=True)
        (t.tmp / path).write_text(json.dumps(users))
        a = {"path": path}
        out.append((f"import-{name}", causes[name], A, IMPORT, a, lambda a=a: t.import_users(a)))
    return out


def _refusals(t: Tools, ctx: Context) -> Iterator[Case]:
    """Credentials, ACLs, databases and installations that refuse whatever the model writes."""
    p = PEOPLE

    def case(slug: str, cause: str, tool: str, args: dict[str, Any], fn: Callable[[], Any]) -> Case:
        return Case(f"ldap3-{slug}", LIBRARY, cause, U, None, catch(fn), tool, args)

    a: dict[str, Any] = {"uid": "alice"}
    yield case(
        "service-password-autobind",
        "the tool's service account password is wrong (auto_bind)",
        LOOKUP,
        a,
        lambda: _with_password(t, "agent-pw-old", a),
    )
    a = {"filter": "(uid=alice)"}
    yield case(
        "report-password",
        "the reporting account's configured password is wrong",
        REPORT,
        a,
        lambda: t.report(a, password="reader-pw-6"),
    )
    a = {"uid": "alice"}
    yield case(
        "anonymous-disallowed",
        "the tool is configured without credentials and the server disallows anonymous binds",
        LOOKUP,
        a,
        lambda: t.conn(None, None),
    )
    a = {"user_dn": f"uid=alice,{p}", "password": "alice-pw-9999"}
    yield case(
        "authenticate-wrong-password", "the user's password is wrong", AUTH, a, lambda: t.authenticate(a)
    )
    a = {"uid": "erin", "old_password": "erin-old-pw-1", "new_password": "Erin-New-Pass-2"}
    yield case(
        "own-password-wrong-old",
        "the user's old password is wrong (password modify exop)",
        OWNPW,
        a,
        lambda: _own_password_exop(t, a),
    )
    a = {
        "dn": f"cn=sales,{GROUPS}",
        "object_class": "groupOfNames",
        "attributes": {"cn": "sales", "member": f"uid=bob,{p}"},
    }
    yield case(
        "acl-add-group", "no write access to ou=groups for the service account", ADD, a, lambda: t.add(a)
    )
    a = {"dn": f"cn=engineering,{GROUPS}"}
    yield case("acl-delete-group", "no delete rights on groups", DELETE, a, lambda: t.delete(a))
    a = {"dn": f"uid=bob,{p}", "new_rdn": "uid=bob", "new_superior": GROUPS}
    yield case("acl-move-into-groups", "no write access to the new superior", MOVE, a, lambda: t.move(a))
    a = {"dn": READER_DN, "new_password": "Another-Pass-99"}
    yield case(
        "acl-service-password",
        "the service account may not reset other service accounts' passwords",
        SETPW,
        a,
        lambda: t.set_password(a),
    )
    a = {"uid": "newhire", "password": "newhire-pw-1"}
    yield case(
        "password-must-change",
        "the user must change the password an administrator set before doing anything else",
        PROFILE,
        a,
        lambda: t.profile(a),
    )
    a = {"dn": "uid=new,ou=people,o=archive", "object_class": "account", "attributes": {"uid": "new"}}
    yield case("readonly-add", "the archive database is read-only", ADD, a, lambda: t.add(a))
    a = {"base": "o=archive", "filter": "(uid=*)", "sort_by": ["createTimestamp"]}
    yield case(
        "sort-not-enabled",
        "the archive database has no server-side sort overlay",
        SORTED,
        a,
        lambda: t.sorted_search(a),
    )
    a = {"dn": f"uid=bob,{p}", "new_rdn": "uid=bob", "new_superior": "ou=people,o=archive"}
    yield case("move-between-databases", "slapd cannot rename between databases", MOVE, a, lambda: t.move(a))
    a = {"event": "login", "detail": "alice signed in from the VPN"}
    yield case(
        "audit-database-full", "the audit database is at its maxsize", LOG, a, lambda: t.log_event(a, 99999)
    )
    a = {"uid": "alice"}
    yield case(
        "starttls-not-configured",
        "the tool requires StartTLS and the server has no TLS configured",
        LOOKUP,
        a,
        lambda: _starttls(t),
    )
    yield case(
        "ntlm-not-supported",
        "the tool is configured for NTLM, which slapd does not offer",
        LOOKUP,
        a,
        lambda: _ntlm(t),
    )
    yield case(
        "kerberos-package-missing",
        "the tool is configured for Kerberos and the gssapi package is not installed",
        LOOKUP,
        a,
        lambda: _kerberos(t),
    )
    with _pkgcopy.broken_install(ctx.tmp, ["ldap3"], hide=("pyasn1", "pyasn1_modules")):
        exc = catch(lambda: importlib.import_module("ldap3"))
    yield Case(
        "ldap3-pyasn1-missing",
        LIBRARY,
        "the pyasn1 module ldap3 needs is not installed",
        U,
        None,
        exc,
        LOOKUP,
        {"uid": "alice"},
    )


def _with_password(t: Tools, password: str, a: dict[str, Any]) -> Any:
    from ldap3 import Connection

    conn = Connection(t.server(), AGENT_DN, password, auto_bind=True, receive_timeout=10)
    t.kept.append(conn)
    conn.search(PEOPLE, f"(uid={a['uid']})")
    return conn.entries


def _own_password_exop(t: Tools, a: dict[str, Any]) -> Any:
    """The user's session is bound (by the portal's SSO); the exop checks the old password."""
    from ldap3 import Connection

    conn = Connection(
        t.server(False), f"uid={a['uid']},{PEOPLE}", "erin-pw-1234", auto_bind=True, receive_timeout=10
    )
    t.kept.append(conn)
    if not conn.extend.standard.modify_password(None, a["old_password"], a["new_password"]):
        raise _failed("password modify", conn.result)
    return True


def _starttls(t: Tools) -> Any:
    from ldap3 import AUTO_BIND_TLS_BEFORE_BIND, Connection

    conn = Connection(
        t.server(False), AGENT_DN, AGENT_PW, auto_bind=AUTO_BIND_TLS_BEFORE_BIND, receive_timeout=10
    )
    t.kept.append(conn)
    return conn


def _ntlm(t: Tools) -> Any:
    from ldap3 import NTLM, Connection

    conn = Connection(
        t.server(False),
        "EXAMPLE\\agent",
        AGENT_PW,
        authentication=NTLM,
        raise_exceptions=True,
        receive_timeout=10,
    )
    t.kept.append(conn)
    return conn.bind()


def _kerberos(t: Tools) -> Any:
    from ldap3 import KERBEROS, SASL, Connection

    conn = Connection(
        t.server(False),
        authentication=SASL,
        sasl_mechanism=KERBEROS,
        raise_exceptions=True,
        receive_timeout=10,
    )
    t.kept.append(conn)
    return conn.bind()


def _setup(t: Tools) -> Any:
    """State the cases need: dave's password changed once (history), the audit database
    filled to its maxsize, and a report's paged, sorted search holding the only sort slot."""
    from ldap3 import Connection
    from ldap3.core.exceptions import LDAPOtherResult

    dave = Connection(
        t.server(False), f"uid=dave,{PEOPLE}", "dave-pw-1234", auto_bind=True, raise_exceptions=True
    )
    dave.extend.standard.modify_password(None, "dave-pw-1234", "Dave-New-Pass-1")
    dave.unbind()
    filler = {"event": "login", "detail": "bob signed in from the office"}
    for n in range(10000):
        try:
            t.log_event(filler, n)
        except LDAPOtherResult:
            break
    else:
        raise AssertionError("the audit database never filled up")
    t.close()
    report = Connection(t.server(False), ROOT_DN, ROOT_PW, auto_bind=True, raise_exceptions=True)
    report.search(
        PEOPLE, "(uid=*)", attributes=["cn"], controls=[_SortKey.control(["createTimestamp"])], paged_size=2
    )
    return report


def _busy_and_proxy(t: Tools) -> Iterator[Case]:
    a: dict[str, Any] = {"base": PEOPLE, "filter": "(uid=a*)", "sort_by": ["createTimestamp"]}
    yield Case(
        "ldap3-sort-busy",
        LIBRARY,
        "another connection's paged sort holds the server's only sort slot (busy)",
        T,
        NE,
        catch(lambda: t.sorted_search(a)),
        SORTED,
        a,
    )
    a = {"uid": "acme-jdoe"}
    yield Case(
        "ldap3-proxy-unavailable",
        LIBRARY,
        "the proxy cannot contact the partners' directory (unavailable)",
        T,
        NE,
        catch(lambda: t.partner(a)),
        PARTNER,
        a,
    )
    a = {"dn": "uid=acme-jdoe,o=partners", "object_class": "account", "attributes": {"uid": "acme-jdoe"}}
    yield Case(
        "ldap3-proxy-unavailable-add",
        LIBRARY,
        "the proxy cannot contact the partners' directory (unavailable)",
        T,
        NE,
        catch(lambda: t.add(a)),
        ADD,
        a,
    )


def _unreachable(ctx: Context) -> Iterator[Case]:
    a: dict[str, Any] = {"uid": "alice"}
    down = Tools(ctx.dead, ctx.tmp)
    yield Case(
        "ldap3-refused",
        LIBRARY,
        "connection refused: the directory server is down",
        T,
        NE,
        catch(lambda: down.lookup(a)),
        LOOKUP,
        a,
    )
    dns = Tools(0, ctx.tmp)
    dns.url = "ldap://ldap.corp.invalid:389"
    yield Case(
        "ldap3-dns",
        LIBRARY,
        "the server's host name does not resolve",
        T,
        NE,
        catch(lambda: dns.lookup(a)),
        LOOKUP,
        a,
    )


def _wait_closed(conn: Any, timeout: float = 15.0) -> None:
    """Until the server has closed ``conn``'s socket (its idletimeout)."""
    sock: socket.socket = conn.socket
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                return
        except BlockingIOError:
            pass
        time.sleep(0.1)
    raise AssertionError("the server did not close the idle connection")


def _edge(ctx: Context) -> Iterator[Case]:
    """A second slapd (``idletimeout 1``) closing idle connections, stopped, then killed."""
    with _slapd(ctx, "edge", idletimeout=1) as (port, proc):
        t = Tools(port, ctx.tmp)
        a: dict[str, Any] = {
            "dn": f"uid=bob,{PEOPLE}",
            "changes": {"description": ["MODIFY_REPLACE", ["on call"]]},
        }
        kept = t.conn(schema=False)
        _wait_closed(kept)
        yield Case(
            "ldap3-idle-closed-modify",
            LIBRARY,
            "the server closed the tool's kept connection for being idle (idletimeout)",
            T,
            NE,
            catch(lambda: t.modify(a, conn=kept)),
            MODIFY,
            a,
        )
        a = {"dn": f"uid=temp1,ou=contractors,{PEOPLE}"}
        kept = t.conn(schema=False, raise_exceptions=False)
        _wait_closed(kept)
        yield Case(
            "ldap3-idle-closed-delete",
            LIBRARY,
            "the server closed the tool's kept connection for being idle (idletimeout)",
            T,
            NE,
            catch(lambda: t.delete(a, conn=kept)),
            DELETE,
            a,
        )
        search_conn = t.conn(schema=False, receive_timeout=1)
        add_conn = t.conn(schema=False, receive_timeout=1)
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            a = {"base": PEOPLE, "filter": "(uid=alice)"}
            yield Case(
                "ldap3-stopped-search",
                LIBRARY,
                "the server stopped answering after the search was sent (receive timeout)",
                T,
                UO,
                catch(lambda: t.search(a, conn=search_conn)),
                SEARCH,
                a,
            )
            a = {
                "dn": f"uid=zed,{PEOPLE}",
                "object_class": "inetOrgPerson",
                "attributes": {"cn": "Zed", "sn": "Z"},
            }
            yield Case(
                "ldap3-stopped-add",
                LIBRARY,
                "the server stopped answering after the add was sent (receive timeout)",
                T,
                UO,
                catch(lambda: t.add(a, conn=add_conn)),
                ADD,
                a,
            )
            a = {"uid": "alice"}
            slow = Tools(port, ctx.tmp)
            yield Case(
                "ldap3-stopped-bind",
                LIBRARY,
                "the server stopped answering: the new connection's bind timed out before the search was sent",
                T,
                NE,
                catch(lambda: _lookup_timeout(slow, a)),
                LOOKUP,
                a,
            )
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        a = {"dn": f"uid=carol,{PEOPLE}", "changes": {"telephoneNumber": ["MODIFY_REPLACE", ["+1 555 0142"]]}}
        conn = t.conn(schema=False, receive_timeout=10)
        os.kill(proc.pid, signal.SIGSTOP)
        # the kill waits long enough for the request to be in the stopped server's socket
        # buffer under load (a kill before it leaves the client reads as a clean close)
        killer = threading.Timer(2.0, lambda: os.kill(proc.pid, signal.SIGKILL))
        killer.start()
        exc = catch(lambda: t.modify(a, conn=conn))
        killer.join()
        yield Case(
            "ldap3-killed-modify",
            LIBRARY,
            "the server was killed while it held the modify request",
            T,
            UO,
            exc,
            MODIFY,
            a,
        )
        t.close()


def _lookup_timeout(t: Tools, a: dict[str, Any]) -> Any:
    conn = t.conn(schema=False, receive_timeout=1)
    conn.search(PEOPLE, f"(uid={a['uid']})")
    return conn.entries


def cases(ctx: Context) -> Iterator[Case]:
    with _slapd(ctx, "main") as (port, _proc):
        t = Tools(port, ctx.tmp)
        report = _setup(t)
        yield from _busy_and_proxy(t)
        report.unbind()
        for slug, cause, kind, tool, args, fn in [*_model_calls(t), *_stored(t), *_imports(t)]:
            yield Case(f"ldap3-{slug}", LIBRARY, cause, kind, None, catch(fn), tool, args)
            t.close()
        yield from _refusals(t, ctx)
        t.close()
    yield from _unreachable(ctx)
    yield from _edge(ctx)
