#include "core/model/random_model.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/model/random_init.h"
#include "core/model/safetensors_writer.h"
#include "core/model/tensor_manifest.h"
#include "core/util/atomic_write.h"
#include "core/util/error.h"
#include "core/util/read_file.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/thread_pool.h"

namespace glance {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Special token ids of the bundled demo tokenizer (tests/data/tiny-a/README.md "Tokenizer"):
// Qwen3.5's 248044..248076 mapped to 4063..4095.
constexpr int64_t kEndOfText = 4063;
constexpr int64_t kImEnd = 4065;
constexpr int64_t kVisionStart = 4072;
constexpr int64_t kVisionEnd = 4073;
constexpr int64_t kImagePad = 4075;
constexpr int64_t kVideoPad = 4076;

// Released Qwen3.5 preprocessor limit (qwen35.md §4); the demo model lowers it to 3136.
constexpr int64_t kReleasedShortestEdge = 65536;

struct Sizes {
  int64_t hidden, inter;
  int layers, nq, nkv, nk, nv;
  int v_depth;
  int64_t v_hidden, v_inter;
  int v_heads;
  int64_t v_out;
};

// qwen35.md §1.4.
Sizes RealSizes(ModelShape s) {
  switch (s) {
    case ModelShape::k0_8B: return {1024, 3584, 24, 8, 2, 16, 16, 12, 768, 3072, 12, 1024};
    case ModelShape::k2B: return {2048, 6144, 24, 8, 2, 16, 16, 24, 1024, 4096, 16, 2048};
    case ModelShape::k4B: return {2560, 9216, 32, 16, 4, 16, 32, 24, 1024, 4096, 16, 2560};
    case ModelShape::kTiny: break;
  }
  throw Error("internal: no real sizes for the tiny shape");
}

// Whole or not at all (issue 35): a kill or a full disk never leaves a cut-off config or tokenizer.
void WriteText(const fs::path& path, const std::string& text) { WriteFileAtomically(path.string(), text); }

std::string ReadText(const fs::path& path) {
  return ReadWholeFile(path.string(),
                       "cannot read " + path.string() + " (the bundled demo-model resources are needed)");
}

// Qwen3.5's template comes in two forms that differ only in the generation-prompt branch
// (qwen35.md §5.2): 4B+ think unless enable_thinking is false; 0.8B/2B only when it is true.
// The bundled demo model ships the 0.8B/2B form (it was trained without thinking).
const std::string kThinkingDefault =
    "    {%- if enable_thinking is defined and enable_thinking is false %}\n"
    "        {{- '<think>\\n\\n</think>\\n\\n' }}\n"
    "    {%- else %}\n"
    "        {{- '<think>\\n' }}\n"
    "    {%- endif %}";
const std::string kNonThinkingDefault =
    "    {%- if enable_thinking is defined and enable_thinking is true %}\n"
    "        {{- '<think>\\n' }}\n"
    "    {%- else %}\n"
    "        {{- '<think>\\n\\n</think>\\n\\n' }}\n"
    "    {%- endif %}";

// The template with its generation-prompt branch in the thinking (4B+) or non-thinking
// (0.8B/2B) form, whichever form it comes in.
std::string TemplateVariant(const std::string& tpl, bool thinking, const fs::path& origin) {
  const std::string& want = thinking ? kThinkingDefault : kNonThinkingDefault;
  const std::string& other = thinking ? kNonThinkingDefault : kThinkingDefault;
  if (tpl.find(want) != std::string::npos) return tpl;
  const size_t at = tpl.rfind(other);
  if (at == std::string::npos)
    throw Error(origin.string() + ": cannot find the generation-prompt block to make the " +
                (thinking ? "4B (thinking)" : "0.8B/2B (non-thinking)") + " template variant");
  std::string out = tpl;
  out.replace(at, other.size(), want);
  return out;
}

void CopySideFiles(const MakeModelOptions& o, const fs::path& out) {
  const fs::path res(o.resources_dir);
  for (const char* name : {"tokenizer.json", "tokenizer_config.json", "generation_config.json"})
    WriteText(out / name, ReadText(res / name));

  std::string tpl = ReadText(res / "chat_template.jinja");
  if (o.shape != ModelShape::kTiny)  // tiny keeps the demo's files byte for byte
    tpl = TemplateVariant(tpl, o.shape == ModelShape::k4B, res / "chat_template.jinja");
  WriteText(out / "chat_template.jinja", tpl);

  std::string pre = ReadText(res / "preprocessor_config.json");
  if (o.shape != ModelShape::kTiny) {
    json j = json::parse(pre);
    j["size"]["shortest_edge"] = kReleasedShortestEdge;
    pre = j.dump(2) + "\n";
  }
  WriteText(out / "preprocessor_config.json", pre);
}

// Element chunk per RNG task: big enough to amortise the pool, small enough to balance.
constexpr size_t kChunk = size_t{1} << 16;
constexpr size_t kBufferElems = size_t{1} << 22;  // 4M values per write (8 MB of bf16)

void WriteTensor(SafetensorsWriter& w, const TensorSpec& spec, const InitRule& rule, uint64_t seed,
                 kernels::ThreadPool& pool, std::vector<float>& f32, std::vector<uint8_t>& bytes) {
  const uint64_t total = static_cast<uint64_t>(spec.numel());
  const uint64_t tseed = TensorSeed(seed, spec.name);
  for (uint64_t first = 0; first < total; first += kBufferElems) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kBufferElems, total - first));
    const size_t chunks = (n + kChunk - 1) / kChunk;
    pool.ParallelFor(chunks, [&](size_t cb, size_t ce) {
      for (size_t c = cb; c < ce; ++c) {
        const size_t b = c * kChunk, e = std::min(n, b + kChunk);
        GenerateInit(rule, tseed, first + b, e - b, f32.data() + b);
        if (spec.dtype == DType::BF16) {
          for (size_t i = b; i < e; ++i) {
            const uint16_t h = kernels::f32_to_bf16(f32[i]);
            bytes[2 * i] = static_cast<uint8_t>(h);
            bytes[2 * i + 1] = static_cast<uint8_t>(h >> 8);
          }
        }
      }
    });
    if (spec.dtype == DType::BF16) {
      w.Append(bytes.data(), n * 2);
    } else if (spec.dtype == DType::F32) {
      w.Append(f32.data(), n * 4);  // little-endian host (x86-64 / aarch64)
    } else {
      throw Error("internal: make-model cannot write dtype " + std::string(DTypeName(spec.dtype)) + " (" +
                  spec.name + ")");
    }
  }
}

}  // namespace

