#!/usr/bin/env bash
# int8 against float32 on real trained models: for each model a mini reproduction trained
# (<run>/stages/train/<backbone>/<mix>/seed-<s>/export), a copy of its folder gets the int8 graph
# (`dv train onnx --precision int8`), and the mini benchmark runs at both precisions; prints one
# markdown row per model: p-MRR and Score (x100) at fp32 and int8, and int8 - fp32.
# Usage: bash packages/eval/bench/int8-quality.sh RUN_DIR   (the --out of `pnpm reproduce`)
set -euo pipefail
RUN=${1:?usage: int8-quality.sh RUN_DIR (a pnpm reproduce --out folder)}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
DV=(node "$ROOT/apps/pipeline/dist/bin/dv.js")
[ -f "${DV[1]}" ] || { echo "build the bin first: node apps/pipeline/scripts/build-bin.mjs" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dv-int8-quality-XXXXXX")
echo "| model | p-MRR fp32 | p-MRR int8 | Δ | Score fp32 | Score int8 | Δ |"
echo "|---|---|---|---|---|---|---|"
for m in "$RUN"/stages/train/*/*/seed-*; do
  [ -d "$m/export" ] || continue
  name="$(basename "$(dirname "$(dirname "$m")")")-$(basename "$(dirname "$m")")-$(basename "$m")"
  cp -r "$m/export" "$WORK/$name"
  "${DV[@]}" train onnx --model "$WORK/$name" --precision int8 >/dev/null 2>&1
  for p in fp32 int8; do
    "${DV[@]}" eval run --benchmark mini --data "$RUN/stages/world" --model "onnx:$WORK/$name" --precision $p \
      --out "$WORK/eval-$name-$p" --cache-dir "$WORK/cache" --json 2>/dev/null >"$WORK/$name-$p.json"
  done
  node -e '
    const [a, b] = process.argv.slice(1, 3).map((f) => JSON.parse(require("node:fs").readFileSync(f, "utf8")).average);
    const f = (x) => (100 * x).toFixed(2);
    const d = (x) => (x >= 0 ? "+" : "") + (100 * x).toFixed(2);
    console.log(`| ${process.argv[3]} | ${f(a["p-MRR"])} | ${f(b["p-MRR"])} | ${d(b["p-MRR"] - a["p-MRR"])} | ${f(a.score)} | ${f(b.score)} | ${d(b.score - a.score)} |`);
  ' "$WORK/$name-fp32.json" "$WORK/$name-int8.json" "$name"
done
echo "(work folder: $WORK)"
