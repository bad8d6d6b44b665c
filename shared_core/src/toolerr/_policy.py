"""The policy: what the user configures (detection itself is always on)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import InitVar, dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias, TypedDict, get_args

from ._detail import ErrorDetail, check_error_detail
from ._hygiene import DEFAULT_MAX_ERROR_CHARS
from ._names import describe_forms
from ._profile_file import load_profile, looks_like_profile_path
from ._profiles import PROFILES, Profile
from ._quarantine import DEFAULT_QUARANTINE_CHARS, DEFAULT_QUARANTINE_LINES, MIN_QUARANTINE_CHARS, check_store
from ._types import FORMS, KINDS, LOOP_ACTIONS, Form, Kind, LoopAction, ToolSafety, Verdict

ProgressSpec: TypeAlias = str | Callable[[], Any]
"""What ``progress=`` accepts: ``"git"`` or a callable returning a fingerprint (``str``,
``bytes`` or any hashable value; equal values mean an unchanged environment)."""

FormSpec: TypeAlias = str | Mapping[str, str]
"""What ``form=`` accepts: one form for every kind (``c0`` ... ``abstract``), the name of a
profile (:data:`toolerr.PROFILES`), the path of a profile file (``.json``, as
``toolerr eval --calibrate`` writes it: :func:`toolerr.load_profile`), or a mapping from
kind (and optionally ``default``) to form."""

ProfileSpec: TypeAlias = str | os.PathLike[str] | Profile
"""What ``profile=`` accepts: a profile's name, the path of a profile file, or a :class:`Profile`."""

DEFAULT_FORM: Form = "c3"
"""The form of a kind that a per-kind mapping leaves out (unless it gives ``default``)."""

DEFAULT_MAX_WAIT = 30.0
"""``max_wait``'s default, in seconds: a hidden retry waits at most this long (a longer
``Retry-After`` goes to the model, which can tell the user or do something else meanwhile)."""


_SAFETIES: tuple[ToolSafety, ...] = get_args(ToolSafety)


class PolicyOptions(TypedDict, total=False):
    """The policy fields every adapter constructor accepts as keywords, typed once::

        def __init__(self, policy: Policy | None = None, **options: Unpack[PolicyOptions]) -> None:
            self.layer = ToolErrorLayer(policy, **options)

    Each overrides the field of ``policy`` (or of the default :class:`Policy`); see
    :class:`Policy` for their meaning and defaults. A value of ``None`` counts as not given.
    """

    form: FormSpec
    profile: ProfileSpec
    retry_budget: int
    loop_action: LoopAction
    tool_safety: Mapping[str, ToolSafety]
    max_error_chars: int
    error_detail: ErrorDetail
    idempotency_guard: bool
    auto_retry: int
    max_wait: float
    quarantine_chars: int
    quarantine_lines: int
    result_store: str | os.PathLike[str] | Any
    quarantine_successes: bool
    progress: ProgressSpec
    progress_cwd: str | os.PathLike[str]
    progress_window: int
    same_result_repeats: int
    on_loop: Callable[[Any], None]


POLICY_OPTIONS: tuple[str, ...] = tuple(PolicyOptions.__annotations__)
"""The names of :class:`PolicyOptions`."""


