#pragma once
// Compact storage of a turn's attention maps for saved conversations and exports.
//
// A map holds [layers][heads][cells] float weights per generated token; written as JSON
// numbers one detail-mode turn became hundreds of megabytes. Here the turn takes the richest
// form that fits a byte budget, all as IEEE float16 in one base64 string:
//   "heads"  per token: the mean and every layer's and head's weights;
//   "layers" per token: the mean and each layer's mean over heads;
//   "mean"   per token: the mean alone;
//   "words"  per word of the answer: the mean over its tokens (what the panel shows for a
//            word), stored as one map whose step is the word's first step;
//   "words" with "pool": p — as "words", each map averaged over p×p blocks of cells (a
//            coarser grid, the smallest p that fits).
// float16 keeps ~3 significant digits (relative error <= 2^-11 for normal values, absolute
// <= 2^-25 below 2^-14), far finer than the 256 colours a heatmap shows.
//
// JSON: {"encoding": "f16-base64", "detail": ..., "pool": p, "maps": [{"step","token_id",
//        "token_text","image_index","grid_h","grid_w","layers","n_heads"}...],
//        "data": "<base64 of little-endian float16>"} where each map's block is mean[cells]
// then (detail "heads") weights[L*H*cells] or (detail "layers") [L*cells].
// The DeltaNet layers' hidden attention (AttentionMap::linear_*), when captured and the turn is
// not stored per word, takes what the budget leaves, in fields of its own that earlier readers
// ignore: "linear_detail" ("heads": every value head; "layers": each layer's head mean, stored
// as one head), "linear_maps": [{"linear_layers", "linear_heads"}] one per map, "linear_data":
// base64 float16 [linear_layers][linear_heads][cells] per map.
// The layer × head shares (AttentionMap::shares / linear_shares), when captured, in a budget of
// their own (half the maps'): "share_form" "tokens" (every token's), "words" (each word's mean
// over its tokens, on the map of the word's first step: a span of words then shows the mean of
// its words' means), "words-softmax" (the same, the softmax layers only) or "tokens-softmax"
// (every token's, the softmax layers only: an answer without words); "share_maps":
// [{"step","layers","heads","linear_layers","linear_heads"}], "share_data": base64 float16
// [layers][heads][3] then [linear_layers][linear_heads][3] per entry (image, text, sink).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/engine/events.h"

namespace glance::ui {

// 256 KiB of float16 per turn: a fast-mode turn keeps per-layer maps for hundreds of tokens.
constexpr size_t kAttentionBudgetBytes = 256 * 1024;

// `words` group the maps' steps (TurnResult::words); without them the "words" forms are
// skipped and "mean" is the smallest.
nlohmann::json EncodeAttention(const std::vector<AttentionMap>& maps,
                               const std::vector<AttentionWord>& words,
                               size_t budget_bytes = kAttentionBudgetBytes);
// Reads what EncodeAttention wrote. With detail "layers", maps come back with n_heads = 1
// (the head mean); with "mean" and "words", with no layers. Throws glance::Error when
// malformed.
std::vector<AttentionMap> DecodeAttention(const nlohmann::json& j);

}  // namespace glance::ui
