#include "core/lm/delta_rule.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/delta_rule_simd.h"
#include "kernels/cpu/dot.h"
#include "kernels/cpu/vector_ops.h"

namespace glance::lm {

void DeltaRuleRecurrent(const DeltaRuleInput& in, float* S, float* out, int64_t out_stride) {
  // One fused SIMD step per token (kernels/cpu/delta_rule_simd.h; the literal HF loops are
  // its DeltaRuleStepReference).
  std::vector<float> scratch(2 * static_cast<size_t>(in.dv));
  for (int64_t t = 0; t < in.n_tokens; ++t) {
    kernels::DeltaRuleStep(S, in.dk, in.dv, in.q + t * in.qk_stride, in.k + t * in.qk_stride,
                           in.v + t * in.v_stride, std::exp(in.g[t * in.gb_stride]),
                           in.beta[t * in.gb_stride], out + t * out_stride, scratch.data());
  }
}

void DeltaRuleChunked(const DeltaRuleInput& in, float* S, float* out, int64_t out_stride,
                      int chunk) {
  const int dk = in.dk, dv = in.dv;
  const size_t C = static_cast<size_t>(chunk);
  const size_t udk = static_cast<size_t>(dk), udv = static_cast<size_t>(dv);
  // Scratch for one chunk; a shorter last chunk uses the leading rows.
  std::vector<float> G(C);                 // Γ: within-chunk cumulative log decay
  std::vector<float> eG(C);                // e^Γ
  std::vector<float> decay(C * C);         // exp(Γ_i − Γ_j) for j <= i, else 0
  std::vector<float> A(C * C);             // (I + strict-lower)⁻¹ built in place (HF `attn`)
  std::vector<float> kbeta(C * udk);       // β_i k̂_i
  std::vector<float> kbeta_eg(C * udk);    // β_i k̂_i e^{Γ_i}
  std::vector<float> vbeta(C * udv);       // β_i v_i
  std::vector<float> U(C * udv);           // A · vβ                      (HF `value`)
  std::vector<float> W(C * udk);           // A · (kβ ⊙ e^Γ)              (HF `k_cumdecay`)
  std::vector<float> vnew(C * udv);        // U − W·S
  std::vector<float> qk(C * C);            // (q̂_i·k̂_j)·decay_ij, j <= i
  std::vector<float> row(C);
  std::vector<float> q_eg(C * udk);        // q̂_i e^{Γ_i}
  std::vector<float> k_decay_t(udk * C);   // (k̂_j e^{Γ_last − Γ_j})ᵀ: [a][j]

  for (int64_t c0 = 0; c0 < in.n_tokens; c0 += chunk) {
    const int n = static_cast<int>(std::min<int64_t>(chunk, in.n_tokens - c0));
    auto q = [&](int i) { return in.q + (c0 + i) * in.qk_stride; };
    auto k = [&](int i) { return in.k + (c0 + i) * in.qk_stride; };
    auto v = [&](int i) { return in.v + (c0 + i) * in.v_stride; };
    auto at = [&](std::vector<float>& m, int i, int j) -> float& {
      return m[static_cast<size_t>(i) * C + static_cast<size_t>(j)];
    };

    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
      acc += in.g[(c0 + i) * in.gb_stride];
      G[static_cast<size_t>(i)] = acc;
      eG[static_cast<size_t>(i)] = std::exp(acc);
      const float beta = in.beta[(c0 + i) * in.gb_stride];
      for (int a = 0; a < dk; ++a) kbeta[static_cast<size_t>(i) * udk + static_cast<size_t>(a)] = k(i)[a] * beta;
      for (int b = 0; b < dv; ++b) vbeta[static_cast<size_t>(i) * udv + static_cast<size_t>(b)] = v(i)[b] * beta;
    }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        at(decay, i, j) = j <= i ? std::exp(G[static_cast<size_t>(i)] - G[static_cast<size_t>(j)]) : 0.0f;

    // attn = −(kβ k̂ᵀ ⊙ decay), strictly lower; then HF's row recursion
    // attn[i, :i] += attn[i, :i] · attn[:i, :i], which yields (I + L)⁻¹ − I.
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (j >= i) {
          at(A, i, j) = 0.0f;
          continue;
        }
        const float d = kernels::DotF32(kbeta.data() + static_cast<size_t>(i) * udk, k(j), dk);
        at(A, i, j) = -(d * at(decay, i, j));
      }
    }
    // Row form of the same recursion: A[i, :i] = row + Σ_{m<i} row[m]·A[m, :i], where the
    // finished rows m < i are zero at and right of column m, so the sum over m ranges
    // exactly over HF's m in (j, i).
    for (int i = 1; i < n; ++i) {
      float* ai = &at(A, i, 0);
      std::copy_n(ai, i, row.data());
      for (int m = 1; m < i; ++m) kernels::Axpy(row[static_cast<size_t>(m)], &at(A, m, 0), ai, m);
    }
    for (int i = 0; i < n; ++i) at(A, i, i) = 1.0f;

    // U = A·vβ, W = A·(kβ ⊙ e^Γ) (A lower triangular with unit diagonal).
    for (int j = 0; j < n; ++j) {
      const float eg = eG[static_cast<size_t>(j)];
      const float* kb = kbeta.data() + static_cast<size_t>(j) * udk;
      float* kbe = kbeta_eg.data() + static_cast<size_t>(j) * udk;
      for (int a = 0; a < dk; ++a) kbe[a] = kb[a] * eg;
    }
    // The matrix products below are kernels::MatMulAdd: each is the Axpy loop it replaced
    // (row i += A[i][p]·B[p] for p in order), bit for bit, in one call. Here p runs over the
    // whole chunk: A's entries right of the diagonal are 0 and add nothing.
    std::fill_n(U.data(), static_cast<size_t>(n) * udv, 0.0f);
    std::fill_n(W.data(), static_cast<size_t>(n) * udk, 0.0f);
    kernels::MatMulAdd(A.data(), chunk, vbeta.data(), dv, U.data(), dv, n, n, dv);
    kernels::MatMulAdd(A.data(), chunk, kbeta_eg.data(), dk, W.data(), dk, n, n, dk);

    // Intra-chunk scores (diagonal included).
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        if (j > i) {
          at(qk, i, j) = 0.0f;
          continue;
        }
        at(qk, i, j) = kernels::DotF32(q(i), k(j), dk) * at(decay, i, j);
      }

    // v_new = U − W·S ; out_i = (q̂_i e^{Γ_i})·S + Σ_{j<=i} qk_ij v_new_j.
    std::fill_n(vnew.data(), static_cast<size_t>(n) * udv, 0.0f);
    kernels::MatMulAdd(W.data(), dk, S, dv, vnew.data(), dv, n, dk, dv);
    for (int i = 0; i < n; ++i) {
      float* vn = vnew.data() + static_cast<size_t>(i) * udv;
      const float* u = U.data() + static_cast<size_t>(i) * udv;
      for (int b = 0; b < dv; ++b) vn[b] = u[b] - vn[b];
    }
    for (int i = 0; i < n; ++i) {
      const float eg = eG[static_cast<size_t>(i)];
      float* qe = q_eg.data() + static_cast<size_t>(i) * udk;
      for (int a = 0; a < dk; ++a) qe[a] = q(i)[a] * eg;
      std::fill_n(out + (c0 + i) * out_stride, dv, 0.0f);
    }
    kernels::MatMulAdd(q_eg.data(), dk, S, dv, out + c0 * out_stride, out_stride, n, dk, dv);
    for (int i = 0; i < n; ++i) {
      float* o = out + (c0 + i) * out_stride;
      for (int j = 0; j <= i; ++j)
        kernels::Axpy(at(qk, i, j), vnew.data() + static_cast<size_t>(j) * udv, o, dv);
    }

    // S ← e^{Γ_last}·S + Σ_j (k̂_j e^{Γ_last − Γ_j}) v_newⱼᵀ.
    const float g_last = G[static_cast<size_t>(n - 1)];
    const float e_last = eG[static_cast<size_t>(n - 1)];
    kernels::Scale(e_last, S, static_cast<int64_t>(dk) * dv);
    for (int j = 0; j < n; ++j) {
      const float ej = std::exp(g_last - G[static_cast<size_t>(j)]);
      for (int a = 0; a < dk; ++a) k_decay_t[static_cast<size_t>(a) * C + static_cast<size_t>(j)] = k(j)[a] * ej;
    }
    kernels::MatMulAdd(k_decay_t.data(), chunk, vnew.data(), dv, S, dv, dk, n, dv);
  }
}

}  // namespace glance::lm
