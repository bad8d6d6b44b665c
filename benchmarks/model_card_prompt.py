"""Does SmolLM2-135M-Instruct call a tool with the tool-calling prompt of the SmolLM2
model card (the APIGen system prompt, a ``<tool_call>[...]`` list)? The opening request
of 2 scenarios per tool, no failure yet, greedy decoding, 48 tokens.

Usage::

    python benchmarks/model_card_prompt.py    # each reply, and how many start a call

Measured 2026-11-29: 0 of 12 (RESULTS_eval.md, section 1).
"""

from __future__ import annotations

import json

import torch
from toolerr_eval import Engine, build_suite
from toolerr_eval._engine import Request
from toolerr_hf import load_default_model

SYSTEM = (
    "You are an expert in composing functions. You are given a question and a set of possible "
    "functions. Based on the question, you will need to make one or more function/tool calls to "
    "achieve the purpose. If none of the functions can be used, point it out and refuse to answer. "
    "If the given question lacks the parameters required by the function, also point it out.\n\n"
    "You have access to the following tools:\n<tools>{tools}</tools>\n\n"
    "The output MUST strictly adhere to the following format, and NO other text MUST be included.\n"
    "The example format is as follows. Please make sure the parameter type is correct. If no "
    "function call is needed, please make the tool calls an empty list '[]'.\n"
    '<tool_call>[\n{{"name": "func_name1", "arguments": {{"argument1": "value1", '
    '"argument2": "value2"}}}},\n... (more tool calls as required)\n]</tool_call>'
)


def main() -> None:
    torch.set_num_threads(1)
    model, tokenizer = load_default_model()
    engine = Engine(model, tokenizer, max_new_tokens=48, prose_tokens=None)
    suite = build_suite(2)
    requests = []
    for scenario in suite:
        spec = scenario.tool.spec()
        function = spec.get("function", spec)
        tools = json.dumps([{k: function[k] for k in ("name", "description", "parameters")}])
        conversation = [
            {"role": "system", "content": SYSTEM.format(tools=tools)},
            {"role": "user", "content": scenario.opening()[-1].content},
        ]
        prompt = tokenizer.apply_chat_template(conversation, tokenize=False, add_generation_prompt=True)
        requests.append(Request(prompt))
    replies = engine.generate(requests)
    calls = 0
    for scenario, reply in zip(suite, replies, strict=True):
        called = reply.text.lstrip().startswith("<tool_call>")
        calls += called
        print(f"{scenario.id}: {'CALL' if called else 'no call'}: {reply.text[:150]!r}")
    print(f"replies that start a call: {calls} of {len(replies)}")


if __name__ == "__main__":
    main()
