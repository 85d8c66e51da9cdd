// glance-cli bench [--model DIR] [--precision auto|f32|bf16|q8|q4] [--threads N] [--reps N]
//                  [--only vision,prefill,decode,ttft,constrained,capture] [--cpu native|avx2] [--json]
//                  [--long-prompts 2048,8192,16384] [--long-decode-tokens N] [--backend cpu|npu-emu|npu|auto]
//                  [--bundle DIR]:
// load, vision, prefill, decode, TTFT, peak RSS, memory bandwidth and the decode roofline
// fraction of one model on this machine (core/engine/bench.h). Median, min and max over reps.
// With an NPU backend, vision, prefill and decode are also split into NPU dispatch, transfer/sync
// and host time.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "app/cli/session_flags.h"
#include "core/engine/bench.h"

namespace {

using glance::BenchStat;

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> parts;
  for (size_t b = 0; b < s.size();) {
    const size_t e = std::min(s.find(',', b), s.size());
    if (e > b) parts.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return parts;
}

void Line(const char* name, const BenchStat& s, const char* unit, double mul = 1.0) {
  if (s.samples.empty()) {
    std::printf("  %-24s %10s\n", name, "(not run)");
    return;
  }
  std::printf("  %-24s %10.3f %-6s (min %.3f, max %.3f)\n", name, s.median * mul, unit, s.min * mul,
              s.max * mul);
}

int RunBenchCommand(const glance::cli::Args& args) {
  glance::cli::ArgParser p(args, {"model", "precision", "threads", "reps", "decode-tokens", "only", "cpu", "long-prompts", "long-decode-tokens", "constraint-tokenizer", "backend", "bundle"}, {"json"});
  if (!p.positional().empty())
    throw glance::Error("unexpected argument '" + p.positional()[0] + "' (use --model DIR)");
  glance::BenchOptions o;
  o.model_dir = p.Get("model", "");
  o.precision = glance::cli::PrecisionFlag(p, glance::Precision::kF32);
  o.threads = static_cast<int>(p.GetInt("threads", 0));
  o.reps = static_cast<int>(p.GetInt("reps", 3));
  o.decode_tokens = static_cast<int>(p.GetInt("decode-tokens", 64));
  o.constraint_tokenizer = p.Get("constraint-tokenizer", "");
  o.backend = glance::cli::BackendFlag(p, glance::BackendKind::kCpu);
  o.npu_bundle = p.Get("bundle", "");
  if (o.threads < 0) throw glance::Error("--threads must be >= 0");
  o.cpu = p.Get("cpu", "native");
  o.only = SplitCommas(p.Get("only", ""));
  for (const std::string& n : SplitCommas(p.Get("long-prompts", ""))) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(n, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != n.size() || v < 1)
      throw glance::Error("--long-prompts: '" + n + "' is not a positive token count");
    o.long_prompts.push_back(v);
  }
  o.long_decode_tokens = static_cast<int>(p.GetInt("long-decode-tokens", o.long_decode_tokens));
  if (o.long_decode_tokens < 0 || o.long_decode_tokens > 100000)
    throw glance::Error("--long-decode-tokens must be in [0, 100000]");
  const bool json = p.Has("json");
  if (o.model_dir.empty())
    std::fprintf(stderr, "bench: no --model given, using the bundled demo model (tiny, random "
                         "weights: figures say nothing about a real checkpoint)\n");
  o.progress = [](const std::string& stage) { std::fprintf(stderr, "bench: %s...\n", stage.c_str()); };

