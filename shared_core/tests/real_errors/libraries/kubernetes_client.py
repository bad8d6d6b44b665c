# ruff: noqa: B023 - each lambda is called at once
"""kubernetes (the official Python client): the API server's ``Status`` failures as
``ApiException``, its own argument checks (``ApiValueError``, ``ApiTypeError``) and the
urllib3 transport failures, pointed at a local stand-in API server.

Bodies are ``meta/v1 Status`` objects (kubernetes.io/docs/reference/kubernetes-api/
common-definitions/status/; the ``reason`` values and their HTTP codes are
k8s.io/apimachinery/pkg/apis/meta/v1 ``StatusReason``: Unauthorized 401, Forbidden 403,
NotFound 404, AlreadyExists 409, Conflict 409, Gone/Expired 410, Invalid 422,
TooManyRequests 429, InternalError 500, ServiceUnavailable 503, Timeout 504) with the
messages the API server writes (apimachinery ``errors.New*``, quota, LimitRange and
PodSecurity admission, API priority and fairness).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "kubernetes"
REQUIRES = ["kubernetes>=29,<38"]

_STATUS = "Kubernetes meta/v1 Status (kubernetes.io/docs/reference/kubernetes-api/common-definitions/status/)"
_HDR = {"Audit-Id": "3f8e2c1a-7b6d-4e5f-9a0b-1c2d3e4f5a6b", "Cache-Control": "no-cache, private"}


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    }
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


def _s(code: int, reason: str, message: str, details: dict[str, Any] | None = None, **headers: str) -> Reply:
    return Reply(code, _status(code, reason, message, details), {**_HDR, **headers}, _STATUS)


_POD = {"name": "web", "kind": "pods"}
_SA = 'User "system:serviceaccount:agents:runner"'

_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("unauthorized", "list_pods", _s(401, "Unauthorized", "Unauthorized"), U, None, "token not accepted"),
    (
        "forbidden_rbac",
        "list_pods",
        _s(
            403,
            "Forbidden",
            f'pods is forbidden: {_SA} cannot list resource "pods" in API group "" in the namespace "kube-system"',
            {"kind": "pods"},
        ),
        U,
        None,
        "RBAC forbids the verb",
    ),
    (
        "forbidden_rbac_create",
        "create_pod",
        _s(
            403,
            "Forbidden",
            f'pods is forbidden: {_SA} cannot create resource "pods" in API group "" in the namespace "default"',
            {"kind": "pods"},
        ),
        U,
        None,
        "RBAC forbids creating pods",
    ),
    (
        "forbidden_quota",
        "create_pod",
        _s(
            403,
            "Forbidden",
            'pods "web" is forbidden: exceeded quota: compute-resources, requested: limits.cpu=2, used: limits.cpu=4, limited: limits.cpu=4',
            _POD,
        ),
        U,
        None,
        "namespace resource quota exhausted",
    ),
    (
        "forbidden_quota_count",
        "create_pod",
        _s(
            403,
            "Forbidden",
            'pods "web" is forbidden: exceeded quota: object-counts, requested: pods=1, used: pods=10, limited: pods=10',
            _POD,
        ),
        U,
        None,
        "namespace object count quota exhausted",
    ),
    (
        "namespace_terminating",
        "create_pod",
        _s(
            403,
            "Forbidden",
            'pods "web" is forbidden: unable to create new content in namespace staging because it is being terminated',
            {
                **_POD,
                "causes": [
                    {
                        "reason": "NamespaceTerminating",
                        "message": "namespace staging is being terminated",
                        "field": "metadata.namespace",
                    }
                ],
            },
        ),
        U,
        None,
        "namespace being deleted",
    ),
    (
        "pod_security",
        "create_pod",
        _s(
            403,
            "Forbidden",
            'pods "web" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true)',
            _POD,
        ),
        F,
        None,
        "pod spec violates the namespace's pod security level",
    ),
    (
        "limit_range",
        "create_pod",
        _s(
            403,
            "Forbidden",
            'pods "web" is forbidden: maximum cpu usage per Container is 2, but limit is 4',
            _POD,
        ),
        F,
        None,
        "container limit above the LimitRange maximum",
    ),
    (
        "webhook_denied",
        "create_pod",
        _s(
            400,
            "BadRequest",
            "admission webhook \"validate.kyverno.svc-fail\" denied the request: \n\nresource Pod/default/web was blocked due to the following policies\n\nrestrict-image-registries:\n  validate-registries: 'validation error: Images may only come from our internal enterprise registry. rule validate-registries failed at path /spec/containers/0/image/'",
        ),
        F,
        None,
        "admission policy rejects the image registry",
    ),
    (
        "pod_not_found",
        "read_pod",
        _s(404, "NotFound", 'pods "web" not found', _POD),
        A,
        None,
        "pod not found",
    ),
    (
        "namespace_not_found",
        "create_pod",
        _s(404, "NotFound", 'namespaces "staging" not found', {"name": "staging", "kind": "namespaces"}),
        A,
        None,
        "namespace not found",
    ),
    (
        "deployment_not_found",
        "patch_deployment",
        _s(
            404,
            "NotFound",
            'deployments.apps "web" not found',
            {"name": "web", "group": "apps", "kind": "deployments"},
        ),
        A,
        None,
        "deployment not found",
    ),
    (
        "resource_type_not_found",
        "list_custom",
        _s(404, "NotFound", "the server could not find the requested resource", {}),
        A,
        None,
        "resource type not served (CRD not installed)",
    ),
    (
        "already_exists",
        "create_pod",
        _s(409, "AlreadyExists", 'pods "web" already exists', _POD),
        A,
        None,
        "pod already exists",
    ),
    (
        "conflict_modified",
        "replace_deployment",
        _s(
            409,
            "Conflict",
            'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
            {"name": "web", "group": "apps", "kind": "deployments"},
        ),
        A,
        None,
        "object modified since it was read (optimistic lock)",
    ),
    (
        "gone_expired",
        "list_pods",
        _s(
            410,
            "Expired",
            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
        ),
        F,
        None,
        "pagination continue token expired",
    ),
    (
        "invalid_required",
        "create_deployment",
        _s(
            422,
            "Invalid",
            'Deployment.apps "web" is invalid: spec.template.spec.containers[0].image: Required value',
            {
                "name": "web",
                "group": "apps",
                "kind": "Deployment",
                "causes": [
                    {
                        "reason": "FieldValueRequired",
                        "message": "Required value",
                        "field": "spec.template.spec.containers[0].image",
                    }
                ],
            },
        ),
        F,
        None,
        "required field missing",
    ),
    (
        "invalid_name",
        "create_pod",
        _s(
            422,
            "Invalid",
            "Pod \"Web_1\" is invalid: metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            {
                "name": "Web_1",
                "kind": "Pod",
                "causes": [
                    {"reason": "FieldValueInvalid", "message": "Invalid value", "field": "metadata.name"}
                ],
            },
        ),
        F,
        None,
        "object name not a valid DNS subdomain",
    ),
    (
        "invalid_immutable",
        "replace_service",
        _s(
            422,
            "Invalid",
            'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.99"}: may not change once set',
            {
                "name": "web",
                "kind": "Service",
                "causes": [
                    {"reason": "FieldValueInvalid", "message": "Invalid value", "field": "spec.clusterIPs[0]"}
                ],
            },
        ),
        F,
        None,
        "immutable field changed",
    ),
    (
        "invalid_selector",
        "create_deployment",
        _s(
            422,
            "Invalid",
            'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"api"}: `selector` does not match template `labels`',
            {"name": "web", "group": "apps", "kind": "Deployment"},
        ),
        F,
        None,
        "selector does not match the template labels",
    ),
    (
        "invalid_requests",
        "create_pod",
        _s(
            422,
            "Invalid",
            'Pod "web" is invalid: spec.containers[0].resources.requests: Invalid value: "4": must be less than or equal to cpu limit of 2',
            {"name": "web", "kind": "Pod"},
        ),
        F,
        None,
        "resource request above the limit",
    ),
    (
        "bad_request_decode",
        "create_pod",
        _s(
            400,
            "BadRequest",
            'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container',
        ),
        F,
        None,
        "body field of the wrong type",
    ),
    (
        "strict_unknown_field",
        "create_deployment",
        _s(
            400,
            "BadRequest",
            ".spec.replica: field not declared in schema",
            {
                "causes": [
                    {
                        "reason": "FieldValueInvalid",
                        "message": 'strict decoding error: unknown field "spec.replica"',
                        "field": "spec.replica",
                    }
                ]
            },
        ),
        F,
        None,
        "unknown field (strict field validation)",
    ),
    (
        "container_name_required",
        "read_log",
        _s(
            400,
            "BadRequest",
            "a container name must be specified for pod web, choose one of: [web istio-proxy]",
        ),
        F,
        None,
        "container name required for a multi-container pod",
    ),
    (
        "container_creating",
        "read_log",
        _s(400, "BadRequest", 'container "web" in pod "web" is waiting to start: ContainerCreating'),
        T,
        NE,
        "container still starting",
    ),
    (
        "too_large",
        "create_configmap",
        _s(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728"),
        F,
        None,
        "object too large",
    ),
    (
        "too_many_requests",
        "list_pods",
        _s(
            429,
            "TooManyRequests",
            "Too many requests, please try again later.",
            {"retryAfterSeconds": 1},
            **{"Retry-After": "1"},
        ),
        T,
        NE,
        "API priority and fairness throttled the request",
    ),
    (
        "pdb_eviction",
        "evict_pod",
        _s(
            429,
            "TooManyRequests",
            "Cannot evict pod as it would violate the pod's disruption budget.",
            {
                "causes": [
                    {
                        "reason": "DisruptionBudget",
                        "message": "The disruption budget web-pdb needs 2 healthy pods and has 2 currently",
                    }
                ]
            },
        ),
        T,
        NE,
        "pod disruption budget blocks the eviction for now",
    ),
    (
        "webhook_timeout",
        "create_pod",
        _s(
            500,
            "InternalError",
            'Internal error occurred: failed calling webhook "validate.kyverno.svc-fail": failed to call webhook: Post "https://kyverno-svc.kyverno.svc:443/validate/fail?timeout=10s": context deadline exceeded',
            {"causes": [{"message": 'failed calling webhook "validate.kyverno.svc-fail"'}]},
        ),
        T,
        UO,
        "admission webhook call timed out",
    ),
    (
        "etcd_timeout",
        "replace_deployment",
        _s(500, "InternalError", "etcdserver: request timed out"),
        T,
        UO,
        "etcd request timed out",
    ),
    (
        "service_unavailable",
        "list_custom",
        _s(
            503,
            "ServiceUnavailable",
            "the server is currently unable to handle the request (get pods.metrics.k8s.io)",
            {
                "group": "metrics.k8s.io",
                "kind": "pods",
                "causes": [{"reason": "UnexpectedServerResponse", "message": "service unavailable"}],
            },
        ),
        T,
        NE,
        "aggregated API unavailable",
    ),
    (
        "timeout_504",
        "list_pods",
        _s(
            504,
            "Timeout",
            "Timeout: request did not complete within requested timeout - context deadline exceeded",
            {},
        ),
        T,
        UO,
        "request did not complete in the server's timeout",
    ),
]

_POD_BODY = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web"},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
}
_DEP_BODY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
        },
    },
}

_SVC_BODY = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web"},
    "spec": {"clusterIP": "10.96.0.99"},
}
_CM_BODY = {"metadata": {"name": "blob"}, "data": {"k": "v"}}
_WEB = {"name": "web", "namespace": "default"}

# call -> (tool, the model's arguments, the call); the cluster's host and token are the
# tool's configuration, the Eviction wrapper the tool's own
_CALLS: dict[str, tuple[str, dict[str, Any], Any]] = {
    "list_pods": (
        "list_pods",
        {"namespace": "kube-system"},
        lambda c: c["core"].list_namespaced_pod("kube-system", _request_timeout=_saas.TIMEOUT),
    ),
    "read_pod": (
        "get_pod",
        _WEB,
        lambda c: c["core"].read_namespaced_pod("web", "default", _request_timeout=_saas.TIMEOUT),
    ),
    "create_pod": (
        "create_pod",
        {"namespace": "default", "body": _POD_BODY},
        lambda c: c["core"].create_namespaced_pod("default", _POD_BODY, _request_timeout=_saas.TIMEOUT),
    ),
    "read_log": (
        "pod_logs",
        _WEB,
        lambda c: c["core"].read_namespaced_pod_log("web", "default", _request_timeout=_saas.TIMEOUT),
    ),
    "replace_service": (
        "update_service",
        {**_WEB, "body": _SVC_BODY},
        lambda c: c["core"].replace_namespaced_service(
            "web", "default", _SVC_BODY, _request_timeout=_saas.TIMEOUT
        ),
    ),
    "create_configmap": (
        "create_configmap",
        {"namespace": "default", "body": _CM_BODY},
        lambda c: c["core"].create_namespaced_config_map("default", _CM_BODY, _request_timeout=_saas.TIMEOUT),
    ),
    "evict_pod": (
        "evict_pod",
        _WEB,
        lambda c: c["core"].create_namespaced_pod_eviction(
            "web",
            "default",
            {
                "apiVersion": "policy/v1",
                "kind": "Eviction",
                "metadata": {"name": "web", "namespace": "default"},
            },
            _request_timeout=_saas.TIMEOUT,
        ),
    ),
    "create_deployment": (
        "create_deployment",
        {"namespace": "default", "body": _DEP_BODY},
        lambda c: c["apps"].create_namespaced_deployment(
            "default", _DEP_BODY, _request_timeout=_saas.TIMEOUT
        ),
    ),
    "replace_deployment": (
        "update_deployment",
        {**_WEB, "body": _DEP_BODY},
        lambda c: c["apps"].replace_namespaced_deployment(
            "web", "default", _DEP_BODY, _request_timeout=_saas.TIMEOUT
        ),
    ),
    "patch_deployment": (
        "scale_deployment",
        {**_WEB, "replicas": 3},
        lambda c: c["apps"].patch_namespaced_deployment(
            "web", "default", {"spec": {"replicas": 3}}, _request_timeout=_saas.TIMEOUT
        ),
    ),
    "list_custom": (
        "list_custom_objects",
        {"group": "metrics.k8s.io", "version": "v1beta1", "namespace": "default", "plural": "pods"},
        lambda c: c["custom"].list_namespaced_custom_object(
            "metrics.k8s.io", "v1beta1", "default", "pods", _request_timeout=_saas.TIMEOUT
        ),
    ),
}


def cases(ctx: Any) -> Iterator[generate.Case]:
    from kubernetes import client as k8s

    def clients(base: str, retries: Any = 0) -> dict[str, Any]:
        cfg = k8s.Configuration()
        cfg.host = base
        cfg.api_key = {"authorization": "eyJhbGciOiJSUzI1NiJ9.agent-token"}
        cfg.api_key_prefix = {"authorization": "Bearer"}
        cfg.retries = retries
        api = k8s.ApiClient(cfg)
        return {"core": k8s.CoreV1Api(api), "apps": k8s.AppsV1Api(api), "custom": k8s.CustomObjectsApi(api)}

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"k8s-{cid}", LIBRARY, cause, kind, outcome, exc, tool, args)

    with _saas.service(ctx, "K8SPORT", "") as svc:
        c = clients(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = _CALLS[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(lambda: fn(c))
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        tool, args, fn = _CALLS["read_pod"]
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "https://k8s.unreachable-host.invalid:6443"}.get(
                key, svc.base
            )
            cb = clients(base)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(cb)), tool, args)
        # the client's default: urllib3's own retries (retries=None)
        cd = clients(_saas.dead_base(ctx), None)
        exc = _saas.catch(lambda: fn(cd))
        yield case("refused-retried", "connection refused (after retries)", T, NE, exc, tool, args)
        # the generated client's own argument checks (nothing is sent)
        exc = _saas.catch(lambda: c["core"].read_namespaced_pod(None, "default"))
        args = {"name": None, "namespace": "default"}
        yield case(
            "missing_param", "required parameter missing (client-side check)", F, None, exc, "get_pod", args
        )
        exc = _saas.catch(lambda: c["core"].read_namespaced_pod("web", "default", labelSelector="app=web"))
        args = {**_WEB, "labelSelector": "app=web"}
        cause = "unexpected keyword argument (client-side check)"
        yield case("unexpected_kwarg", cause, F, None, exc, "get_pod", args)
        exc = _saas.catch(lambda: k8s.V1Container(name=None, image="nginx"))
        container = {"name": None, "image": "nginx"}
        args = {"namespace": "default", "body": {**_POD_BODY, "spec": {"containers": [container]}}}
        cause = "model field required (client-side check)"
        yield case("model_required_field", cause, F, None, exc, "create_pod", args)
