"""Same-run reference for bench/exact-search.ts: exact inner-product top-k with faiss-cpu
(IndexFlatIP, BLAS sgemm + heaps) on the matrices the benchmark wrote. Prints timings as JSON
and writes the top-k doc indices (int32) for the overlap check."""
import json
import sys
import time

import faiss
import numpy as np

docs_path, queries_path, dim, k, out_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
docs = np.fromfile(docs_path, dtype="<f4").reshape(-1, dim)
queries = np.fromfile(queries_path, dtype="<f4").reshape(-1, dim)
t0 = time.perf_counter()
index = faiss.IndexFlatIP(dim)
index.add(docs)
t_add = time.perf_counter() - t0
index.search(queries[:4], k)  # warm-up
t0 = time.perf_counter()
scores, ids = index.search(queries, k)
t_search = time.perf_counter() - t0
ids.astype("<i4").tofile(out_path)
print(json.dumps({"add_s": t_add, "search_s": t_search, "threads": faiss.omp_get_max_threads(), "faiss": faiss.__version__}))
