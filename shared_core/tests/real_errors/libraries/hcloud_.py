"""hcloud: Hetzner Cloud's official Python SDK behind a cloud-provisioning tool, its
``Client(token=..., api_endpoint=...)`` pointed at a local stand-in of
``api.hetzner.cloud/v1``. The SDK raises ``hcloud.APIException`` (``"<message> (<code>,
<correlation id>)"``, with ``code`` / ``message`` / ``details``) for every error body, the
same class with the HTTP status as its code when the body is not an error object or not
JSON at all, ``ActionFailedException`` / ``ActionTimeoutException`` while waiting on an
action, ``requests``' own errors for the transport, ``ValueError`` for its argument checks,
and ``KeyError`` when a reply lacks the object it expects.

Bodies are the API's error object ``{"error": {"code", "message", "details"}}`` with the
codes of the reference's "Errors" section (docs.hetzner.cloud/reference/cloud#errors:
``forbidden``, ``unauthorized``, ``invalid_input`` with its ``details.fields``,
``json_error``, ``locked``, ``not_found``, ``rate_limit_exceeded``,
``resource_limit_exceeded`` with ``details.limits``, ``resource_unavailable``,
``server_error``, ``service_error``, ``uniqueness_error``, ``protected``, ``maintenance``,
``conflict``, ``unsupported_error``, ``token_readonly``, ``unavailable``,
``deprecated_api_endpoint`` with ``details.announcement``, ``timeout``), their statuses
(401 unauthorized / token_readonly, 403 forbidden / maintenance / resource_limit_exceeded,
404, 409 uniqueness_error / conflict, 410, 412 resource_unavailable, 422 invalid_input /
service_error / unsupported_error, 423 locked / protected, 429 with the ``RateLimit-*``
headers of "Rate Limiting", 500, 502, 503, 504), the call-specific codes of the server,
volume, firewall and network actions (``invalid_server_type``, ``server_not_stopped``,
``volume_already_attached``, ``firewall_already_applied``, ``resource_in_use``,
``placement_error``) and the ``X-Correlation-Id`` header the SDK puts in its message; actions as the "Actions" section shows them (``status`` running /
error, ``error: {"code": "action_failed", "message": "Action failed"}``).

Labels, by the cause set up:

- fixable: a value the model wrote that the API refuses as ``invalid_input`` (a name that is
  not a hostname or too long, a server type / image / location / ISO name that does not
  exist, a label value, a label selector, a metrics type or period, a firewall port or
  direction, an IP range, a reverse DNS name or an address the server does not have, a
  volume size or file system, a primary IP type, an SSH public key cut off),
  ``invalid_server_type`` (a type that cannot take the server's
  disk), ``unsupported_error`` (an ISO of the other architecture), and the SDK's own checks
  of the model's arguments (a volume size of 0, both a server and a location, an image
  without id or name);
- unrecoverable: ``unauthorized``, ``token_readonly`` (a read-only token on a write or a
  delete), ``forbidden``, ``resource_limit_exceeded`` (the project's limits: resources,
  volume space), ``protected`` (delete / rebuild protection that the owner set: the tool
  must not lift it), ``deprecated_api_endpoint`` (listing all actions, the datacenters
  endpoint: removed), a tool set up without a token (the API's 401);
- ambiguous: ``not_found`` of a server, volume, firewall or network the model named by id,
  ``uniqueness_error`` (a name or key already used), ``volume_already_attached``,
  ``firewall_already_applied``, ``resource_in_use``, ``server_not_stopped`` (the server's
  state), ``resource_unavailable`` / ``placement_error`` (capacity of the location:
  lasting or not, the call cannot tell), ``service_error`` (nothing more said), an action
  that ended in ``action_failed``, and replies the SDK cannot read (an HTML page, a JSON
  document cut off, a reply without its ``server`` object);
- transient: ``rate_limit_exceeded``, ``conflict`` ("please retry"), ``locked`` (another
  action is running on the resource), ``maintenance``, ``unavailable``, refused and DNS ->
  not executed; ``server_error`` (500), ``bad_gateway`` (502), ``timeout`` (504), a
  proxy's 502 page, an action still running when the tool stops polling, read timeout,
  reset, close -> unknown outcome. Most cases run with the SDK's retries off (as a tool that
  reports the first failure: the SDK's policy retries ``conflict``,
  ``rate_limit_exceeded``, ``timeout``, ``bad_gateway``, 502 / 504 and timeouts five times
  with up to 60 s of back-off); the ``-retried`` ones keep that policy with one retry and
  no back-off.

Not triggered: ``json_error`` (the SDK writes the JSON, the model cannot make it invalid);
``no_space_left_in_location`` and the primary IP / network mismatch codes (whether the
model's choice or the location's capacity is at fault cannot be told from the call); the
certificate authority codes (their bodies are not shown in the reference).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "hcloud"
REQUIRES = ["hcloud==2.27.0"]

_ERR = "Hetzner Cloud API reference, Errors (docs.hetzner.cloud/reference/cloud#errors)"
_RATE = "Hetzner Cloud API reference, Rate Limiting (docs.hetzner.cloud/reference/cloud#rate-limiting)"
_ACT = "Hetzner Cloud API reference, Actions (docs.hetzner.cloud/reference/cloud#actions)"
_TOKEN = "LRK9DAWQ1ZAEFSrCNEEzLCUwhYX1U3g7wMg4dTlkkDC96fyDuyJ39nVbVjCKSDfj"
_SERVER = 42117853
_VOLUME = 100384211
_FIREWALL = 1492871
_NETWORK = 3984410
_ACTION = 1803377419


def _e(
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    source: str = _ERR,
    **headers: str,
) -> Reply:
    headers = {"X-Correlation-Id": "4c8e2b1f7a9d3e60", **headers}
    return Reply(
        status, {"error": {"code": code, "message": message, "details": details or {}}}, headers, source
    )


def _field(name: str, message: str) -> Reply:
    """``invalid_input`` for one field, shaped as the reference's example."""
    return _e(
        422,
        "invalid_input",
        f"invalid input in field '{name}': {message}",
        {"fields": [{"name": name, "messages": [message]}]},
    )


