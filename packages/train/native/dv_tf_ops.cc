// Fused float32 CPU kernels for @dv/train's encoders, registered as TensorFlow ops through TF's
// stable C API (tensorflow/c/ops.h, kernels.h) when Node loads this file as an addon. TF eager
// runs elementwise chains one op (one pass over memory) at a time; these do each chain in one
// pass per row:
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
//   DvAttention / DvAttentionGrad: multi-head attention on packed QKV rows (see below)
//   DvAdamW: one AdamW step for one parameter (see below)
//
// Phi uses erfc(z) ~= t * P(t) * exp(-z^2), t = 1 / (1 + p z) (Abramowitz & Stegun 7.1.26,
// |error| <= 1.5e-7), evaluated for |u| so neither tail cancels; exp is a range-reduced
// polynomial (below) so loops vectorise without -ffast-math. Rows are split across threads
// (TF_NUM_INTRAOP_THREADS, else the hardware count), as TF's own CPU kernels do.
//
// Built by packages/train/scripts/setup-native-tf.mjs; loaded by src/internal/fused-ops.ts.

#include <immintrin.h>

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
void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* ctx, const char* attr_name, bool* val,
                                         TF_Status* status);
void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction* ctx, const char* attr_name, int64_t* val,
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
inline float FastExp(float x_in) {
  const float x = std::min(88.0f, std::max(-87.0f, x_in));
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
  return x_in < -87.0f ? 0.0f : p * scale;  // exp(-87) ~ 1.6e-38: below it, 0 as for -inf
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

// ---- small dense products (attention) --------------------------------------------------------

// C[M x N] = op(A) B (+ C when accumulate), row-major with leading dimensions lda, ldb, ldc;
// op(A) = A [M x K], or with kTransA the transpose of A stored [K x M] (so dK = dS^T Q and
// dV = P^T dctx need no transposed copy). Register-blocked 4 rows x 16 columns (8 accumulators
// of 8 floats under AVX2 + FMA); the remainders take the plain loop. Sized for attention's
// per-head products (T x d, T x T).
template <bool kTransA>
void Gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
          int64_t ldc, bool accumulate) {
  // Element (i, k) of op(A).
  auto a_at = [&](int64_t i, int64_t k) -> const float* { return kTransA ? A + k * lda + i : A + i * lda + k; };
  const int64_t a_step = kTransA ? lda : 1;  // from (i, k) to (i, k + 1)
  constexpr int64_t MR = 4, NR = 16;
  const int64_t m4 = M - M % MR, n16 = N - N % NR;
#if defined(__AVX2__) && defined(__FMA__)
  for (int64_t i = 0; i < m4; i += MR) {
    const float* a0 = a_at(i, 0);
    const float* a1 = a_at(i + 1, 0);
    const float* a2 = a_at(i + 2, 0);
    const float* a3 = a_at(i + 3, 0);
    for (int64_t j = 0; j < n16; j += NR) {
      float* c = C + i * ldc + j;
      __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
             c31 = c00;
      if (accumulate) {
        c00 = _mm256_loadu_ps(c), c01 = _mm256_loadu_ps(c + 8);
        c10 = _mm256_loadu_ps(c + ldc), c11 = _mm256_loadu_ps(c + ldc + 8);
        c20 = _mm256_loadu_ps(c + 2 * ldc), c21 = _mm256_loadu_ps(c + 2 * ldc + 8);
        c30 = _mm256_loadu_ps(c + 3 * ldc), c31 = _mm256_loadu_ps(c + 3 * ldc + 8);
      }
      const float* bk = B + j;
      for (int64_t k = 0, ak = 0; k < K; ++k, bk += ldb, ak += a_step) {
        const __m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8);
        __m256 av = _mm256_broadcast_ss(a0 + ak);
        c00 = _mm256_fmadd_ps(av, b0, c00), c01 = _mm256_fmadd_ps(av, b1, c01);
        av = _mm256_broadcast_ss(a1 + ak);
        c10 = _mm256_fmadd_ps(av, b0, c10), c11 = _mm256_fmadd_ps(av, b1, c11);
        av = _mm256_broadcast_ss(a2 + ak);
        c20 = _mm256_fmadd_ps(av, b0, c20), c21 = _mm256_fmadd_ps(av, b1, c21);
        av = _mm256_broadcast_ss(a3 + ak);
        c30 = _mm256_fmadd_ps(av, b0, c30), c31 = _mm256_fmadd_ps(av, b1, c31);
      }
      _mm256_storeu_ps(c, c00), _mm256_storeu_ps(c + 8, c01);
      _mm256_storeu_ps(c + ldc, c10), _mm256_storeu_ps(c + ldc + 8, c11);
      _mm256_storeu_ps(c + 2 * ldc, c20), _mm256_storeu_ps(c + 2 * ldc + 8, c21);
      _mm256_storeu_ps(c + 3 * ldc, c30), _mm256_storeu_ps(c + 3 * ldc + 8, c31);
    }
  }
  const int64_t plain_from = m4;