ModelShape ParseModelShape(const std::string& name) {
  std::string s = name;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "tiny") return ModelShape::kTiny;
  if (s == "0.8b") return ModelShape::k0_8B;
  if (s == "2b") return ModelShape::k2B;
  if (s == "4b") return ModelShape::k4B;
  throw Error("unknown model shape '" + name + "'; choose tiny, 0.8b, 2b or 4b");
}

const char* ModelShapeName(ModelShape shape) {
  switch (shape) {
    case ModelShape::kTiny: return "tiny";
    case ModelShape::k0_8B: return "0.8b";
    case ModelShape::k2B: return "2b";
    case ModelShape::k4B: return "4b";
  }
  return "?";
}

ModelConfig ConfigForShape(ModelShape shape) {
  ModelConfig c;
  c.model_type = "qwen3_5";
  c.image_token_id = kImagePad;
  c.video_token_id = kVideoPad;
  c.vision_start_token_id = kVisionStart;
  c.vision_end_token_id = kVisionEnd;
  TextConfig& t = c.text;
  VisionConfig& v = c.vision;
  t.eos_token_ids = {kEndOfText};  // as the checkpoints: text_config.eos_token_id = <|endoftext|>
  t.max_position_embeddings = 262144;
  t.rope_theta = 1e7;
  t.partial_rotary_factor = 0.25;
  t.mrope_interleaved = true;
  t.linear_conv_kernel_dim = 4;
  if (shape == ModelShape::kTiny) {  // tests/data/tiny-a/config.json
    t.vocab_size = 4096;
    t.hidden_size = 64;
    t.intermediate_size = 128;
    t.num_hidden_layers = 8;
    t.num_attention_heads = 4;
    t.num_key_value_heads = 2;
    t.head_dim = 32;
    t.linear_key_head_dim = t.linear_value_head_dim = 16;
    t.linear_num_key_heads = 2;
    t.linear_num_value_heads = 4;
    t.mrope_section = {2, 1, 1};
    t.tie_word_embeddings = false;
    v.depth = 2;
    v.hidden_size = 32;
    v.intermediate_size = 64;
    v.num_heads = 2;
    v.out_hidden_size = 64;
    v.num_position_embeddings = 64;
  } else {
    const Sizes s = RealSizes(shape);
    t.vocab_size = 248320;
    t.hidden_size = s.hidden;
    t.intermediate_size = s.inter;
    t.num_hidden_layers = s.layers;
    t.num_attention_heads = s.nq;
    t.num_key_value_heads = s.nkv;
    t.head_dim = 256;
    t.linear_key_head_dim = t.linear_value_head_dim = 128;
    t.linear_num_key_heads = s.nk;
    t.linear_num_value_heads = s.nv;
    t.mrope_section = {11, 11, 10};
    t.tie_word_embeddings = true;
    v.depth = s.v_depth;
    v.hidden_size = s.v_hidden;
    v.intermediate_size = s.v_inter;
    v.num_heads = s.v_heads;
    v.out_hidden_size = s.v_out;
    v.num_position_embeddings = 2304;
  }
  v.in_channels = 3;
  v.patch_size = 16;
  v.temporal_patch_size = 2;
  v.spatial_merge_size = 2;
  v.hidden_act = "gelu_pytorch_tanh";
  v.rope_theta = 10000.0;
  t.layer_types.clear();
  for (int i = 0; i < t.num_hidden_layers; ++i)  // (L, L, L, F) repeated
    t.layer_types.push_back((i + 1) % 4 == 0 ? LayerType::kFullAttention : LayerType::kLinearAttention);
  return c;
}

