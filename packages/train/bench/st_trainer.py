"""Reference side of bench/train-end-to-end.ts: sentence-transformers' trainer on the same data,
model, batch, negatives and sequence length. Reads a JSON job on argv[1]; prints one JSON line.

Loss: MultipleNegativesRankingLoss (or CachedMultipleNegativesRankingLoss) with scale = 1/tau and
cosine similarity (the model normalises: CLS pooling + Normalize from the exported folder), which
is InfoNCE over each anchor's positive, its hard negative and every other row's documents.
Timing: per-step wall times from a TrainerCallback; the first `warmup` steps are dropped.
"""
import json
import sys
import time

import torch
from datasets import Dataset
from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments
from sentence_transformers import losses
from transformers import TrainerCallback

job = json.loads(sys.argv[1])
torch.set_num_threads(job["threads"])
torch.manual_seed(0)
rows = [json.loads(l) for l in open(job["data"], encoding="utf8")]
ds = Dataset.from_list(rows)
model = SentenceTransformer(job["model"], device="cpu", local_files_only=True)
model.max_seq_length = job["seq"]
scale = 1.0 / job["temperature"]
if job["cached"]:
    loss = losses.CachedMultipleNegativesRankingLoss(model, scale=scale, mini_batch_size=job["chunk"])
else:
    loss = losses.MultipleNegativesRankingLoss(model, scale=scale)


class Timer(TrainerCallback):
    def __init__(self):
        self.times = []
        self.t = None

    def on_step_begin(self, args, state, control, **kw):
        self.t = time.perf_counter()

    def on_step_end(self, args, state, control, **kw):
        self.times.append(time.perf_counter() - self.t)


timer = Timer()
args = SentenceTransformerTrainingArguments(
    output_dir=job["out"],
    per_device_train_batch_size=job["batch"],
    max_steps=job["steps"],
    learning_rate=job["lr"],
    warmup_ratio=0.0,
    weight_decay=0.01,
    max_grad_norm=1.0,
    save_strategy="no",
    logging_strategy="no",
    report_to=[],
    dataloader_drop_last=True,
    use_cpu=True,
    seed=0,
)
trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=ds, loss=loss, callbacks=[timer])
t0 = time.perf_counter()
trainer.train()
total = time.perf_counter() - t0
steady = sorted(timer.times[job["warmup"]:])
print(json.dumps({
    "median_step_s": steady[len(steady) // 2],
    "total_s": total,
    "steps": len(timer.times),
    "torch": torch.__version__,
    "sentence_transformers": __import__("sentence_transformers").__version__,
}))
