#pragma once
// Bridges two shapes of the Session API while the typed-options rework (GenerateOptions with an
// optional sampling and seed; glance::ImageMode) lands: the server compiles against either.
// Delete this file, and call the API directly, once that rework is committed.
#include <cstdint>
#include <optional>
#include <tuple>

#include "core/engine/session.h"
#include "core/vision/rgb_image.h"

namespace glance::server {

// nullopt sampling = the model's own defaults (greedy under the older API).
template <class Options>
void SetSampling(Options& o, const std::optional<SamplingParams>& sampling, std::optional<uint64_t> seed) {
  if constexpr (requires { o.seed = seed; }) {
    o.sampling = sampling;
    o.seed = seed;
  } else {
    if (sampling) o.sampling = *sampling;
    if (seed) o.sampling.seed = *seed;
  }
}

// The image-mode enum Session::AttachImageRgb takes (its fifth parameter), whichever it is.
template <class R, class C, class... A>
auto FifthParameter(R (C::*)(A...)) -> std::tuple_element_t<4, std::tuple<A...>>;
using SessionImageMode = decltype(FifthParameter(&Session::AttachImageRgb));

inline void AttachRgb(Session& session, const vision::RgbImage& rgb, bool detail) {
  session.AttachImageRgb(rgb.pixels.data(), rgb.width, rgb.height, 0,
                         detail ? SessionImageMode::kDetail : SessionImageMode::kFast);
}

}  // namespace glance::server