#else
  const int64_t plain_from = 0;
#endif
  // Rows the blocked loop left (all of them without AVX2), and its columns past n16.
  auto plain = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = j0; j < j1; ++j) {
        float s = accumulate ? C[i * ldc + j] : 0.0f;
        for (int64_t k = 0; k < K; ++k) s += *a_at(i, k) * B[k * ldb + j];
        C[i * ldc + j] = s;
      }
  };
  plain(plain_from, M, 0, N);
  if (plain_from > 0) plain(0, plain_from, n16, N);
}

// dst[cols x rows] = src[rows x cols]^T (src leading dimension lds).
void Transpose(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * lds + j];
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


// Multi-head attention on the packed projection layout, per sequence b and head h:
//   qkv [B*T, 3H] holds Q | K | V side by side, head h in columns h*d .. h*d+d-1 of each;
//   P = softmax(scale * Q K^T + mask[b]) (mask: [B, T] additive, 0 or float32 min),
//   ctx[b*T + t, h*d + e] = (P V)[t, e]: heads merged back into [B*T, H].
// Outputs ctx and P [B, heads, T, T] (kept for the gradient). Gradient, with dP = dctx V^T:
//   dS = scale * P * (dP - rowsum(dP * P)),  dQ = dS K,  dK = dS^T Q,  dV = P^T dctx.
// With attr rope (gte), Q and K are rotated by the [T, d] cos/sin tables before the scores and
// their gradients rotated back (Rope below); otherwise cos and sin are ignored.
struct AttentionKernel {
  int64_t heads = 1;
  float scale = 1.0f;
  bool rope = false;
};

// Rotary embedding of one head's rows (gte): out[t] = x[t] * cos[t] + rotate_half(x[t]) * sin[t],
// rotate_half([x1, x2]) = [-x2, x1]; cos, sin [T, d]. `inverse` applies the transpose (for
// gradients): out[t] = x[t] * cos[t] + rotate_half^T(x[t] * sin[t]), rotate_half^T([u1, u2]) = [u2, -u1].
void Rope(int64_t T, int64_t d, const float* x, int64_t ldx, const float* cos, const float* sin, float* out,
          int64_t ldo, bool inverse) {
  const int64_t half = d / 2;
  for (int64_t t = 0; t < T; ++t) {
    const float* xr = x + t * ldx;
    const float* c = cos + t * d;
    const float* sn = sin + t * d;
    float* o = out + t * ldo;
    if (!inverse) {
      for (int64_t e = 0; e < half; ++e) o[e] = xr[e] * c[e] - xr[e + half] * sn[e];
      for (int64_t e = half; e < d; ++e) o[e] = xr[e] * c[e] + xr[e - half] * sn[e];
    } else {
      for (int64_t e = 0; e < half; ++e) o[e] = xr[e] * c[e] + xr[e + half] * sn[e + half];
      for (int64_t e = half; e < d; ++e) o[e] = xr[e] * c[e] - xr[e - half] * sn[e - half];
    }
  }
}

void* AttentionCreate(TF_OpKernelConstruction* ctx) {
  auto* k = new AttentionKernel;
  Status st;
  int64_t heads = 1;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "heads", &heads, st.s);
  if (st.ok()) TF_OpKernelConstruction_GetAttrFloat(ctx, "scale", &k->scale, st.s);
  if (st.ok()) TF_OpKernelConstruction_GetAttrBool(ctx, "rope", &k->rope, st.s);
  if (!st.ok()) TF_OpKernelConstruction_Failure(ctx, st.s);
  k->heads = heads;
  return k;
}

void AttentionDelete(void* k) { delete static_cast<AttentionKernel*>(k); }

struct AttentionShape {
  int64_t batch, t, hidden, heads, d;
};

bool AttentionShapeOf(TF_OpKernelContext* ctx, const Input& qkv, const Input& mask, int64_t heads,
                      AttentionShape* s) {
  if (TF_NumDims(qkv.t) != 2 || TF_NumDims(mask.t) != 2 || heads <= 0) {
    Fail(ctx, "DvAttention: qkv must be [B*T, 3H] and mask [B, T]");
    return false;
  }
  s->batch = TF_Dim(mask.t, 0);
  s->t = TF_Dim(mask.t, 1);
  s->hidden = TF_Dim(qkv.t, 1) / 3;
  s->heads = heads;
  s->d = s->hidden / heads;
  if (TF_Dim(qkv.t, 0) != s->batch * s->t || s->hidden * 3 != TF_Dim(qkv.t, 1) || s->d * heads != s->hidden) {
    Fail(ctx, "DvAttention: qkv rows != B*T, or width not 3 * heads * d");
    return false;
  }
  return true;
}

