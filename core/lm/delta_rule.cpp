#include "core/lm/delta_rule.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace glance::lm {

void DeltaRuleRecurrent(const DeltaRuleInput& in, float* S, float* out, int64_t out_stride) {
  const int dk = in.dk, dv = in.dv;
  std::vector<float> mem(static_cast<size_t>(dv));
  for (int64_t t = 0; t < in.n_tokens; ++t) {
    const float* q = in.q + t * in.qk_stride;
    const float* k = in.k + t * in.qk_stride;
    const float* v = in.v + t * in.v_stride;
    const float decay = std::exp(in.g[t * in.gb_stride]);
    const float beta = in.beta[t * in.gb_stride];
    // S ← decay·S, and kv_mem = Sᵀ k̂ (HF: (S * k[..., None]).sum(-2)).
    std::fill(mem.begin(), mem.end(), 0.0f);
    for (int a = 0; a < dk; ++a) {
      float* row = S + a * dv;
      for (int b = 0; b < dv; ++b) {
        row[b] *= decay;
        mem[static_cast<size_t>(b)] += row[b] * k[a];
      }
    }
    for (int b = 0; b < dv; ++b) mem[static_cast<size_t>(b)] = (v[b] - mem[static_cast<size_t>(b)]) * beta;
    float* o = out + t * out_stride;
    std::fill(o, o + dv, 0.0f);
    for (int a = 0; a < dk; ++a) {
      float* row = S + a * dv;
      for (int b = 0; b < dv; ++b) {
        row[b] += k[a] * mem[static_cast<size_t>(b)];
        o[b] += row[b] * q[a];
      }
    }
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
  std::vector<float> vbeta(C * udv);       // β_i v_i
  std::vector<float> U(C * udv);           // A · vβ                      (HF `value`)
  std::vector<float> W(C * udk);           // A · (kβ ⊙ e^Γ)              (HF `k_cumdecay`)
  std::vector<float> vnew(C * udv);        // U − W·S
  std::vector<float> qk(C * C);            // (q̂_i·k̂_j)·decay_ij, j <= i
  std::vector<float> row(C);

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
        float d = 0.0f;
        for (int a = 0; a < dk; ++a) d += kbeta[static_cast<size_t>(i) * udk + static_cast<size_t>(a)] * k(j)[a];
        at(A, i, j) = -(d * at(decay, i, j));
      }
    }
    for (int i = 1; i < n; ++i) {
      for (int j = 0; j < i; ++j) row[static_cast<size_t>(j)] = at(A, i, j);
      for (int j = 0; j < i; ++j) {
        float s = 0.0f;
        for (int m = j + 1; m < i; ++m) s += row[static_cast<size_t>(m)] * at(A, m, j);
        at(A, i, j) = row[static_cast<size_t>(j)] + s;
      }
    }
    for (int i = 0; i < n; ++i) at(A, i, i) = 1.0f;

    // U = A·vβ, W = A·(kβ ⊙ e^Γ) (A lower triangular with unit diagonal).
    for (int i = 0; i < n; ++i) {
      float* u = U.data() + static_cast<size_t>(i) * udv;
      float* w = W.data() + static_cast<size_t>(i) * udk;
      std::fill(u, u + dv, 0.0f);
      std::fill(w, w + dk, 0.0f);
      for (int j = 0; j <= i; ++j) {
        const float aij = at(A, i, j);
        const float eg = eG[static_cast<size_t>(j)];
        const float* vb = vbeta.data() + static_cast<size_t>(j) * udv;
        const float* kb = kbeta.data() + static_cast<size_t>(j) * udk;
        for (int b = 0; b < dv; ++b) u[b] += aij * vb[b];
        for (int a = 0; a < dk; ++a) w[a] += aij * (kb[a] * eg);
      }
    }

    // Intra-chunk scores (diagonal included).
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        if (j > i) {
          at(qk, i, j) = 0.0f;
          continue;
        }
        float d = 0.0f;
        for (int a = 0; a < dk; ++a) d += q(i)[a] * k(j)[a];
        at(qk, i, j) = d * at(decay, i, j);
      }

    // v_new = U − W·S ; out_i = (q̂_i e^{Γ_i})·S + Σ_{j<=i} qk_ij v_new_j.
    for (int i = 0; i < n; ++i) {
      float* vn = vnew.data() + static_cast<size_t>(i) * udv;
      const float* u = U.data() + static_cast<size_t>(i) * udv;
      const float* w = W.data() + static_cast<size_t>(i) * udk;
      std::fill(vn, vn + dv, 0.0f);
      for (int a = 0; a < dk; ++a) {
        const float* srow = S + static_cast<size_t>(a) * udv;
        for (int b = 0; b < dv; ++b) vn[b] += w[a] * srow[b];
      }
      for (int b = 0; b < dv; ++b) vn[b] = u[b] - vn[b];
    }
    for (int i = 0; i < n; ++i) {
      float* o = out + (c0 + i) * out_stride;
      std::fill(o, o + dv, 0.0f);
      const float eg = eG[static_cast<size_t>(i)];
      for (int a = 0; a < dk; ++a) {
        const float qa = q(i)[a] * eg;
        const float* srow = S + static_cast<size_t>(a) * udv;
        for (int b = 0; b < dv; ++b) o[b] += qa * srow[b];
      }
      for (int j = 0; j <= i; ++j) {
        const float s = at(qk, i, j);
        const float* vn = vnew.data() + static_cast<size_t>(j) * udv;
        for (int b = 0; b < dv; ++b) o[b] += s * vn[b];
      }
    }

    // S ← e^{Γ_last}·S + Σ_j (k̂_j e^{Γ_last − Γ_j}) v_newⱼᵀ.
    const float g_last = G[static_cast<size_t>(n - 1)];
    const float e_last = eG[static_cast<size_t>(n - 1)];
    for (int a = 0; a < dk; ++a) {
      float* srow = S + static_cast<size_t>(a) * udv;
      for (int b = 0; b < dv; ++b) srow[b] *= e_last;
    }
    for (int j = 0; j < n; ++j) {
      const float ej = std::exp(g_last - G[static_cast<size_t>(j)]);
      const float* vn = vnew.data() + static_cast<size_t>(j) * udv;
      for (int a = 0; a < dk; ++a) {
        const float kj = k(j)[a] * ej;
        float* srow = S + static_cast<size_t>(a) * udv;
        for (int b = 0; b < dv; ++b) srow[b] += kj * vn[b];
      }
    }
  }
}

}  // namespace glance::lm
