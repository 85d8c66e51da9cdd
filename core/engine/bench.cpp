#include "core/engine/bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <stdexcept>
#include <chrono>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include "core/engine/engine.h"
#include "core/engine/prompt_stream.h"
#include "core/engine/session.h"
#include "core/lm/language_model.h"
#include "core/text/tokenizer.h"
#include "core/vision/vision_tower.h"
#include "core/util/error.h"
#include "kernels/cpu/bandwidth.h"
#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/int8_peak.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/cpu_features.h"

namespace glance {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Bytes a matmul streams for this weight: elements plus block scales (quant_formats.h).
uint64_t RefBytes(const kernels::WeightRef& w) { return kernels::WeightBytes(w.type, w.rows, w.cols); }

uint64_t VecBytes(const std::vector<float>& v) { return v.size() * sizeof(float); }

// A smooth synthetic photo-like image: gradients plus a few shapes, so the preprocessor and
// vision tower see ordinary pixel statistics (the timing does not depend on content).
std::vector<uint8_t> SyntheticRgb(int w, int h) {
  std::vector<uint8_t> rgb(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = rgb.data() + (static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 3;
      const bool disc = (x - w / 3) * (x - w / 3) + (y - h / 2) * (y - h / 2) < (h / 5) * (h / 5);
      p[0] = static_cast<uint8_t>(disc ? 220 : (255 * x) / std::max(w - 1, 1));
      p[1] = static_cast<uint8_t>(disc ? 40 : (255 * y) / std::max(h - 1, 1));
      p[2] = static_cast<uint8_t>(((x / 16 + y / 16) % 2) ? 180 : 60);
    }
  return rgb;
}

double TimeAttach(const std::shared_ptr<const Engine>& engine, int w, int h, ImageMode mode) {
  const std::vector<uint8_t> rgb = SyntheticRgb(w, h);
  Session s(engine);
  const auto t0 = Clock::now();
  s.AttachImageRgb(rgb.data(), w, h, w * 3, mode);
  return Since(t0);
}

std::vector<int64_t> RandomIds(int64_t n, int64_t vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> dist(0, vocab - 1);
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (auto& id : ids) id = dist(rng);
  return ids;
}

// Feeds `ids` to `state` `chunk` rows per forward (the whole prompt: one forward;
// PrefillChunkRows: as Session feeds a long prompt, bounded activation memory). Returns seconds.
double Prefill(const Engine& engine, const std::vector<int64_t>& ids, int64_t chunk,
               lm::LmState& state, lm::ForwardOutput& out) {
  const int64_t n = static_cast<int64_t>(ids.size());
  const auto t0 = Clock::now();
  for (int64_t at = 0; at < n; at += chunk) {
    lm::ForwardInput in;
    in.ids = std::span<const int64_t>(ids.data() + at, static_cast<size_t>(std::min(chunk, n - at)));
    engine.lm().Forward(in, state, out, engine.pool());
  }
  return Since(t0);
}

// Tokens per second of `n` greedy decode steps on top of `state` (argmax is part of a real
// step, so it is timed too); `out` holds the logits of the last forward.
double Decode(const Engine& engine, int n, lm::LmState& state, lm::ForwardOutput& out) {
  int64_t next = 0;
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    next = std::max_element(out.last(), out.last() + out.vocab) - out.last();
    lm::ForwardInput step;
    step.ids = std::span<const int64_t>(&next, 1);
    engine.lm().Forward(step, state, out, engine.pool());
  }
  return static_cast<double>(n) / std::max(Since(t0), 1e-9);
}

// Tokens per second of one text-only prefill of n random ids on a fresh state.
double PrefillRate(const Engine& engine, int64_t n, int64_t chunk, uint32_t seed) {
  const std::vector<int64_t> ids = RandomIds(n, engine.lm().config().vocab_size, seed);
  lm::LmState state = engine.lm().NewState();
  lm::ForwardOutput out;
  return static_cast<double>(n) / std::max(Prefill(engine, ids, chunk, state, out), 1e-9);
}

// Decode tokens per second after a short prefill.
double DecodeRate(const Engine& engine, int n, uint32_t seed) {
  const std::vector<int64_t> prompt = RandomIds(16, engine.lm().config().vocab_size, seed);
  lm::LmState state = engine.lm().NewState();
  lm::ForwardOutput out;
  Prefill(engine, prompt, 16, state, out);
  return Decode(engine, n, state, out);
}

uint64_t KvCacheBytes(const lm::LmState& state) {
  uint64_t b = 0;
  for (const lm::KvCache& c : state.kv) b += c.ByteSize();
  return b;
}

// A long prompt of n random ids in Session's chunks, then `decode` steps at that context.
BenchResult::LongPrefill LongPrompt(const Engine& engine, int64_t n, int decode, uint32_t seed) {
  const std::vector<int64_t> ids = RandomIds(n, engine.lm().config().vocab_size, seed);
  lm::LmState state = engine.lm().NewState();
  // The KV cache sized for the prompt and the decode steps up front, as llama.cpp and
  // ik_llama.cpp allocate theirs for the context: otherwise the first decode step at 8192 pays
  // for doubling the cache (zeroing 192 MiB and copying 96 MiB on a 2B model), which the 16
  // steps' average turned into ~6 ms a token that steady decoding at that context never pays.
  for (lm::KvCache& c : state.kv) c.Reserve(n + decode + 1, 0);
  lm::ForwardOutput out;
  BenchResult::LongPrefill r;
  r.tokens = n;
  const double s = Prefill(engine, ids, PrefillChunkRows(engine), state, out);
  r.tokens_per_s = Summarise({static_cast<double>(n) / std::max(s, 1e-9)});
  if (decode > 0) r.decode_tokens_per_s = Summarise({Decode(engine, decode, state, out)});
  r.kv_cache_bytes = KvCacheBytes(state);
  r.peak_rss_bytes = PeakRssBytes();
  return r;
}

// A question of at least 20 tokens under this model's tokenizer (words added until it is).
std::string TwentyTokenQuestion(const Tokenizer& tok, int* n_tokens) {
  static const char* kWords[] = {"Describe", "this", "picture", "in", "detail:", "which",
                                 "objects", "are", "visible,", "what", "colours", "dominate,",
                                 "where", "is", "the", "light", "coming", "from", "and", "what",
                                 "is", "happening", "right", "now", "in", "the", "scene?"};
  std::string q;
  int n = 0;
  for (const char* w : kWords) {
    q += (q.empty() ? "" : " ");
    q += w;
    n = static_cast<int>(tok.Encode(q).size());
    if (n >= 20) break;
  }
  *n_tokens = n;
  return q;
}

}  // namespace