@dataclass(frozen=True)
class Policy:
    """How toolerr delivers failures.

    ``form``: ``c0`` (detect and record only), ``c1``, ``c2``, ``c3`` (default, the
    measured aggregate best), ``c4`` or ``abstract`` for every kind; or a mapping from kind
    to form (``{"transient": "c3", "fixable": "abstract"}``; a kind left out gets the
    mapping's ``default`` key, else ``c3``); or the name of a profile (:data:`PROFILES`,
    e.g. ``small-local``); or the path of a profile file (``profile.json``, read once here
    with :func:`toolerr.load_profile`). ``profile``: a profile's name, a profile file's path
    or a :class:`Profile`, instead of ``form`` (it wins over ``form``). After construction
    ``form`` is one form when every kind gets the same, else a read-only mapping over every
    kind; :meth:`form_for` gives a kind's form. ``retry_budget``: exact retries of a
    transient failure that count as correct before it counts as unrecoverable.
    ``loop_action``: ``note``, ``block`` or ``stop``. ``tool_safety``: per tool name,
    ``read_only``, ``idempotent`` or ``unsafe``; a transient failure with an unknown
    outcome is only called safe to retry on a read-only or idempotent tool.
    ``max_error_chars``: cap on error text restated in a note.
    ``error_detail``: how much of a failure the model is shown, in the note and in the
    failed result toolerr writes or shows: ``full`` (default: the error text), ``safe``
    (the exception type and the safe structured fields: HTTP status, error code, errno,
    Retry-After; none of the message's words) or ``none`` (the guidance alone).
    ``idempotency_guard`` (default on): after a failure whose outcome is unknown, an
    identical resend to a tool not declared ``read_only`` or ``idempotent`` is not executed
    and the model is told to check whether the first call took effect (whatever
    ``loop_action``). ``auto_retry`` (default 0): in adapters that run the tool call
    themselves, a transient failure that was not executed (429, 503, refused) is re-run up
    to this many times with backoff before the model sees anything (an unknown outcome
    only for a read-only or idempotent tool); ``max_wait`` (seconds, default 30): the
    longest wait (a ``Retry-After`` or the backoff) such a hidden retry may take.
    ``quarantine_chars``: a failed tool result longer than this is shown to the model (in
    the model call's rewrite; the history keeps it whole) as its primary error, its last
    ``quarantine_lines`` lines and the reference to the full text, which is saved to
    ``result_store`` (default 8,000, chosen from the lengths of real errors: see
    ``docs/DELIVERY.md``; ``0``, or ``None`` here, never: an adapter's keyword ``None``
    means not given). ``result_store``: a directory (default:
    ``toolerr-results-<uid>`` under the temporary directory, mode 0700) or an object with
    ``save(text, *, tool, call_id) -> str`` returning the reference shown to the model.
    ``quarantine_successes``: quarantine long successful results too.

    Progress (``docs/DELIVERY.md`` section 5): ``progress``: ``None`` (default), ``"git"``
    (HEAD, index and working tree of the repository at ``progress_cwd``, default the
    process's working directory at construction) or a callable returning a fingerprint of
    the environment, taken when the model call after each tool step is prepared; when it
    is unchanged over ``progress_window`` (3) steps that include a failure, the loop action
    applies. ``same_result_repeats`` (3; 0 turns it off): a successful call whose tool,
    arguments and result repeat that many times gets a loop note. ``on_loop``: called with
    the :class:`~toolerr.ToolLoopError` before it is raised (loop action ``stop``).
    """

    form: FormSpec = DEFAULT_FORM
    retry_budget: int = 3
    loop_action: LoopAction = "note"
    tool_safety: Mapping[str, ToolSafety] = field(default_factory=dict)
    max_error_chars: int = DEFAULT_MAX_ERROR_CHARS
    client: str = "generic"
    profile: InitVar[ProfileSpec | None] = None
    error_detail: ErrorDetail = "full"
    idempotency_guard: bool = True
    auto_retry: int = 0
    max_wait: float = DEFAULT_MAX_WAIT
    quarantine_chars: int | None = DEFAULT_QUARANTINE_CHARS
    quarantine_lines: int = DEFAULT_QUARANTINE_LINES
    result_store: str | os.PathLike[str] | Any = None
    quarantine_successes: bool = False
    progress: ProgressSpec | None = None
    progress_cwd: str | os.PathLike[str] | None = None
    progress_window: int = 3
    same_result_repeats: int = 3
    on_loop: Callable[[Any], None] | None = None

    def __post_init__(self, profile: ProfileSpec | None) -> None:
        forms = resolve_forms(self.form if profile is None else profile)
        first = forms[KINDS[0]]
        single = all(value == first for value in forms.values())
        object.__setattr__(self, "form", first if single else MappingProxyType(forms))
        if self.loop_action not in LOOP_ACTIONS:
            raise ValueError(f"unknown loop_action {self.loop_action!r}; expected note, block or stop")
        if not isinstance(self.retry_budget, int) or self.retry_budget < 0:
            raise ValueError("retry_budget must be a non-negative int")
        if not isinstance(self.max_error_chars, int) or self.max_error_chars < 80:
            raise ValueError("max_error_chars must be an int of at least 80")
        if not isinstance(self.idempotency_guard, bool):
            raise ValueError("idempotency_guard must be a bool")
        if isinstance(self.auto_retry, bool) or not isinstance(self.auto_retry, int) or self.auto_retry < 0:
            raise ValueError("auto_retry must be a non-negative int")
        wait: Any = self.max_wait
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait < float("inf"):
            raise ValueError("max_wait must be a non-negative number of seconds")
        safety = dict(self.tool_safety)
        for tool, value in safety.items():
            if value not in _SAFETIES:
                raise ValueError(
                    f"tool_safety[{tool!r}] = {value!r}; expected read_only, idempotent or unsafe"
                )
        object.__setattr__(self, "tool_safety", MappingProxyType(safety))
        check_error_detail(self.error_detail)
        chars = self.quarantine_chars
        if chars is not None and (
            not isinstance(chars, int) or isinstance(chars, bool) or (chars and chars < MIN_QUARANTINE_CHARS)
        ):
            raise ValueError(
                f"quarantine_chars must be None, 0 (never) or an int of at least {MIN_QUARANTINE_CHARS}"
            )
        lines = self.quarantine_lines
        if not isinstance(lines, int) or isinstance(lines, bool) or lines < 1:
            raise ValueError("quarantine_lines must be an int of at least 1")
        if not isinstance(self.quarantine_successes, bool):
            raise ValueError("quarantine_successes must be a bool")
        check_store(self.result_store)
        self._check_progress()

    def _check_progress(self) -> None:
        if self.progress is not None and self.progress != "git" and not callable(self.progress):
            raise ValueError(f"progress must be None, 'git' or a callable, got {self.progress!r}")
        if self.progress == "git":
            cwd = os.fspath(self.progress_cwd) if self.progress_cwd is not None else os.getcwd()
            if not os.path.isdir(cwd):
                raise ValueError(f"progress_cwd {cwd!r} is not a directory")
            object.__setattr__(self, "progress_cwd", cwd)
        window = self.progress_window
        if isinstance(window, bool) or not isinstance(window, int) or window < 2:
            raise ValueError("progress_window must be an int of at least 2")
        repeats = self.same_result_repeats
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 0 or repeats == 1:
            raise ValueError("same_result_repeats must be 0 (off) or an int of at least 2")
        if self.on_loop is not None and not callable(self.on_loop):
            raise ValueError("on_loop must be a callable")

    def form_for(self, kind: Kind | None) -> Form:
        """The form delivered for a failure of ``kind`` (the effective kind: a transient
        failure past its retry budget is unrecoverable); ``None`` counts as ambiguous."""
        form: Any = self.form  # validated in __post_init__: a Form, or a mapping over KINDS
        if isinstance(form, str):
            return form  # type: ignore[return-value]
        chosen: Form = form[kind or "ambiguous"]
        return chosen

    @property
    def forms(self) -> Mapping[Kind, Form]:
        """The form of every kind."""
        return MappingProxyType({kind: self.form_for(kind) for kind in KINDS})

    def with_tool_safety(self, safety: Mapping[str, ToolSafety]) -> Policy:
        """A copy with more per-tool safety facts (those given explicitly by the user win)."""
        merged: dict[str, ToolSafety] = dict(safety)
        merged.update(self.tool_safety)
        return dataclasses.replace(self, tool_safety=merged)

    def retry_safe(self, tool: str | None, verdict: Verdict | None = None) -> bool:
        """Whether retry guidance is safe for this tool and failure.

        Always for a failure that was not executed; for an unknown outcome only when the
        tool is declared read-only or idempotent.
        """
        if verdict is not None and verdict.outcome != "unknown_outcome":
            return True
        return tool is not None and self.tool_safety.get(tool) in ("read_only", "idempotent")

    @property
    def checks_calls(self) -> bool:
        """Whether a call must be checked before it runs: a loop action other than ``note``,
        or the idempotency guard on."""
        return self.loop_action != "note" or self.idempotency_guard

    @classmethod
    def coerce(cls, policy: Policy | None = None, **options: Any) -> Policy:
        """A policy from an optional base and keyword overrides (the adapters' constructor args)."""
        options = {key: value for key, value in options.items() if value is not None}
        if "tool_safety" in options:
            options["tool_safety"] = dict(options["tool_safety"])
        if policy is None:
            return cls(**options)
        if not isinstance(policy, Policy):
            raise TypeError(f"policy must be a toolerr.Policy, got {type(policy).__name__}")
        if not options:
            return policy
        return dataclasses.replace(policy, **options)


