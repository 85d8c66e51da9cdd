#pragma once
// One way to read a whole file into memory, for the small text files a model folder holds
// (config.json, tokenizer.json, chat_template.jinja, ...).
#include <cstdint>
#include <string>

namespace glance {

// Far above any real one (a Qwen3.5 tokenizer.json is ~12 MB) and far below this machine's
// memory: a bigger file is refused before it is read.
inline constexpr uint64_t kMaxWholeFileBytes = uint64_t{1} << 30;

// The file's bytes. Throws glance::Error(cannot_open) when it cannot be opened, "<path> is not
// a regular file" for a FIFO, device or folder (a read would block or never end), one over
// kMaxWholeFileBytes, and "<path>: read error" when reading stops part way.
std::string ReadWholeFile(const std::string& path, const std::string& cannot_open);

}  // namespace glance
