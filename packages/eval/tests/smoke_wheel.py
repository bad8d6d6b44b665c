# wheels: install-first torch==2.13.0
"""toolerr-eval as installed from the wheels (run by ``nox -s wheels`` in a fresh virtualenv,
with the CPU build of torch, without the embedded model and without the plot extra): the
evaluation's C3 view delivers a fixable failure and leaves the no-failure control unchanged;
the core's ``toolerr eval`` finds the evaluation through the entry points and runs it on a
tiny random model built here; ``toolerr eval --out`` refuses before loading any model."""

import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from toolerr_eval import build_suite, build_view
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

scenario = build_suite(1)[0]
failure, control = scenario.messages("fixable"), scenario.messages("control")
delivered = build_view("c3", failure).messages
assert delivered[: len(failure)] == failure and len(delivered) == len(failure) + 1, "not C3's shape"
assert str(delivered[-1].content).startswith("Note from the tool runtime: "), "the failure was not delivered"
assert build_view("c3", control).messages == control, "the control was changed"

CHATML = (
    "{% for m in messages %}{{'<|im_start|>' + m['role'] + '\n' + m['content'] + '<|im_end|>\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{'<|im_start|>assistant\n'}}{% endif %}"
)
bpe = Tokenizer(models.BPE())
bpe.pre_tokenizer, bpe.decoder = pre_tokenizers.ByteLevel(add_prefix_space=False), decoders.ByteLevel()
alphabet = pre_tokenizers.ByteLevel.alphabet()
trainer = trainers.BpeTrainer(
    vocab_size=300, special_tokens=["<|im_start|>", "<|im_end|>"], initial_alphabet=alphabet
)
bpe.train_from_iterator(['<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'] * 10, trainer)
tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|im_end|>")
tokenizer.chat_template = CHATML
torch.manual_seed(0)
config = LlamaConfig(
    vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, eos_token_id=tokenizer.eos_token_id,
    pad_token_id=tokenizer.pad_token_id,
)  # fmt: skip
folder = Path(tempfile.mkdtemp(prefix="toolerr-eval-smoke-"))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    LlamaForCausalLM(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)

toolerr = str(Path(sys.executable).with_name("toolerr"))
options = ["--harness", "c0", "c3", "--scenarios", "1", "--episodes", "0", "--probe", "0"]
options += ["--max-new-tokens", "4", "--no-progress"]
run = subprocess.run(
    [toolerr, "eval", "--model", str(folder), *options], capture_output=True, text=True, timeout=600
)
assert run.returncode == 0 and "Decision step" in run.stdout, run
run = subprocess.run([toolerr, "eval", "--out", "eval-out"], capture_output=True, text=True, timeout=120)
assert run.returncode == 2 and "pip install 'toolerr-eval[plot]'" in run.stderr, run
assert not Path("eval-out").exists()
print("toolerr-eval smoke: ok")