def _form_named(value: Any) -> Form | None:
    if not isinstance(value, str):
        return None
    name = value.strip().lower()
    return next((form for form in FORMS if form == name), None)


def resolve_forms(spec: Any) -> dict[Kind, Form]:
    """The form of every kind for what ``form=`` accepts (see :data:`FormSpec`).
    Raises :class:`ValueError` naming the forms when it is none of them."""
    given: Mapping[Any, Any]
    if isinstance(spec, Profile):
        given = spec.forms
    elif (single := _form_named(spec)) is not None:
        return dict.fromkeys(KINDS, single)
    elif isinstance(spec, str) and spec.strip().lower() in PROFILES:
        given = PROFILES[spec.strip().lower()].forms
    elif looks_like_profile_path(spec):
        given = load_profile(spec).forms  # a ProfileError (a ValueError) names the file
    elif isinstance(spec, str):
        raise ValueError(
            f"unknown form {spec!r}; expected one of {describe_forms()}; a profile "
            f"({', '.join(PROFILES)}); a profile file (.json); or a mapping from kind "
            f"({', '.join(KINDS)}) to form"
        )
    elif isinstance(spec, Mapping):
        given = spec
    else:
        raise ValueError(
            "form must be a form name, a profile name or a mapping from kind to form, "
            f"got {type(spec).__name__} (or the path of a profile file)"
        )
    keys = {str(key).strip().lower(): value for key, value in given.items()}
    unknown = [key for key in keys if key not in KINDS and key != "default"]
    if unknown:
        raise ValueError(
            f"unknown kind {unknown[0]!r} in form mapping; expected kinds {', '.join(KINDS)} or 'default'"
        )
    resolved: dict[Kind, Form] = {}
    default = keys.get("default", DEFAULT_FORM)
    for kind in KINDS:
        value = keys.get(kind, default)
        form = _form_named(value)
        if form is None:
            raise ValueError(f"unknown form {value!r} for kind {kind!r}; expected one of {describe_forms()}")
        resolved[kind] = form
    return resolved


