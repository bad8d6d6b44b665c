"""Long evaluation runs survive: the journal and ``--resume`` on the tiny model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolerr_eval import Journal, ResumeError, build_parser, evaluate, main

ARGV = [
    "--harness", "c0", "ban",
    "--kinds", "fixable", "control",
    "--scenarios", "1",
    "--episodes", "1", "--episode-harness", "ban", "--turns", "2",
    "--probe", "1", "--probe-harness", "c0",
    "--max-new-tokens", "6",
    "--batch-size", "3",
    "--bootstrap", "50",
    "--no-progress",
]  # fmt: skip


class Interrupted(Exception):
    """What stops the run in the middle (a kill, a crash, a closed laptop)."""


def stop_after(count: int) -> Any:
    done = [0]

    def tick(n: int) -> None:
        done[0] += n
        if done[0] >= count:
            raise Interrupted

    return tick


def numbers(results: dict[str, Any]) -> dict[str, Any]:
    """Everything but the timings and the cost counters."""
    out = {k: v for k, v in results.items() if k != "cost"}
    for stage in ("decision", "episodes", "probe"):
        if stage in out:
            out[stage] = {k: v for k, v in out[stage].items() if k != "seconds"}
    return out


def run(tiny_model: Any, tokenizer: Any, out: Path, *extra: str, progress: Any = None) -> dict[str, Any]:
    args = build_parser().parse_args([*ARGV, "--out", str(out), *extra])
    return evaluate(args, tiny_model, tokenizer, model_name="tiny", progress=progress or (lambda n: None))


@pytest.fixture(scope="module")
def uninterrupted(
    tiny_model: Any, tokenizer: Any, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], int]:
    """The run that never stops, and how many progress steps it makes."""
    ticks: list[int] = []
    results = run(tiny_model, tokenizer, tmp_path_factory.mktemp("whole"), progress=ticks.append)
    return results, sum(ticks)


@pytest.mark.parametrize("stops", [[0.1], [0.4, 0.7], [0.95]])
def test_an_interrupted_run_resumed_gives_the_same_numbers(
    tiny_model: Any,
    tokenizer: Any,
    tmp_path: Path,
    uninterrupted: tuple[dict[str, Any], int],
    stops: list[float],
) -> None:
    # The steps: the decision requests (some memoised), the episode turns, the probe's
    # scorings and greedy decodings; the stops fall in each part (fractions of the steps).
    whole, total = uninterrupted
    journal = tmp_path / "progress.jsonl"
    with pytest.raises(Interrupted):
        run(tiny_model, tokenizer, tmp_path, progress=stop_after(max(1, int(total * stops[0]))))
    lines = journal.read_text().splitlines()
    assert json.loads(lines[0])["options"]["model"] == "tiny"
    written = len(lines) - 1
    assert written > 0  # written as it went, before the interruption
    for stop in stops[1:]:
        with pytest.raises(Interrupted):
            run(tiny_model, tokenizer, tmp_path, "--resume", progress=stop_after(int(total * stop)))
        assert len(journal.read_text().splitlines()) - 1 > written
    resumed = run(tiny_model, tokenizer, tmp_path, "--resume")
    assert numbers(resumed) == numbers(whole)
    engine = resumed["cost"]["engine"]
    assert engine["resumed"] > 0
    assert engine["generations"] < whole["cost"]["engine"]["generations"]


def test_a_finished_run_resumed_decodes_nothing(tiny_model: Any, tokenizer: Any, tmp_path: Path) -> None:
    first = run(tiny_model, tokenizer, tmp_path)
    again = run(tiny_model, tokenizer, tmp_path, "--resume")
    assert numbers(again) == numbers(first)
    assert again["cost"]["engine"]["generations"] == 0
    assert again["cost"]["engine"]["score_positions"] == 0
    # Without --resume the journal starts again.
    fresh = run(tiny_model, tokenizer, tmp_path)
    assert fresh["cost"]["engine"]["generations"] == first["cost"]["engine"]["generations"]


def test_a_cut_last_line_is_ignored(
    tiny_model: Any, tokenizer: Any, tmp_path: Path, uninterrupted: tuple[dict[str, Any], int]
) -> None:
    with pytest.raises(Interrupted):
        run(tiny_model, tokenizer, tmp_path, progress=stop_after(uninterrupted[1] // 2))
    journal = tmp_path / "progress.jsonl"
    with journal.open("a") as handle:
        handle.write('{"type": "reply", "key": "ab')  # killed while writing
    assert numbers(run(tiny_model, tokenizer, tmp_path, "--resume")) == numbers(uninterrupted[0])


def test_resume_refuses_other_options(tiny_model: Any, tokenizer: Any, tmp_path: Path) -> None:
    with pytest.raises(Interrupted):
        run(tiny_model, tokenizer, tmp_path, progress=stop_after(10))
    for extra, name in (
        (["--batch-size", "4"], "batch_size"),
        (["--seed", "1"], "seed"),
        (["--kinds", "fixable"], "kinds"),
        (["--harness", "c0"], "harnesses"),
        (["--tool-choice", "required"], "tool_choice"),
    ):
        with pytest.raises(ResumeError, match=rf"different options.*{name}"):
            run(tiny_model, tokenizer, tmp_path, "--resume", *extra)
    args = build_parser().parse_args([*ARGV, "--out", str(tmp_path), "--resume"])
    with pytest.raises(ResumeError, match=r"different options.*model"):
        evaluate(args, tiny_model, tokenizer, model_name="another-model", progress=lambda n: None)
    with pytest.raises(ResumeError, match="does not exist"):
        run(tiny_model, tokenizer, tmp_path / "nothing-here", "--resume")
    with pytest.raises(ResumeError, match="--out"):
        evaluate(
            build_parser().parse_args([*ARGV, "--resume"]), tiny_model, tokenizer, progress=lambda n: None
        )
    (tmp_path / "other.jsonl").write_text("hello\n")
    with pytest.raises(ResumeError, match="not a toolerr eval journal"):
        run(tiny_model, tokenizer, tmp_path, "--resume", "--journal", str(tmp_path / "other.jsonl"))


def test_main_resumes_and_explains_a_refusal(
    tiny_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*ARGV, "--model", str(tiny_dir), "--out", str(tmp_path), "--episodes", "0", "--probe", "0"]
    assert main(argv) == 0
    first = json.loads((tmp_path / "results.json").read_text())
    assert (tmp_path / "progress.jsonl").is_file()
    assert main([*argv, "--resume"]) == 0
    second = json.loads((tmp_path / "results.json").read_text())
    assert numbers(second)["decision"] == numbers(first)["decision"]
    assert second["cost"]["engine"]["resumed"] > 0
    capsys.readouterr()
    assert main([*argv, "--resume", "--max-new-tokens", "7"]) == 2
    error = capsys.readouterr().err
    assert "cannot resume" in error and "max_new_tokens: 6 in the file, 7 now" in error
    assert "--resume" in build_parser().format_help()


def test_journal_lines_are_labelled(tiny_model: Any, tokenizer: Any, tmp_path: Path) -> None:
    run(tiny_model, tokenizer, tmp_path, "--journal", str(tmp_path / "elsewhere" / "run.jsonl"))
    assert not (tmp_path / "progress.jsonl").exists()
    lines = [json.loads(line) for line in (tmp_path / "elsewhere" / "run.jsonl").read_text().splitlines()[1:]]
    stages = {tuple(line["label"][:1]) for line in lines}
    # (episode turns whose prompt the decision step decoded already are not written again)
    assert {("decision",), ("probe",)} <= stages <= {("decision",), ("episode",), ("probe",)}
    decision = [line["label"] for line in lines if line["label"][0] == "decision"]
    assert all(len(label) == 4 for label in decision)  # stage, scenario, kind, harness
    assert {line["type"] for line in lines} == {"reply", "score"}
    assert all(len(line["key"]) == 32 for line in lines)
    assert isinstance(Journal.reply_key("p", ("b",), ("t",), ""), str)
