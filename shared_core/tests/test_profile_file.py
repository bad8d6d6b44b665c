"""Profile files: what ``toolerr eval --calibrate`` writes, read back into a Policy that
applies the chosen forms (byte-exact), and bad files refused with clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolerr import (
    PROFILES,
    Message,
    Policy,
    Profile,
    ProfileError,
    ToolCall,
    ToolErrorLayer,
    load_profile,
    rewrite,
    save_profile,
)
from toolerr.adapters import PROFILE_FORMAT

TRANSIENT = "Error: 503 Service Unavailable"
FIXABLE = (
    "Error: 2 validation errors for Forecast\nunit\n  Input should be 'celsius' or 'fahrenheit' [type=enum]"
)
WEATHER = ToolCall(id="a", name="get_weather", arguments={"city": "Paris", "days": 3})
FORECAST = ToolCall(id="b", name="get_forecast", arguments={"city": "Paris", "unit": "kelvin"})
MESSAGES = [
    Message("system", "sys"),
    Message("user", "task"),
    Message("assistant", "", tool_calls=(WEATHER, FORECAST)),
    Message("tool", TRANSIENT, tool_call_id="a", name="get_weather"),
    Message("tool", FIXABLE, tool_call_id="b", name="get_forecast"),
]
FIXABLE_ABSTRACT = (
    "Note from the tool runtime: a call to get_forecast (arguments: city, unit) failed with a "
    "fixable error. Diagnosis: Error: 2 validation errors for Forecast\nunit\n  Input should be "
    "'celsius' or 'fahrenheit' [type=enum]\n\n"
    "This call cannot succeed as written. The error says what to change; call the tool again "
    "with the corrected value."
)

CALIBRATED: dict[str, Any] = {
    "format": PROFILE_FORMAT,
    "name": "calibrated-tiny",
    "forms": {"transient": "c0", "fixable": "abstract", "unrecoverable": "abstract", "ambiguous": "c3"},
    "evidence": "toolerr eval --calibrate on a tiny model",
    "ban": False,
    "model": "tiny/model",
    "date": "2026-12-01T14:05:00+00:00",
    "rule": "transient: retried rate; fixable: exact repeats, then failed arguments, then corrected",
    "splits": {"seed": 0, "selection": 30, "report": 30},
    "measures": {
        "fixable": {
            "chosen": "abstract",
            "report": {"abstract": {"exact_repeat": {"mean": 0.03, "low": 0.0, "high": 0.08, "n": 30}}},
        }
    },
}


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_a_profile_file_round_trips_with_its_evidence(tmp_path: Path) -> None:
    path = _write(tmp_path / "profile.json", CALIBRATED)
    profile = load_profile(path)
    assert profile.name == "calibrated-tiny"
    assert dict(profile.forms) == CALIBRATED["forms"]
    assert profile.evidence == CALIBRATED["evidence"] and profile.ban is False
    assert dict(profile.details) == CALIBRATED  # every evidence field kept as read
    assert profile.details["measures"]["fixable"]["report"]["abstract"]["exact_repeat"]["high"] == 0.08
    again = tmp_path / "again" / "profile.json"
    assert save_profile(profile, again) == profile
    assert load_profile(again) == profile
    assert json.loads(again.read_text(encoding="utf-8")) == CALIBRATED


def test_a_policy_from_the_file_applies_its_forms_byte_exact(tmp_path: Path) -> None:
    path = _write(tmp_path / "profile.json", CALIBRATED)
    policy = Policy(profile=str(path))
    assert dict(policy.forms) == CALIBRATED["forms"]
    out = ToolErrorLayer(policy).rewrite(MESSAGES)
    # transient in c0: its exchange kept as it was, no note; fixable in abstract: removed, described
    assert out.messages == [
        MESSAGES[0],
        MESSAGES[1],
        Message("assistant", "", tool_calls=(WEATHER,)),
        MESSAGES[3],
        Message("user", FIXABLE_ABSTRACT),
    ]
    assert out.messages[3] is MESSAGES[3]
    assert [(r.kind, r.form) for r in out.records] == [("transient", "c0"), ("fixable", "abstract")]
    # every way of naming the file gives the same bytes
    expected = out.messages
    assert ToolErrorLayer(form=str(path)).rewrite(MESSAGES).messages == expected
    assert ToolErrorLayer(Policy(profile=path)).rewrite(MESSAGES).messages == expected
    assert ToolErrorLayer(Policy(profile=load_profile(path))).rewrite(MESSAGES).messages == expected
    assert rewrite(MESSAGES, str(path)) == expected
    assert Policy.coerce(None, profile=str(path)).forms == policy.forms
    # a file that gives small-local's forms gives exactly small-local's bytes
    small = _write(
        tmp_path / "small.json", {"format": PROFILE_FORMAT, "forms": dict(PROFILES["small-local"].forms)}
    )
    assert rewrite(MESSAGES, str(small)) == rewrite(MESSAGES, "small-local")
    assert load_profile(small).name == "small"  # no name: the file's stem


def test_a_partial_file_and_its_default(tmp_path: Path) -> None:
    only = _write(tmp_path / "p.json", {"format": PROFILE_FORMAT, "forms": {"fixable": "C4"}})
    assert dict(load_profile(only).forms) == {"fixable": "c4"}
    policy = Policy(profile=str(only))
    assert policy.form_for("fixable") == "c4" and policy.form_for("transient") == "c3"  # the policy default
    default = _write(
        tmp_path / "d.json", {"format": PROFILE_FORMAT, "forms": {"default": "c1", "fixable": "c2"}}
    )
    assert dict(load_profile(default).forms) == {
        "transient": "c1",
        "fixable": "c2",
        "unrecoverable": "c1",
        "ambiguous": "c1",
    }
    assert "loaded from a profile file" in load_profile(default).evidence


def _bad(**changes: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(CALIBRATED))
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        ([1, 2], "a profile file holds a JSON object, got list"),
        (_bad(format=None), 'not a toolerr profile (no "format": "toolerr-profile/1")'),
        (_bad(format="toolerr-profile/9"), "format 'toolerr-profile/9' is not supported"),
        (_bad(forms=None), "no 'forms' (kind -> form) in the profile"),
        (_bad(forms="abstract"), "'forms' must be an object from kind"),
        (_bad(forms={"fixabel": "c3"}), "unknown kind 'fixabel' in 'forms'; expected transient, fixable"),
        (_bad(forms={"fixable": "c9"}), "forms['fixable'] = 'c9' is not a form; expected one of c0 (detect"),
        (_bad(forms={"fixable": 3}), "forms['fixable'] = 3 is not a form"),
        (_bad(ban="yes"), "'ban' must be true or false, got 'yes'"),
        (_bad(date="yesterday"), "'date' 'yesterday' is not an ISO 8601 date"),
        (_bad(model=""), "'model' must be a non-empty string"),
        (_bad(measures=[1]), "'measures' must be an object, got list"),
    ],
)
def test_a_bad_file_is_a_clear_error_naming_the_file(tmp_path: Path, content: Any, message: str) -> None:
    path = _write(tmp_path / "bad.json", content)
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value) == f"{path}: {message}" or str(caught.value).startswith(f"{path}: {message}")
    with pytest.raises(ValueError, match=r"bad\.json"):  # the same error through the policy
        Policy(profile=str(path))
    with pytest.raises(ValueError, match=r"bad\.json"):
        ToolErrorLayer(form=str(path))


def test_a_missing_or_unreadable_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(ProfileError, match=r"cannot read the profile file '.*missing\.json': No such file"):
        load_profile(missing)
    with pytest.raises(ValueError, match=r"missing\.json"):
        Policy(profile=str(missing))
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ProfileError, match="not UTF-8"):
        load_profile(binary)
    # a name that is neither a form, a profile nor a path is still the form error
    with pytest.raises(ValueError, match="unknown form 'small-locale'"):
        Policy(profile="small-locale")


def test_save_refuses_a_profile_it_could_not_read_back(tmp_path: Path) -> None:
    bad = Profile(name="x", forms={"fixable": "c9"}, evidence="e")  # type: ignore[dict-item]
    with pytest.raises(ProfileError, match="'c9' is not a form"):
        save_profile(bad, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
