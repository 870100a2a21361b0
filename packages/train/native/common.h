// Shared by the fused-kernel sources (see register.cc): the slice of TensorFlow's C API they
// call, row-parallel loops, the float exp / normal CDF they evaluate, and the plumbing between
// TF's kernel context and plain float arrays.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <initializer_list>
#include <mutex>
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

namespace dv {

// ---- threading -------------------------------------------------------------------------------

inline int ThreadCount() {
  static const int n = [] {
    const char* env = std::getenv("TF_NUM_INTRAOP_THREADS");
    int v = env ? std::atoi(env) : 0;
    if (v <= 0) v = static_cast<int>(std::thread::hardware_concurrency());
    return std::max(1, std::min(v, 64));
  }();
  return n;
}

// A persistent pool of ThreadCount() - 1 workers for ParallelRows. Creating and joining a
// std::thread per parallel loop cost about 100 us on the project's VMs (measured: create + join
// of one thread, 106 us) against loops of 100-500 us, dozens per training step; the workers
// instead sleep on a condition variable between loops. One loop at a time owns the pool
// (`busy`); a loop that finds it taken (a second TF inter-op thread) spawns threads as before.
// The chunks are the same either way, so results do not depend on which path ran.
class WorkerPool {
 public:
  static WorkerPool& Get() {
    static WorkerPool* pool = new WorkerPool(ThreadCount() - 1);  // never destroyed: detached workers
    return *pool;
  }
  int size() const { return static_cast<int>(n_); }
  // Runs job(ctx, t) for t in 1..n on the workers and job(ctx, 0) here; false (nothing run)
  // when another loop holds the pool or n exceeds its workers.
  bool TryRun(int n, void (*job)(void*, int), void* ctx) {
    if (n > n_) return false;
    std::unique_lock<std::mutex> own(busy_, std::try_to_lock);
    if (!own.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> l(mu_);
      job_ = job;
      ctx_ = ctx;
      active_ = n;
      pending_ = n;
      ++generation_;
    }
    work_.notify_all();
    job(ctx, 0);
    std::unique_lock<std::mutex> l(mu_);
    done_.wait(l, [&] { return pending_ == 0; });
    return true;
  }

 private:
  explicit WorkerPool(int n) : n_(std::max(0, n)) {
    for (int i = 1; i <= n_; ++i) std::thread([this, i] { Loop(i); }).detach();
  }
  void Loop(int id) {
    uint64_t seen = 0;
    for (;;) {
      void (*job)(void*, int);
      void* ctx;
      {
        std::unique_lock<std::mutex> l(mu_);
        work_.wait(l, [&] { return generation_ != seen; });
        seen = generation_;
        if (id > active_) continue;
        job = job_;
        ctx = ctx_;
      }
      job(ctx, id);
      std::lock_guard<std::mutex> l(mu_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
  const int n_;
  std::mutex busy_, mu_;
  std::condition_variable work_, done_;
  uint64_t generation_ = 0;
  int active_ = 0, pending_ = 0;
  void (*job_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
};

// Runs fn(begin, end) over [0, rows) in contiguous chunks, one per thread (the pool's workers);
// small jobs inline.
template <typename Fn>
void ParallelRows(int64_t rows, int64_t cost_per_row, Fn fn) {
  const int threads = static_cast<int>(
      std::min<int64_t>(ThreadCount(), std::max<int64_t>(1, rows * cost_per_row / 32768)));
  if (threads <= 1 || rows < 2) {
    fn(int64_t{0}, rows);
    return;
  }
  const int64_t chunk = (rows + threads - 1) / threads;
  struct Job {
    Fn* fn;
    int64_t rows, chunk;
  } job{&fn, rows, chunk};
  auto run = [](void* p, int t) {
    const Job& j = *static_cast<Job*>(p);
    const int64_t b = t * j.chunk, e = std::min(j.rows, b + j.chunk);
    if (b < e) (*j.fn)(b, e);
  };
  if (WorkerPool::Get().TryRun(threads - 1, run, &job)) return;
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

inline bool GetInput(TF_OpKernelContext* ctx, int i, Input* in) {
  Status st;
  TF_GetInput(ctx, i, &in->t, st.s);
  if (!st.ok()) {
    TF_OpKernelContext_Failure(ctx, st.s);
    return false;
  }
  return true;
}

// Allocates output i with the given dims; nullptr after reporting failure.
inline float* Output(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims, TF_Tensor** keep) {
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

inline std::vector<int64_t> DimsOf(TF_Tensor* t) {
  std::vector<int64_t> d(TF_NumDims(t));
  for (size_t i = 0; i < d.size(); ++i) d[i] = TF_Dim(t, static_cast<int>(i));
  return d;
}

inline void Fail(TF_OpKernelContext* ctx, const char* msg) {
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

// ---- registration helpers (register.cc) ------------------------------------------------------

bool RegisterOp(const char* name, std::initializer_list<const char*> inputs,
                std::initializer_list<const char*> outputs, std::initializer_list<const char*> attrs,
                TF_Status* st);
bool RegisterKernel(const char* op, void* (*create)(TF_OpKernelConstruction*),
                    void (*compute)(void*, TF_OpKernelContext*), void (*del)(void*), TF_Status* st);
void* NoState(TF_OpKernelConstruction*);
void NoDelete(void*);

// One per instruction set (isa-*.cc): registers every op and its kernels from that copy.
namespace avx512 {
bool RegisterAllOps(TF_Status* st);
}
namespace avx2 {
bool RegisterAllOps(TF_Status* st);
}
namespace base {
bool RegisterAllOps(TF_Status* st);
}

// The instruction set register.cc chose ("avx512", "avx2" or "base").
const char* KernelIsa();

}  // namespace dv
