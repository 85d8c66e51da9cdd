#pragma once
// Config counts checked against the weights that are actually there. config.json says how many
// layers and blocks a model has; everything sized per layer (tensor lists, weight tables, state)
// is built from those numbers, so a config claiming 2^30 layers over a file holding 24 must be
// refused before anything is sized from it, not after gigabytes were allocated.
#include <string>

#include "core/model/config.h"

namespace glance {

class TensorStore;

// Throws glance::Error naming `config_path` and the field when config.json asks for more text
// layers or vision blocks than the weights hold, or a position table the weights do not have.
void CheckConfigCountsAgainstWeights(const ModelConfig& config, const TensorStore& store,
                                     const std::string& config_path);

}  // namespace glance