_RATE_HEADERS = {"RateLimit-Limit": "3600", "RateLimit-Remaining": "0", "RateLimit-Reset": "1796083200"}
_HTML502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n"  # fmt: skip


def _action(
    command: str, status: str, error: dict[str, str] | None = None, resource: int = _SERVER
) -> dict[str, Any]:
    return {
        "id": _ACTION,
        "command": command,
        "status": status,
        "progress": 100 if status != "running" else 40,
        "started": "2026-12-01T00:00:00+00:00",
        "finished": None if status == "running" else "2026-12-01T00:00:05+00:00",
        "resources": [{"id": resource, "type": "server"}],
        "error": error,
    }


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's values
    ("invalid_name", "create_bad_name", _field("name", "must be a valid hostname"), F, None, "server name is not a valid hostname"),
    ("invalid_server_type_name", "create_bad_type", _field("server_type", "server type not found"), F, None, "server type name that does not exist"),
    ("invalid_image_name", "create_bad_image", _field("image", "image not found"), F, None, "image name that does not exist"),
    ("invalid_location", "create_bad_location", _field("location", "location not found"), F, None, "location name that does not exist"),
    ("invalid_label_value", "update_labels", _field("labels", "label value 'prod staging' is invalid"), F, None, "label value with a space"),
    ("invalid_label_selector", "list_servers", _field("label_selector", "invalid label selector: env=="), F, None, "label selector malformed"),
    ("invalid_metrics_type", "metrics", _field("type", "must be one of: cpu, disk, network"), F, None, "metrics type not among cpu / disk / network"),
    ("invalid_firewall_port", "create_firewall", _field("rules", "port must be a number or a port range"), F, None, "firewall rule with a malformed port"),
    ("invalid_ip_range", "create_network", _field("ip_range", "is not a valid IP range"), F, None, "network range malformed"),
    ("invalid_dns_ptr", "set_rdns", _field("dns_ptr", "is not a valid hostname"), F, None, "reverse DNS name is not a hostname"),
    ("invalid_volume_size", "create_volume_big", _field("size", "must be between 10 and 10240"), F, None, "volume size over the maximum"),
    ("invalid_iso", "attach_iso", _field("iso", "iso not found"), F, None, "ISO name that does not exist"),
    ("invalid_server_type_disk", "change_type_small", _e(422, "invalid_server_type", "cannot downgrade disk of server type cx22 when upgrade_disk is true"), F, None, "server type too small for the server's disk"),
    ("name_too_long", "create_long_name", _field("name", "is too long"), F, None, "server name longer than a hostname label"),
    ("invalid_public_key", "create_ssh_key_bad", _field("public_key", "is not a valid SSH public key"), F, None, "SSH public key malformed (cut off)"),
    ("invalid_rdns_ip", "set_rdns_other_ip", _field("ip", "ip is not assigned to server"), F, None, "reverse DNS for an address the server does not have"),
    ("invalid_firewall_direction", "create_firewall_direction", _field("rules", "direction must be one of: in, out"), F, None, "firewall rule direction not in / out"),
    ("invalid_primary_ip_type", "create_primary_ip", _field("type", "must be one of: ipv4, ipv6"), F, None, "primary IP type not ipv4 / ipv6"),
    ("invalid_volume_format", "create_volume_format", _field("format", "must be one of: xfs, ext4"), F, None, "volume file system not xfs / ext4"),
    ("invalid_metrics_range", "metrics_reversed", _field("end", "must be after start"), F, None, "metrics period ends before it starts"),
    ("unsupported_iso_arch", "attach_iso_arm", _e(422, "unsupported_error", "iso architecture x86 is not compatible with server type architecture arm"), F, None, "ISO of the other architecture"),
    # credentials, permissions, quotas, protection
    ("unauthorized", "get_server", _e(401, "unauthorized", "unable to authenticate"), U, None, "token invalid or unknown"),
    ("token_readonly", "create_server", _e(401, "token_readonly", "The token is only allowed to perform GET requests"), U, None, "read-only token on a write"),
    ("forbidden", "delete_server", _e(403, "forbidden", "insufficient permissions for this request"), U, None, "token lacks the permission"),
    ("project_limit", "create_server", _e(403, "resource_limit_exceeded", "project limit exceeded", {"limits": [{"name": "project_limit"}]}), U, None, "project's resource limit reached"),
    ("volume_size_limit", "create_volume", _e(403, "resource_limit_exceeded", "volume size limit exceeded", {"limits": [{"name": "volume_size_limit"}]}), U, None, "project's volume space limit reached"),
    ("delete_protected", "delete_server", _e(423, "protected", "server deletion is protected"), U, None, "delete protection set on the server"),
    ("rebuild_protected", "rebuild", _e(423, "protected", "server rebuild is protected"), U, None, "rebuild protection set on the server"),
    ("token_readonly_delete", "delete_server", _e(401, "token_readonly", "The token is only allowed to perform GET requests"), U, None, "read-only token on a delete"),
    ("actions_list_removed", "list_actions", _e(410, "deprecated_api_endpoint", "API functionality was removed", {"announcement": "https://docs.hetzner.cloud/changelog#2025-01-30-listing-arbitrary-actions-in-the-actions-list-endpoint-is-removed"}), U, None, "listing all actions was removed from the API"),
    ("deprecated_endpoint", "list_datacenters", _e(410, "deprecated_api_endpoint", "API functionality was removed", {"announcement": "https://docs.hetzner.cloud/changelog#2026-06-02-datacenters-deprecated"}), U, None, "endpoint removed from the API"),
    # not found, already there, the resources' state
    ("server_not_found", "get_server", _e(404, "not_found", f"server with ID '{_SERVER}' not found"), A, None, "server id not found"),
    ("server_not_found_power", "power_off", _e(404, "not_found", f"server with ID '{_SERVER}' not found"), A, None, "server to power off not found"),
    ("volume_not_found", "attach_volume", _e(404, "not_found", f"volume with ID '{_VOLUME}' not found"), A, None, "volume id not found"),
    ("firewall_not_found", "delete_firewall", _e(404, "not_found", f"firewall with ID '{_FIREWALL}' not found"), A, None, "firewall id not found"),
    ("network_not_found", "attach_network", _e(404, "not_found", f"network with ID '{_NETWORK}' not found"), A, None, "network id not found"),
    ("ssh_key_not_unique", "create_ssh_key", _e(409, "uniqueness_error", "SSH key with the same fingerprint already exists", {"fields": [{"name": "public_key"}]}), A, None, "SSH key already uploaded"),
    ("server_name_not_unique", "create_server", _e(409, "uniqueness_error", "server name is already used", {"fields": [{"name": "name"}]}), A, None, "server name already used in the project"),
    ("volume_already_attached", "attach_volume", _e(409, "volume_already_attached", "volume is already attached to a server, detach first"), A, None, "volume already attached"),
    ("firewall_already_applied", "apply_firewall", _e(409, "firewall_already_applied", "firewall is already applied to server"), A, None, "firewall already applied to the server"),
    ("firewall_in_use", "delete_firewall", _e(422, "resource_in_use", "firewall must not be in use to be deleted"), A, None, "firewall still applied to resources"),
    ("server_not_stopped", "change_type", _e(422, "server_not_stopped", "server must be stopped before changing type"), A, None, "server still running"),
    ("resource_unavailable", "create_server", _e(412, "resource_unavailable", "server type cpx31 is unavailable in location hel1"), A, None, "server type not available in the location"),
    ("placement_error", "create_server", _e(412, "placement_error", "error during placement"), A, None, "the server could not be placed"),
    ("service_error", "create_snapshot", _e(422, "service_error", "Error within a service"), A, None, "error within a service, nothing more said"),
    # load, locks, outages
    ("rate_limited", "list_servers", _e(429, "rate_limit_exceeded", "limit of 3600 requests per hour reached", source=_RATE, **_RATE_HEADERS), T, NE, "project's request rate limit reached"),
    ("conflict", "update_labels_ok", _e(409, "conflict", "The resource has changed during the request, please retry"), T, NE, "resource changed during the request"),
    ("locked", "reboot", _e(423, "locked", "server is locked"), T, NE, "another action is running on the server"),
    ("maintenance", "create_volume", _e(403, "maintenance", "Cannot perform operation due to maintenance"), T, NE, "operation blocked by maintenance"),
    ("unavailable", "create_server", _e(503, "unavailable", "A service or product is currently not available"), T, NE, "service currently not available"),
    ("server_error", "create_server", _e(500, "server_error", "Error within the API backend"), T, UO, "error within the API backend (500)"),
    ("bad_gateway", "power_off", _e(502, "bad_gateway", "The request could not be answered by the API backend, please retry"), T, UO, "API backend did not answer (502)"),
    ("timeout", "create_volume", _e(504, "timeout", "The request could not be answered in time, please retry"), T, UO, "request not answered in time (504)"),
    # what the service sent cannot be read
    ("html_200", "get_server", Reply(200, "<html><head><title>Hetzner Cloud</title></head><body><h1>We'll be back soon</h1></body></html>", {}, "a maintenance page served with 200"), A, None, "an HTML page instead of the server"),
    ("json_cut_off", "get_server", Reply(200, '{"server": {"id": 42117853, "name": "web-1", "status": "running", "public_net": {"ipv4": {"ip": "203.0.113', {}, "", "application/json"), A, None, "server's JSON cut off"),
    ("no_server_key", "get_server", Reply(200, {"servers": []}), A, None, "reply without its server object"),
]  # fmt: skip

