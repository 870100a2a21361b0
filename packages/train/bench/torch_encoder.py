"""Same-run PyTorch baseline for bench/encoder-throughput.ts (not a runtime dependency).

The same BERT-style encoder as @dv/train's `mini-bert` (post-LN, exact GELU, word + position +
type embeddings), CLS pooling + L2 norm, InfoNCE over in-batch negatives (tau 0.02), AdamW without decay on
biases and LayerNorm parameters (as the TypeScript side);
one timed "step" = forward + backward + optimiser update, exactly what the TypeScript side times.
Prints one JSON line: {"seconds": ..., "steps": ...}.
"""
import json
import math
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn


class Layer(nn.Module):
    def __init__(self, h, heads, inter):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(h, h) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(h, eps=1e-12), nn.LayerNorm(h, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(h, inter), nn.Linear(inter, h)

    def forward(self, x, bias):
        b, t, h = x.shape
        d = h // self.heads
        split = lambda y: y.view(b, t, self.heads, d).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + bias, dim=-1)
        ctx = (p @ v).transpose(1, 2).reshape(b, t, h)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class Encoder(nn.Module):
    def __init__(self, vocab, h, layers, heads, inter, max_pos=512):
        super().__init__()
        self.word, self.pos, self.typ = nn.Embedding(vocab, h), nn.Embedding(max_pos, h), nn.Embedding(2, h)
        self.ln = nn.LayerNorm(h, eps=1e-12)
        self.layers = nn.ModuleList(Layer(h, heads, inter) for _ in range(layers))

    def forward(self, ids, mask):
        t = ids.shape[1]
        x = self.word(ids) + self.pos(torch.arange(t))[None] + self.typ(torch.zeros_like(ids))
        x = self.ln(x)
        bias = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        for layer in self.layers:
            x = layer(x, bias)
        return F.normalize(x[:, 0], dim=-1)


def main():
    cfg = json.loads(sys.argv[1])
    torch.manual_seed(0)
    torch.set_num_threads(cfg["threads"])
    model = Encoder(cfg["vocab"], cfg["hidden"], cfg["layers"], cfg["heads"], 4 * cfg["hidden"])
    model.train()
    for m in model.modules():
        if isinstance(m, nn.Dropout):
            m.p = 0.0
    # As @dv/train's applyAdamW (decaysByDefault): no weight decay for biases and LayerNorm
    # parameters (the 1-D ones), decay 0.01 for the matrices and embeddings.
    params = list(model.parameters())
    opt = torch.optim.AdamW(
        [
            {"params": [p for p in params if p.ndim > 1], "weight_decay": 0.01},
            {"params": [p for p in params if p.ndim == 1], "weight_decay": 0.0},
        ],
        lr=1e-4,
    )
    n, t = cfg["batch"], cfg["seq"]
    ids = torch.randint(5, cfg["vocab"], (n, t))
    mask = torch.ones(n, t, dtype=torch.long)
    labels = torch.arange(n // 2)

    def step():
        opt.zero_grad(set_to_none=True)
        e = model(ids, mask)
        q, d = e[: n // 2], e[n // 2 :]
        loss = F.cross_entropy(q @ d.T / 0.02, labels)
        loss.backward()
        opt.step()

    for _ in range(cfg["warmup"]):
        step()
    start = time.perf_counter()
    steps = 0
    while steps < cfg["minSteps"] or time.perf_counter() - start < cfg["minSeconds"]:
        step()
        steps += 1
    print(json.dumps({"seconds": time.perf_counter() - start, "steps": steps, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
