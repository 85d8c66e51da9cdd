#pragma once
// A JSON grammar compiled from a JSON Schema, for constrained decoding (issue 29): a graph of
// nodes that the pushdown automaton of json_automaton.h walks byte by byte.
//
// The schema language is the subset OpenAI's Structured Outputs take in strict mode
// (platform.openai.com/docs/guides/structured-outputs, "Supported schemas"): type object,
// array, string, number, integer, boolean, null (or a list of them), enum, const, properties,
// required, additionalProperties false, items, minItems, maxItems, anyOf, $ref to "#",
// "#/$defs/NAME" or "#/definitions/NAME"; on strings pattern, format (the formats of
// json_string_rule.h's FormatDfa), minLength and maxLength (json_string_rule.h); minimum/maximum (and the exclusive forms) on integers
// only where every integer the grammar writes meets them (zod's .int() safe-integer bounds);
// annotations (title, description, $comment, examples, default, $schema, $id) are read and ignored. Every other keyword is refused with an error
// naming it and where it is: the grammar must accept exactly documents the schema accepts, so a
// keyword it cannot enforce (a regex feature or format it lacks, minimum, oneOf, ...) is an error, never
// silently dropped.
//
// The documents it generates are a subset of those the schema accepts, chosen so that every
// accepted prefix can still be completed and a random model still ends:
//   * an object's properties come in the schema's order (as OpenAI's strict mode writes them),
//     each at most once; optional ones may be left out; keys are written as JSON-encoded in
//     the schema (no escapes of other characters);
//   * an object with no properties listed and additionalProperties not false, and the plain
//     `json_object` mode, take any keys in any order (any JSON values);
//   * whitespace only between the tokens of an object or array, at most kMaxGapWhitespace bytes
//     at a time; none before or after the document;
//   * numbers have at most 15 integer digits, 15 fraction digits and a 2-digit exponent;
//   * containers nest at most kMaxDepth deep.
// Each node is checked satisfiable at compile time (an object whose required property can
// never be written, an empty enum, a $ref cycle with no way out), so no state the automaton
// accepts is a dead end.
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/text/json_string_rule.h"

namespace glance::text {

inline constexpr int kMaxGapWhitespace = 32;
inline constexpr int kMaxDepth = 48;
inline constexpr int kMaxIntegerDigits = 15;
inline constexpr int kMaxFractionDigits = 15;
inline constexpr int kMaxExponentDigits = 2;
inline constexpr int kMaxObjectProperties = 64;  // one bit each in the automaton's key state

struct GrammarNode {
  enum class Kind : uint8_t {
    kAnyObject,  // any keys, any values
    kAnyArray,   // any values (also a schema array without items)
    kObject,     // the listed properties in order
    kArray,      // `items`, between min_items and max_items of them
    kString,
    kNumber,
    kInteger,
    kLiterals,   // one of `literals` (enum, const, boolean, null)
    kAnyOf,      // one of `alternatives` (never kAnyOf themselves)
  };
  struct Property {
    std::string key;  // JSON-encoded, with its quotes: "\"name\""
    int32_t node = 0;
    bool required = false;
  };
  Kind kind = Kind::kAnyObject;
  std::vector<Property> properties;     // kObject
  int32_t items = 0;                    // kArray, kAnyArray: the item node
  uint32_t min_items = 0;               // kArray
  uint32_t max_items = UINT32_MAX;      // kArray
  std::vector<std::string> literals;    // kLiterals: compact JSON texts, sorted, distinct
  std::vector<int32_t> alternatives;    // kAnyOf
  int32_t string_rule = -1;             // kString: index into JsonGrammar::string_rules, -1 any string
};

struct JsonGrammar {
  std::vector<GrammarNode> nodes;
  int32_t root = 0;
  std::vector<StringRule> string_rules;  // pattern/format/minLength/maxLength of kString nodes
  // Fixed nodes every grammar has (any JSON value is kAnyValue's alternatives).
  static constexpr int32_t kAnyValue = 0, kAnyObjectNode = 1, kAnyArrayNode = 2, kStringNode = 3,
                           kNumberNode = 4, kTrueFalseNull = 5;
};

// `response_format: {"type": "json_object"}`: any JSON object.
std::shared_ptr<const JsonGrammar> AnyJsonObjectGrammar();

// Compiles a JSON Schema (the subset above). Throws glance::Error naming the keyword and its
// place in the schema, e.g. "JSON schema at #/properties/age: keyword 'minimum' is not
// supported (...)". nlohmann::json keeps an object's keys sorted, so properties come in
// sorted order here; CompileJsonSchemaText reads the order the text wrote them in.
std::shared_ptr<const JsonGrammar> CompileJsonSchema(const nlohmann::json& schema);
// The same from the schema's JSON text (`source` names it in a parse error).
std::shared_ptr<const JsonGrammar> CompileJsonSchemaText(const std::string& text, const std::string& source);

}  // namespace glance::text
