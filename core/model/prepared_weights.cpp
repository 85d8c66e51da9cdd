#include "core/model/prepared_weights.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "core/model/weight_cache.h"
#include "core/util/error.h"
#include "kernels/cpu/quant_formats.h"

namespace glance {

PrecisionPlan PrecisionPlan::For(Precision precision) {
  using kernels::WeightType;
  PrecisionPlan p;
  switch (precision) {
    case Precision::kF32:
      break;
    case Precision::kBf16:
      p.projections = p.lm_head = WeightType::BF16;
      break;
    case Precision::kQ8:
      p.projections = p.lm_head = p.vision = WeightType::Q8;
      break;
    case Precision::kQ4:
      // The head in 6 bits (issue 31): decode streams it whole every token, and at 2B it is
      // 40 % of a q4 step's bytes in Q8; 6 bits are what llama.cpp's Q4_0 files give their
      // output matrix (Q6_K). The vision tower stays Q8 (it runs once per image).
      p.projections = WeightType::Q4;
      p.lm_head = WeightType::Q6;
      p.vision = WeightType::Q8;
      break;
    case Precision::kAuto:
      throw Error("internal: precision auto must be resolved before the weights are prepared");
  }
  return p;
}

// The checkpoint is mapped read-only and private: once a matrix has been converted, its pages
// are only a cache of the file. Dropping them keeps the resident set near the prepared
// weights' size instead of checkpoint + prepared (they are re-read from the file if touched).
static void ReleaseSourcePages(const kernels::WeightRef& w) {
  if (w.owner || !w.data) return;  // owned memory (not a file mapping) stays
  const size_t elem = w.type == kernels::WeightType::F32 ? 4 : 2;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(w.data);
  const auto end = begin + static_cast<uintptr_t>(w.rows * w.cols) * elem;
  const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

kernels::WeightRef PrepareWeight(const kernels::WeightRef& w,
                                 std::optional<kernels::WeightType> target,
                                 kernels::ThreadPool* pool, WeightCache* cache,
                                 const std::string& name) {
  if (!target || *target == w.type || w.quantized() || *target == kernels::WeightType::F32 ||
      *target == kernels::WeightType::F16)
    return w;
  if (cache)
    if (auto hit = cache->Find(name, *target, w.rows, w.cols)) return *hit;
  kernels::WeightRef q = kernels::QuantizeMatrix(w, *target, pool);
  if (cache) cache->Add(name, q);
  ReleaseSourcePages(w);
  return q;
}

}  // namespace glance
