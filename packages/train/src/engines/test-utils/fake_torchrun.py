"""A stand-in for `torchrun` that parses an engine's launch line instead of launching it.

Called as `torchrun` from an export's launch.sh (export-for-engine.test.ts puts a wrapper of this
file first on PATH): `--nproc_per_node N -m MODULE ARGS...`. It parses ARGS the way the engine's
driver does, with the real `transformers.HfArgumentParser` and `TrainingArguments` of this
interpreter, over transcriptions of the engine's own argument dataclasses (FlagEmbedding and
Tevatron are not on the local package index). An argument the parser does not know fails the
parse, as it fails the engine: HfArgumentParser raises "Some specified arguments are not used".
Prints one JSON line with the parsed values that the test compares with the trainer config.

DV_FAKE_TORCHRUN=echo prints the arguments instead (for a transformers major that this
interpreter does not have).

Transcribed field names, types and defaults (not the help texts):
- FlagEmbedding: FlagEmbedding/abc/finetune/embedder/AbsArguments.py (FlagOpen/FlagEmbedding,
  commit 0dff36cd), re-exported as EncoderOnlyEmbedder*Arguments by
  FlagEmbedding/finetune/embedder/encoder_only/base/__init__.py; its __main__.py parses
  (model, data, training) with HfArgumentParser.parse_args_into_dataclasses().
- Tevatron: src/tevatron/retriever/arguments.py (texttron/tevatron, commit 0a9626ff), parsed as
  (ModelArguments, DataArguments, TevatronTrainingArguments) by src/tevatron/retriever/driver/train.py.
  Only the fields of the data and model classes that the driver reads for text training are kept;
  the training class is complete (its own `warmup_ratio` field is the trap this guards).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from typing import Optional

if os.environ.get("DV_FAKE_TORCHRUN") != "echo":
    import transformers
    from transformers import HfArgumentParser, TrainingArguments
else:  # echo: no transformers needed (the one on the path may be a stand-in)
    TrainingArguments = object  # noqa: N816


@dataclass
class FlagModelArguments:
    model_name_or_path: str
    config_name: Optional[str] = None
    tokenizer_name: Optional[str] = None
    cache_dir: Optional[str] = None
    trust_remote_code: bool = False
    token: Optional[str] = None


@dataclass
class FlagDataArguments:
    train_data: str = field(default=None, metadata={"nargs": "+"})
    cache_path: Optional[str] = None
    train_group_size: int = 8
    query_max_len: int = 32
    passage_max_len: int = 128
    pad_to_multiple_of: Optional[int] = None
    max_example_num_per_dataset: int = 100000000
    query_instruction_for_retrieval: Optional[str] = None
    query_instruction_format: str = "{}{}"
    knowledge_distillation: bool = False
    passage_instruction_for_retrieval: Optional[str] = None
    passage_instruction_format: Optional[str] = "{}{}"
    shuffle_ratio: float = 0.0
    same_dataset_within_batch: bool = False
    small_threshold: int = 0
    drop_threshold: int = 0

    def __post_init__(self):
        for path in self.train_data:
            if not os.path.exists(path):
                raise FileNotFoundError(f"cannot find file: {path}")


@dataclass
class FlagTrainingArguments(TrainingArguments):
    negatives_cross_device: bool = False
    temperature: Optional[float] = 0.02
    fix_position_embedding: bool = False
    sentence_pooling_method: str = field(default="cls", metadata={"choices": ["cls", "mean", "last_token"]})
    normalize_embeddings: bool = True
    sub_batch_size: Optional[int] = None
    kd_loss_type: str = field(default="kl_div", metadata={"choices": ["kl_div", "m3_kd_loss"]})


@dataclass
class TevatronModelArguments:
    model_name_or_path: str
    config_name: Optional[str] = None
    tokenizer_name: Optional[str] = None
    cache_dir: Optional[str] = None
    pooling: str = "cls"
    normalize: bool = False
    temperature: float = 1.0
    lora: bool = False
    lora_name_or_path: Optional[str] = None
    dtype: Optional[str] = "float32"
    attn_implementation: Optional[str] = "flash_attention_2"


@dataclass
class TevatronDataArguments:
    dataset_name: str = "json"
    dataset_config: Optional[str] = None
    dataset_path: Optional[str] = None
    dataset_split: str = "train"
    dataset_cache_dir: Optional[str] = None
    train_group_size: int = 8
    positive_passage_no_shuffle: bool = False
    negative_passage_no_shuffle: bool = False
    query_max_len: Optional[int] = 32
    passage_max_len: Optional[int] = 128
    query_prefix: str = ""
    passage_prefix: str = ""
    append_eos_token: bool = False
    pad_to_multiple_of: Optional[int] = 16
    num_proc: int = 1
    padding_side: str = "right"


@dataclass
class TevatronTrainingArguments(TrainingArguments):
    warmup_ratio: float = 0.1
    grad_cache: bool = False
    gc_q_chunk_size: int = 4
    gc_p_chunk_size: int = 32
    distil_temperature: float = 0.02


ENGINES = {
    "FlagEmbedding.finetune.embedder.encoder_only.base": (FlagModelArguments, FlagDataArguments, FlagTrainingArguments),
    "tevatron.retriever.driver.train": (TevatronModelArguments, TevatronDataArguments, TevatronTrainingArguments),
}


def main(argv: list[str]) -> None:
    # torchrun's own options come first: --nproc_per_node N, then -m MODULE.
    nproc = int(argv[argv.index("--nproc_per_node") + 1])
    module = argv[argv.index("-m") + 1]
    args = argv[argv.index("-m") + 2 :]
    if os.environ.get("DV_FAKE_TORCHRUN") == "echo":
        print(json.dumps({"nproc": nproc, "module": module, "args": args}))
        return
    model, data, training = HfArgumentParser(ENGINES[module]).parse_args_into_dataclasses(args=args, return_remaining_strings=False)
    print(
        json.dumps(
            {
                "nproc": nproc,
                "module": module,
                "transformers": transformers.__version__,
                "model": {k: v for k, v in vars(model).items() if isinstance(v, (str, int, float, bool, type(None)))},
                "data": {k: v for k, v in vars(data).items() if isinstance(v, (str, int, float, bool, list, type(None)))},
                "training": {
                    k: getattr(training, k)
                    for k in [
                        "learning_rate",
                        "per_device_train_batch_size",
                        "gradient_accumulation_steps",
                        "max_steps",
                        "num_train_epochs",
                        "weight_decay",
                        "max_grad_norm",
                        "logging_steps",
                        "save_steps",
                        "save_total_limit",
                        "seed",
                        "dataloader_drop_last",
                        "warmup_steps",
                        "temperature",
                        "negatives_cross_device",
                        "sentence_pooling_method",
                        "normalize_embeddings",
                    ]
                    if hasattr(training, k)
                },
                "lr_scheduler_type": str(getattr(training.lr_scheduler_type, "value", training.lr_scheduler_type)),
                # What the HF Trainer will actually warm up over, for 1000 optimiser steps.
                "warmup_steps_of_1000": training.get_warmup_steps(1000),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