def safety_from_annotations(annotations: Any) -> ToolSafety | None:
    """Tool safety from MCP-style annotations (``readOnlyHint``, ``idempotentHint``,
    ``destructiveHint``), given as a mapping (camel case, as on the wire, or snake case) or
    an object with those attributes: snake case where it has them (mcp 2.x, whose camel-case
    aliases FastMCP adds back with a deprecation warning, never read then), else camel case
    (mcp 1.x). ``None`` when nothing is declared."""
    if annotations is None:
        return None

    def read(camel: str, snake: str) -> Any:
        if isinstance(annotations, Mapping):
            for name in (camel, snake):
                if name in annotations:
                    return annotations[name]
            return None
        value = getattr(annotations, snake, _MISSING)
        return getattr(annotations, camel, None) if value is _MISSING else value

    if read("readOnlyHint", "read_only_hint") is True:
        return "read_only"
    if read("idempotentHint", "idempotent_hint") is True:
        return "idempotent"
    if read("readOnlyHint", "read_only_hint") is False or read("destructiveHint", "destructive_hint") is True:
        return "unsafe"
    return None


_MISSING = object()


def hinted_safety(metadata: Any) -> ToolSafety | None:
    """The retry safety that MCP-style hints declare in a tool's metadata, at its top level
    (as langchain-mcp-adapters copies an MCP tool's annotations) or under ``annotations``;
    no ``toolerr_safety`` key (:func:`toolerr.adapters.declared_safety` reads one).

    Args:
        metadata: the tool's metadata (anything that is not a mapping declares nothing).

    Returns:
        The declared safety, or ``None``.
    """
    if not isinstance(metadata, Mapping):
        return None
    return safety_from_annotations(metadata) or safety_from_annotations(metadata.get("annotations"))
