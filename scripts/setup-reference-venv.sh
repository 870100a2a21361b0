#!/usr/bin/env bash
# Optional Python reference stack for golden/reference checks (never a runtime dependency):
# creates <repo>/.venv-ref with torch (CPU), transformers, sentence-transformers, safetensors, onnx,
# onnxruntime (its quantizer is the int8 export's reference),
# the benchmark baselines torchmetrics and faiss-cpu, and accelerate + datasets for the
# sentence-transformers training export (`dv train export`), and huggingface_hub (named, not only
# pulled in by transformers: the Hub cache tests of @dv/data run it). Tests that need it find it there and
# skip with a message when it is absent.
# Idempotent (does nothing when the venv already imports everything) and fail-soft: it never
# returns non-zero, it says what went wrong in one line.
set -u
cd "$(dirname "$0")/.."
VENV=.venv-ref
MODULES="torch transformers huggingface_hub sentence_transformers safetensors onnx onnxruntime torchmetrics faiss numpy accelerate datasets"
PACKAGES="torch transformers huggingface_hub sentence-transformers safetensors onnx onnxruntime torchmetrics faiss-cpu numpy accelerate datasets"

check() {
  "$VENV/bin/python" - "$MODULES" <<'PY' 2>/dev/null
import importlib.util, sys
sys.exit(0 if all(importlib.util.find_spec(m) for m in sys.argv[1].split()) else 1)
PY
}

if [ -x "$VENV/bin/python" ] && check; then
  echo "reference venv: ready ($VENV)"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "reference venv: skipped (no python3); reference checks will be skipped"
  exit 0
fi
# Machines of this project have a local wheel index; elsewhere pip's own configuration applies.
INDEX_ARGS=()
if [ -d /opt/pypi/simple ]; then
  INDEX_ARGS=(--index-url file:///opt/pypi/simple)
  [ -d /opt/pypi-more/simple ] && INDEX_ARGS+=(--extra-index-url file:///opt/pypi-more/simple)
fi
start=$(date +%s)
if python3 -m venv "$VENV" >/dev/null 2>&1 &&
  timeout 900 "$VENV/bin/pip" install -q --disable-pip-version-check "${INDEX_ARGS[@]}" $PACKAGES >"$VENV.log" 2>&1 &&
  check; then
  echo "reference venv: installed in $(( $(date +%s) - start )) s ($VENV)"
else
  echo "reference venv: could not be installed (see $VENV.log); reference checks will be skipped"
fi
exit 0
