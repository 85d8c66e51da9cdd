#include "core/model/prepared_weights.h"

#include "core/model/weight_cache.h"
#include "core/util/error.h"
#include "kernels/cpu/quant_formats.h"

namespace glance {

PrecisionPlan PrecisionPlan::FromName(const std::string& precision) {
  using kernels::WeightType;
  PrecisionPlan p;
  if (precision == "f32") return p;
  if (precision == "bf16") {
    p.projections = p.lm_head = WeightType::BF16;
  } else if (precision == "q8") {
    p.projections = p.lm_head = WeightType::Q8;
  } else if (precision == "q4") {
    p.projections = WeightType::Q4;
    p.lm_head = WeightType::Q8;
  } else {
    throw Error("precision \"" + precision + "\" is not one of f32, bf16, q8, q4");
  }
  return p;
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
  return q;
}

}  // namespace glance