BenchStat Summarise(std::vector<double> samples) {
  BenchStat s;
  s.samples = samples;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

uint64_t DecodeWeightBytes(const lm::LanguageModel& model) {
  const lm::LmWeights& w = model.weights();
  uint64_t b = RefBytes(w.lm_head) + VecBytes(w.final_norm);
  for (const lm::LayerWeights& L : w.layers) {
    b += VecBytes(L.input_norm) + VecBytes(L.post_norm);
    b += RefBytes(L.mlp.gate_proj) + RefBytes(L.mlp.up_proj) + RefBytes(L.mlp.down_proj);
    if (L.type == LayerType::kLinearAttention) {
      const lm::LinearAttnWeights& a = L.linear;
      b += RefBytes(a.in_proj_qkv) + RefBytes(a.in_proj_z) + RefBytes(a.in_proj_b) +
           RefBytes(a.in_proj_a) + RefBytes(a.out_proj) + VecBytes(a.conv) + VecBytes(a.norm);
    } else {
      const lm::FullAttnWeights& a = L.full;
      b += RefBytes(a.q_proj) + RefBytes(a.k_proj) + RefBytes(a.v_proj) + RefBytes(a.o_proj) +
           VecBytes(a.q_norm) + VecBytes(a.k_norm);
    }
  }
  return b;
}

uint64_t PrefillInt8MacsPerToken(const lm::LanguageModel& model) {
  auto macs = [](const kernels::WeightRef& w) -> uint64_t {
    return w.quantized() ? static_cast<uint64_t>(w.rows) * static_cast<uint64_t>(w.cols) : 0;
  };
  uint64_t m = 0;
  for (const lm::LayerWeights& L : model.weights().layers) {
    m += macs(L.mlp.gate_proj) + macs(L.mlp.up_proj) + macs(L.mlp.down_proj);
    if (L.type == LayerType::kLinearAttention) {
      const lm::LinearAttnWeights& a = L.linear;
      m += macs(a.in_proj_qkv) + macs(a.in_proj_z) + macs(a.in_proj_b) + macs(a.in_proj_a) + macs(a.out_proj);
    } else {
      const lm::FullAttnWeights& a = L.full;
      m += macs(a.q_proj) + macs(a.k_proj) + macs(a.v_proj) + macs(a.o_proj);
    }
  }
  return m;
}

uint64_t DecodeStateBytes(const lm::LanguageModel& model) {
  const lm::LmState s = model.NewState();
  uint64_t b = 0;
  for (const lm::LinearLayerState& l : s.linear) b += VecBytes(l.recurrent) + VecBytes(l.conv_tail);
  return b;
}

uint64_t PeakRssBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream in(line.substr(6));
      uint64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports kB
}

