// LayerNorm over the last axis (torch.nn.LayerNorm, biased variance) and its gradient:
//   DvLayerNorm(x, gamma, beta; epsilon) -> y, mean, rstd:
//       xhat = (x - mean) * rstd,  rstd = 1 / sqrt(var + eps),  y = xhat * gamma + beta
//   DvLayerNormGrad(dy, x, gamma, mean, rstd) -> dx, dgamma, dbeta:
//       g = dy * gamma,  dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
//       dgamma = sum_rows(dy * xhat),  dbeta = sum_rows(dy)
#include "common.h"

namespace dv {
namespace {

struct LayerNormKernel {
  float epsilon = 1e-12f;
};

void* LayerNormCreate(TF_OpKernelConstruction* ctx) {
  auto* k = new LayerNormKernel;
  Status st;
  TF_OpKernelConstruction_GetAttrFloat(ctx, "epsilon", &k->epsilon, st.s);
  if (!st.ok()) TF_OpKernelConstruction_Failure(ctx, st.s);
  return k;
}

void LayerNormDelete(void* k) { delete static_cast<LayerNormKernel*>(k); }

void LayerNormCompute(void* kernel, TF_OpKernelContext* ctx) {
  const float eps = static_cast<LayerNormKernel*>(kernel)->epsilon;
  Input x, gamma, beta;
  Out y, mean_out, rstd_out;
  if (!GetInput(ctx, 0, &x) || !GetInput(ctx, 1, &gamma) || !GetInput(ctx, 2, &beta)) return;
  const int64_t h = x.last_dim();
  if (gamma.size() != h || beta.size() != h) return Fail(ctx, "DvLayerNorm: gamma/beta size != last dim");
  const int64_t rows = h ? x.size() / h : 0;
  float* out = Output(ctx, 0, DimsOf(x.t), &y.t);
  float* mean = out ? Output(ctx, 1, {rows}, &mean_out.t) : nullptr;
  float* rstd = mean ? Output(ctx, 2, {rows}, &rstd_out.t) : nullptr;
  if (!rstd) return;
  const float* in = x.data();
  const float* g = gamma.data();
  const float* bt = beta.data();
  ParallelRows(rows, h * 4, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float* xr = in + r * h;
      float* yr = out + r * h;
      float s = 0.0f;
      for (int64_t j = 0; j < h; ++j) s += xr[j];
      const float m = s / static_cast<float>(h);
      float v = 0.0f;
      for (int64_t j = 0; j < h; ++j) v += (xr[j] - m) * (xr[j] - m);
      const float rs = 1.0f / std::sqrt(v / static_cast<float>(h) + eps);
      for (int64_t j = 0; j < h; ++j) yr[j] = (xr[j] - m) * rs * g[j] + bt[j];
      mean[r] = m;
      rstd[r] = rs;
    }
  });
}

void LayerNormGradCompute(void*, TF_OpKernelContext* ctx) {
  Input dy, x, gamma, mean, rstd;
  Out dx_out, dgamma_out, dbeta_out;
  if (!GetInput(ctx, 0, &dy) || !GetInput(ctx, 1, &x) || !GetInput(ctx, 2, &gamma) ||
      !GetInput(ctx, 3, &mean) || !GetInput(ctx, 4, &rstd))
    return;
  const int64_t h = x.last_dim();
  const int64_t rows = h ? x.size() / h : 0;
  if (dy.size() != x.size() || gamma.size() != h || mean.size() != rows || rstd.size() != rows)
    return Fail(ctx, "DvLayerNormGrad: inconsistent shapes");
  float* dx = Output(ctx, 0, DimsOf(x.t), &dx_out.t);
  float* dgamma = dx ? Output(ctx, 1, {h}, &dgamma_out.t) : nullptr;
  float* dbeta = dgamma ? Output(ctx, 2, {h}, &dbeta_out.t) : nullptr;
  if (!dbeta) return;
  const float* g = dy.data();
  const float* in = x.data();
  const float* gm = gamma.data();
  const float* mu = mean.data();
  const float* rs = rstd.data();
  // Per-chunk partial sums of dgamma and dbeta, added in chunk order (deterministic).
  const int chunks = ThreadCount();
  std::vector<float> partial(static_cast<size_t>(chunks) * 2 * h, 0.0f);
  const int64_t per = (rows + chunks - 1) / chunks;
  ParallelRows(chunks, per * h * 8, [&](int64_t cb, int64_t ce) {
    std::vector<float> xhat(h), gx(h);
    for (int64_t c = cb; c < ce; ++c) {
      float* pg = partial.data() + c * 2 * h;
      float* pb = pg + h;
      for (int64_t r = c * per; r < std::min(rows, (c + 1) * per); ++r) {
        const float* dyr = g + r * h;
        const float* xr = in + r * h;
        float a = 0.0f, bsum = 0.0f;
        for (int64_t j = 0; j < h; ++j) {
          xhat[j] = (xr[j] - mu[r]) * rs[r];
          gx[j] = dyr[j] * gm[j];
          a += gx[j];
          bsum += gx[j] * xhat[j];
          pg[j] += dyr[j] * xhat[j];
          pb[j] += dyr[j];
        }
        a /= static_cast<float>(h);
        bsum /= static_cast<float>(h);
        float* dxr = dx + r * h;
        for (int64_t j = 0; j < h; ++j) dxr[j] = rs[r] * (gx[j] - a - xhat[j] * bsum);
      }
    }
  });
  std::fill(dgamma, dgamma + h, 0.0f);
  std::fill(dbeta, dbeta + h, 0.0f);
  for (int c = 0; c < chunks; ++c)
    for (int64_t j = 0; j < h; ++j) {
      dgamma[j] += partial[c * 2 * h + j];
      dbeta[j] += partial[c * 2 * h + h + j];
    }
}

}  // namespace

bool RegisterLayerNormOps(TF_Status* st) {
  return RegisterOp("DvLayerNorm", {"x: float", "gamma: float", "beta: float"},
                 {"y: float", "mean: float", "rstd: float"}, {"epsilon: float"}, st) &&
         RegisterKernel("DvLayerNorm", LayerNormCreate, LayerNormCompute, LayerNormDelete, st) &&
         RegisterOp("DvLayerNormGrad", {"dy: float", "x: float", "gamma: float", "mean: float", "rstd: float"},
                 {"dx: float", "dgamma: float", "dbeta: float"}, {}, st) &&
         RegisterKernel("DvLayerNormGrad", NoState, LayerNormGradCompute, NoDelete, st);
}

}  // namespace dv
