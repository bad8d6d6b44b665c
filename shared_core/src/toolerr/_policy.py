"""The policy: what the user configures (detection itself is always on)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import InitVar, dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias, TypedDict, get_args

from ._hygiene import DEFAULT_MAX_ERROR_CHARS
from ._names import describe_forms
from ._profile_file import load_profile, looks_like_profile_path
from ._profiles import PROFILES, Profile
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
        safety = dict(self.tool_safety)
        for tool, value in safety.items():
            if value not in _SAFETIES:
                raise ValueError(
                    f"tool_safety[{tool!r}] = {value!r}; expected read_only, idempotent or unsafe"
                )
        object.__setattr__(self, "tool_safety", MappingProxyType(safety))
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
    ``destructiveHint``), given as a mapping or an object with those attributes (snake or
    camel case). ``None`` when nothing is declared."""
    if annotations is None:
        return None

    def read(*names: str) -> Any:
        for name in names:
            if isinstance(annotations, Mapping) and name in annotations:
                return annotations[name]
            value = getattr(annotations, name, None)
            if value is not None:
                return value
        return None

    if read("readOnlyHint", "read_only_hint") is True:
        return "read_only"
    if read("idempotentHint", "idempotent_hint") is True:
        return "idempotent"
    if read("readOnlyHint", "read_only_hint") is False or read("destructiveHint", "destructive_hint") is True:
        return "unsafe"
    return None
