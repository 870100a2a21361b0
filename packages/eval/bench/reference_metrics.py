"""Same-run reference for bench/metrics.ts: reads the TREC qrels and run the benchmark wrote,
computes the same measures per topic with torchmetrics' retrieval functionals, and prints
timings plus the means as JSON. The benchmark data retrieves every relevant doc and has no
score ties, so torchmetrics' definitions coincide with trec_eval's there (its AP and recall
only see retrieved docs; its nDCG averages ties)."""
import json
import sys
import time

t0 = time.perf_counter()
import torch  # noqa: E402
from torchmetrics.functional.retrieval import (  # noqa: E402
    retrieval_average_precision,
    retrieval_normalized_dcg,
    retrieval_precision,
    retrieval_recall,
    retrieval_reciprocal_rank,
)

t_import = time.perf_counter() - t0
qrels_path, run_path = sys.argv[1], sys.argv[2]

t0 = time.perf_counter()
qrels = {}
with open(qrels_path) as f:
    for line in f:
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
run = {}
with open(run_path) as f:
    for line in f:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
t_read = time.perf_counter() - t0

torch.set_num_threads(2)
t0 = time.perf_counter()
sums = {"ndcg_cut_10": 0.0, "map": 0.0, "recip_rank": 0.0, "P_10": 0.0, "recall_100": 0.0}
n = 0
for q in sorted(run):
    if q not in qrels:
        continue
    docs = run[q]
    judged = qrels[q]
    preds = torch.tensor(list(docs.values()), dtype=torch.float64)
    grades = torch.tensor([max(judged.get(d, 0), 0) for d in docs], dtype=torch.long)
    rel = grades > 0
    sums["ndcg_cut_10"] += float(retrieval_normalized_dcg(preds, grades, top_k=10))
    sums["map"] += float(retrieval_average_precision(preds, rel))
    sums["recip_rank"] += float(retrieval_reciprocal_rank(preds, rel))
    sums["P_10"] += float(retrieval_precision(preds, rel, top_k=10))
    sums["recall_100"] += float(retrieval_recall(preds, rel, top_k=100))
    n += 1
t_eval = time.perf_counter() - t0
print(json.dumps({
    "means": {k: v / n for k, v in sums.items()},
    "topics": n,
    "read_s": t_read,
    "eval_s": t_eval,
    "import_s": t_import,
    "torch": torch.__version__,
}))
