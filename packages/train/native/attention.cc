// DvAttention / DvAttentionGrad: multi-head attention on the packed QKV rows (formulas below),
// with the small dense products it needs.
#include "common.h"

#include <immintrin.h>

namespace dv {
namespace {

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

}  // namespace

bool RegisterAttentionOps(TF_Status* st) {
  return RegisterOp("DvAttention", {"qkv: float", "mask: float", "cos: float", "sin: float"},
                 {"ctx: float", "probs: float"}, {"heads: int", "scale: float", "rope: bool"}, st) &&
         RegisterKernel("DvAttention", AttentionCreate, AttentionCompute, AttentionDelete, st) &&
         RegisterOp("DvAttentionGrad",
                 {"dctx: float", "qkv: float", "mask: float", "probs: float", "cos: float", "sin: float"},
                 {"dqkv: float"}, {"heads: int", "scale: float", "rope: bool"}, st) &&
         RegisterKernel("DvAttentionGrad", AttentionCreate, AttentionGradCompute, AttentionDelete, st);
}

}  // namespace dv