  const glance::BenchResult r = glance::RunBench(o);
  if (json) {
    std::printf("%s\n", glance::BenchToJson(r).dump(2).c_str());
    return 0;
  }
  std::printf("%s%s, precision %s, %d threads, %d reps (median, min, max)\n", r.model_dir.c_str(),
              r.is_demo ? " (bundled demo model)" : "", std::string(glance::Name(r.precision)).c_str(), r.threads, r.reps);
  std::printf("  kernels: %s; backend %s\n", r.cpu_features.c_str(), r.backend.c_str());
  Line("load", r.load_s, "s");
  Line("vision 224x224 fast", r.vision_s_224, "s");
  Line("vision 640x480 detail", r.vision_s_640x480, "s");
  Line("prefill @64", r.prefill_tokens_per_s_64, "tok/s");
  Line("prefill @512", r.prefill_tokens_per_s_512, "tok/s");
  Line("decode", r.decode_tokens_per_s, "tok/s");
  Line("TTFT image+question", r.ttft_s, "s");
  Line("decode, capture off", r.decode_capture_off_tokens_per_s, "tok/s");
  Line("decode, capture on", r.decode_capture_on_tokens_per_s, "tok/s");
  if (!r.decode_capture_off_tokens_per_s.samples.empty() && r.decode_capture_on_tokens_per_s.median > 0.0)
    std::printf("  (attention capture, every full-attention and DeltaNet layer: +%.1f %% a decode step)\n",
                100.0 * (r.decode_capture_off_tokens_per_s.median / r.decode_capture_on_tokens_per_s.median - 1.0));
  for (const glance::BenchResult::LongPrefill& l : r.long_prefill) {
    const std::string n = std::to_string(l.tokens);
    Line(("prefill @" + n).c_str(), l.tokens_per_s, "tok/s");
    Line(("decode after " + n).c_str(), l.decode_tokens_per_s, "tok/s");
    std::printf("  %-24s %10.1f MiB    (peak RSS after it: %.1f MiB)\n", ("KV cache @" + n).c_str(),
                static_cast<double>(l.kv_cache_bytes) / double(1 << 20),
                static_cast<double>(l.peak_rss_bytes) / double(1 << 20));
  }
  if (r.backend != "cpu") {
    // Each stage's time over all its reps, split as the NPU path spends it (Backend::DeviceTotals).
    std::printf("  %-24s %10s %10s %10s %10s\n", "stage split (all reps)", "total s", "NPU s", "transfer s", "host s");
    for (const glance::BenchResult::StageSplit& s : r.splits)
      std::printf("  %-24s %10.4f %10.4f %10.4f %10.4f\n", s.stage.c_str(), s.seconds, s.npu_s, s.transfer_s,
                  s.host_s());
  }
  Line("memory read bandwidth", r.bandwidth_gb_s, "GB/s");
  Line("triad bandwidth", r.triad_gb_s, "GB/s");
  Line("decode roofline", r.roofline_fraction, "%", 100.0);
  if (!r.int8_peak_isa.empty()) {
    Line("int8 peak", r.int8_peak_gmac_s, "GMAC/s");
    Line("prefill @64 int8 share", r.prefill_int8_fraction_64, "%", 100.0);
    Line("prefill @512 int8 share", r.prefill_int8_fraction_512, "%", 100.0);
    std::printf("  (int8 peak: %s dot instruction on every thread; prefill share = %.1f M projection "
                "multiply-adds a prompt token x tok/s / peak; attention, DeltaNet recurrence and LM head "
                "not counted)\n",
                r.int8_peak_isa.c_str(), static_cast<double>(r.prefill_int8_macs_per_token) / 1e6);
  }
  const double mib = double(1 << 20);
  std::printf("  %-24s %10.1f MiB    (%s target <= %.0f MiB = 1.1 x %.0f MiB weights in use + 512 MiB)\n",
              "peak RSS", static_cast<double>(r.peak_rss_bytes) / mib, r.rss_within_target() ? "within" : "OVER",
              static_cast<double>(r.rss_target_bytes) / mib,
              static_cast<double>(r.weight_bytes_in_use) / mib);
  std::printf("  %-24s %10.1f MiB weights + %.1f MiB DeltaNet state per token\n", "decode reads",
              static_cast<double>(r.decode_weight_bytes) / double(1 << 20),
              static_cast<double>(r.decode_state_bytes) / double(1 << 20));
  std::printf("  (TTFT question: %d tokens; roofline = decode bytes x tok/s / read bandwidth)\n",
              r.ttft_prompt_words_tokens);
  if (r.constrained) {
    // constrained_decode_overhead: what a constrained step adds (mask + accept), per token.
    const glance::ConstraintOverhead& c = *r.constrained;
    const double step = r.decode_tokens_per_s.samples.empty() ? 0.0 : 1.0 / r.decode_tokens_per_s.median;
    auto added = [&](const char* name, double cold, double warm, int tokens) {
      std::printf("  %-24s %10.3f ms/token cold, %.3f warm (%d-token answer)", name, cold * 1e3, warm * 1e3, tokens);
      if (step > 0) std::printf(", cold = %.1f %% of a decode step", 100.0 * cold / step);
      std::printf("\n");
    };
    std::printf("  constrained_decode_overhead (vocabulary %lld tokens, logits row %lld):\n",
                static_cast<long long>(c.vocab_tokens), static_cast<long long>(c.logits_width));
    added("  json_object", c.json_object_step_cold_s, c.json_object_step_warm_s, c.json_object_tokens);
    added("  10-property schema", c.schema_10_step_cold_s, c.schema_10_step_warm_s, c.schema_10_tokens);
    std::printf("  %-24s %10.2f ms (vocabulary index, once per model: %.1f ms)\n", "  schema compile",
                c.compile_10_property_s * 1e3, c.vocab_index_s * 1e3);
  }
  return 0;
}

}  // namespace

static glance::cli::Register reg(
    "bench", "bench [--model DIR] [--precision auto|f32|bf16|q8|q4] [--threads N] [--reps N]\n"
    "      [--only vision,prefill,decode,ttft,constrained,capture] [--decode-tokens N] [--cpu native|avx2] [--json]\n"
    "      [--constraint-tokenizer tokenizer.json]\n"
    "      [--long-prompts 2048,8192,16384] [--long-decode-tokens N] [--backend cpu|npu-emu|npu|auto] [--bundle DIR]",
    "measure load, vision, prefill, decode, TTFT, constrained-decoding overhead, attention capture cost, peak RSS, bandwidth and roofline, int8 peak and prefill's share of it",
    RunBenchCommand);
