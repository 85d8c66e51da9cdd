#pragma once
// A reference folder (tests/data/tiny-a's format: the model, golden.json, golden.safetensors,
// the image) whose reference outputs come from Glance's own f32 CPU engine instead of Hugging
// Face. Why: `check --backend npu-emu` measures the NPU numerics against a reference, and only
// the goldens have a Hugging Face one; the demo model and make-model shapes (the released
// models' head geometry) have none, and no torch here to make one. The f32 CPU engine is the
// reference on those: it equals Hugging Face to ~1e-5 on the goldens (check's f32 gates) and
// on the demo model (the twin), so the NPU gates measure the same thing there — the NPU
// numerics against f32 — only the tokenizer and chat-template gates are skipped (no
// tokenizer_cases.json / chat_template_renders.json).
//
// What it writes: golden.json (prompt: one user message, the image then `prompt`; thinking off;
// "reference": "glance f32 CPU engine"), image.png (a copy), golden.safetensors with
// vision.image_embeds, prompt.input_ids, prefill.logits (every position), decode.tokens (the
// engine's greedy tokens) and decode.logits (step 0 from the prompt, step s after feeding
// token s-1, as RunCheck teacher-forces them). The model's files are linked, not copied.
#include <cstdint>
#include <string>

namespace glance::checks {

struct EngineReferenceOptions {
  std::string model_dir;
  std::string image;  // a PNG or JPEG
  std::string prompt = "Describe this image.";
  int steps = 16;     // greedy decode steps (>= 2)
  int threads = 0;
};

// Writes the reference folder at out_dir (created; reference files there are replaced).
// Throws glance::Error naming the model, image or out_dir on failure.
void WriteEngineReference(const EngineReferenceOptions& options, const std::string& out_dir);

}  // namespace glance::checks
