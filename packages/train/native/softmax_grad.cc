// DvSoftmaxGrad(dy, y) = y * (dy - sum(dy * y)) over the last axis, y = softmax(x).
#include "common.h"

namespace dv {
namespace {

void SoftmaxGradCompute(void*, TF_OpKernelContext* ctx) {
  Input dy, y;
  Out dx_out;
  if (!GetInput(ctx, 0, &dy) || !GetInput(ctx, 1, &y)) return;
  if (dy.size() != y.size()) return Fail(ctx, "DvSoftmaxGrad: dy and y differ in size");
  const int64_t n = y.last_dim();
  const int64_t rows = n ? y.size() / n : 0;
  float* dx = Output(ctx, 0, DimsOf(y.t), &dx_out.t);
  if (!dx) return;
  const float* g = dy.data();
  const float* p = y.data();
  ParallelRows(rows, n * 3, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float* gr = g + r * n;
      const float* pr = p + r * n;
      float s = 0.0f;
      for (int64_t j = 0; j < n; ++j) s += gr[j] * pr[j];
      float* dr = dx + r * n;
      for (int64_t j = 0; j < n; ++j) dr[j] = pr[j] * (gr[j] - s);
    }
  });
}

}  // namespace

bool RegisterSoftmaxGradOps(TF_Status* st) {
  return RegisterOp("DvSoftmaxGrad", {"dy: float", "y: float"}, {"dx: float"}, {}, st) &&
         RegisterKernel("DvSoftmaxGrad", NoState, SoftmaxGradCompute, NoDelete, st);
}

}  // namespace dv
