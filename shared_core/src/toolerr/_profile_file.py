"""Profile files: a form per kind of failure, chosen by a calibration, as JSON.

``toolerr eval --calibrate`` (toolerr-hf) writes one; :func:`load_profile` reads it back
into a :class:`toolerr.Profile`, and ``Policy(profile="path/to/profile.json")`` (or
``form="path/to/profile.json"`` on any adapter) applies it. The file keeps the evidence
beside the choice. Its fields::

    {
      "format": "toolerr-profile/1",             required
      "forms": {"transient": "c3", "fixable": "abstract", ...},   required: kind (or
                                                  "default") -> form (c0 ... abstract)
      "name": "calibrated-smollm2",               optional (default: the file's stem)
      "evidence": "why these forms",              optional text
      "ban": true,                                optional: the local backend's decoder ban
      "model": "HuggingFaceTB/SmolLM2-135M-Instruct",   optional: what was measured
      "date": "2026-12-01T14:05:00+00:00",        optional, ISO 8601
      "splits": {...}, "measures": {...}, "rule": "..."  optional evidence, kept as read
    }

Every field is kept in :attr:`Profile.details`. Stdlib only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

from ._names import describe_forms
from ._profiles import Profile
from ._types import FORMS, KINDS, Form, Kind

__all__ = ["PROFILE_FORMAT", "ProfileError", "load_profile", "looks_like_profile_path", "save_profile"]

PROFILE_FORMAT = "toolerr-profile/1"
"""The ``format`` field of a profile file that :func:`load_profile` reads."""

_OBJECT_FIELDS = ("splits", "measures")
_TEXT_FIELDS = ("name", "evidence", "model", "date", "rule")


class ProfileError(ValueError):
    """A profile file that cannot be read or is not a valid profile (the message says
    which file and which field)."""


def looks_like_profile_path(value: object) -> bool:
    """Whether ``form=``/``profile=`` names a file rather than a form or profile: a path
    object, or text that ends in ``.json`` or holds a path separator."""
    if isinstance(value, os.PathLike):
        return True
    if not isinstance(value, str):
        return False
    text = value.strip()
    return text.lower().endswith(".json") or "/" in text or os.sep in text


def _forms(value: Any, where: str) -> dict[Kind, Form]:
    if not isinstance(value, Mapping) or not value:
        raise ProfileError(
            f"{where}: 'forms' must be an object from kind ({', '.join(KINDS)} or 'default') to form, "
            f"got {json.dumps(value)[:60]}"
        )
    given: dict[str, Form] = {}
    for key, form in value.items():
        kind = str(key).strip().lower()
        if kind not in KINDS and kind != "default":
            raise ProfileError(
                f"{where}: unknown kind {key!r} in 'forms'; expected {', '.join(KINDS)} or 'default'"
            )
        name = form.strip().lower() if isinstance(form, str) else None
        chosen = next((f for f in FORMS if f == name), None)
        if chosen is None:
            raise ProfileError(
                f"{where}: forms[{key!r}] = {form!r} is not a form; expected one of {describe_forms()}"
            )
        given[kind] = chosen
    default = given.pop("default", None)
    out: dict[Kind, Form] = {}
    for kind in KINDS:
        if kind in given:
            out[kind] = given[kind]
        elif default is not None:
            out[kind] = default
    return out


def profile_from_dict(data: Any, *, source: str = "<profile>") -> Profile:
    """A :class:`Profile` from a profile file's parsed content (the module docstring);
    :class:`ProfileError` says what is wrong, prefixed with ``source``."""
    if not isinstance(data, Mapping):
        raise ProfileError(f"{source}: a profile file holds a JSON object, got {type(data).__name__}")
    found = data.get("format")
    if found != PROFILE_FORMAT:
        if found is None:
            raise ProfileError(f'{source}: not a toolerr profile (no "format": "{PROFILE_FORMAT}")')
        raise ProfileError(f"{source}: format {found!r} is not supported; expected {PROFILE_FORMAT!r}")
    if "forms" not in data:
        raise ProfileError(f"{source}: no 'forms' (kind -> form) in the profile")
    forms = _forms(data["forms"], source)
    for name in _TEXT_FIELDS:
        if name in data and (not isinstance(data[name], str) or not data[name].strip()):
            raise ProfileError(f"{source}: {name!r} must be a non-empty string, got {data[name]!r}")
    for name in _OBJECT_FIELDS:
        if name in data and not isinstance(data[name], Mapping):
            raise ProfileError(f"{source}: {name!r} must be an object, got {type(data[name]).__name__}")
    if "ban" in data and not isinstance(data["ban"], bool):
        raise ProfileError(f"{source}: 'ban' must be true or false, got {data['ban']!r}")
    if "date" in data:
        try:
            datetime.fromisoformat(data["date"])
        except ValueError:
            raise ProfileError(f"{source}: 'date' {data['date']!r} is not an ISO 8601 date") from None
    stem = os.path.splitext(os.path.basename(source))[0] or "profile"
    name = str(data.get("name") or stem).strip()
    evidence = data.get("evidence")
    if evidence is None:
        parts = [f"calibrated on {data['model']}" if "model" in data else "loaded from a profile file"]
        if "date" in data:
            parts.append(f"on {data['date']}")
        evidence = " ".join(parts) + f" ({source})"
    details = json.loads(json.dumps(dict(data)))  # a copy, and a check that it is JSON data
    return Profile(
        name=name,
        forms=MappingProxyType(forms),
        evidence=str(evidence),
        ban=bool(data.get("ban", False)),
        details=MappingProxyType(details),
    )


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """The profile in the JSON file at ``path`` (as ``toolerr eval --calibrate`` writes it).

    Raises :class:`ProfileError` (a :class:`ValueError`) naming the file and what is wrong:
    it cannot be read, is not JSON, has no or another ``format``, no ``forms``, an unknown
    kind or form, or an evidence field of the wrong type."""
    source = os.fspath(path)
    try:
        with open(source, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise ProfileError(f"cannot read the profile file {source!r}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{source}: not UTF-8 text ({exc.reason})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{source}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    return profile_from_dict(data, source=source)


def save_profile(profile: Profile, path: str | os.PathLike[str]) -> Profile:
    """Write ``profile`` as a profile file (its :attr:`Profile.details` kept, its name,
    forms, evidence and ban written over them). Returns the profile as :func:`load_profile`
    reads the file back (its details then hold every field of the file)."""
    data: dict[str, Any] = {"format": PROFILE_FORMAT}
    data.update(profile.details)
    data.update(
        {
            "format": PROFILE_FORMAT,
            "name": profile.name,
            "forms": dict(profile.forms),
            "evidence": profile.evidence,
            "ban": profile.ban,
        }
    )
    written = profile_from_dict(data, source=os.fspath(path))  # refuse what cannot be read back
    target = os.fspath(path)
    folder = os.path.dirname(target)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(target, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    return written