std::string ToHfConfigJson(const ModelConfig& c) {
  const TextConfig& t = c.text;
  const VisionConfig& v = c.vision;
  json layer_types = json::array();
  for (LayerType lt : t.layer_types)
    layer_types.push_back(lt == LayerType::kFullAttention ? "full_attention" : "linear_attention");
  json eos = t.eos_token_ids.size() == 1 ? json(t.eos_token_ids[0]) : json(t.eos_token_ids);
  if (t.eos_token_ids.empty()) eos = nullptr;
  json text = {
      {"model_type", "qwen3_5_text"},
      {"attention_bias", false},
      {"attention_dropout", 0.0},
      {"attn_output_gate", true},
      {"bos_token_id", nullptr},
      {"dtype", "bfloat16"},
      {"eos_token_id", eos},
      {"full_attention_interval", 4},
      {"head_dim", t.head_dim},
      {"hidden_act", "silu"},
      {"hidden_size", t.hidden_size},
      {"initializer_range", 0.02},
      {"intermediate_size", t.intermediate_size},
      {"layer_types", layer_types},
      {"linear_conv_kernel_dim", t.linear_conv_kernel_dim},
      {"linear_key_head_dim", t.linear_key_head_dim},
      {"linear_num_key_heads", t.linear_num_key_heads},
      {"linear_num_value_heads", t.linear_num_value_heads},
      {"linear_value_head_dim", t.linear_value_head_dim},
      {"mamba_ssm_dtype", "float32"},
      {"max_position_embeddings", t.max_position_embeddings},
      {"mtp_num_hidden_layers", 1},  // mtp.* written as the released checkpoints have them
      {"num_attention_heads", t.num_attention_heads},
      {"num_hidden_layers", t.num_hidden_layers},
      {"num_key_value_heads", t.num_key_value_heads},
      {"pad_token_id", nullptr},
      {"partial_rotary_factor", t.partial_rotary_factor},
      {"rms_norm_eps", t.rms_norm_eps},
      {"rope_parameters",
       {{"rope_type", "default"},
        {"rope_theta", t.rope_theta},
        {"partial_rotary_factor", t.partial_rotary_factor},
        {"mrope_section", t.mrope_section},
        {"mrope_interleaved", t.mrope_interleaved}}},
      {"tie_word_embeddings", t.tie_word_embeddings},
      {"use_cache", true},
      {"vocab_size", t.vocab_size},
  };
  json vision = {
      {"model_type", "qwen3_5_vision"},
      {"deepstack_visual_indexes", json::array()},
      {"depth", v.depth},
      {"dtype", "bfloat16"},
      {"hidden_act", v.hidden_act},
      {"hidden_size", v.hidden_size},
      {"in_channels", v.in_channels},
      {"initializer_range", 0.02},
      {"intermediate_size", v.intermediate_size},
      {"layer_norm_eps", v.layer_norm_eps},
      {"num_heads", v.num_heads},
      {"num_position_embeddings", v.num_position_embeddings},
      {"out_hidden_size", v.out_hidden_size},
      {"patch_size", v.patch_size},
      {"rope_parameters", {{"rope_type", "axial"}, {"rope_theta", v.rope_theta}}},
      {"spatial_merge_size", v.spatial_merge_size},
      {"temporal_patch_size", v.temporal_patch_size},
  };
  json top = {
      {"architectures", {"Qwen3_5ForConditionalGeneration"}},
      {"model_type", c.model_type.empty() ? std::string("qwen3_5") : c.model_type},
      {"dtype", "bfloat16"},
      {"image_token_id", c.image_token_id},
      {"video_token_id", c.video_token_id},
      {"vision_start_token_id", c.vision_start_token_id},
      {"vision_end_token_id", c.vision_end_token_id},
      {"tie_word_embeddings", t.tie_word_embeddings},
      {"text_config", text},
      {"vision_config", vision},
      {"transformers_version", "5.16.0.dev0"},
  };
  return top.dump(2) + "\n";
}

