// Fused float32 CPU kernels for @dv/train's encoders, registered as TensorFlow ops through TF's
// stable C API (tensorflow/c/ops.h, kernels.h) when Node loads this file as an addon. TF eager
// runs elementwise chains one op (one pass over memory) at a time; these do each chain in one
// pass per row:
//
//   DvGelu(x) = x * Phi(x),   Phi(x) = 0.5 * (1 + erf(x / sqrt 2))           (exact GELU)
//   DvGeluGrad(dy, x) = dy * (Phi(x) + x * phi(x)),  phi(x) = exp(-x^2/2) / sqrt(2 pi)
//   DvLayerNorm(x, gamma, beta; epsilon) -> y, mean, rstd over the last axis:
//       xhat = (x - mean) * rstd,  rstd = 1 / sqrt(var + eps) (biased variance),  y = xhat*gamma + beta
//   DvLayerNormGrad(dy, x, gamma, mean, rstd) -> dx, dgamma, dbeta:
//       g = dy * gamma,  dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
//       dgamma = sum_rows(dy * xhat),  dbeta = sum_rows(dy)
//   DvSoftmaxGrad(dy, y) = y * (dy - sum(dy * y)) over the last axis      (y = softmax(x))
//
// Phi uses erfc(z) ~= t * P(t) * exp(-z^2), t = 1 / (1 + p z) (Abramowitz & Stegun 7.1.26,
// |error| <= 1.5e-7), evaluated for |u| so neither tail cancels; exp is a range-reduced
// polynomial (below) so loops vectorise without -ffast-math. Rows are split across threads
// (TF_NUM_INTRAOP_THREADS, else the hardware count), as TF's own CPU kernels do.
//
// Built by packages/train/scripts/setup-native-tf.mjs; loaded by src/internal/fused-ops.ts.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

// The parts of TensorFlow's stable C API (tensorflow/c/tf_status.h, tf_tensor.h, kernels.h,
// ops.h; exported by libtensorflow_framework.so.2) this file calls, declared here so the build
// needs only the shared library: the installed headers pull in TSL headers the wheel omits.
extern "C" {
typedef struct TF_Status TF_Status;
typedef struct TF_Tensor TF_Tensor;
typedef struct TF_KernelBuilder TF_KernelBuilder;
typedef struct TF_OpKernelConstruction TF_OpKernelConstruction;
typedef struct TF_OpKernelContext TF_OpKernelContext;
typedef struct TF_OpDefinitionBuilder TF_OpDefinitionBuilder;
typedef struct TF_ShapeInferenceContext TF_ShapeInferenceContext;
typedef struct TF_ShapeHandle TF_ShapeHandle;
typedef int TF_Code;  // enum TF_Code
typedef int TF_DataType;  // enum TF_DataType
constexpr TF_Code TF_OK = 0;
constexpr TF_Code TF_INVALID_ARGUMENT = 3;
constexpr TF_DataType TF_FLOAT = 1;

TF_Status* TF_NewStatus();
void TF_DeleteStatus(TF_Status*);
TF_Code TF_GetCode(const TF_Status*);
const char* TF_Message(const TF_Status*);
void TF_SetStatus(TF_Status*, TF_Code, const char*);
void* TF_TensorData(const TF_Tensor*);
int64_t TF_TensorElementCount(const TF_Tensor*);
int TF_NumDims(const TF_Tensor*);
int64_t TF_Dim(const TF_Tensor*, int);
void TF_DeleteTensor(TF_Tensor*);
TF_KernelBuilder* TF_NewKernelBuilder(const char* op_name, const char* device_name,
                                      void* (*create)(TF_OpKernelConstruction*),
                                      void (*compute)(void*, TF_OpKernelContext*), void (*del)(void*));
void TF_RegisterKernelBuilder(const char* kernel_name, TF_KernelBuilder* builder, TF_Status* status);
void TF_GetInput(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor, TF_Status* status);
TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* ctx, int index, TF_DataType dtype, const int64_t* dims,
                             int num_dims, size_t len, TF_Status* status);