bool RopeTables(TF_OpKernelContext* ctx, const AttentionKernel* k, const AttentionShape& s, const Input& cos,
                const Input& sin) {
  if (k->rope && (cos.size() != s.t * s.d || sin.size() != s.t * s.d || s.d % 2 != 0)) {
    Fail(ctx, "DvAttention: rope tables must be [T, d] with d even");
    return false;
  }
  return true;
}

void AttentionCompute(void* kernel, TF_OpKernelContext* ctx) {
  const auto* k = static_cast<AttentionKernel*>(kernel);
  Input qkv, mask, cos, sin;
  Out ctx_out, p_out;
  if (!GetInput(ctx, 0, &qkv) || !GetInput(ctx, 1, &mask) || !GetInput(ctx, 2, &cos) || !GetInput(ctx, 3, &sin))
    return;
  AttentionShape s;
  if (!AttentionShapeOf(ctx, qkv, mask, k->heads, &s) || !RopeTables(ctx, k, s, cos, sin)) return;
  const int64_t T = s.t, d = s.d, H = s.hidden, ld = 3 * H;
  float* out = Output(ctx, 0, {s.batch * T, H}, &ctx_out.t);
  float* probs = out ? Output(ctx, 1, {s.batch, s.heads, T, T}, &p_out.t) : nullptr;
  if (!probs) return;
  const float* x = qkv.data();
  const float* bias = mask.data();
  const float scale = k->scale;
  ParallelRows(s.batch * s.heads, 4 * T * T * d, [&](int64_t u0, int64_t u1) {
    std::vector<float> kt(d * T), qr(k->rope ? T * d : 0), kr(k->rope ? T * d : 0);
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t b = u / s.heads, h = u % s.heads;
      const float* q = x + b * T * ld + h * d;
      const float* kk = q + H;
      const float* v = q + 2 * H;
      int64_t ldq = ld, ldk = ld;
      if (k->rope) {
        Rope(T, d, q, ld, cos.data(), sin.data(), qr.data(), d, false);
        Rope(T, d, kk, ld, cos.data(), sin.data(), kr.data(), d, false);
        q = qr.data(), kk = kr.data(), ldq = ldk = d;
      }
      float* p = probs + u * T * T;
      Transpose(T, d, kk, ldk, kt.data());
      Gemm<false>(T, T, d, q, ldq, kt.data(), T, p, T, false);
      const float* mb = bias + b * T;
      for (int64_t i = 0; i < T; ++i) {
        float* row = p + i * T;
        float mx = -3.4028234663852886e38f;
        for (int64_t j = 0; j < T; ++j) {
          row[j] = row[j] * scale + mb[j];
          mx = std::max(mx, row[j]);
        }
        float sum = 0.0f;
        for (int64_t j = 0; j < T; ++j) {
          row[j] = FastExp(row[j] - mx);
          sum += row[j];
        }
        const float inv = 1.0f / sum;
        for (int64_t j = 0; j < T; ++j) row[j] *= inv;
      }
      Gemm<false>(T, d, T, p, T, v, ld, out + b * T * H + h * d, H, false);
    }
  });
}