MakeModelResult MakeRandomModel(const MakeModelOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (o.out_dir.empty()) throw Error("make-model needs an output folder");
  const fs::path out(o.out_dir);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (!fs::is_directory(out)) throw Error("cannot create the output folder " + o.out_dir);

  const ModelConfig config = ConfigForShape(o.shape);
  const std::string config_text = ToHfConfigJson(config);
  // Round-trip through the real parser: never write a config the engine would refuse.
  ModelConfig::FromJsonText(config_text, (out / "config.json").string());
  CopySideFiles(o, out);

  MakeModelResult r;
  r.weights_path = (out / "model.safetensors").string();
  std::vector<TensorSpec> specs = Qwen35TensorManifest(config);
  for (TensorSpec& s : Qwen35MtpTensorManifest(config)) specs.push_back(std::move(s));
  r.tensors = static_cast<int64_t>(specs.size());
  uint64_t payload = 0;
  for (const auto& s : specs) {
    r.parameters += s.numel();
    payload += s.nbytes();
  }
  kernels::ThreadPool pool(o.threads);
  std::vector<float> f32(kBufferElems);
  std::vector<uint8_t> bytes(kBufferElems * 2);
  SafetensorsWriter w(r.weights_path, std::move(specs), {{"format", "pt"}});
  uint64_t done = 0;
  for (const TensorSpec& s : w.order()) {
    WriteTensor(w, s, InitRuleFor(s, config.text.linear_conv_kernel_dim), o.seed, pool, f32, bytes);
    done += s.nbytes();
    if (o.progress) o.progress(s.name, payload ? static_cast<double>(done) / static_cast<double>(payload) : 1.0);
  }
  w.Finish();
  // config.json last (issue 35): a folder whose make-model was killed has no config.json (a new
  // folder) or the earlier one, which does not match the new weights' shapes; either way loading it
  // is refused with a line, never taken for a whole model.
  WriteText(out / "config.json", config_text);
  r.bytes = fs::file_size(r.weights_path);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace glance
