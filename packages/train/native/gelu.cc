// Exact GELU and its gradient, alone and with the bias of the GEMM before it (the FFN):
//   DvGelu(x) = x * Phi(x),   Phi(x) = 0.5 * (1 + erf(x / sqrt 2))
//   DvGeluGrad(dy, x) = dy * (Phi(x) + x * phi(x)),  phi(x) = exp(-x^2/2) / sqrt(2 pi)
//   DvBiasGelu(x, b) = gelu(x + b) over rows of x [N, C], b [C]
//   DvBiasGeluGrad(dy, x, b) -> dx = dy * gelu'(x + b), db = sum over rows of dx
#include "common.h"

namespace dv {
namespace {

void GeluCompute(void*, TF_OpKernelContext* ctx) {
  Input x;
  Out y;
  if (!GetInput(ctx, 0, &x)) return;
  float* out = Output(ctx, 0, DimsOf(x.t), &y.t);
  if (!out) return;
  const float* in = x.data();
  ParallelRows(x.size(), 8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float cdf, pdf;
      NormalCdfPdf(in[i], &cdf, &pdf);
      out[i] = in[i] * cdf;
    }
  });
}

void GeluGradCompute(void*, TF_OpKernelContext* ctx) {
  Input dy, x;
  Out dx;
  if (!GetInput(ctx, 0, &dy) || !GetInput(ctx, 1, &x)) return;
  if (dy.size() != x.size()) return Fail(ctx, "DvGeluGrad: dy and x differ in size");
  float* out = Output(ctx, 0, DimsOf(x.t), &dx.t);
  if (!out) return;
  const float* g = dy.data();
  const float* in = x.data();
  ParallelRows(x.size(), 8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float cdf, pdf;
      NormalCdfPdf(in[i], &cdf, &pdf);
      out[i] = g[i] * (cdf + in[i] * pdf);
    }
  });
}

// GELU of a biased pre-activation, the FFN's first half after its GEMM: y = gelu(x + b) over
// rows of x [N, C], b [C]; gradient dx = dy * gelu'(x + b), db = sum over rows of dx.
void BiasGeluCompute(void*, TF_OpKernelContext* ctx) {
  Input x, bias;
  Out y;
  if (!GetInput(ctx, 0, &x) || !GetInput(ctx, 1, &bias)) return;
  const int64_t c = bias.size();
  if (x.last_dim() != c) return Fail(ctx, "DvBiasGelu: bias size != last dim");
  float* out = Output(ctx, 0, DimsOf(x.t), &y.t);
  if (!out) return;
  const float* in = x.data();
  const float* bv = bias.data();
  ParallelRows(c ? x.size() / c : 0, c * 8, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < c; ++j) {
        const float z = in[r * c + j] + bv[j];
        float cdf, pdf;
        NormalCdfPdf(z, &cdf, &pdf);
        out[r * c + j] = z * cdf;
      }
  });
}

void BiasGeluGradCompute(void*, TF_OpKernelContext* ctx) {
  Input dy, x, bias;
  Out dx_out, db_out;
  if (!GetInput(ctx, 0, &dy) || !GetInput(ctx, 1, &x) || !GetInput(ctx, 2, &bias)) return;
  const int64_t c = bias.size();
  if (x.last_dim() != c || dy.size() != x.size()) return Fail(ctx, "DvBiasGeluGrad: inconsistent shapes");
  const int64_t rows = c ? x.size() / c : 0;
  float* dx = Output(ctx, 0, DimsOf(x.t), &dx_out.t);
  float* db = dx ? Output(ctx, 1, {c}, &db_out.t) : nullptr;
  if (!db) return;
  const float* g = dy.data();
  const float* in = x.data();
  const float* bv = bias.data();
  const int chunks = ThreadCount();
  std::vector<float> partial(static_cast<size_t>(chunks) * c, 0.0f);
  const int64_t per = (rows + chunks - 1) / chunks;
  ParallelRows(chunks, per * c * 8, [&](int64_t cb, int64_t ce) {
    for (int64_t k = cb; k < ce; ++k) {
      float* pdb = partial.data() + k * c;
      for (int64_t r = k * per; r < std::min(rows, (k + 1) * per); ++r)
        for (int64_t j = 0; j < c; ++j) {
          const float z = in[r * c + j] + bv[j];
          float cdf, pdf;
          NormalCdfPdf(z, &cdf, &pdf);
          const float v = g[r * c + j] * (cdf + z * pdf);
          dx[r * c + j] = v;
          pdb[j] += v;
        }
    }
  });
  std::fill(db, db + c, 0.0f);
  for (int k = 0; k < chunks; ++k)
    for (int64_t j = 0; j < c; ++j) db[j] += partial[k * c + j];
}

}  // namespace

bool RegisterGeluOps(TF_Status* st) {
  return RegisterOp("DvGelu", {"x: float"}, {"y: float"}, {}, st) &&
         RegisterKernel("DvGelu", NoState, GeluCompute, NoDelete, st) &&
         RegisterOp("DvGeluGrad", {"dy: float", "x: float"}, {"dx: float"}, {}, st) &&
         RegisterKernel("DvGeluGrad", NoState, GeluGradCompute, NoDelete, st) &&
         RegisterOp("DvBiasGelu", {"x: float", "bias: float"}, {"y: float"}, {}, st) &&
         RegisterKernel("DvBiasGelu", NoState, BiasGeluCompute, NoDelete, st) &&
         RegisterOp("DvBiasGeluGrad", {"dy: float", "x: float", "bias: float"}, {"dx: float", "dbias: float"}, {}, st) &&
         RegisterKernel("DvBiasGeluGrad", NoState, BiasGeluGradCompute, NoDelete, st);
}

}  // namespace dv
