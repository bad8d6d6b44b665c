# wheels: install-first torch==2.13.0
"""toolerr-hf as installed from the wheels (run by ``nox -s wheels`` in a fresh virtualenv,
with the CPU build of torch, without the embedded model and without toolerr-eval): the
ban blocks the failed call's last token, leaves another call alone; ``toolerr eval`` and
``toolerr demo`` (toolerr-eval's) say how to install them."""

import subprocess
import sys
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from toolerr_hf import FailedCallBan
from transformers import PreTrainedTokenizerFast

FAILED = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
OTHER = '{"name": "get_weather", "arguments": {"city": "Lyon"}}'
bpe = Tokenizer(models.BPE())
bpe.pre_tokenizer, bpe.decoder = pre_tokenizers.ByteLevel(add_prefix_space=False), decoders.ByteLevel()
alphabet = pre_tokenizers.ByteLevel.alphabet()
trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|im_end|>"], initial_alphabet=alphabet)
bpe.train_from_iterator([f"<tool_call>\n{FAILED}\n</tool_call>", OTHER] * 10, trainer)
tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>")


def blocked_next(text: str) -> set[int]:
    """The tokens the ban blocks after ``text``, minus its last token."""
    ids = tokenizer.encode(text)[:-1]
    scores = FailedCallBan(tokenizer, [FAILED])(torch.tensor([ids]), torch.zeros(1, len(tokenizer)))
    return {i for i, s in enumerate(scores[0].tolist()) if s == float("-inf")}


last = tokenizer.encode("<tool_call>\n" + FAILED)[-1]
assert last in blocked_next("<tool_call>\n" + FAILED), "the failed call is still reachable"
assert blocked_next("<tool_call>\n" + OTHER) == set(), "another call was blocked"

toolerr = str(Path(sys.executable).with_name("toolerr"))
for command in (["eval", "--out", "eval-out"], ["demo"]):
    run = subprocess.run([toolerr, *command], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "pip install toolerr-eval && " in run.stderr, run
assert not Path("eval-out").exists()
print("toolerr-hf smoke: ok")
