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
//   DvResidualLayerNorm(x, bias, residual, gamma, beta; epsilon) = DvLayerNorm(x + bias + residual)
//   DvResidualLayerNormGrad -> dz (for x and residual), dbias, dgamma, dbeta (residual_layer_norm.inc)
//   DvSoftmaxGrad(dy, y) = y * (dy - sum(dy * y)) over the last axis      (y = softmax(x))
//   DvAttention / DvAttentionGrad: multi-head attention on packed QKV rows (attention.cc)
//   DvAdamW: one AdamW step for one parameter (adamw.cc)
//
// Phi uses erfc(z) ~= t * P(t) * exp(-z^2), t = 1 / (1 + p z) (Abramowitz & Stegun 7.1.26,
// |error| <= 1.5e-7), evaluated for |u| so neither tail cancels; exp is a range-reduced
// polynomial (common.h) so loops vectorise without -ffast-math. Rows are split across threads
// (TF_NUM_INTRAOP_THREADS, else the hardware count), as TF's own CPU kernels do.
//
// Each kernel is compiled for AVX-512, AVX2 + FMA and baseline x86-64 (isa-kernels.h); the copy
// for the CPU is chosen when the addon loads (exports.isa says which).
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

namespace {

const char* chosen_isa = "base";

// The widest instruction set this CPU runs (cpuid through __builtin_cpu_supports; the OS saving
// the vector state is part of what GCC's check reports), or the one DV_FUSED_ISA names when the
// CPU has it.
const char* ChooseIsa() {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  const char* forced = std::getenv("DV_FUSED_ISA");
  if (forced && std::strcmp(forced, "base") == 0) return "base";
  if (forced && std::strcmp(forced, "avx2") == 0 && avx2) return "avx2";
  return avx512 ? "avx512" : avx2 ? "avx2" : "base";
}

}  // namespace

const char* KernelIsa() { return chosen_isa; }

// Registers every op once per process, from the copy of the kernels for this CPU; returns
// nullptr or the first error.
const char* RegisterAll() {
  static std::string error;
  static bool done = false;
  if (done) return error.empty() ? nullptr : error.c_str();
  done = true;
  chosen_isa = ChooseIsa();
  Status st;
  const bool ok = std::strcmp(chosen_isa, "avx512") == 0 ? avx512::RegisterAllOps(st.s)
                  : std::strcmp(chosen_isa, "avx2") == 0 ? avx2::RegisterAllOps(st.s)
                                                         : base::RegisterAllOps(st.s);
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
int32_t napi_create_string_utf8(napi_env env, const char* str, size_t length, napi_value* result);
int32_t napi_set_named_property(napi_env env, napi_value object, const char* name, napi_value value);
__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  if (const char* err = dv::RegisterAll()) {
    napi_throw_error(env, nullptr, err);
    return exports;
  }
  // exports.isa: which copy of the kernels runs ("avx512", "avx2", "base").
  napi_value isa;
  if (napi_create_string_utf8(env, dv::KernelIsa(), static_cast<size_t>(-1), &isa) == 0)
    napi_set_named_property(env, exports, "isa", isa);
  return exports;
}
}