void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* ctx, TF_Status* status);
void TF_OpKernelContext_Failure(TF_OpKernelContext* ctx, TF_Status* status);
void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction* ctx, const char* attr_name, float* val,
                                          TF_Status* status);
TF_OpDefinitionBuilder* TF_NewOpDefinitionBuilder(const char* op_name);
void TF_RegisterOpDefinition(TF_OpDefinitionBuilder* builder, TF_Status* status);
void TF_OpDefinitionBuilderAddInput(TF_OpDefinitionBuilder* builder, const char* spec);
void TF_OpDefinitionBuilderAddOutput(TF_OpDefinitionBuilder* builder, const char* spec);
void TF_OpDefinitionBuilderAddAttr(TF_OpDefinitionBuilder* builder, const char* spec);
void TF_OpDefinitionBuilderSetShapeInferenceFunction(TF_OpDefinitionBuilder* builder,
                                                     void (*fn)(TF_ShapeInferenceContext*, TF_Status*));
TF_ShapeHandle* TF_NewShapeHandle();
void TF_DeleteShapeHandle(TF_ShapeHandle* handle);
void TF_ShapeInferenceContextGetInput(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* handle,
                                      TF_Status* status);
void TF_ShapeInferenceContextSetOutput(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* handle,
                                       TF_Status* status);
}

namespace {

// ---- threading -------------------------------------------------------------------------------

int ThreadCount() {
  static const int n = [] {
    const char* env = std::getenv("TF_NUM_INTRAOP_THREADS");
    int v = env ? std::atoi(env) : 0;
    if (v <= 0) v = static_cast<int>(std::thread::hardware_concurrency());
    return std::max(1, std::min(v, 64));
  }();
  return n;
}

// Runs fn(begin, end) over [0, rows) in contiguous chunks, one per thread; small jobs inline.
template <typename Fn>
void ParallelRows(int64_t rows, int64_t cost_per_row, Fn fn) {
  const int threads = static_cast<int>(
      std::min<int64_t>(ThreadCount(), std::max<int64_t>(1, rows * cost_per_row / 32768)));
  if (threads <= 1 || rows < 2) {
    fn(int64_t{0}, rows);
    return;
  }
  const int64_t chunk = (rows + threads - 1) / threads;
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int t = 1; t < threads; ++t) {
    const int64_t b = t * chunk, e = std::min(rows, b + chunk);
    if (b < e) pool.emplace_back([=] { fn(b, e); });
  }
  fn(int64_t{0}, std::min(rows, chunk));
  for (auto& th : pool) th.join();
}

// ---- math ------------------------------------------------------------------------------------