BenchResult RunBench(const BenchOptions& o) {
  if (o.reps < 1) throw Error("bench: --reps must be at least 1");
  if (o.decode_tokens < 1) throw Error("bench: decode tokens must be at least 1");
  for (int64_t n : o.long_prompts)
    if (n < 1 || n > (1 << 20)) throw Error("bench: long prompt lengths must be in [1, 1048576]");
  for (const std::string& st : o.only) {
    if (st != "vision" && st != "prefill" && st != "decode" && st != "ttft" && st != "constrained" && st != "capture")
      throw Error("bench: unknown stage '" + st + "' (stages: vision, prefill, decode, ttft, constrained, capture)");
  }
  try {
    kernels::LimitCpuFeatures(o.cpu);
  } catch (const Error& e) {  // the kernels name the flag: "--cpu: ..."
    throw Error(std::string("bench: ") + e.what());
  }
  auto wanted = [&](const char* st) {
    return o.only.empty() || std::find(o.only.begin(), o.only.end(), st) != o.only.end();
  };
  auto stage = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  BenchResult r;
  r.model_dir = o.model_dir.empty() ? DefaultDemoModelDir() : o.model_dir;
  r.reps = o.reps;
  r.cpu_features = kernels::CpuFeaturesInUse();
  EngineOptions eo;
  eo.threads = o.threads;
  eo.precision = o.precision;
  eo.backend = o.backend;
  eo.npu_bundle = o.npu_bundle;

  stage("load");
  std::shared_ptr<const Engine> engine;
  std::vector<double> load;
  for (int i = 0; i < o.reps; ++i) {
    engine.reset();  // one model in memory at a time, so peak RSS stays honest
    const auto t0 = Clock::now();
    engine = Engine::Load(r.model_dir, eo);
    load.push_back(Since(t0));
  }
  r.load_s = Summarise(load);
  r.is_demo = engine->info().is_demo;
  r.precision = engine->info().precision;
  r.threads = engine->info().threads;
  r.model_weight_bytes = engine->info().weight_bytes;
  r.decode_weight_bytes = DecodeWeightBytes(engine->lm());
  r.decode_state_bytes = DecodeStateBytes(engine->lm());
  r.weight_bytes_in_use = r.decode_weight_bytes + engine->vision().WeightBytes();
  r.rss_target_bytes = r.weight_bytes_in_use + r.weight_bytes_in_use / 10 + (512ull << 20);

  r.backend = engine->info().backend;
  // A stage's wall time and the backend's device totals around it (all its reps).
  auto split = [&](const char* name, const std::function<void()>& run) {
    const kernels::Backend::DeviceTime d0 = engine->backend().DeviceTotals();
    const auto t0 = Clock::now();
    run();
    const kernels::Backend::DeviceTime d1 = engine->backend().DeviceTotals();
    r.splits.push_back({name, Since(t0), d1.dispatch_s - d0.dispatch_s, d1.transfer_s - d0.transfer_s});
  };
  std::vector<double> v224, v640, p64, p512, dec, ttft;
  if (wanted("vision")) {
    stage("vision");
    split("vision", [&] {
      for (int i = 0; i < o.reps; ++i) {
        v224.push_back(TimeAttach(engine, 224, 224, ImageMode::kFast));
        v640.push_back(TimeAttach(engine, 640, 480, ImageMode::kDetail));
      }
    });
  }
  if (wanted("prefill")) {
    stage("prefill");
    split("prefill", [&] {
      for (int i = 0; i < o.reps; ++i) {
        p64.push_back(PrefillRate(*engine, 64, 64, 100u + static_cast<uint32_t>(i)));
        p512.push_back(PrefillRate(*engine, 512, 512, 200u + static_cast<uint32_t>(i)));
      }
    });
  }
  if (wanted("decode")) {
    stage("decode");
    split("decode", [&] {
      for (int i = 0; i < o.reps; ++i) dec.push_back(DecodeRate(*engine, o.decode_tokens, 300u + static_cast<uint32_t>(i)));
    });
  }
  if (wanted("ttft")) stage("ttft");
  const std::string question = TwentyTokenQuestion(engine->tokenizer(), &r.ttft_prompt_words_tokens);
  const std::vector<uint8_t> rgb = SyntheticRgb(224, 224);
  for (int i = 0; i < o.reps && wanted("ttft"); ++i) {
    Session s(engine);
    GenerateOptions g;
    g.max_new_tokens = 1;
    g.capture_attention = false;
    const auto t0 = Clock::now();  // the user's view: image attached, question sent, 1st token
    s.AttachImageRgb(rgb.data(), 224, 224, 224 * 3, ImageMode::kFast);
    s.Send(question, g);
    ttft.push_back(Since(t0));
  }
  // Attention capture's cost (issue 36): the same image, question and answer (teacher-forced, so
  // both runs decode exactly decode_tokens steps) with capture off and on — on is every
  // full-attention layer's softmax maps and every DeltaNet layer's hidden attention over the
  // image; each run's decode rate from its turn's stats.
  std::vector<double> capture_off, capture_on;
  if (wanted("capture")) {
    stage("attention capture");
    std::vector<int32_t> answer;
    std::mt19937 rng(500u);
    std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(engine->tokenizer().size()) - 1);
    while (static_cast<int>(answer.size()) < o.decode_tokens) {
      const int32_t id = pick(rng);
      if (std::find(engine->stop_ids().begin(), engine->stop_ids().end(), id) == engine->stop_ids().end())
        answer.push_back(id);
    }
    answer.push_back(answer.back());  // the last forced token is not fed: decode_tokens steps
    for (int i = 0; i < o.reps; ++i)
      for (const bool capture : {false, true}) {
        Session s(engine);
        GenerateOptions g;
        g.max_new_tokens = static_cast<int>(answer.size());
        g.capture_attention = capture;
        g.forced_tokens = answer;
        s.AttachImageRgb(rgb.data(), 224, 224, 224 * 3, ImageMode::kFast);
        const TurnResult t = s.Send(question, g);
        (capture ? capture_on : capture_off).push_back(t.stats.decode_tokens_per_s);
      }
  }
  if (wanted("constrained")) {
    stage("constrained decoding");
    if (o.constraint_tokenizer.empty()) {
      r.constrained = MeasureConstraintOverhead(engine->tokenizer(), engine->stop_ids(),
                                                engine->lm().config().vocab_size, o.reps);
    } else {
      const Tokenizer other = Tokenizer::FromFile(o.constraint_tokenizer);
      std::vector<int32_t> stops;
      for (const char* name : {"<|im_end|>", "<|endoftext|>"})
        if (other.TokenId(name) >= 0) stops.push_back(other.TokenId(name));
      r.constrained = MeasureConstraintOverhead(other, stops, engine->lm().config().vocab_size, o.reps);
    }
  }
  if (!o.long_prompts.empty()) stage("long prompts");
  for (int64_t n : o.long_prompts) r.long_prefill.push_back(LongPrompt(*engine, n, o.long_decode_tokens, 400u));
  r.vision_s_224 = Summarise(v224);
  r.vision_s_640x480 = Summarise(v640);
  r.prefill_tokens_per_s_64 = Summarise(p64);
  r.prefill_tokens_per_s_512 = Summarise(p512);
  r.decode_tokens_per_s = Summarise(dec);
  r.ttft_s = Summarise(ttft);
  r.decode_capture_off_tokens_per_s = Summarise(capture_off);
  r.decode_capture_on_tokens_per_s = Summarise(capture_on);
  r.peak_rss_bytes = PeakRssBytes();  // before the bandwidth arrays exist

  stage("bandwidth");
  const int passes = std::max(o.reps, 3);
  r.bandwidth_gb_s = Summarise(
      kernels::MeasureReadBandwidth(2 * o.bandwidth_array_bytes, o.read_streams, passes, engine->pool()).gb_per_s);
  r.triad_gb_s = Summarise(kernels::MeasureTriadBandwidth(o.bandwidth_array_bytes, passes, engine->pool()).gb_per_s);

  // Roofline: bytes a decode step must stream × steps per second ÷ the read bandwidth measured
  // the way decode reads (a fraction above 1 would mean the denominator is not a ceiling).
  const double bytes = static_cast<double>(r.decode_weight_bytes + r.decode_state_bytes);
  std::vector<double> roof;
  for (double tps : r.decode_tokens_per_s.samples)
    roof.push_back(bytes * tps / (r.bandwidth_gb_s.median * 1e9));
  r.roofline_fraction = Summarise(roof);

  // The compute side: prefill's projection multiply-adds per second against the int8 peak.
  r.prefill_int8_macs_per_token = PrefillInt8MacsPerToken(engine->lm());
  if (kernels::Int8KernelsActive()) {
    stage("int8 peak");
    const kernels::Int8PeakResult peak = kernels::MeasureInt8Peak(passes, engine->pool());
    r.int8_peak_isa = peak.isa;
    r.int8_peak_gmac_s = Summarise(peak.gmac_per_s);
    auto fraction = [&](const BenchStat& tps) {
      std::vector<double> f;
      for (double t : tps.samples)
        f.push_back(static_cast<double>(r.prefill_int8_macs_per_token) * t / (r.int8_peak_gmac_s.median * 1e9));
      return Summarise(f);
    };
    if (r.prefill_int8_macs_per_token > 0) {  // an f32 or bf16 engine runs no int8 GEMM
      r.prefill_int8_fraction_64 = fraction(r.prefill_tokens_per_s_64);
      r.prefill_int8_fraction_512 = fraction(r.prefill_tokens_per_s_512);
    }
  }
  return r;
}

