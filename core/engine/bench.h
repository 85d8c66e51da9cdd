#pragma once
// glance-cli bench: the speed figures of one model folder on this machine, measured the same
// way every time (issue: CPU speed). Several repetitions of each stage; median, min and max.
//   load → vision 224×224 (fast) and 640×480 (detail) → prefill 64 and 512 random tokens on a
//   fresh state → decode over `decode_tokens` → time to first token (image + ~20-token
//   question through Session) → optional long prompts → peak RSS → memory bandwidth (read-only,
//   several streams as decode reads: the roofline's denominator; and the STREAM triad beside it)
//   → decode roofline fraction.
// Heavy by design: never call it from ctest except on the tiny demo model.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/constraint_bench.h"
#include "core/engine/engine_options.h"

namespace glance {

namespace lm {
class LanguageModel;
}

struct BenchOptions {
  std::string model_dir;           // empty: the bundled demo model (DefaultDemoModelDir())
  Precision precision = Precision::kF32;  // EngineOptions::precision
  int threads = 0;                 // EngineOptions::threads (0 = one per core)
  int reps = 3;                    // repetitions of every stage (>= 1)
  int decode_tokens = 64;
  // Stages to run, from "vision", "prefill", "decode", "ttft", "constrained", "capture" (load, peak RSS and bandwidth
  // always run); empty = all. A stage not run leaves its figures empty (no samples).
  std::vector<std::string> only;
  // "native" or "avx2": run the kernels as on a lesser CPU (kernels/cpu/cpu_features.h).
  std::string cpu = "native";
  uint64_t bandwidth_array_bytes = 128ull << 20;  // each of the triad's three arrays
  // (the read-only measurement reads one array of twice this)
  int read_streams = 4;  // per thread, as the decode GEMVs read (kernels/cpu/gemv_int8.h)
  // Prompt lengths for the long-prompt prefill (e.g. 2048, 8192, 16384); empty = none. Each
  // runs once (they take minutes), in chunks of PrefillChunkRows as Session prefills, then
  // long_decode_tokens decode steps at that context.
  std::vector<int64_t> long_prompts;
  int long_decode_tokens = 16;
  // constrained_decode_overhead over this tokenizer.json's vocabulary instead of the model's
  // (a random-weight model folder carries the small demo tokenizer; a released Qwen
  // tokenizer gives the figure for a real ~150-250k-token vocabulary). Empty: the model's.
  std::string constraint_tokenizer;
  std::function<void(const std::string& stage)> progress;  // called as each stage starts
  // EngineOptions::backend / npu_bundle: with npu-emu or npu each stage's time is also split
  // into NPU dispatch, transfer/sync and host time (BenchResult::splits).
  BackendKind backend = BackendKind::kCpu;
  std::string npu_bundle;
};

struct BenchStat {
  std::vector<double> samples;
  double median = 0.0, min = 0.0, max = 0.0;
};
BenchStat Summarise(std::vector<double> samples);

struct BenchResult {
  std::string model_dir;
  bool is_demo = false;
  Precision precision = Precision::kF32;  // as resolved at load
  int threads = 0;
  int reps = 0;
  std::string cpu_features;           // what the kernels ran with (CpuFeaturesInUse)
  BenchStat load_s, vision_s_224, vision_s_640x480;
  BenchStat prefill_tokens_per_s_64, prefill_tokens_per_s_512, decode_tokens_per_s, ttft_s;
  // Stage "capture": a 224×224 image's answer decoded with attention capture off and on (every
  // full-attention layer's maps and every DeltaNet layer's hidden attention).
  BenchStat decode_capture_off_tokens_per_s, decode_capture_on_tokens_per_s;
  // bandwidth_gb_s: read-only, read_streams per thread (the roofline denominator); triad_gb_s:
  // STREAM triad over three arrays, for comparison.
  BenchStat bandwidth_gb_s, triad_gb_s, roofline_fraction;
  // The compute side, as the roofline is the memory side (issue "CPU speed, part 3"): the int8
  // dot-product instruction's peak on every thread (kernels/cpu/int8_peak.h; unset on a CPU
  // without the int8 kernels), the multiply-adds prefill's quantized projections do per prompt
  // token, and the share of that peak each prefill figure reaches (projection multiply-adds ×
  // tok/s ÷ peak: the attention scores, the DeltaNet recurrence and the LM head's one row are
  // not counted, so this understates the arithmetic done, never overstates it).
  BenchStat int8_peak_gmac_s, prefill_int8_fraction_64, prefill_int8_fraction_512;
  std::string int8_peak_isa;
  uint64_t prefill_int8_macs_per_token = 0;
  struct LongPrefill {
    int64_t tokens = 0;
    BenchStat tokens_per_s;
    // Decode steps right after that prompt (attention reads the whole cache each step).
    BenchStat decode_tokens_per_s;
    uint64_t kv_cache_bytes = 0;  // attention caches allocated after the prompt (state.h KvType)
    uint64_t peak_rss_bytes = 0;  // VmHWM after the prompt and its decode steps
  };
  std::vector<LongPrefill> long_prefill;  // one per BenchOptions::long_prompts
  int ttft_prompt_words_tokens = 0;   // tokens of the question text used for TTFT
  uint64_t peak_rss_bytes = 0;        // VmHWM before the bandwidth arrays are allocated
  uint64_t model_weight_bytes = 0;    // ModelInfo::weight_bytes (whole checkpoint)
  uint64_t decode_weight_bytes = 0;   // LM weights read per decoded token (LM head in full)
  uint64_t decode_state_bytes = 0;    // Gated DeltaNet recurrent + conv state
  // Weights the engine runs with: the prepared language model (decode_weight_bytes) + the
  // vision tower as prepared (VisionTower::WeightBytes: Q8 projections for q8/q4 engines). The memory target is peak RSS ≤ 1.1 × this + 0.5 GB.
  // (A tied embedding used through a quantized LM head copy is read a row at a time from the
  // mapped checkpoint, so only the rows looked up are resident; it is not counted.)
  uint64_t weight_bytes_in_use = 0;
  uint64_t rss_target_bytes = 0;
  // constrained_decode_overhead (constraint_bench.h); unset when the stage did not run.
  std::optional<ConstraintOverhead> constrained;
  bool rss_within_target() const { return peak_rss_bytes <= rss_target_bytes; }
  std::string backend = "cpu";  // as resolved at load
  // Each stage's time over all its reps (vision, prefill, decode; a stage not run: absent)
  // split by Backend::DeviceTotals into NPU dispatch, transfer/sync and host seconds (the
  // first two 0 on the CPU): the NPU path's version of the seed's cycle chart.
  struct StageSplit {
    std::string stage;
    double seconds = 0.0, npu_s = 0.0, transfer_s = 0.0;
    double host_s() const { return seconds - npu_s - transfer_s; }
  };
  std::vector<StageSplit> splits;
};

// Throws glance::Error (bad folder, bad options) like Engine::Load.
BenchResult RunBench(const BenchOptions& options);

// Bytes of language-model weights one decode step reads: every projection, the norms, the conv
// kernels, and the LM head in full (a tied embedding is read as the head; the one embedding
// row looked up is negligible and not counted).
uint64_t DecodeWeightBytes(const lm::LanguageModel& lm);
// Multiply-adds one prompt token costs in the int8 GEMM: every Q8/Q4 projection of every layer
// (rows × cols); float projections and the LM head are not counted.
uint64_t PrefillInt8MacsPerToken(const lm::LanguageModel& lm);
// Bytes of the Gated DeltaNet state a decode step reads (recurrent matrices + conv tails).
uint64_t DecodeStateBytes(const lm::LanguageModel& lm);

// Peak resident set of this process (Linux VmHWM; getrusage as the fallback).
uint64_t PeakRssBytes();

// The flat JSON of the result: load_s, vision_s_224, ... each with _min and _max variants.
nlohmann::json BenchToJson(const BenchResult& r);

}  // namespace glance