# the SDK's retry policy (conflict, rate_limit_exceeded, timeout, bad_gateway, 502 / 504): one retry, no back-off
_RETRIED: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("rate_limited-retried", "list_servers", _e(429, "rate_limit_exceeded", "limit of 3600 requests per hour reached", source=_RATE, **_RATE_HEADERS), T, NE, "rate limit reached (after the SDK's retries)"),
    ("proxy_502_page-retried", "delete_server", Reply(502, _HTML502, {}, "a proxy's page"), T, UO, "a proxy's 502 page (after the SDK's retries)"),
]  # fmt: skip


def _calls(client: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the token and endpoint are the tool's."""
    from hcloud.firewalls.domain import Firewall, FirewallResource, FirewallRule
    from hcloud.images.domain import Image
    from hcloud.isos.domain import Iso
    from hcloud.locations.domain import Location
    from hcloud.networks.domain import Network
    from hcloud.server_types.domain import ServerType
    from hcloud.servers.domain import Server
    from hcloud.ssh_keys.domain import SSHKey
    from hcloud.volumes.domain import Volume

    srv = Server(id=_SERVER)

    def create(
        name: str, server_type: str, image: str, location: str
    ) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        args = {
            "name": name,
            "server_type": server_type,
            "image": image,
            "location": location,
            "ssh_keys": ["deploy"],
        }
        return (
            "create_server",
            args,
            lambda: client.servers.create(
                name,
                server_type=ServerType(name=server_type),
                image=Image(name=image),
                location=Location(name=location),
                ssh_keys=[SSHKey(name="deploy")],
            ),
        )

    def labels(value: dict[str, str]) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        return (
            "update_server",
            {"server_id": _SERVER, "labels": value},
            lambda: client.servers.update(srv, labels=value),
        )

    rule = {"direction": "in", "protocol": "tcp", "port": "80-", "source_ips": ["0.0.0.0/0", "::/0"]}
    inbound = {"direction": "inbound", "protocol": "tcp", "port": "443", "source_ips": ["0.0.0.0/0", "::/0"]}
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHqJ0mZ0b1n3G8m6a5yQ0lq7Xo8y2e4QwW3x9r1sT2uV deploy@ci"
    return {
        "create_server": create("web-1", "cpx31", "ubuntu-24.04", "hel1"),
        "create_bad_name": create("web_1!", "cpx31", "ubuntu-24.04", "hel1"),
        "create_bad_type": create("web-1", "cx99", "ubuntu-24.04", "hel1"),
        "create_bad_image": create("web-1", "cpx31", "ubuntu-25.10-lts", "hel1"),
        "create_bad_location": create("web-1", "cpx31", "ubuntu-24.04", "fra1"),
        "create_long_name": create("web-frontend-production-eu-central-helsinki-primary-node-with-public-ipv4-01", "cpx31", "ubuntu-24.04", "hel1"),
        "get_server": ("get_server", {"server_id": _SERVER}, lambda: client.servers.get_by_id(_SERVER)),
        "list_servers": ("list_servers", {"label_selector": "env=="}, lambda: client.servers.get_all(label_selector="env==")),
        "update_labels": labels({"env": "prod staging"}),
        "update_labels_ok": labels({"env": "production"}),
        "delete_server": ("delete_server", {"server_id": _SERVER}, lambda: client.servers.delete(srv)),
        "power_off": ("power_off_server", {"server_id": _SERVER}, lambda: client.servers.power_off(srv)),
        "reboot": ("reboot_server", {"server_id": _SERVER}, lambda: client.servers.reboot(srv)),
        "rebuild": ("rebuild_server", {"server_id": _SERVER, "image": "debian-12"}, lambda: client.servers.rebuild(srv, Image(name="debian-12"))),
        "change_type": ("change_server_type", {"server_id": _SERVER, "server_type": "cpx41", "upgrade_disk": True}, lambda: client.servers.change_type(srv, ServerType(name="cpx41"), upgrade_disk=True)),
        "change_type_small": ("change_server_type", {"server_id": _SERVER, "server_type": "cx22", "upgrade_disk": True}, lambda: client.servers.change_type(srv, ServerType(name="cx22"), upgrade_disk=True)),
        "attach_iso": ("attach_iso", {"server_id": _SERVER, "iso": "virtio-win-0.1.999.iso"}, lambda: client.servers.attach_iso(srv, Iso(name="virtio-win-0.1.999.iso"))),
        "attach_iso_arm": ("attach_iso", {"server_id": _SERVER, "iso": "virtio-win-0.1.248.iso"}, lambda: client.servers.attach_iso(srv, Iso(name="virtio-win-0.1.248.iso"))),
        "set_rdns": ("set_reverse_dns", {"server_id": _SERVER, "ip": "203.0.113.17", "dns_ptr": "web 1.example.com"}, lambda: client.servers.change_dns_ptr(srv, "203.0.113.17", "web 1.example.com")),
        "metrics": ("get_server_metrics", {"server_id": _SERVER, "type": "memory", "start": "2026-11-30T00:00:00Z", "end": "2026-12-01T00:00:00Z"}, lambda: client.servers.get_metrics(srv, type="memory", start="2026-11-30T00:00:00Z", end="2026-12-01T00:00:00Z")),
        "create_snapshot": ("create_snapshot", {"server_id": _SERVER, "description": "before upgrade"}, lambda: client.servers.create_image(srv, description="before upgrade", type="snapshot")),
        "create_ssh_key": ("create_ssh_key", {"name": "deploy-ci", "public_key": key}, lambda: client.ssh_keys.create("deploy-ci", key)),
        "create_ssh_key_bad": ("create_ssh_key", {"name": "deploy-ci", "public_key": key[:40]}, lambda: client.ssh_keys.create("deploy-ci", key[:40])),
        "set_rdns_other_ip": ("set_reverse_dns", {"server_id": _SERVER, "ip": "198.51.100.4", "dns_ptr": "web1.example.com"}, lambda: client.servers.change_dns_ptr(srv, "198.51.100.4", "web1.example.com")),
        "create_firewall_direction": ("create_firewall", {"name": "web", "rules": [inbound]}, lambda: client.firewalls.create("web", rules=[FirewallRule(**inbound)])),
        "create_primary_ip": ("create_primary_ip", {"name": "web-ip", "type": "ipv5", "location": "hel1"}, lambda: client.primary_ips.create(type="ipv5", name="web-ip", location=Location(name="hel1"))),
        "create_volume_format": ("create_volume", {"name": "data-1", "size": 100, "location": "hel1", "format": "ntfs"}, lambda: client.volumes.create(100, "data-1", location=Location(name="hel1"), format="ntfs")),
        "metrics_reversed": ("get_server_metrics", {"server_id": _SERVER, "type": "cpu", "start": "2026-12-01T00:00:00Z", "end": "2026-11-30T00:00:00Z"}, lambda: client.servers.get_metrics(srv, type="cpu", start="2026-12-01T00:00:00Z", end="2026-11-30T00:00:00Z")),
        "list_actions": ("list_actions", {"status": "running"}, lambda: client.actions.get_all(status=["running"])),
        "create_volume": ("create_volume", {"name": "data-1", "size": 100, "location": "hel1"}, lambda: client.volumes.create(100, "data-1", location=Location(name="hel1"))),
        "create_volume_big": ("create_volume", {"name": "data-1", "size": 20000, "location": "hel1"}, lambda: client.volumes.create(20000, "data-1", location=Location(name="hel1"))),
        "attach_volume": ("attach_volume", {"volume_id": _VOLUME, "server_id": _SERVER}, lambda: client.volumes.attach(Volume(id=_VOLUME), srv)),
        "create_firewall": ("create_firewall", {"name": "web", "rules": [rule]}, lambda: client.firewalls.create("web", rules=[FirewallRule(**rule)])),
        "apply_firewall": ("apply_firewall", {"firewall_id": _FIREWALL, "server_id": _SERVER}, lambda: client.firewalls.apply_to_resources(Firewall(id=_FIREWALL), [FirewallResource(type="server", server=srv)])),
        "delete_firewall": ("delete_firewall", {"firewall_id": _FIREWALL}, lambda: client.firewalls.delete(Firewall(id=_FIREWALL))),
        "create_network": ("create_network", {"name": "private", "ip_range": "10.0.0.0/33"}, lambda: client.networks.create("private", "10.0.0.0/33")),
        "attach_network": ("attach_server_to_network", {"server_id": _SERVER, "network_id": _NETWORK}, lambda: client.servers.attach_to_network(srv, Network(id=_NETWORK))),
        "list_datacenters": ("list_datacenters", {}, lambda: client.datacenters.get_all()),
    }  # fmt: skip


def _scripted(svc: _saas.Service, replies: list[Reply]) -> None:
    """The stand-in answers ``replies`` in turn (the last one from then on)."""
    queue = list(replies)
    svc.requests.clear()

    def pick(method: str, path: str) -> Reply:
        svc.requests.append((method, path))
        return queue.pop(0) if len(queue) > 1 else queue[0]

    svc.pick = pick  # type: ignore[method-assign]


def cases(ctx: Any) -> Iterator[generate.Case]:
    from hcloud import Client
    from hcloud.images.domain import Image
    from hcloud.locations.domain import Location
    from hcloud.server_types.domain import ServerType
    from hcloud.servers.domain import Server
    from hcloud.volumes.domain import Volume

    def client(base: str, retries: int = 0, token: str = _TOKEN) -> Any:
        c = Client(
            token=token, api_endpoint=f"{base}/v1", timeout=_saas.TIMEOUT, poll_interval=0, poll_max_retries=3
        )
        # the SDK's retry count and back-off have no constructor argument: the tool's own settings
        c._client._retry_max_retries = retries
        c._client._retry_interval_func = lambda retries: 0.0
        return c

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"hcloud-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "HCLOUDPORT", "nginx") as svc:
        calls = _calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        retrying = _calls(client(svc.base, retries=1))
        for key, call, reply, kind, outcome, cause in _RETRIED:
            tool, args, fn = retrying[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)

        # actions the tool waits on: the request is taken, the action then fails or keeps running
        c = client(svc.base)
        waits: list[tuple[str, str, dict[str, Any], Callable[[], Any], list[Reply], str, str | None, str]] = [
            ("action_failed", "reboot_server", {"server_id": _SERVER, "wait": True}, lambda: c.servers.reboot(Server(id=_SERVER)).wait_until_finished(),
             [Reply(201, {"action": _action("reboot_server", "running")}), Reply(200, {"action": _action("reboot_server", "error", {"code": "action_failed", "message": "Action failed"})}, {}, _ACT)],
             A, None, "the reboot action failed, nothing more said"),
            ("action_failed_attach", "attach_volume", {"volume_id": _VOLUME, "server_id": _SERVER, "wait": True}, lambda: c.volumes.attach(Volume(id=_VOLUME), Server(id=_SERVER)).wait_until_finished(),
             [Reply(201, {"action": _action("attach_volume", "running")}), Reply(200, {"action": _action("attach_volume", "error", {"code": "action_failed", "message": "Action failed"})}, {}, _ACT)],
             A, None, "the attach action failed, nothing more said"),
            ("action_still_running", "create_snapshot", {"server_id": _SERVER, "description": "before upgrade", "wait": True}, lambda: c.servers.create_image(Server(id=_SERVER), description="before upgrade", type="snapshot").action.wait_until_finished(),
             [Reply(201, {"image": {"id": 184220311, "type": "snapshot", "status": "creating", "description": "before upgrade"}, "action": _action("create_image", "running")}), Reply(200, {"action": _action("create_image", "running")}, {}, _ACT)],
             T, UO, "the snapshot action still running when the tool stopped polling"),
        ]  # fmt: skip
        for key, tool, args, fn, replies, kind, outcome, cause in waits:
            _scripted(svc, replies)
            exc = _saas.catch(fn)
            del svc.pick  # back to the service's own
            yield case(key, cause, kind, outcome, exc, tool, args)

        # a tool set up without a token: the API's 401
        svc.reply(_e(401, "unauthorized", "unable to authenticate"))
        fn = _calls(client(svc.base, token=""))["create_server"]
        yield case("no_token", "tool set up without an API token", U, None, _saas.catch(fn[2]), fn[0], fn[1])

        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            tool, args, fn = _calls(client(base))["create_server"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)

    # the SDK's own checks of the model's arguments (nothing sent)
    c = client(_saas.dead_base(ctx))
    local: list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("volume-size-zero", "volume size of 0", "create_volume", {"name": "data-1", "size": 0, "location": "hel1"}, lambda: c.volumes.create(0, "data-1", location=Location(name="hel1"))),
        ("volume-server-and-location", "volume given both a server and a location", "create_volume", {"name": "data-1", "size": 100, "location": "hel1", "server_id": _SERVER}, lambda: c.volumes.create(100, "data-1", location=Location(name="hel1"), server=Server(id=_SERVER))),
        ("image-missing", "server created without an image", "create_server", {"name": "web-1", "server_type": "cpx31", "location": "hel1"}, lambda: c.servers.create("web-1", server_type=ServerType(name="cpx31"), image=Image(), location=Location(name="hel1"))),
    ]  # fmt: skip
    for key, cause, tool, args, fn in local:
        yield case(key, cause, F, None, _saas.catch(fn), tool, args)
