#pragma once
// One way to read a whole file into memory, for the small text files a model folder holds
// (config.json, tokenizer.json, chat_template.jinja, ...).
#include <string>

namespace glance {

// The file's bytes. Throws glance::Error(cannot_open) when it cannot be opened, and
// "<path>: read error" when reading stops part way.
std::string ReadWholeFile(const std::string& path, const std::string& cannot_open);

}  // namespace glance
