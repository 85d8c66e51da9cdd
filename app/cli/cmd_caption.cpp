// glance-cli caption IMAGE: one image, one question, the answer streamed to stdout.
// glance-cli caption DIR --out FILE.jsonl|.csv: every image of a folder, resumable
// (core/engine/caption_folder.h), with a progress bar on a terminal.
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "app/cli/arg_parser.h"
#include "app/cli/caption_progress.h"
#include "app/cli/command.h"
#include "app/cli/json_output.h"
#include "app/cli/session_flags.h"
#include "core/engine/caption_folder.h"
#include "core/engine/json_constraint.h"
#include "core/text/json_grammar.h"
#include "core/util/read_file.h"

namespace glance::cli {
namespace {

// --json-schema FILE: the schema's text, compiled once here so a bad schema fails before the
// model loads (the error names the file and the keyword). Empty when the flag is absent.
std::string JsonSchemaFlag(const ArgParser& p) {
  const auto path = p.Get("json-schema");
  if (!path) return {};
  const std::string text = ReadWholeFile(*path, "--json-schema " + *path + ": cannot read the file");
  try {
    text::CompileJsonSchemaText(text, *path);
  } catch (const Error& e) {
    throw Error("--json-schema " + *path + ": " + e.what());
  }
  return text;
}

// Every answer a JSON document valid against the schema (constrained decoding, issue 29).
void ApplyJsonSchema(GenerateOptions& options, const std::string& schema, const std::string& path,
                     JsonConstraintCache& cache) {
  if (schema.empty()) return;
  options.constraint = cache.ForSchemaText(schema, "--json-schema " + path);
  options.enable_thinking = false;  // the answer starts with the document
}

// A constrained answer cut by --max-tokens is not a document: an error, never written.
void CheckWhole(const TurnResult& r, const GenerateOptions& options, const std::string& what) {
  if (options.constraint && r.stop_reason != "eos")
    throw Error(what + ": the JSON answer did not finish within --max-tokens " + std::to_string(options.max_new_tokens) +
                " tokens (" + r.stop_reason + "); raise --max-tokens");
}

int CaptionDir(const ArgParser& p, const std::string& dir) {
  if (p.Has("json")) throw Error("--json is for one image; a folder's captions go to --out FILE.jsonl");
  const auto out = p.Get("out");
  if (!out) throw Error(dir + " is a folder: give --out captions.jsonl (or .csv) to caption every image in it");
  CaptionFormatForPath(*out);  // a bad extension fails before the model loads
  const std::string schema = JsonSchemaFlag(p);
  auto engine = LoadEngineFromFlags(p);
  JsonConstraintCache schemas(engine->tokenizer());
  const auto mode = ParseMode(p);
  GenerateOptions options = ParseGenerateOptions(p);
  ResolveSpeculative(options, *engine);
  options.capture_attention = false;
  ApplyJsonSchema(options, schema, p.Get("json-schema", ""), schemas);
  const std::string prompt = p.Get("prompt", "Describe this image.");
  const auto system = p.Get("system");
  auto captioner = [&](const std::string& path) {
    Session session(engine);
    if (system) session.SetSystemPrompt(*system);
    try {
      session.AttachImage(path, mode);
      const TurnResult r = session.Send(prompt, options);
      CheckWhole(r, options, path);
      return r.text;
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      // One bad image must not end a folder run (an allocation refused by a decoder, ...).
      throw Error(path + ": " + e.what());
    }
  };
  CaptionProgress progress(::isatty(STDERR_FILENO) == 1);
  CaptionFolderCallbacks cb;
  cb.on_start = [&](const CaptionFolderProgress& pr) { progress.Start(pr); };
  cb.on_captioned = [&](const CaptionRecord& rec, const CaptionFolderProgress& pr) { progress.Captioned(rec, pr); };
  cb.on_failed = [&](const std::string& file, const std::string& error) {
    progress.Note("skipped " + file + ": " + error);
  };
  cb.on_duplicate = [&](const std::string& file, const std::string& same_as) {
    progress.Note("skipped " + file + ": the same image as " + same_as);
  };
  const CaptionFolderSummary s = CaptionFolder(dir, *out, captioner, cb, /*json_captions=*/!schema.empty());
  progress.Finish();
  if (!s.recovered.empty()) std::fprintf(stderr, "note: %s\n", s.recovered.c_str());
  std::fprintf(stderr, "%d images: %d captioned, %d already in %s, %d duplicates, %d failed\n", s.images,
               s.captioned, s.already_done, out->c_str(), s.duplicates, s.failed);
  return s.failed > 0 ? 1 : 0;
}

int CaptionImage(const ArgParser& p, const std::string& image) {
  if (p.Has("out")) throw Error("--out is for a folder of images; " + image + " is one image");
  const std::string schema = JsonSchemaFlag(p);
  auto engine = LoadEngineFromFlags(p);
  JsonConstraintCache schemas(engine->tokenizer());
  Session session(engine);
  if (auto sys = p.Get("system")) session.SetSystemPrompt(*sys);
  const ImageInfo info = session.AttachImage(image, ParseMode(p));
  GenerateOptions options = ParseGenerateOptions(p);
  ResolveSpeculative(options, *engine);
  options.capture_attention = p.Has("json") && !p.Has("no-attention");
  ApplyJsonSchema(options, schema, p.Get("json-schema", ""), schemas);
  const bool json = p.Has("json");
  if (!json)
    std::fprintf(stderr, "%s: %dx%d -> %dx%d, %dx%d = %d tokens\n", image.c_str(), info.source_w,
                 info.source_h, info.resized_w, info.resized_h, info.grid_w, info.grid_h, info.tokens());
  StreamCallbacks cb;
  if (!json) cb.on_text = [](const std::string& piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
  };
  const TurnResult r = session.Send(p.Get("prompt", "Describe this image."), options, cb);
  if (!json) CheckWhole(r, options, image);
  if (json) {
    std::printf("%s\n", CaptionJson(engine->info(), info, r).c_str());
  } else {
    std::printf("\n");
    std::fflush(stdout);  // the caption's line ends before the stats line, also when both go to one pipe
    std::fprintf(stderr, "%s\n", StatsLine(r.stats).c_str());
  }
  return 0;
}

int Caption(const Args& args) {
  auto flags = SessionValueFlags();
  flags.insert("prompt");
  flags.insert("out");
  flags.insert("json-schema");
  ArgParser p(args, flags, {"json", "no-attention"});
  if (p.positional().size() > 1) throw Error("caption takes one IMAGE or one folder");
  if (p.positional().empty()) {
    const std::string image = DefaultDemoImagePath();
    std::fprintf(stderr, "note: no IMAGE given; using the bundled demo image %s\n", image.c_str());
    return CaptionImage(p, image);
  }
  const std::string& target = p.positional()[0];
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) return CaptionDir(p, target);
  return CaptionImage(p, target);
}

Register reg("caption",
             "caption [IMAGE] [--model DIR] [--prompt TEXT] [--mode fast|detail] [--max-tokens N] "
             "[--json] [--json-schema FILE] [--threads N] [--temperature T --top-k K --top-p P --min-p P --seed S]\n"
             "      caption DIR --out FILE.jsonl|FILE.csv [same options]  (every image in DIR; run it again "
             "to resume)",
             "caption an image or a folder of images (default: the bundled demo image and model)", Caption);

}  // namespace
}  // namespace glance::cli
