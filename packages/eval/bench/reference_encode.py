"""Reference for encode-bench.ts: sentence-transformers (PyTorch) encodes the same corpus with the
same exported model folder, same threads, same batch size. Stays up: each line on stdin is one
timed round (so rounds alternate with ours and share the machine's load); prints one JSON line
per round and saves the last round's embeddings next to the texts.
With a 6th argument `int8`, the model's Linear layers are first quantized with PyTorch's own
dynamic quantization (torch.ao.quantization.quantize_dynamic, qint8 weights, fbgemm on x86):
what a PyTorch user gets for int8, to compare with our int8 graph; embeddings go to
<texts>.ref-int8.npy."""
import json, sys, time
import numpy as np
import torch

folder, texts_path, threads, batch, max_len = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
int8 = len(sys.argv) > 6 and sys.argv[6] == "int8"
torch.set_num_threads(threads)
from sentence_transformers import SentenceTransformer

with open(texts_path, encoding="utf8") as f:
    texts = [json.loads(line) for line in f if line.strip()]
model = SentenceTransformer(folder, device="cpu")
model.max_seq_length = max_len
if int8:
    model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
model.encode(texts[:batch], batch_size=batch)  # warm-up, as ours (session creation + probe) is untimed
print(json.dumps({"ready": True}), flush=True)
for _ in sys.stdin:
    t0 = time.perf_counter()
    emb = model.encode(texts, batch_size=batch, convert_to_numpy=True, normalize_embeddings=False)
    seconds = time.perf_counter() - t0
    np.save(texts_path + (".ref-int8.npy" if int8 else ".ref.npy"), emb.astype(np.float32))
    print(json.dumps({"seconds": seconds, "rows": len(texts), "dim": int(emb.shape[1]), "torch": torch.__version__,
                      "sentence_transformers": __import__("sentence_transformers").__version__, "threads": torch.get_num_threads()}), flush=True)