nlohmann::json BenchToJson(const BenchResult& r) {
  nlohmann::json j;
  j["model_dir"] = r.model_dir;
  j["is_demo"] = r.is_demo;
  j["precision"] = Name(r.precision);
  j["threads"] = r.threads;
  j["reps"] = r.reps;
  j["cpu_features"] = r.cpu_features;
  auto put = [&](const char* key, const BenchStat& s) {
    if (s.samples.empty()) {  // stage not run (--only)
      j[key] = nullptr;
      j[std::string(key) + "_min"] = nullptr;
      j[std::string(key) + "_max"] = nullptr;
      return;
    }
    j[key] = s.median;
    j[std::string(key) + "_min"] = s.min;
    j[std::string(key) + "_max"] = s.max;
  };
  j["backend"] = r.backend;
  for (const BenchResult::StageSplit& s : r.splits) {  // split_<stage>_{s,npu_s,transfer_s,host_s}
    const std::string k = "split_" + s.stage;
    j[k + "_s"] = s.seconds;
    j[k + "_npu_s"] = s.npu_s;
    j[k + "_transfer_s"] = s.transfer_s;
    j[k + "_host_s"] = s.host_s();
  }
  put("load_s", r.load_s);
  put("vision_s_224", r.vision_s_224);
  put("vision_s_640x480", r.vision_s_640x480);
  put("prefill_tokens_per_s_64", r.prefill_tokens_per_s_64);
  put("prefill_tokens_per_s_512", r.prefill_tokens_per_s_512);
  put("decode_tokens_per_s", r.decode_tokens_per_s);
  put("ttft_s", r.ttft_s);
  put("decode_capture_off_tokens_per_s", r.decode_capture_off_tokens_per_s);
  put("decode_capture_on_tokens_per_s", r.decode_capture_on_tokens_per_s);
  put("bandwidth_gb_s", r.bandwidth_gb_s);
  put("triad_gb_s", r.triad_gb_s);
  for (const BenchResult::LongPrefill& l : r.long_prefill) {
    const std::string n = std::to_string(l.tokens);
    put(("prefill_tokens_per_s_" + n).c_str(), l.tokens_per_s);
    put(("decode_tokens_per_s_at_" + n).c_str(), l.decode_tokens_per_s);
    j["kv_cache_bytes_at_" + n] = l.kv_cache_bytes;
    j["peak_rss_bytes_after_" + n] = l.peak_rss_bytes;
  }
  put("roofline_fraction", r.roofline_fraction);
  put("int8_peak_gmac_s", r.int8_peak_gmac_s);
  put("prefill_int8_fraction_64", r.prefill_int8_fraction_64);
  put("prefill_int8_fraction_512", r.prefill_int8_fraction_512);
  j["int8_peak_isa"] = r.int8_peak_isa;
  j["prefill_int8_macs_per_token"] = r.prefill_int8_macs_per_token;
  j["ttft_question_tokens"] = r.ttft_prompt_words_tokens;
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  j["model_weight_bytes"] = r.model_weight_bytes;
  j["decode_weight_bytes"] = r.decode_weight_bytes;
  j["decode_state_bytes"] = r.decode_state_bytes;
  j["weight_bytes_in_use"] = r.weight_bytes_in_use;
  j["rss_target_bytes"] = r.rss_target_bytes;
  j["rss_within_target"] = r.rss_within_target();
  if (r.constrained) {
    const ConstraintOverhead& c = *r.constrained;
    nlohmann::json o = {{"vocab_tokens", c.vocab_tokens},
                        {"logits_width", c.logits_width},
                        {"vocab_index_s", c.vocab_index_s},
                        {"schema_compile_10_property_s", c.compile_10_property_s},
                        {"json_object_step_cold_s", c.json_object_step_cold_s},
                        {"json_object_step_warm_s", c.json_object_step_warm_s},
                        {"schema_10_property_step_cold_s", c.schema_10_step_cold_s},
                        {"schema_10_property_step_warm_s", c.schema_10_step_warm_s}};
    // As a fraction of the decode step measured in the same run (when it ran).
    if (!r.decode_tokens_per_s.samples.empty()) {
      const double step = 1.0 / r.decode_tokens_per_s.median;
      o["json_object_fraction_of_decode_step_cold"] = c.json_object_step_cold_s / step;
      o["schema_10_property_fraction_of_decode_step_cold"] = c.schema_10_step_cold_s / step;
    }
    j["constrained_decode_overhead"] = o;
  }
  return j;
}

}  // namespace glance
