# ruff: noqa: B023 - each lambda is called at once
"""docker (docker-py): the Docker Engine API's errors as docker-py raises them
(``NotFound``, ``ImageNotFound``, ``APIError``) and its transport failures, through
``DockerClient(base_url="tcp://127.0.0.1:PORT")`` pointed at a local stand-in daemon.

The Engine API answers errors as ``{"message": "..."}`` (docs.docker.com/reference/api/engine
/version/v1.45: "ErrorResponse", with each endpoint's documented statuses: 400 bad
parameter, 404 no such container / image / network / volume, 409 conflict, 500 server
error, 503 node is not part of a swarm); the messages are the daemon's own texts (moby/moby
``errdefs`` and daemon error strings, as ``docker`` prints them after "Error response from
daemon:").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "docker"
REQUIRES = ["docker>=7,<8"]

_API = "Docker Engine API v1.45 (docs.docker.com/reference/api/engine/version/v1.45)"
_CID = "4f1c2a9d8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d"


def _m(status: int, message: str, source: str = _API) -> Reply:
    return Reply(
        status, {"message": message}, {"Api-Version": "1.45", "Docker-Experimental": "false"}, source
    )


_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("no_such_container", "get_container", _m(404, "No such container: web"), A, None, "container not found"),
    (
        "no_such_image",
        "get_image",
        _m(404, "No such image: acme/api:2.3"),
        A,
        None,
        "image not found locally",
    ),
    ("no_such_network", "get_network", _m(404, "network backend not found"), A, None, "network not found"),
    ("no_such_volume", "get_volume", _m(404, "get pgdata: no such volume"), A, None, "volume not found"),
    (
        "no_such_exec",
        "exec_start",
        _m(404, "No such exec instance: 9b1f0c"),
        A,
        None,
        "exec instance not found",
    ),
    (
        "manifest_unknown",
        "pull",
        _m(404, "manifest for acme/api:9.9 not found: manifest unknown: manifest unknown"),
        A,
        None,
        "image tag not found in the registry",
    ),
    (
        "pull_access_denied",
        "pull",
        _m(
            404,
            "pull access denied for acme/private-api, repository does not exist or may require 'docker login': denied: requested access to the resource is denied",
        ),
        A,
        None,
        "image repository not found or not accessible",
    ),
    (
        "bind_source_missing",
        "create",
        _m(400, 'invalid mount config for type "bind": bind source path does not exist: /srv/data'),
        A,
        None,
        "bind mount source path not found on the host",
    ),
    (
        "name_in_use",
        "create",
        _m(
            409,
            f'Conflict. The container name "/web" is already in use by container "{_CID}". You have to remove (or rename) that container to be able to reuse that name.',
        ),
        A,
        None,
        "container name already in use",
    ),
    (
        "not_running_stop",
        "kill",
        _m(409, f"Cannot kill container: web: Container {_CID} is not running"),
        A,
        None,
        "container not running",
    ),
    (
        "not_running_exec",
        "exec_create",
        _m(409, f"container {_CID} is not running"),
        A,
        None,
        "exec in a container that is not running",
    ),
    (
        "paused_exec",
        "exec_create",
        _m(409, f"Container {_CID} is paused, unpause the container before exec"),
        A,
        None,
        "exec in a paused container",
    ),
    (
        "remove_running",
        "remove_container",
        _m(
            409,
            f"You cannot remove a running container {_CID}. Stop the container before attempting removal or force remove",
        ),
        A,
        None,
        "removing a running container",
    ),
    (
        "image_in_use",
        "remove_image",
        _m(
            409,
            f"conflict: unable to delete 605c77e624dd (cannot be forced) - image is being used by running container {_CID[:12]}",
        ),
        A,
        None,
        "image in use by a running container",
    ),
    (
        "volume_in_use",
        "remove_volume",
        _m(409, f"remove pgdata: volume is in use - [{_CID}]"),
        A,
        None,
        "volume in use",
    ),
    (
        "network_exists",
        "create_network",
        _m(409, "network with name backend already exists"),
        A,
        None,
        "network name already exists",
    ),
    (
        "marked_for_removal",
        "start",
        _m(409, f"container {_CID} is marked for removal and cannot be started"),
        A,
        None,
        "container being removed",
    ),
    (
        "invalid_reference",
        "create",
        _m(400, "invalid reference format: repository name (library/Nginx) must be lowercase"),
        F,
        None,
        "image reference not lowercase",
    ),
    ("invalid_port", "create", _m(400, 'invalid port specification: "99999"'), F, None, "port out of range"),
    (
        "invalid_restart_policy",
        "create",
        _m(
            400,
            "invalid restart policy: unknown policy 'sometimes'; use one of 'no', 'always', 'on-failure', or 'unless-stopped'",
        ),
        F,
        None,
        "unknown restart policy",
    ),
    (
        "invalid_env",
        "create",
        _m(400, "invalid environment variable: =value"),
        F,
        None,
        "environment variable without a name",
    ),
    (
        "invalid_memory",
        "create",
        _m(400, "Minimum memory limit allowed is 6MB"),
        F,
        None,
        "memory limit below the minimum",
    ),
    (
        "exec_not_found",
        "start",
        _m(
            400,
            'failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "nginxx": executable file not found in $PATH: unknown',
        ),
        F,
        None,
        "command not found in the image",
    ),
    (
        "port_allocated",
        "start",
        _m(
            500,
            "driver failed programming external connectivity on endpoint web (8d3f1c): Bind for 0.0.0.0:8080 failed: port is already allocated",
        ),
        U,
        None,
        "host port already allocated",
    ),
    (
        "no_space",
        "create",
        _m(500, "mkdir /var/lib/docker/overlay2/8d3f1c0a5b7e/merged: no space left on device"),
        U,
        None,
        "no space left on device",
    ),
    (
        "not_swarm_manager",
        "create_service",
        _m(
            503,
            'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.',
        ),
        U,
        None,
        "node is not a swarm manager",
    ),
    (
        "not_in_swarm",
        "create_service",
        _m(
            503,
            "This node is not a swarm manager. Worker nodes can't be used to view or modify cluster state. Please run this command on a manager node or promote the current node to a manager.",
        ),
        U,
        None,
        "worker node cannot modify cluster state",
    ),
    (
        "login_unauthorized",
        "login",
        _m(401, 'Get "https://registry.example.com/v2/": unauthorized: incorrect username or password'),
        U,
        None,
        "registry login failed",
    ),
    (
        "oci_permission_denied",
        "start",
        _m(
            500,
            "failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: open /proc/self/fd: permission denied: unknown",
        ),
        U,
        None,
        "runtime permission denied",
    ),
    (
        "pull_rate_limit",
        "pull",
        _m(
            500,
            "toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit",
        ),
        T,
        NE,
        "registry pull rate limit",
    ),
    (
        "registry_timeout",
        "pull",
        _m(
            500,
            'Get "https://registry-1.docker.io/v2/": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)',
        ),
        T,
        UO,
        "registry request timed out",
    ),
    (
        "context_deadline",
        "stop",
        _m(500, "context deadline exceeded"),
        T,
        UO,
        "daemon operation deadline exceeded",
    ),
    (
        "daemon_503",
        "get_container",
        Reply(
            503,
            "<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>",
            {},
            "a proxy in front of the daemon (HAProxy's 503)",
        ),
        T,
        NE,
        "proxy in front of the daemon unavailable",
    ),
]

# call -> (tool, the model's arguments, the call); the daemon's address and the registry
# credentials are the tool's configuration
_CALLS: dict[str, tuple[str, dict[str, Any], Any]] = {
    "get_container": ("inspect_container", {"container": "web"}, lambda d: d.containers.get("web")),
    "get_image": ("inspect_image", {"image": "acme/api:2.3"}, lambda d: d.images.get("acme/api:2.3")),
    "get_network": ("inspect_network", {"network": "backend"}, lambda d: d.networks.get("backend")),
    "get_volume": ("inspect_volume", {"volume": "pgdata"}, lambda d: d.volumes.get("pgdata")),
    "exec_start": ("exec_start", {"exec_id": "9b1f0c"}, lambda d: d.api.exec_start("9b1f0c")),
    "pull": (
        "pull_image",
        {"repository": "acme/api", "tag": "9.9"},
        lambda d: d.api.pull("acme/api", tag="9.9"),
    ),
    "create": (
        "create_container",
        {"image": "nginx:1.27", "name": "web", "ports": {"80/tcp": 8080}},
        lambda d: d.containers.create("nginx:1.27", name="web", ports={"80/tcp": 8080}),
    ),
    "kill": ("kill_container", {"container": "web"}, lambda d: d.api.kill("web")),
    "stop": ("stop_container", {"container": "web", "timeout": 1}, lambda d: d.api.stop("web", timeout=1)),
    "start": ("start_container", {"container": "web"}, lambda d: d.api.start("web")),
    "exec_create": (
        "exec_in_container",
        {"container": "web", "command": ["ls", "/"]},
        lambda d: d.api.exec_create("web", ["ls", "/"]),
    ),
    "remove_container": ("remove_container", {"container": "web"}, lambda d: d.api.remove_container("web")),
    "remove_image": ("remove_image", {"image": "605c77e624dd"}, lambda d: d.api.remove_image("605c77e624dd")),
    "remove_volume": ("remove_volume", {"volume": "pgdata"}, lambda d: d.api.remove_volume("pgdata")),
    "create_network": (
        "create_network",
        {"name": "backend", "driver": "bridge"},
        lambda d: d.networks.create("backend", driver="bridge", check_duplicate=True),
    ),
    "create_service": (
        "create_service",
        {"image": "nginx:1.27", "name": "web"},
        lambda d: d.services.create("nginx:1.27", name="web"),
    ),
    "login": (
        "registry_login",
        {"registry": "registry.example.com"},
        lambda d: d.login("bot", "s3cret", registry="registry.example.com", reauth=True),
    ),
}

# What the daemon's answer says the model put in the request body (which the stand-in
# daemon does not read, nor the exception show): these replace the call's arguments.
_BODY: dict[str, dict[str, Any]] = {
    "bind_source_missing": {"volumes": ["/srv/data:/data"]},
    "invalid_reference": {"image": "Nginx:1.27"},
    "invalid_port": {"ports": {"80/tcp": 99999}},
    "invalid_restart_policy": {"restart_policy": {"Name": "sometimes"}},
    "invalid_env": {"environment": ["=value"]},
    "invalid_memory": {"mem_limit": "4m"},
}


def cases(ctx: Any) -> Iterator[generate.Case]:
    import docker

    def client(base: str) -> Any:
        return docker.DockerClient(base_url=base, version="1.45", timeout=_saas.TIMEOUT, max_pool_size=2)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"docker-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "DOCKERPORT", "Docker/27.3.1 (linux)") as svc:
        d = client(f"tcp://127.0.0.1:{svc.port}")
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = _CALLS[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(lambda: fn(d))
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, {**args, **_BODY.get(key, {})})
        tool, args, fn = _CALLS["get_container"]
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {
                "refused": f"tcp://127.0.0.1:{ctx.dead}",
                "dns": "tcp://docker.unreachable-host.invalid:2375",
            }.get(key, f"tcp://127.0.0.1:{svc.port}")
            db = client(base)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(db)), tool, args)
        # a socket path where no daemon listens (the default unix:// transport)
        missing = ctx.tmp / "docker.sock"
        exc = _saas.catch(
            lambda: docker.DockerClient(base_url=f"unix://{missing}", version="1.45", timeout=1).ping()
        )
        yield case("no_socket", "daemon socket does not exist (daemon not running)", T, NE, exc, "ping", {})
        # the model gave the daemon's address
        base_url = "tcp://127.0.0.1:notaport"
        exc = _saas.catch(lambda: docker.DockerClient(base_url=base_url, version="1.45"))
        yield case(
            "bad_base_url", "malformed daemon address", F, None, exc, "connect", {"base_url": base_url}
        )