// exp(x) for float: x = n ln2 + r, |r| <= ln2/2, exp(r) by a degree-6 Taylor polynomial
// (relative error < 2e-7 on that interval), times 2^n built in the exponent bits.
inline float FastExp(float x) {
  x = std::min(88.0f, std::max(-87.0f, x));
  const float n = std::floor(x * 1.44269504088896341f + 0.5f);
  const float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;

// Phi(x) and phi(x) together (they share exp(-x^2/2)).
inline void NormalCdfPdf(float x, float* cdf, float* pdf) {
  const float z = std::fabs(x) * kSqrtHalf;
  const float e = FastExp(-z * z);
  const float t = 1.0f / (1.0f + 0.3275911f * z);
  const float poly =
      t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  const float half_erfc = 0.5f * poly * e;  // 0.5 * erfc(|x| / sqrt 2) = Phi(-|x|)
  *cdf = x < 0.0f ? half_erfc : 1.0f - half_erfc;
  *pdf = kInvSqrt2Pi * e;
}

// ---- TF plumbing -----------------------------------------------------------------------------

struct Status {
  TF_Status* s = TF_NewStatus();
  ~Status() { TF_DeleteStatus(s); }
  bool ok() const { return TF_GetCode(s) == TF_OK; }
};

struct Input {
  TF_Tensor* t = nullptr;
  ~Input() {
    if (t) TF_DeleteTensor(t);
  }
  const float* data() const { return static_cast<const float*>(TF_TensorData(t)); }
  int64_t size() const { return TF_TensorElementCount(t); }
  int64_t last_dim() const { return TF_NumDims(t) ? TF_Dim(t, TF_NumDims(t) - 1) : 1; }
};

bool GetInput(TF_OpKernelContext* ctx, int i, Input* in) {
  Status st;
  TF_GetInput(ctx, i, &in->t, st.s);
  if (!st.ok()) {
    TF_OpKernelContext_Failure(ctx, st.s);
    return false;
  }
  return true;
}

// Allocates output i with the given dims; nullptr after reporting failure.
float* Output(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims, TF_Tensor** keep) {
  Status st;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  *keep = TF_AllocateOutput(ctx, i, TF_FLOAT, dims.data(), static_cast<int>(dims.size()),
                            static_cast<size_t>(n) * sizeof(float), st.s);
  if (!st.ok()) {
    TF_OpKernelContext_Failure(ctx, st.s);
    return nullptr;
  }
  return static_cast<float*>(TF_TensorData(*keep));
}

std::vector<int64_t> DimsOf(TF_Tensor* t) {
  std::vector<int64_t> d(TF_NumDims(t));
  for (size_t i = 0; i < d.size(); ++i) d[i] = TF_Dim(t, static_cast<int>(i));
  return d;
}

void Fail(TF_OpKernelContext* ctx, const char* msg) {
  Status st;
  TF_SetStatus(st.s, TF_INVALID_ARGUMENT, msg);
  TF_OpKernelContext_Failure(ctx, st.s);
}

struct Out {
  TF_Tensor* t = nullptr;
  ~Out() {
    if (t) TF_DeleteTensor(t);
  }
};

// ---- kernels ---------------------------------------------------------------------------------

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

// ---- registration ----------------------------------------------------------------------------

void SameShapeAsInput0(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* shape = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, shape, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, shape, status);
  TF_DeleteShapeHandle(shape);
}

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
  const bool ok =
      RegisterOp("DvGelu", {"x: float"}, {"y: float"}, {}, st.s) &&
      RegisterKernel("DvGelu", NoState, GeluCompute, NoDelete, st.s) &&
      RegisterOp("DvGeluGrad", {"dy: float", "x: float"}, {"dx: float"}, {}, st.s) &&
      RegisterKernel("DvGeluGrad", NoState, GeluGradCompute, NoDelete, st.s) &&
      RegisterOp("DvLayerNorm", {"x: float", "gamma: float", "beta: float"},
                 {"y: float", "mean: float", "rstd: float"}, {"epsilon: float"}, st.s) &&
      RegisterKernel("DvLayerNorm", LayerNormCreate, LayerNormCompute, LayerNormDelete, st.s) &&
      RegisterOp("DvLayerNormGrad", {"dy: float", "x: float", "gamma: float", "mean: float", "rstd: float"},
                 {"dx: float", "dgamma: float", "dbeta: float"}, {}, st.s) &&
      RegisterKernel("DvLayerNormGrad", NoState, LayerNormGradCompute, NoDelete, st.s) &&
      RegisterOp("DvSoftmaxGrad", {"dy: float", "y: float"}, {"dx: float"}, {}, st.s) &&
      RegisterKernel("DvSoftmaxGrad", NoState, SoftmaxGradCompute, NoDelete, st.s);
  if (!ok) error = TF_Message(st.s);
  return ok ? nullptr : error.c_str();
}

}  // namespace

// Node loads this file as an N-API addon through the well-known symbol below; the opaque
// N-API types are declared here so no Node headers are needed. The addon's exports object is
// returned unchanged; registration failures abort the load (Node reports them as an exception
// from require, so JS falls back to the composite ops).
extern "C" {
typedef struct napi_env__* napi_env;
typedef struct napi_value__* napi_value;
int32_t napi_throw_error(napi_env env, const char* code, const char* msg);
__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  if (const char* err = RegisterAll()) napi_throw_error(env, nullptr, err);
  return exports;
}
}
