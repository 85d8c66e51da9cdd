#pragma once
// Reads the `{% if add_generation_prompt %} ... {% endif %}` block of a chat template and
// evaluates it for enable_thinking unset / false / true. Understands just what such blocks
// use: `{{ 'literal' }}` output (literals joined by +), if/elif/else/endif, and conditions on
// enable_thinking (is [not] defined/true/false, ==, !=, bare, not/and/or, parentheses).
#include <array>
#include <string>

namespace glance::text {

// [0] = enable_thinking unset, [1] = false, [2] = true. Throws glance::Error naming
// `source_name` when the block is missing or uses anything else.
std::array<std::string, 3> EvaluateGenerationPrompt(const std::string& jinja_text,
                                                     const std::string& source_name);

}  // namespace glance::text
