"""``toolerr eval --calibrate``: the selection rule on synthetic measures, the per-kind
calibration on synthetic records (sources, splits, held-out intervals), the profile file
round trip into a Policy, and one end-to-end run on the tiny model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolerr import PROFILES, Policy, ProfileError, ToolErrorLayer, load_profile
from toolerr_eval import (
    CALIBRATION_FORMS,
    MEASURES,
    RULE,
    build_suite,
    build_view,
    calibrate_per_kind,
    choose_forms,
    main,
    profile_of,
    rescore,
    split_scenarios,
)
from toolerr_eval._calibrate import write_profile_file
from toolerr_eval._runs import safety_of
from toolerr_eval._scenarios import FAILURE_KINDS

SMALL = PROFILES["small-local"]


# -- the rule ---------------------------------------------------------------------------------


def test_the_rule_per_kind_on_synthetic_measures() -> None:
    flat = {"stop_in_prose": 1.0}
    values = {
        # transient: the highest retried rate wins outright
        "transient": {
            f: {"retried": r} for f, r in zip(CALIBRATION_FORMS, [0.87, 0.8, 0.15, 0.77, 0.05, 0.0])
        },
        # fixable: c2, c4, abstract tie on exact repeats; the failed arguments decide
        "fixable": {
            "c0": {"exact_repeat": 0.82, "argument_repeat": 0.83, "corrected": 0.08, "probe_p_repeat": 0.8},
            "c1": {"exact_repeat": 0.78, "argument_repeat": 0.8, "corrected": 0.1, "probe_p_repeat": 0.8},
            "c2": {"exact_repeat": 0.03, "argument_repeat": 0.1, "corrected": 0.5, "probe_p_repeat": 0.1},
            "c3": {"exact_repeat": 0.88, "argument_repeat": 0.97, "corrected": 0.05, "probe_p_repeat": 0.9},
            "c4": {"exact_repeat": 0.03, "argument_repeat": 0.1, "corrected": 0.5, "probe_p_repeat": 0.1},
            "abstract": {
                "exact_repeat": 0.03,
                "argument_repeat": 0.03,
                "corrected": 0.1,
                "probe_p_repeat": 0.4,
            },
        },
        # unrecoverable: every form stops: a tie, broken toward the measured profile
        "unrecoverable": dict.fromkeys(CALIBRATION_FORMS, flat),
    }
    choices = choose_forms(values, SMALL.forms, prefer_name="small-local")
    assert {k: c.form for k, c in choices.items()} == {
        "transient": "c0",
        "fixable": "abstract",
        "unrecoverable": "abstract",
    }
    assert choices["transient"].decided_by == "retried"
    assert choices["fixable"].decided_by == "argument_repeat"  # not "corrected", where c2/c4 lead
    assert choices["fixable"].stages == (
        ("exact_repeat", ("c2", "c4", "abstract")),
        ("argument_repeat", ("abstract",)),
    )
    assert choices["unrecoverable"].decided_by == "tie: small-local"
    # the measures come in the rule's order: exact repeats before the corrected call
    assert [m.name for m in MEASURES["fixable"]] == [
        "exact_repeat",
        "argument_repeat",
        "corrected",
        "probe_p_repeat",
    ]
    for words in ("retried rate", "exact-repeat rate", "failed arguments", "corrected", "stop in prose"):
        assert words in RULE


def test_ties_go_to_the_measured_profile_then_to_the_order() -> None:
    flat = {f: {"retried": 0.0} for f in CALIBRATION_FORMS}
    assert choose_forms({"transient": flat}, SMALL.forms)["transient"].form == "c3"  # small-local's
    assert choose_forms({"transient": flat}, PROFILES["study-c3"].forms)["transient"].form == "c3"
    # the profile's form is not among the best: the first of the order
    some = {"c1": {"retried": 0.5}, "c4": {"retried": 0.5}, "c3": {"retried": 0.1}}
    choice = choose_forms({"transient": some}, SMALL.forms)["transient"]
    assert (choice.form, choice.decided_by) == ("c1", "tie: order")
    # fixable: a full tie down to the probe, which then decides
    fixable = {
        f: {"exact_repeat": 0.0, "argument_repeat": 0.0, "corrected": 0.0, "probe_p_repeat": p}
        for f, p in zip(CALIBRATION_FORMS, [0.9, 0.8, 0.2, 0.7, 0.3, 0.25])
    }
    choice = choose_forms({"fixable": fixable}, SMALL.forms)["fixable"]
    assert (choice.form, choice.decided_by) == ("c2", "probe_p_repeat")
    # a measure that one form lacks is skipped for all: here the probe, so the tie stays
    fixable["c0"]["probe_p_repeat"] = None
    choice = choose_forms({"fixable": fixable}, SMALL.forms)["fixable"]
    assert (choice.form, choice.decided_by) == ("abstract", "tie: profile")
    assert [stage for stage, _ in choice.stages] == ["exact_repeat", "argument_repeat", "corrected"]
    # lower is better for repeats, higher for the corrected call
    fixable = {"c0": {"exact_repeat": 0.2, "corrected": 0.9}, "c3": {"exact_repeat": 0.1, "corrected": 0.1}}
    assert choose_forms({"fixable": fixable}, SMALL.forms)["fixable"].form == "c3"
    assert choose_forms({"fixable": {}}, SMALL.forms) == {}


# -- the calibration on synthetic records ---------------------------------------------------------


def _record(sid: str, kind: str, form: str, action: str, choice: str) -> dict[str, Any]:
    return {
        "scenario": sid,
        "kind": kind,
        "harness": form,
        "action": action,
        "correct": {"transient": action == "exact_repeat", "fixable": action == "corrected"}.get(
            kind, action in ("stop", "echo")
        ),
        "exact_repeat": action == "exact_repeat",
        "canonical_repeat": action in ("exact_repeat", "canonical_repeat"),
        "argument_repeat": action == "exact_repeat",
        "no_call": action in ("stop", "echo"),
        "tool_choice": choice,
    }


def _synthetic(selection_ids: set[str], suite: list[Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """The model never calls with tool choice auto (it stops, or fakes a result under c0);
    forced, c1 retries transient failures on the selection split and c0 on the report split;
    abstract never repeats a fixable call, c3 always does."""
    auto, forced, probe = [], [], []
    for scenario in suite:
        sid = scenario.id
        chosen = sid in selection_ids
        for form in CALIBRATION_FORMS:
            for kind in FAILURE_KINDS:
                action = "echo" if form == "c0" and kind == "unrecoverable" else "stop"
                auto.append(_record(sid, kind, form, action, "auto"))
            retry = form == ("c1" if chosen else "c0")
            forced.append(
                _record(sid, "transient", form, "exact_repeat" if retry else "other_call", "required")
            )
            fixable = {"abstract": "corrected", "c3": "exact_repeat"}.get(form, "other_call")
            forced.append(_record(sid, "fixable", form, fixable, "required"))
            probe.append({"scenario": sid, "context": form, "logprobs": [-1.0, -2.0, -3.0, -3.0]})
    return auto, forced, probe


def test_calibration_from_forced_calls_when_the_model_does_not_call() -> None:
    suite = build_suite(4)
    selection, report = split_scenarios(suite, seed=1)
    auto, forced, probe = _synthetic({s.id for s in selection}, suite)
    result = calibrate_per_kind(auto, forced, probe, selection, report, prefer=SMALL, resamples=200, seed=1)
    assert result["forms"] == {
        "transient": "c1",
        "fixable": "abstract",
        "unrecoverable": "abstract",
        "ambiguous": "c3",
    }
    measures = result["measures"]
    assert measures["transient"]["source"] == "decision step, forced calls (tool choice required)"
    assert measures["transient"]["auto_call_share"] == 0.0
    assert measures["fixable"]["source"].endswith("and the probe")
    assert measures["unrecoverable"]["source"] == "decision step, tool choice auto"
    # unrecoverable: every form but c0 stops in prose (c0 fakes a tool result): a tie among
    # c1 ... abstract, which small-local's form wins over the order
    assert measures["unrecoverable"]["decided_by"] == "tie: small-local"
    assert measures["transient"]["selection"]["c1"]["retried"] == 1.0
    # the report split is the other half, and shows what the selection split did not: c1 is
    # not the form that retries there (held-out 0%, c0 100%)
    held = measures["transient"]["report"]
    assert held["c1"]["retried"] == {"mean": 0.0, "low": 0.0, "high": 0.0, "n": len(report)}
    assert held["c0"]["retried"]["mean"] == 1.0
    assert measures["transient"]["chosen_minus"]["c0"]["mean"] == -1.0
    assert measures["fixable"]["report"]["abstract"]["exact_repeat"]["mean"] == 0.0
    assert measures["fixable"]["decided_by"] == "corrected"  # no repeats but c3's: the corrected call decides
    assert [s["measure"] for s in measures["fixable"]["stages"]] == [
        "exact_repeat",
        "argument_repeat",
        "corrected",
    ]
    assert result["splits"]["selection"] == len(selection) and result["splits"]["report"] == len(report)
    assert set(result["splits"]["report_ids"]).isdisjoint(result["splits"]["selection_ids"])
    # the same seed gives the same result; the records decide, not the call order
    again = calibrate_per_kind(
        list(reversed(auto)), forced, probe, selection, report, prefer=SMALL, resamples=200, seed=1
    )
    assert again == result


def test_calibration_from_free_decisions_when_the_model_calls() -> None:
    suite = build_suite(2)
    selection, report = split_scenarios(suite, seed=0)
    auto = [
        _record(s.id, kind, form, "exact_repeat" if form == "c4" else "corrected", "auto")
        for s in suite
        for form in CALIBRATION_FORMS
        for kind in ("transient", "fixable")
    ]
    auto += [_record(s.id, "unrecoverable", f, "stop", "auto") for s in suite for f in CALIBRATION_FORMS]
    forced = [dict(r, tool_choice="required") for r in auto if r["kind"] != "unrecoverable"]
    forced = [dict(r, action="other_call", canonical_repeat=False) for r in forced]
    result = calibrate_per_kind(auto, forced, [], selection, report, prefer=SMALL, resamples=100)
    assert result["measures"]["transient"]["source"] == "decision step, tool choice auto"
    assert result["measures"]["transient"]["auto_call_share"] == 1.0
    assert result["forms"]["transient"] == "c4"  # the only form that retries, in the free decisions
    assert "probe" not in result["measures"]["fixable"]["source"]


# -- the profile file ---------------------------------------------------------------------------


def test_the_profile_file_round_trips_into_a_policy_that_applies_the_chosen_forms(tmp_path: Path) -> None:
    suite = build_suite(4)
    selection, report = split_scenarios(suite, seed=1)
    auto, forced, probe = _synthetic({s.id for s in selection}, suite)
    calibration = calibrate_per_kind(
        auto, forced, probe, selection, report, prefer=SMALL, resamples=100, seed=1
    )
    path = tmp_path / "out" / "profile.json"
    written = write_profile_file(calibration, "org/Tiny-Model", str(path))
    assert calibration["profile_path"] == str(path)
    profile = load_profile(path)
    assert profile == written
    assert profile.name == "calibrated-tiny-model"
    assert dict(profile.forms) == calibration["forms"]
    details = json.loads(path.read_text(encoding="utf-8"))
    assert details["format"] == "toolerr-profile/1" and details["model"] == "org/Tiny-Model"
    assert details["splits"]["selection"] == len(selection) and details["splits"]["report"] == len(report)
    assert details["rule"] == RULE and details["date"].endswith("+00:00")
    cell = details["measures"]["fixable"]["report"]["abstract"]["exact_repeat"]
    assert set(cell) == {"mean", "low", "high", "n"}
    assert "transient c1" in details["evidence"] and "held out" in details["evidence"]
    # the policy from the file gives, byte for byte, the view each kind was measured under
    safety = safety_of(suite)
    policy = Policy(profile=str(path), tool_safety=safety)
    for scenario in suite[:3]:
        for kind in FAILURE_KINDS:
            messages = scenario.messages(kind)
            shown = ToolErrorLayer(policy).rewrite(messages).messages
            measured = build_view(calibration["forms"][kind], messages, tool_safety=safety).messages
            assert shown == measured
            assert [m.content for m in shown] == [m.content for m in measured]
    assert ToolErrorLayer(form=str(path), tool_safety=safety).policy.forms == policy.forms
    # a damaged file is refused with the file's name and the field
    broken = json.loads(path.read_text(encoding="utf-8"))
    broken["forms"]["fixable"] = "abstrakt"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(ProfileError, match=r"bad\.json: forms\['fixable'\] = 'abstrakt' is not a form"):
        Policy(profile=str(bad))


def test_profile_of_names_the_evidence() -> None:
    suite = build_suite(2)
    selection, report = split_scenarios(suite)
    auto, forced, probe = _synthetic({s.id for s in selection}, suite)
    calibration = calibrate_per_kind(auto, forced, probe, selection, report, prefer=SMALL, resamples=50)
    profile = profile_of(calibration, "/models/SmolLM2 135M/", date="2026-12-01T14:00:00+00:00")
    assert profile.name == "calibrated-smollm2-135m"
    named = profile_of(calibration, "SmolLM2-135M-Instruct (embedded default)")
    assert named.name == "calibrated-smollm2-135m-instruct"
    assert profile.details["date"] == "2026-12-01T14:00:00+00:00" and profile.ban is False
    assert profile.evidence.startswith("toolerr eval --calibrate on /models/SmolLM2 135M/, 2026-12-01")
    assert "Measured without the decoder ban." in profile.evidence


# -- end to end ---------------------------------------------------------------------------------


def test_calibrate_end_to_end_on_the_tiny_model(
    tiny_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval"
    argv = [
        "--model", str(tiny_dir),
        "--harness", "c0", "--kinds", "transient", "fixable", "unrecoverable",
        "--scenarios", "2", "--episodes", "0",
        "--probe", "2", "--probe-harness", *CALIBRATION_FORMS,
        "--max-new-tokens", "6", "--prose-tokens", "4", "--batch-size", "32",
        "--calibrate", "--bootstrap", "100", "--seed", "3",
        "--out", str(out), "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Calibration per kind (chosen on 6 scenarios, reported on the other 6, seed 3" in printed
    assert f"wrote {out / 'profile.json'}" in printed
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    per_kind = results["calibrate"]["per_kind"]
    assert set(per_kind["measures"]) == set(FAILURE_KINDS)
    assert per_kind["splits"]["selection"] == per_kind["splits"]["report"] == 6
    for kind, cell in per_kind["measures"].items():
        assert cell["chosen"] in CALIBRATION_FORMS and cell["chosen"] == per_kind["forms"][kind]
        assert set(cell["report"]) == set(CALIBRATION_FORMS)
        first = cell["report"][cell["chosen"]][MEASURES[kind][0].name]
        assert first["n"] == 6 and first["low"] <= first["mean"] <= first["high"]
        if cell["source"].startswith("decision step, forced"):  # the extra pass was run and kept
            forced = [r for r in per_kind["records"] if r["kind"] == kind]
            assert {r["tool_choice"] for r in forced} == {"required"}
            assert len(forced) == 12 * len(CALIBRATION_FORMS)
            assert all(r["text"].startswith("<tool_call>") for r in forced)
    # the file loads into a policy with the chosen forms
    profile = load_profile(out / "profile.json")
    assert dict(profile.forms) == per_kind["forms"]
    assert profile.details["model"] == str(tiny_dir)
    assert Policy(profile=str(out / "profile.json")).forms == Policy(form=per_kind["forms"]).forms
    # rescoring the stored replies gives the same calibration
    again = rescore(json.loads(json.dumps(results)))["calibrate"]["per_kind"]
    assert again["forms"] == per_kind["forms"] and again["measures"] == per_kind["measures"]


def test_the_table_names_the_choice_and_a_missing_report_split() -> None:
    import io

    from toolerr_eval._calibrate import write_calibration

    suite = build_suite(1)
    selection, report = split_scenarios(suite)
    assert report == []  # one scenario per tool: all of them choose
    auto, forced, probe = _synthetic({s.id for s in selection}, suite)
    calibration = calibrate_per_kind(auto, forced, probe, selection, report, prefer=SMALL, resamples=20)
    assert calibration["measures"]["transient"]["report"] == {}
    text = io.StringIO()
    write_calibration(calibration, text)
    printed = text.getvalue()
    assert "Calibration per kind (chosen on 6 scenarios, reported on the other 0" in printed
    assert "(no report split: one scenario per tool; give --scenarios 2 or more)" in printed
    assert (
        "  transient: c1 (decided by retried; decision step, forced calls (tool choice required))" in printed
    )
    assert "held out: -" in printed
    assert "give --out DIR or --profile-out FILE" in printed
    profile = profile_of(calibration, "m")
    assert "(retried - held out; retried)" in profile.evidence
