// Entry of the fused-kernel addon (native/*.cc, built into native/build/dv_tf_ops.node): float32
// CPU kernels for @dv/train's encoders, registered as TensorFlow ops through TF's stable C API
// (tensorflow/c/ops.h, kernels.h) when Node loads the addon. TF eager runs elementwise chains one
// op (one pass over memory) at a time; these do each chain in one pass per row:
//
//   DvGelu(x) = x * Phi(x),   Phi(x) = 0.5 * (1 + erf(x / sqrt 2))           (exact GELU)
//   DvGeluGrad(dy, x) = dy * (Phi(x) + x * phi(x)),  phi(x) = exp(-x^2/2) / sqrt(2 pi)
//   DvBiasGelu(x, b) = gelu(x + b);  DvBiasGeluGrad(dy, x, b) -> dx, db = sum_rows(dx)
//   DvLayerNorm(x, gamma, beta; epsilon) -> y, mean, rstd over the last axis:
//       xhat = (x - mean) * rstd,  rstd = 1 / sqrt(var + eps) (biased variance),  y = xhat*gamma + beta
//   DvLayerNormGrad(dy, x, gamma, mean, rstd) -> dx, dgamma, dbeta:
//       g = dy * gamma,  dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
//       dgamma = sum_rows(dy * xhat),  dbeta = sum_rows(dy)
//   DvSoftmaxGrad(dy, y) = y * (dy - sum(dy * y)) over the last axis      (y = softmax(x))
//   DvAttention / DvAttentionGrad: multi-head attention on packed QKV rows (attention.cc)
//   DvAdamW: one AdamW step for one parameter (adamw.cc)
//
// Phi uses erfc(z) ~= t * P(t) * exp(-z^2), t = 1 / (1 + p z) (Abramowitz & Stegun 7.1.26,
// |error| <= 1.5e-7), evaluated for |u| so neither tail cancels; exp is a range-reduced
// polynomial (common.h) so loops vectorise without -ffast-math. Rows are split across threads
// (TF_NUM_INTRAOP_THREADS, else the hardware count), as TF's own CPU kernels do.
//
// Built by packages/train/scripts/setup-native-tf.mjs; loaded by src/internal/fused-ops.ts.

#include "common.h"

namespace dv {
namespace {

void SameShapeAsInput0(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* shape = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, shape, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, shape, status);
  TF_DeleteShapeHandle(shape);
}

}  // namespace

bool RegisterOp(const char* name, std::initializer_list<const char*> inputs,
                std::initializer_list<const char*> outputs, std::initializer_list<const char*> attrs,
                TF_Status* st) {
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(name);
  for (const char* i : inputs) TF_OpDefinitionBuilderAddInput(b, i);
  for (const char* o : outputs) TF_OpDefinitionBuilderAddOutput(b, o);
  for (const char* a : attrs) TF_OpDefinitionBuilderAddAttr(b, a);
  TF_OpDefinitionBuilderSetShapeInferenceFunction(b, &SameShapeAsInput0);
  TF_RegisterOpDefinition(b, st);
  return TF_GetCode(st) == TF_OK;
}

bool RegisterKernel(const char* op, void* (*create)(TF_OpKernelConstruction*),
                    void (*compute)(void*, TF_OpKernelContext*), void (*del)(void*), TF_Status* st) {
  TF_KernelBuilder* kb = TF_NewKernelBuilder(op, "CPU", create, compute, del);
  TF_RegisterKernelBuilder((std::string(op) + "Cpu").c_str(), kb, st);
  return TF_GetCode(st) == TF_OK;
}

void* NoState(TF_OpKernelConstruction*) { return nullptr; }
void NoDelete(void*) {}

// Registers every op once per process; returns nullptr or the first error.
const char* RegisterAll() {
  static std::string error;
  static bool done = false;
  if (done) return error.empty() ? nullptr : error.c_str();
  done = true;
  Status st;
  const bool ok = RegisterGeluOps(st.s) && RegisterLayerNormOps(st.s) && RegisterSoftmaxGradOps(st.s) &&
                  RegisterAttentionOps(st.s) && RegisterAdamWOps(st.s);
  if (!ok) error = TF_Message(st.s);
  return ok ? nullptr : error.c_str();
}

}  // namespace dv

// Node loads the addon as an N-API addon through the well-known symbol below; the opaque
// N-API types are declared here so no Node headers are needed. The addon's exports object is
// returned unchanged; registration failures abort the load (Node reports them as an exception
// from require, so JS falls back to the composite ops).
extern "C" {
typedef struct napi_env__* napi_env;
typedef struct napi_value__* napi_value;
int32_t napi_throw_error(napi_env env, const char* code, const char* msg);
__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  if (const char* err = dv::RegisterAll()) napi_throw_error(env, nullptr, err);
  return exports;
}
}
