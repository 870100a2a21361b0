"""Train a dual-view retriever with sentence-transformers, the settings of a @dv/train run.

Written next to the data by `dv train export --engine sentence-transformers`; launched with
`torchrun --nproc_per_node N dv_st_train.py --settings settings.json` (or `accelerate launch`).
Everything that moves numbers comes from settings.json (derived from our TrainerConfig by
@dv/train's `sentenceTransformersSettings`), so the run trains what `dv train run` trains:

- loss: CachedMultipleNegativesRankingLoss (GradCache, Gao et al. 2021, arXiv 2101.06983) with
  scale = 1 / temperature and the embeddings of all ranks gathered, so the in-batch pool is
  the global batch, as in our trainer. Its score matrix is masked cell by cell to the relations
  of @dv/train's `buildBatch`: +1 own positive; -1 own labelled negatives (instruction
  negatives first, then hard negatives), in-batch documents unless they are positives of a
  query with the same formatted text or of the same bare query under another instruction
  (possible false negatives) or in-batch negatives are off; every
  document counted once (the same docid in two columns is one document); padding ignored.
  The ids this needs travel in the dataset's `label` column:
  [unit, text group, query group, positive id, negative ids (k, -1 = none), extra positive ids (m)].
- batches: `DualViewBatchSampler` packs whole units (one example's rows, or both views of a
  pair) into global batches, fills short ones with a padding row the loss ignores, and cuts
  each into equal per-device slices: every rank has the same shapes at every step, both views
  are always in the same global batch, and 1 or N processes train on the same batches.
- texts: the `anchor` / `positive` / `negative_i` columns hold our formatter's output; no
  prompts are added here. Query and document lengths are truncated separately.
- backbone: `init` is our exported HF folder or a Hub id; pooling and normalisation are
  built explicitly (Transformer -> Pooling -> Normalize) so they follow the config.

Rank 0 writes `engine-settings.json` (what the library objects were actually given, read back
from them), `train-log.jsonl` (the trainer's log history), the trained model in `final/` and
`probe.json` (the embeddings of the first anchors, for cross-checks with other loaders).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from typing import Iterator

import torch
from torch.utils.data import BatchSampler


def relations(labels: torch.Tensor, k: int, m: int, in_batch: bool, mask_false_negatives: bool) -> torch.Tensor:
    """Relations [W, (1+k)*W] of each row to each score column (+1, -1, 0), as @dv/train's buildBatch.

    Column c*W + r is row r's positive (c = 0) or its c-th negative. `labels` is [W, 4+k+m].
    """
    w = labels.size(0)
    text_group = labels[:, 1]
    query_group = labels[:, 2]
    pos = labels[:, 3:4]
    negs = labels[:, 4 : 4 + k]
    extra = labels[:, 4 + k : 4 + k + m]
    col_ids = torch.cat([labels[:, 3 + c] for c in range(1 + k)])  # [C]
    own_pos = torch.cat([pos, extra], dim=1)  # [W, 1+m]
    is_pos = ((own_pos[:, :, None] == col_ids[None, None, :]) & (own_pos[:, :, None] >= 0)).any(1)  # [W, C]
    is_neg = ((negs[:, :, None] == col_ids[None, None, :]) & (negs[:, :, None] >= 0)).any(1) if k else torch.zeros_like(is_pos)
    # First column of each doc id: every document counts once.
    cols = torch.arange(col_ids.numel(), device=labels.device)
    first_of = torch.full((int(col_ids.max().item()) + 2,), col_ids.numel(), dtype=torch.long, device=labels.device)
    first_of = first_of.scatter_reduce(0, col_ids + 1, cols, reduce="amin")
    is_first = first_of[col_ids + 1] == cols
    rel = torch.full(is_pos.shape, -1 if in_batch else 0, dtype=torch.int8, device=labels.device)
    if in_batch and mask_false_negatives:
        same = ((text_group[:, None] == text_group[None, :]) | (query_group[:, None] == query_group[None, :])).float()  # [W, W]
        group_pos = (same @ is_pos.float()) > 0
        rel[group_pos] = 0
    rel[is_neg] = -1
    rel[:, ~is_first] = 0
    rel[is_pos] = 0
    rel[:, col_ids < 0] = 0
    rel[torch.arange(w, device=labels.device), torch.arange(w, device=labels.device)] = 1
    return rel


def learning_rate_factor(step: int, total: int, name: str, warmup_ratio: float, decay_ratio: float) -> float:
    """lr(step) / peak, transcribed from @dv/train's learning-rate.ts (step 0-based, the one about to run).

    wsd: linear warmup over W = round(warmup_ratio * total) steps, constant, linear decay to 0
    over the last D = round(decay_ratio * total) steps; linear: decay over all steps after
    warmup; constant: warmup then the peak. Python's round() rounds halves to even, JS's
    Math.round rounds them up, so halves are rounded up explicitly.
    """
    js_round = lambda x: math.floor(x + 0.5)  # noqa: E731
    warmup = js_round(warmup_ratio * total)
    if step < warmup:
        return (step + 1) / warmup
    decay = js_round(decay_ratio * total) if name == "wsd" else (total - warmup if name == "linear" else 0)
    if decay > 0 and step >= total - decay:
        return (total - step) / decay
    return 1.0


# Label of the padding row `build` appends to the data: the sampler fills short batches with it
# and the loss gives it no term and no column (every id in its label is -1).
PAD = -1


def world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


class DualViewBatchSampler(BatchSampler):
    """Per-device batches of exactly `batch_size` rows, cut from global batches of whole units.

    Units (rows with the same `label[0]`: one example's rows, or both views of a pair) are
    shuffled by seed + epoch and packed into global batches of `batch_size * world` rows as
    @dv/train's packBatches packs them: a unit that does not fit is held over (at most one) and
    opens the next batch while later units fill the current one. A batch that closes short is
    filled up with the padding row (label[0] = PAD), which the loss ignores. Each global batch is
    yielded as `world` consecutive slices of `batch_size` rows; accelerate's BatchSamplerShard
    hands slice i to rank i % world. So every rank has the same shapes at every step (gloo's
    all_gather needs equal sizes, and reads garbage or aborts when a peer sends more), and a
    global batch holds the same rows whatever the number of processes: one process with the
    global batch trains on the batches that N processes train on.

    A unit may span two ranks' slices of one global batch: the loss gathers the rows and their
    labels from every rank, so both views of a pair are still in one (global) batch. The limit is
    therefore the global batch: a unit larger than it is an error (`dv train export` checks this
    before it writes anything).
    """

    def __init__(
        self,
        dataset,
        batch_size: int,
        drop_last: bool,
        valid_label_columns=None,
        generator=None,
        seed: int = 0,
        shuffle: bool = True,
        world: int | None = None,
    ):
        self.batch_size = batch_size  # per device: what BatchSamplerShard checks each slice against
        self.world = world or world_size()
        self.global_size = batch_size * self.world
        self.drop_last = drop_last
        self.seed = seed
        self.shuffle = shuffle
        self.epoch = 0
        units: list[list[int]] = []
        self.pad: int | None = None
        last = None
        for i, label in enumerate(dataset["label"]):
            if label[0] == PAD:
                self.pad = i
                continue
            if label[0] != last:
                units.append([])
                last = label[0]
            units[-1].append(i)
        if self.pad is None:
            raise ValueError("the data has no padding row (label[0] = -1): build() appends it")
        largest = max(units, key=len)
        if len(largest) > self.global_size:
            raise ValueError(
                f"unit {dataset[largest[0]]['label'][0]} has {len(largest)} rows, more than the global batch of "
                f"{self.global_size} rows ({self.world} x {batch_size}): raise the batch size (dv train export --batch)"
            )
        self.units = units
        self._batches = self._pack()

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch
        self._batches = self._pack()

    def global_batches(self) -> list[list[int]]:
        """The global batches of this epoch, each exactly `batch_size * world` rows (padding included)."""
        size = self.global_size
        order = list(range(len(self.units)))
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            order = torch.randperm(len(self.units), generator=g).tolist()
        out: list[list[int]] = []

        def close(batch: list[int]) -> None:
            out.append(batch + [self.pad] * (size - len(batch)))

        current: list[int] = []
        held: list[int] | None = None
        for ui in order:
            unit = self.units[ui]
            while True:
                if len(current) + len(unit) > size:
                    if held is None:
                        held = unit
                        break
                    close(current)
                    current, held = held, None
                    continue
                current = current + unit
                if len(current) == size:
                    close(current)
                    current, held = (held or []), None
                    if len(current) == size:
                        close(current)
                        current = []
                break
        if held is not None:
            if len(current) + len(held) > size:
                close(current)
                current = []
            current = current + held
        if current and not (self.drop_last and len(current) < size):
            close(current)
        return out

    def _pack(self) -> list[list[int]]:
        b = self.batch_size
        return [g[i * b : (i + 1) * b] for g in self.global_batches() for i in range(self.world)]

    def __iter__(self) -> Iterator[list[int]]:
        return iter(self._batches)

    def __len__(self) -> int:
        return len(self._batches)


def dual_view_batch_sampler(dataset, batch_size: int, drop_last: bool, seed: int = 0, **_) -> DualViewBatchSampler:
    """The factory sentence-transformers calls (module level, so the training arguments pickle)."""
    return DualViewBatchSampler(dataset, batch_size, drop_last, seed=seed, shuffle=True)


def build(settings: dict, init_override: str | None = None):
    """The model, loss, arguments and data of a run (no training)."""
    from datasets import load_dataset
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.base.modules import Transformer
    from sentence_transformers.sentence_transformer.data_collator import SentenceTransformerDataCollator
    from sentence_transformers.sentence_transformer.losses import CachedMultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling
    from sentence_transformers.sentence_transformer.training_args import SentenceTransformerTrainingArguments
    from sentence_transformers.util import all_gather, cos_sim, dot_score, get_rank

    s = settings
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if s["batch"]["global_batch_size"] % world:
        raise SystemExit(f"batch size {s['batch']['global_batch_size']} is not a multiple of {world} processes")
    per_device = s["batch"]["global_batch_size"] // world

    init = init_override or s["model"]["init"]
    config_kwargs = {}
    if s["model"]["dropout"] is not None:
        config_kwargs = {"hidden_dropout_prob": s["model"]["dropout"], "attention_probs_dropout_prob": s["model"]["dropout"]}
    transformer = Transformer(init, max_seq_length=s["model"]["max_doc_length"], config_kwargs=config_kwargs or None)
    modules = [transformer, Pooling(transformer.get_embedding_dimension(), pooling_mode=s["model"]["pooling"])]
    if s["model"]["normalize"]:
        modules.append(Normalize())
    model = SentenceTransformer(modules=modules)

    k, m = s["data"]["negatives"], s["data"]["extra_positives"]
    loss_settings = s["loss"]

    class DualViewCachedMNRL(CachedMultipleNegativesRankingLoss):
        """CachedMultipleNegativesRankingLoss with @dv/train's relations (see `relations`)."""

        def calculate_loss(self, reps, labels=None, *, with_backward: bool = False):
            queries = torch.cat(reps[0])
            docs = [torch.cat(r) for r in reps[1:]]
            b = len(queries)
            offset = 0
            world = 1
            if self.gather_across_devices:
                from sentence_transformers.util import all_gather_with_grad

                # Every rank holds exactly b rows (DualViewBatchSampler), so the gathers line up.
                queries = all_gather_with_grad(queries)
                docs = [all_gather_with_grad(d) for d in docs]
                labels = all_gather(labels)
                world = labels.size(0) // b
                offset = get_rank() * b
            rel = relations(labels, k, m, loss_settings["in_batch_negatives"], loss_settings["mask_false_negatives"])
            # Padding rows have no loss term. The loss is the mean over the real rows of the global
            # batch; DDP averages gradients over ranks, so each rank returns world x its share.
            real = (labels[:, 0] != PAD).float()
            n_real = real.sum().clamp(min=1.0)
            docs_all = torch.cat(docs, dim=0)
            losses = []
            for begin in range(0, b, self.mini_batch_size):
                end = min(begin + self.mini_batch_size, b)
                rows = torch.arange(offset + begin, offset + end, device=queries.device)
                scores = self.similarity_fct(queries[rows], docs_all) * self.scale
                r = rel[rows]
                positive = scores[torch.arange(len(rows)), rows]
                negatives = scores.masked_fill(r != -1, -torch.inf)
                log_z = torch.logsumexp(torch.cat([positive[:, None], negatives], dim=1), dim=1)
                loss = ((log_z - positive) * real[rows]).sum() * world / n_real
                if with_backward:
                    loss.backward()
                    loss = loss.detach()
                losses.append(loss)
            return sum(losses)

    # scale = 1 / temperature: derived here from the one configured value (50 for tau 0.02).
    loss = DualViewCachedMNRL(
        model,
        scale=1.0 / loss_settings["temperature"],
        similarity_fct=cos_sim if s["model"]["normalize"] else dot_score,
        mini_batch_size=loss_settings["mini_batch_size"] or per_device * (1 + k),
        gather_across_devices=world > 1,
    )

    data = load_dataset("json", data_files=s["data"]["train"], split="train")
    columns = ["anchor", "positive", *[f"negative_{i + 1}" for i in range(k)], "label"]
    data = data.select_columns(columns)
    # One padding row (every id -1) for DualViewBatchSampler to fill short batches with.
    data = data.add_item({"anchor": "", "positive": "", **{f"negative_{i + 1}": "" for i in range(k)}, "label": [PAD] * (4 + k + m)})

    seed = s["seed"]
    o = s["optimizer"]
    args = SentenceTransformerTrainingArguments(
        output_dir=s["output_dir"],
        per_device_train_batch_size=per_device,
        gradient_accumulation_steps=s["batch"]["grad_accumulation"],
        num_train_epochs=s["batch"]["epochs"],
        max_steps=s["batch"]["steps"] if s["batch"]["steps"] is not None else -1,
        optim="adamw_torch",
        learning_rate=o["lr"],
        weight_decay=o["weight_decay"],
        adam_beta1=o["beta1"],
        adam_beta2=o["beta2"],
        adam_epsilon=o["epsilon"],
        max_grad_norm=o["grad_clip_norm"] if o["grad_clip_norm"] is not None else 0.0,
        seed=seed,
        data_seed=seed,
        logging_steps=s["log_every_steps"],
        save_steps=s["checkpoint"]["every_steps"],
        save_total_limit=s["checkpoint"]["keep_last"],
        batch_sampler=dual_view_batch_sampler,
        dataloader_drop_last=False,
        report_to="none",
        use_cpu=not torch.cuda.is_available(),
        ddp_backend="nccl" if torch.cuda.is_available() else "gloo",
    )
    lengths = {"anchor": s["model"]["max_query_length"]}

    class LengthCollator(SentenceTransformerDataCollator):
        """Queries truncated at max_query_length, documents at max_doc_length."""

        def _get_task_for_column(self, column_name, column_position, router_mapping):
            self._column = column_name
            return super()._get_task_for_column(column_name, column_position, router_mapping)

        def _get_max_length_for_task(self, task):
            return lengths.get(getattr(self, "_column", ""), s["model"]["max_doc_length"])

    collator = LengthCollator(preprocess_fn=model.preprocess)
    return model, loss, args, data, collator, per_device


def read_back(settings: dict, model, loss, args, per_device: int) -> dict:
    """What the library objects hold, for the export's field-by-field check."""
    pooling = model[1]
    return {
        "scale": loss.scale,
        "temperature": 1.0 / loss.scale,
        "similarity": loss.similarity_fct.__name__,
        "mini_batch_size": loss.mini_batch_size,
        "gather_across_devices": loss.gather_across_devices,
        "loss_class": type(loss).__mro__[1].__name__,
        "per_device_train_batch_size": args.per_device_train_batch_size,
        "world_size": int(os.environ.get("WORLD_SIZE", "1")),
        "global_batch_size": per_device * int(os.environ.get("WORLD_SIZE", "1")),
        "gradient_accumulation_steps": args.gradient_accumulation_steps,
        "num_train_epochs": args.num_train_epochs,
        "max_steps": args.max_steps,
        "learning_rate": args.learning_rate,
        "weight_decay": args.weight_decay,
        "adam_beta1": args.adam_beta1,
        "adam_beta2": args.adam_beta2,
        "adam_epsilon": args.adam_epsilon,
        "max_grad_norm": args.max_grad_norm,
        "schedule": settings["schedule"],
        "seed": args.seed,
        "logging_steps": args.logging_steps,
        "save_steps": args.save_steps,
        "save_total_limit": args.save_total_limit,
        "optim": str(getattr(args.optim, "value", args.optim)),
        "dropout": None if settings["model"]["dropout"] is None else model[0].auto_model.config.hidden_dropout_prob,
        "pooling": pooling.pooling_mode if isinstance(pooling.pooling_mode, str) else "+".join(pooling.pooling_mode),
        "normalize": any(type(x).__name__ == "Normalize" for x in model),
        "max_seq_length": model.max_seq_length,
        "max_query_length": settings["model"]["max_query_length"],
        "negatives_per_row": settings["data"]["negatives"],
        "in_batch_negatives": settings["loss"]["in_batch_negatives"],
        "mask_false_negatives": settings["loss"]["mask_false_negatives"],
        "pair_views_in_batch": settings["batch"]["pair_views_in_batch"],
        "sentence_transformers": __import__("sentence_transformers").__version__,
        "torch": torch.__version__,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settings", required=True, help="settings.json written by dv train export")
    parser.add_argument("--init", help="override the backbone (HF folder or Hub id)")
    parser.add_argument("--output-dir", help="override the output folder")
    parser.add_argument("--max-steps", type=int, help="override the number of optimiser steps")
    a = parser.parse_args()
    here = os.path.dirname(os.path.abspath(a.settings))
    with open(a.settings, encoding="utf8") as f:
        settings = json.load(f)
    settings["data"]["train"] = os.path.join(here, settings["data"]["train"])
    settings["output_dir"] = a.output_dir or os.path.join(here, settings["output_dir"])
    if a.max_steps:
        settings["batch"]["steps"] = a.max_steps
    if settings["model"]["init"] and not os.path.isabs(settings["model"]["init"]) and os.path.isdir(os.path.join(here, settings["model"]["init"])):
        settings["model"]["init"] = os.path.join(here, settings["model"]["init"])

    from sentence_transformers import SentenceTransformerTrainer
    from torch.optim.lr_scheduler import LambdaLR

    sch = settings["schedule"]

    class Trainer(SentenceTransformerTrainer):
        """Our learning-rate schedule (learning_rate_factor) instead of the HF ones."""

        def create_scheduler(self, num_training_steps: int, optimizer=None):
            if self.lr_scheduler is None:
                opt = optimizer if optimizer is not None else self.optimizer
                self.lr_scheduler = LambdaLR(
                    opt,
                    lambda step: learning_rate_factor(min(step, num_training_steps - 1), num_training_steps, sch["name"], sch["warmup_ratio"], sch["decay_ratio"]),
                )
                self._created_lr_scheduler = True
            return self.lr_scheduler

    model, loss, args, data, collator, per_device = build(settings, a.init)
    rank = int(os.environ.get("RANK", "0"))
    out = settings["output_dir"]
    if rank == 0:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "engine-settings.json"), "w", encoding="utf8") as f:
            json.dump(read_back(settings, model, loss, args, per_device), f, indent=2, sort_keys=True)
    if rank == 0:
        sampler = DualViewBatchSampler(data, per_device, False, seed=settings["seed"])
        padding = sum(b.count(sampler.pad) for b in sampler.global_batches())
        print(f"dv_st_train: {len(sampler.units)} units in {len(sampler) // sampler.world} global batches of {sampler.global_size} rows ({sampler.world} x {per_device}), {padding} padding rows", flush=True)
    trainer = Trainer(model=model, args=args, train_dataset=data, loss=loss, data_collator=collator)
    trainer.train()
    if rank == 0:
        with open(os.path.join(out, "train-log.jsonl"), "w", encoding="utf8") as f:
            for row in trainer.state.log_history:
                f.write(json.dumps(row) + "\n")
        model.save(os.path.join(out, "final"))
        # A few embeddings as the trained model gives them, to check that other tools load it.
        probe = [data[i]["anchor"] for i in range(min(4, len(data) - 1))]  # the last row is padding
        vectors = model.encode(probe, convert_to_numpy=True).tolist()
        with open(os.path.join(out, "probe.json"), "w", encoding="utf8") as f:
            json.dump({"texts": probe, "embeddings": vectors}, f)
        print(json.dumps({"final": os.path.join(out, "final"), "steps": trainer.state.global_step}))
    # Every rank waits for rank 0's writes, then leaves the process group together: a rank that
    # exits while another still uses gloo aborts in teardown ("terminate called without an
    # active exception", SIGABRT), and torchrun then fails the whole run.
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
