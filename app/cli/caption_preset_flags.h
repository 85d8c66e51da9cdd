#pragma once
// `glance-cli caption ... --preset NAME [--preset-file FILE.json] [--var name=VALUE]...` (issue 33):
// the caption preset (core/engine/caption_preset.h) the flags name, turned into the question
// asked of each image and the generation options. Checked before the model loads: an unknown
// preset, a bad presets file, a placeholder without a --var or a --var no placeholder uses is one
// line naming it.
//
// Where NAME is looked up: the built-ins, then --preset-file, then the presets saved in the
// desktop app (core/engine/caption_preset.h DefaultCaptionPresetsPath(), read only when NAME is
// in neither of the others). Flags given on the command line win over the preset: --max-tokens
// over its length, any sampling flag (--temperature, --top-p, --seed, --sampling, ...) over its
// sampling; --prompt together with --preset is refused (both say what to ask).
#include <optional>
#include <string>

#include "app/cli/arg_parser.h"
#include "core/engine/caption_preset.h"

namespace glance::cli {

// The flags this adds to a command's ArgParser: value flags, and the repeatable --var.
inline constexpr const char* kPresetValueFlags[] = {"preset", "preset-file"};
inline constexpr const char* kPresetRepeatableFlag = "var";

struct PresetChoice {
  CaptionPreset preset;
  std::string prompt;  // the style's question and the filled instructions
};

// The preset the flags name (nullopt without --preset); throws glance::Error naming the flag.
std::optional<PresetChoice> PresetFromFlags(const ArgParser& p);

// `options` with the preset's length and sampling, except where a flag says otherwise.
void ApplyPresetFlags(const PresetChoice& choice, const ArgParser& p, GenerateOptions& options);

// The line saying what each image is asked: preset 'tags': "List tags ..." (at most 80 tokens, greedy).
std::string DescribePresetChoice(const PresetChoice& choice, const GenerateOptions& options);

}  // namespace glance::cli
