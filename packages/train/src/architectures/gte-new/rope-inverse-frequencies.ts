/**
 * Rotary inverse frequencies of gte NewModel, in float32 as transformers computes them:
 * inv_freq_i = 1/theta^(2i/d), or with NTK scaling (factor f > 1) 1/((theta f)^(2i/d)) / f^(2/d)
 * (Alibaba-NLP/new-impl modeling.py). Shared by the tfjs forward
 * pass and the ONNX graph, so both rotate by the same angles.
 */
export function ropeInverseFrequencies(
  headDim: number,
  theta: number,
  scaling: { readonly factor: number } | null,
): Float32Array {
  const f = Math.fround;
  const ntk = scaling !== null && scaling.factor > 1;
  const base = ntk ? theta * scaling.factor : theta;
  const out = new Float32Array(headDim / 2);
  for (let i = 0; i < out.length; i++) {
    const exponent = f((2 * i) / headDim);
    let inv = f(1 / f(base ** exponent));
    if (ntk) inv = f(inv / f(scaling.factor ** (2 / headDim)));
    out[i] = inv;
  }
  return out;
}
