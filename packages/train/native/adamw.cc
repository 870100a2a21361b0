// DvAdamW: one AdamW step for one parameter (formula below).
#include "common.h"

namespace dv {
namespace {

// One AdamW step (torch.optim.AdamW's update order) in one pass over a parameter:
//   p <- p * decay;  m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2;
//   p <- p - step * m / (sqrt(v) * inv_sqrt_bc2 + eps)
// hyper = [decay, b1, 1 - b1, b2, 1 - b2, inv_sqrt_bc2, eps, step] with decay = 1 - lr * wd
// (or 1), inv_sqrt_bc2 = 1 / sqrt(1 - b2^t), step = lr / (1 - b1^t); 1 - b1 and 1 - b2 come
// from the caller's doubles (1 - 0.999f in float loses 1e-5). Outputs p, m, v (new tensors).
void AdamWCompute(void*, TF_OpKernelContext* ctx) {
  Input p, g, m, v, hyper;
  Out p_out, m_out, v_out;
  if (!GetInput(ctx, 0, &p) || !GetInput(ctx, 1, &g) || !GetInput(ctx, 2, &m) || !GetInput(ctx, 3, &v) ||
      !GetInput(ctx, 4, &hyper))
    return;
  const int64_t n = p.size();
  if (g.size() != n || m.size() != n || v.size() != n || hyper.size() != 8)
    return Fail(ctx, "DvAdamW: p, g, m, v must have one size and hyper 8 values");
  float* po = Output(ctx, 0, DimsOf(p.t), &p_out.t);
  float* mo = po ? Output(ctx, 1, DimsOf(p.t), &m_out.t) : nullptr;
  float* vo = mo ? Output(ctx, 2, DimsOf(p.t), &v_out.t) : nullptr;
  if (!vo) return;
  const float* hp = hyper.data();
  const float decay = hp[0], b1 = hp[1], c1 = hp[2], b2 = hp[3], c2 = hp[4], inv_bc2 = hp[5], eps = hp[6],
              step = hp[7];
  const float* pi = p.data();
  const float* gi = g.data();
  const float* mi = m.data();
  const float* vi = v.data();
  ParallelRows(n, 6, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const float mm = b1 * mi[i] + c1 * gi[i];
      const float vv = b2 * vi[i] + c2 * (gi[i] * gi[i]);
      mo[i] = mm;
      vo[i] = vv;
      po[i] = pi[i] * decay - step * mm / (std::sqrt(vv) * inv_bc2 + eps);
    }
  });
}

}  // namespace

bool RegisterAdamWOps(TF_Status* st) {
  return RegisterOp("DvAdamW", {"p: float", "g: float", "m: float", "v: float", "hyper: float"},
                 {"p_out: float", "m_out: float", "v_out: float"}, {}, st) &&
         RegisterKernel("DvAdamW", NoState, AdamWCompute, NoDelete, st);
}

}  // namespace dv
