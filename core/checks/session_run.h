#pragma once
// The reference conversation through a Session, as a user sends it (docs/design.md "The checks
// use the product's prompt path"): the folder's image(s) attached in detail mode, golden.json's
// prompt sent with the golden tokens as the answer (teacher forcing,
// GenerateOptions::forced_tokens), then the second turn's message sent the same way. The
// Session renders each turn itself (its one PromptStream), prefills from its own snapshots and
// feeds the answer through its decode loop, so a regression anywhere on that path shows in two
// gates of every check kind (gate_table.cpp):
//   "session prompt ids": turn 1's stream equals the reference's prompt.input_ids, turn 2's
//     equals Hugging Face's render of the two-turn conversation (turn2.template_render_ids);
//   "session logits": turn 1's teacher-forced logits equal the reference path's (check_run.h,
//     gated against the golden), turn 2's those of a from-scratch pass over the Session's own
//     turn-2 ids, to float rounding (the two differ only in where the prefill is split).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/checks/gate_table.h"
#include "core/engine/prompt_stream.h"
#include "core/engine/session.h"

namespace glance {
class Engine;
}  // namespace glance

namespace glance::checks {

class ReferenceData;

// What the Session is sent. Read from the folder by SessionScriptFromReference; the tests alter
// it to show that the gates fail when the Session feeds something else.
struct SessionScript {
  std::string system_prompt;
  std::vector<std::string> images;  // the first message's images, in order
  // The first message in order: text parts and image parts (indices into `images`), so text
  // before, between and after images is sent as the reference wrote it.
  std::vector<MessagePart> parts;
  std::optional<bool> enable_thinking;
  std::vector<int32_t> tokens;       // turn 1's answer: decode.tokens
  std::string turn2_user_text;       // empty: the folder has no second turn
  std::vector<int32_t> turn2_tokens;  // turn2.tokens
};

// Throws glance::Error naming what a Session cannot send: anything but one user message (text
// and images in any order), optionally after a system message of text.
SessionScript SessionScriptFromReference(const ReferenceData& ref);

struct SessionRun {
  PromptStream prompt;                      // turn 1 as the Session built it
  std::vector<std::vector<float>> decode;   // [tokens][vocab]: turn 1's teacher-forced logits
  PromptStream turn2_prompt;                // empty when there is no second turn
  std::vector<std::vector<float>> turn2;    // [turn2 tokens][vocab]
  // The reference side of turn 2: the same rows from one all-row pass over turn2_prompt and
  // turn2_tokens on a fresh state (PrefillRows), with the reference's image features.
  std::vector<std::vector<float>> turn2_scratch;
};

// `features`: image k's merged vision features from the reference path (for turn 2's scratch).
SessionRun RunSession(const SessionScript& script, const std::shared_ptr<const Engine>& engine,
                      std::span<const float* const> features);

// The gate "session prompt ids": kMismatches = turns whose ids differ from the reference's.
Measurement MeasureSessionIds(const ReferenceData& ref, const SessionRun& run);
// The gate "session logits": kMaxAbs over every step of both turns and kMismatches = steps
// whose argmax differs. `reference_decode`: the reference path's turn-1 rows (CheckRun::decode).
Measurement MeasureSessionLogits(const SessionRun& run, const std::vector<std::vector<float>>& reference_decode);

}  // namespace glance::checks