void AttentionGradCompute(void* kernel, TF_OpKernelContext* ctx) {
  const auto* k = static_cast<AttentionKernel*>(kernel);
  Input dctx, qkv, mask, probs, cos, sin;
  Out dqkv_out;
  if (!GetInput(ctx, 0, &dctx) || !GetInput(ctx, 1, &qkv) || !GetInput(ctx, 2, &mask) ||
      !GetInput(ctx, 3, &probs) || !GetInput(ctx, 4, &cos) || !GetInput(ctx, 5, &sin))
    return;
  AttentionShape s;
  if (!AttentionShapeOf(ctx, qkv, mask, k->heads, &s) || !RopeTables(ctx, k, s, cos, sin)) return;
  const int64_t T = s.t, d = s.d, H = s.hidden, ld = 3 * H;
  if (dctx.size() != s.batch * T * H || probs.size() != s.batch * s.heads * T * T)
    return Fail(ctx, "DvAttentionGrad: dctx or probs has the wrong size");
  float* dx = Output(ctx, 0, {s.batch * T, ld}, &dqkv_out.t);
  if (!dx) return;
  const float* x = qkv.data();
  const float* g = dctx.data();
  const float* pr = probs.data();
  const float scale = k->scale;
  ParallelRows(s.batch * s.heads, 8 * T * T * d, [&](int64_t u0, int64_t u1) {
    const int64_t r = k->rope ? T * d : 0;
    std::vector<float> vt(d * T), ds(T * T), qr(r), kr(r), dqr(r), dkr(r);
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t b = u / s.heads, h = u % s.heads;
      const float* q = x + b * T * ld + h * d;
      const float* kk = q + H;
      const float* v = q + 2 * H;
      const float* go = g + b * T * H + h * d;
      const float* p = pr + u * T * T;
      float* dq = dx + b * T * ld + h * d;
      // Q and K as the scores saw them (rotated for gte); their gradients land in dqr/dkr first.
      int64_t ldq = ld;
      float* dqo = dq;
      float* dko = dq + H;
      int64_t ldg = ld;
      if (k->rope) {
        Rope(T, d, q, ld, cos.data(), sin.data(), qr.data(), d, false);
        Rope(T, d, kk, ld, cos.data(), sin.data(), kr.data(), d, false);
        q = qr.data(), kk = kr.data(), ldq = d, dqo = dqr.data(), dko = dkr.data(), ldg = d;
      }
      Transpose(T, d, v, ld, vt.data());
      Gemm<false>(T, T, d, go, H, vt.data(), T, ds.data(), T, false);  // dP = dctx V^T
      for (int64_t i = 0; i < T; ++i) {
        float* row = ds.data() + i * T;
        const float* prow = p + i * T;
        float dot = 0.0f;
        for (int64_t j = 0; j < T; ++j) dot += row[j] * prow[j];
        for (int64_t j = 0; j < T; ++j) row[j] = scale * prow[j] * (row[j] - dot);
      }
      Gemm<false>(T, d, T, ds.data(), T, kk, ldq, dqo, ldg, false);  // dQ = dS K
      Gemm<true>(T, d, T, ds.data(), T, q, ldq, dko, ldg, false);  // dK = dS^T Q
      Gemm<true>(T, d, T, p, T, go, H, dq + 2 * H, ld, false);     // dV = P^T dctx
      if (k->rope) {
        Rope(T, d, dqr.data(), d, cos.data(), sin.data(), dq, ld, true);
        Rope(T, d, dkr.data(), d, cos.data(), sin.data(), dq + H, ld, true);
      }
    }
  });
}

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
      RegisterOp("DvBiasGelu", {"x: float", "bias: float"}, {"y: float"}, {}, st.s) &&
      RegisterKernel("DvBiasGelu", NoState, BiasGeluCompute, NoDelete, st.s) &&
      RegisterOp("DvBiasGeluGrad", {"dy: float", "x: float", "bias: float"}, {"dx: float", "dbias: float"}, {}, st.s) &&
      RegisterKernel("DvBiasGeluGrad", NoState, BiasGeluGradCompute, NoDelete, st.s) &&
      RegisterOp("DvLayerNorm", {"x: float", "gamma: float", "beta: float"},
                 {"y: float", "mean: float", "rstd: float"}, {"epsilon: float"}, st.s) &&
      RegisterKernel("DvLayerNorm", LayerNormCreate, LayerNormCompute, LayerNormDelete, st.s) &&
      RegisterOp("DvLayerNormGrad", {"dy: float", "x: float", "gamma: float", "mean: float", "rstd: float"},
                 {"dx: float", "dgamma: float", "dbeta: float"}, {}, st.s) &&
      RegisterKernel("DvLayerNormGrad", NoState, LayerNormGradCompute, NoDelete, st.s) &&
      RegisterOp("DvSoftmaxGrad", {"dy: float", "y: float"}, {"dx: float"}, {}, st.s) &&
      RegisterKernel("DvSoftmaxGrad", NoState, SoftmaxGradCompute, NoDelete, st.s) &&
      RegisterOp("DvAttention", {"qkv: float", "mask: float", "cos: float", "sin: float"},
                 {"ctx: float", "probs: float"}, {"heads: int", "scale: float", "rope: bool"}, st.s) &&
      RegisterKernel("DvAttention", AttentionCreate, AttentionCompute, AttentionDelete, st.s) &&
      RegisterOp("DvAttentionGrad",
                 {"dctx: float", "qkv: float", "mask: float", "probs: float", "cos: float", "sin: float"},
                 {"dqkv: float"}, {"heads: int", "scale: float", "rope: bool"}, st.s) &&
      RegisterKernel("DvAttentionGrad", AttentionCreate, AttentionGradCompute, AttentionDelete, st.s) &&
      RegisterOp("DvAdamW", {"p: float", "g: float", "m: float", "v: float", "hyper: float"},
                 {"p_out: float", "m_out: float", "v_out: float"}, {}, st.s) &&
      RegisterKernel("DvAdamW", NoState, AdamWCompute, NoDelete, st.s);
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
