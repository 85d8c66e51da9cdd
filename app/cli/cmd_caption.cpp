// glance-cli caption IMAGE: one image, one question, the answer streamed to stdout.
// glance-cli caption DIR --out FILE.jsonl|.csv and/or --sidecar: every image of a folder,
// resumable (core/engine/caption_folder.h), into one file and/or a caption file next to each image
// (core/engine/caption_sidecar.h), with a progress bar on a terminal.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <filesystem>
#include <sstream>

#include "app/cli/arg_parser.h"
#include "app/cli/caption_preset_flags.h"
#include "app/cli/caption_progress.h"
#include "app/cli/command.h"
#include "app/cli/json_output.h"
#include "app/cli/remote_caption_flags.h"
#include "app/cli/session_flags.h"
#include "core/engine/attention_csv.h"
#include "core/engine/caption_folder.h"
#include "core/engine/json_constraint.h"
#include "core/text/json_grammar.h"
#include "core/util/atomic_write.h"
#include "core/util/read_file.h"
#include "core/remote/remote_captioner.h"
#include "core/remote/remote_run.h"

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

// The answer as JSON: --json-schema, or a json-style preset (its schema, or any JSON object when it
// has none; --json-schema replaces its schema). Returns whether answers are JSON documents.
bool ApplyJsonAnswer(GenerateOptions& options, const std::string& schema_flag, const ArgParser& p,
                     const std::optional<PresetChoice>& preset, JsonConstraintCache& cache) {
  if (!preset || preset->preset.style != CaptionStyle::kJson) {
    ApplyJsonSchema(options, schema_flag, p.Get("json-schema", ""), cache);
    return !schema_flag.empty();
  }
  if (!schema_flag.empty()) ApplyJsonSchema(options, schema_flag, p.Get("json-schema", ""), cache);
  else if (!preset->preset.schema.empty())
    options.constraint = cache.ForSchemaText(preset->preset.schema, "preset '" + preset->preset.name + "' schema");
  else options.constraint = cache.AnyObject();
  options.enable_thinking = false;  // the answer starts with the document
  return true;
}

// --json-schema with a preset of another style: its question asks for prose.
void CheckSchemaWithPreset(const std::string& schema_flag, const std::optional<PresetChoice>& preset) {
  if (preset && !schema_flag.empty() && preset->preset.style != CaptionStyle::kJson)
    throw Error("--json-schema is for a preset of style json; --preset " + preset->preset.name + " is style " +
                CaptionStyleName(preset->preset.style));
}

// A constrained answer cut by --max-tokens is not a document: an error, never written.
void CheckWhole(const TurnResult& r, const GenerateOptions& options, const std::string& what) {
  if (options.constraint && r.stop_reason != "eos")
    throw Error(what + ": the JSON answer did not finish within --max-tokens " + std::to_string(options.max_new_tokens) +
                " tokens (" + r.stop_reason + "); raise --max-tokens");
}

void PrintSummary(const CaptionFolderSummary& s, const CaptionFolderOptions& folder) {
  if (!s.recovered.empty()) std::fprintf(stderr, "note: %s\n", s.recovered.c_str());
  for (const std::string& n : s.notices) std::fprintf(stderr, "note: %s\n", n.c_str());
  std::string line = std::to_string(s.images) + " images: " + std::to_string(s.captioned) + " captioned";
  if (!folder.out_path.empty()) line += ", " + std::to_string(s.already_done) + " already in " + folder.out_path;
  if (folder.sidecar) {
    line += ", " + std::to_string(s.sidecars_written) + (s.sidecars_written == 1 ? " sidecar written" : " sidecars written");
    if (folder.sidecar->existing == SidecarExisting::kSkip)
      line += ", " + std::to_string(s.had_sidecar) + " already had one";
    else
      line += ", " + std::to_string(s.protected_sidecars.size()) + " protected";
  } else {
    line += ", " + std::to_string(s.duplicates) + " duplicates";
  }
  line += ", " + std::to_string(s.failed) + " failed";
  std::fprintf(stderr, "%s\n", line.c_str());
  for (const std::string& f : s.protected_sidecars)
    std::fprintf(stderr, "protected: %s (edited by hand or not written by Glance; --replace-edited changes it)\n",
                 f.c_str());
}

// The sidecar flags, checked before the model loads: a bad one is one line naming it.
std::optional<SidecarOptions> SidecarFlags(const ArgParser& p) {
  if (!p.Has("sidecar")) {
    for (const char* f : {"sidecar-ext", "existing", "prefix", "replace-edited"})
      if (p.Has(f)) throw Error(std::string("--") + f + " is for --sidecar (a caption file next to each image)");
    return std::nullopt;
  }
  SidecarOptions o;
  o.ext = p.Get("sidecar-ext", o.ext);
  try {
    CheckSidecarExtension(o.ext);
  } catch (const Error& e) {
    throw Error("--sidecar-ext " + o.ext + ": " + e.what());
  }
  const std::string existing = p.Get("existing", "skip");
  try {
    o.existing = ParseSidecarExisting(existing);
  } catch (const Error& e) {
    throw Error("--existing " + existing + ": " + e.what());
  }
  o.prefix = p.Get("prefix", "");
  o.replace_edited = p.Has("replace-edited");
  if (o.replace_edited && o.existing == SidecarExisting::kSkip)
    throw Error("--replace-edited changes sidecars, which --existing skip never does; give --existing overwrite, "
                "append or prepend");
  return o;
}

// Ctrl+C during a remote folder run: the first stops handing out images and lets the requests
// in flight be answered and written; the second (the default action again) ends the process at
// once, which loses nothing either: every caption is written whole as it comes.
std::atomic<bool> g_stop_requested{false};

void OnCtrlC(int) {
  g_stop_requested = true;
  static const char kSay[] = "\nstopping: the answers on their way are written; Ctrl+C again stops at once\n";
  (void)!::write(STDERR_FILENO, kSay, sizeof kSay - 1);
}

void StopOnFirstCtrlC() {
  struct sigaction sa {};
  sa.sa_handler = OnCtrlC;
  sa.sa_flags = SA_RESETHAND;  // the second Ctrl+C: the default action
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
}

int CaptionDir(const ArgParser& p, const std::string& dir) {
  if (p.Has("json")) throw Error("--json is for one image; a folder's captions go to --out FILE.jsonl");
  if (p.Has("attention-csv")) throw Error("--attention-csv is for one image; " + dir + " is a folder");
  CheckRemoteFlags(p);
  CaptionFolderOptions folder;
  folder.sidecar = SidecarFlags(p);
  folder.recursive = p.Has("recursive");
  folder.out_path = p.Get("out", "");
  if (folder.out_path.empty() && !folder.sidecar)
    throw Error(dir + " is a folder: give --out captions.jsonl (or .csv) and/or --sidecar (photo.jpg -> photo.txt) "
                "to caption every image in it");
  if (!folder.out_path.empty()) CaptionFormatForPath(folder.out_path);  // a bad extension fails before the model loads
  const std::string schema = JsonSchemaFlag(p);
  const std::optional<PresetChoice> preset = PresetFromFlags(p);
  CheckSchemaWithPreset(schema, preset);
  GenerateOptions options = ParseGenerateOptions(p);
  if (preset) ApplyPresetFlags(*preset, p, options);
  const std::string prompt = preset ? preset->prompt : p.Get("prompt", "Describe this image.");
  const auto system = p.Get("system");
  const auto mode = ParseMode(p);
  CaptionProgress progress(::isatty(STDERR_FILENO) == 1);
  std::mutex progress_mutex;  // remote retries are said from the request threads
  Captioner captioner;
  // Why the remote server is taken for gone ("" while it answers).
  const auto server_gone = std::make_shared<remote::RemoteRunStop>();
  std::shared_ptr<const Engine> engine;
  std::optional<JsonConstraintCache> schemas;
  if (p.Has("endpoint")) {
    folder.concurrency = ConcurrencyFlag(p);
    if (const std::string problem = remote::RemoteRequestProblem(options); !problem.empty()) throw Error(problem);
    auto client = RemoteClientFromFlags(p, &g_stop_requested, [&](const std::string& line) {
      std::lock_guard lock(progress_mutex);
      progress.Note(line);
    });
    remote::RemoteCaptionRequest request;
    request.model = RemoteModelFromFlags(p, *client);
    request.system = system;
    request.prompt = prompt;
    request.mode = mode;
    // The answer as JSON: a json preset (its schema; --json-schema replaces it), or --json-schema.
    if (preset && preset->preset.style == CaptionStyle::kJson) {
      request.json_answer = true;
      request.json_schema = schema.empty() ? preset->preset.schema : schema;
    } else if (!schema.empty()) {
      request.json_answer = true;
      request.json_schema = schema;
    }
    if (request.json_answer) options.enable_thinking = false;  // the answer starts with the document
    folder.json_captions = request.json_answer;
    request.options = options;
    if (preset) std::fprintf(stderr, "%s\n", DescribePresetChoice(*preset, options).c_str());
    std::fprintf(stderr, "captioning through %s (model %s, %d at once)\n", client->url().ChatUrl().c_str(),
                 request.model.c_str(), folder.concurrency);
    // A server that stops answering altogether, or refuses the key, ends the run (each image left
    // would fail the same way); what was written stays, and the same command goes on later.
    captioner = remote::StopWhenServerUnusable(remote::MakeRemoteCaptioner(client, std::move(request)), server_gone,
                                               &g_stop_requested);
    StopOnFirstCtrlC();
  } else {
    engine = LoadEngineFromFlags(p);
    schemas.emplace(engine->tokenizer());
    ResolveSpeculative(options, *engine);
    options.capture_attention = false;
    folder.json_captions = ApplyJsonAnswer(options, schema, p, preset, *schemas);
    if (preset) std::fprintf(stderr, "%s\n", DescribePresetChoice(*preset, options).c_str());
    captioner = [&](const std::string& path) {
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
  }
  CaptionFolderCallbacks cb;
  cb.on_start = [&](const CaptionFolderProgress& pr) {
    std::lock_guard lock(progress_mutex);
    progress.Start(pr);
  };
  cb.on_captioned = [&](const CaptionRecord& rec, const CaptionFolderProgress& pr) {
    std::lock_guard lock(progress_mutex);
    progress.Captioned(rec, pr);
  };
  cb.on_failed = [&](const std::string& file, const std::string& error) {
    std::lock_guard lock(progress_mutex);
    if (server_gone->stopped()) return;  // said once, when the run stops
    progress.Note("skipped " + file + ": " + error);
  };
  cb.on_duplicate = [&](const std::string& file, const std::string& same_as) {
    std::lock_guard lock(progress_mutex);
    progress.Note("skipped " + file + ": the same image as " + same_as);
  };
  cb.cancel = &g_stop_requested;
  const CaptionFolderSummary s = CaptionFolder(dir, folder, captioner, cb);
  progress.Finish();
  PrintSummary(s, folder);
  if (server_gone->stopped()) {
    std::fprintf(stderr, "stopped: %s; every caption so far is written: run the same command again to go on\n",
                 server_gone->reason().c_str());
    return 1;
  }
  if (s.cancelled) {
    std::fprintf(stderr, "stopped (Ctrl+C); every caption so far is written: run the same command again to go on\n");
    return 130;
  }
  if (s.failed > 0 && p.Has("endpoint"))
    std::fprintf(stderr, "the failed images have no caption yet; run the same command again to try them\n");
  return s.failed > 0 ? 1 : 0;
}

int CaptionImage(const ArgParser& p, const std::string& image) {
  for (const char* f : kRemoteValueFlags)
    if (p.Has(f)) throw Error(std::string("--") + f + " is for a folder of images (caption DIR --endpoint URL); " + image +
                              " is one image");
  for (const char* f : {"out", "sidecar", "sidecar-ext", "existing", "prefix", "replace-edited", "recursive"})
    if (p.Has(f)) throw Error(std::string("--") + f + " is for a folder of images; " + image + " is one image");
  const std::string attention_csv = p.Get("attention-csv", "");
  if (p.Has("attention-csv") && attention_csv.empty()) throw Error("--attention-csv needs a FILE.csv");
  if (!attention_csv.empty() && p.Has("no-attention"))
    throw Error("--attention-csv writes the attention maps; --no-attention turns them off");
  if (!attention_csv.empty()) {  // before the model loads and the image is captioned
    const std::filesystem::path folder = std::filesystem::absolute(attention_csv).parent_path();
    std::error_code dir_ec;
    if (!std::filesystem::is_directory(folder, dir_ec))
      throw Error("--attention-csv " + attention_csv + ": the folder " + folder.string() + " does not exist");
  }
  const std::string schema = JsonSchemaFlag(p);
  const std::optional<PresetChoice> preset = PresetFromFlags(p);
  CheckSchemaWithPreset(schema, preset);
  GenerateOptions options = ParseGenerateOptions(p);
  if (preset) ApplyPresetFlags(*preset, p, options);
  auto engine = LoadEngineFromFlags(p);
  JsonConstraintCache schemas(engine->tokenizer());
  Session session(engine);
  if (auto sys = p.Get("system")) session.SetSystemPrompt(*sys);
  const ImageInfo info = session.AttachImage(image, ParseMode(p));
  ResolveSpeculative(options, *engine);
  options.capture_attention = (p.Has("json") && !p.Has("no-attention")) || !attention_csv.empty();
  ApplyJsonAnswer(options, schema, p, preset, schemas);
  if (preset) std::fprintf(stderr, "%s\n", DescribePresetChoice(*preset, options).c_str());
  const bool json = p.Has("json");
  if (!json)
    std::fprintf(stderr, "%s: %dx%d -> %dx%d, %dx%d = %d tokens\n", image.c_str(), info.source_w,
                 info.source_h, info.resized_w, info.resized_h, info.grid_w, info.grid_h, info.tokens());
  StreamCallbacks cb;
  if (!json) cb.on_text = [](const std::string& piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
  };
  const TurnResult r = session.Send(preset ? preset->prompt : p.Get("prompt", "Describe this image."), options, cb);
  if (!json) CheckWhole(r, options, image);
  if (json) {
    std::printf("%s\n", CaptionJson(engine->info(), info, r).c_str());
  } else {
    std::printf("\n");
    std::fflush(stdout);  // the caption's line ends before the stats line, also when both go to one pipe
    std::fprintf(stderr, "%s\n", StatsLine(r.stats).c_str());
  }
  if (!attention_csv.empty()) {  // the maps as CSV, one row per cell (core/engine/attention_csv.h)
    std::ostringstream csv;
    WriteAttentionCsv(csv, AttentionExport{engine->info().name, std::string(Name(engine->info().precision)),
                                           r.attention, r.words});
    WriteFileAtomically(attention_csv, csv.str());
  }
  return 0;
}

int Caption(const Args& args) {
  auto flags = SessionValueFlags();
  flags.insert("prompt");
  flags.insert("out");
  flags.insert("json-schema");
  for (const char* f : {"sidecar-ext", "existing", "prefix", "attention-csv"}) flags.insert(f);
  for (const char* f : kPresetValueFlags) flags.insert(f);
  for (const char* f : kRemoteValueFlags) flags.insert(f);
  ArgParser p(args, flags, {"json", "no-attention", "sidecar", "recursive", "replace-edited"}, {kPresetRepeatableFlag});
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
             "[--json] [--json-schema FILE] [--attention-csv FILE] [--threads N] [--temperature T --top-k K --top-p P --min-p P --seed S]\n"
             "        --attention-csv FILE: the answer's attention maps over the image as CSV, one row per cell\n"
             "        (mean, each full-attention layer's head, each DeltaNet layer's head; docs/design.md)\n"
             "      caption DIR --out FILE.jsonl|FILE.csv [same options]  (every image in DIR; run it again "
             "to resume)\n"
             "      caption DIR --sidecar [--sidecar-ext .txt|.caption] [--existing skip|overwrite|append|prepend]\n"
             "          [--prefix TEXT] [--replace-edited] [--recursive] [--out FILE] [same options]\n"
             "        photo.jpg -> photo.txt next to it, written whole (UTF-8, the caption as the model gave it,\n"
             "        no final line break). --existing, when an image has one: skip it (default; a rerun resumes),\n"
             "        overwrite it, append or prepend the new caption (joined by ', ', or a space after\n"
             "        punctuation). --prefix: a trigger word the sidecar starts with, once ('sks' -> 'sks, a dog').\n"
             "        A sidecar edited by hand (or not written by Glance; its record is .glance-sidecars.jsonl in\n"
             "        each folder) is never changed, only reported, unless --replace-edited. --recursive: subfolders\n"
             "        too (not hidden ones, not links to folders). With --out, images in FILE are done (resume in\n"
             "        every mode); without it overwrite/append/prepend act on every image each run.\n"
             "      caption IMAGE|DIR --preset NAME [--preset-file FILE.json] [--var name=VALUE]... [same options]\n"
             "        A caption preset: the question (style short, detailed, tags or json), the length, extra\n"
             "        instructions whose {placeholders} each --var fills, and the sampling. NAME is a built-in\n"
             "        (short, detailed, tags, json), one in --preset-file, or one saved in the desktop app\n"
             "        ($XDG_CONFIG_HOME/Glance/presets.json, default ~/.config/Glance/presets.json; the same JSON\n"
             "        format as its Export). --max-tokens and sampling flags given here win over the preset's.\n"
             "      caption DIR --endpoint URL [--api-key KEY] [--remote-model NAME] [--concurrency N] [--timeout SECONDS]\n"
             "          [same options]\n"
             "        Caption through an OpenAI-compatible server instead of a model loaded here: another machine's\n"
             "        glance-cli serve, llama.cpp's server, LM Studio, vLLM. URL is the server's root, with or\n"
             "        without /v1. --api-key (else $GLANCE_API_KEY) is sent as Authorization: Bearer. --remote-model:\n"
             "        the request's model (default: the server's first in /v1/models). --concurrency N: requests in\n"
             "        flight at once (1 to 64, default 1). 429/502/503/504 and lost connections are retried with a\n"
             "        growing pause (the server's Retry-After when it sends one), 6 tries in all; an image that\n"
             "        still fails is skipped and captioned on the next run. --timeout SECONDS: how long one request\n"
             "        waits for its answer (default 600); a server that accepts and never answers is then retried\n"
             "        as a lost connection, and the run stops after the 6th try. Ctrl+C: the answers on their way are\n"
             "        written, then it stops (again: at once); the same command goes on where it stopped.",
             "caption an image or a folder of images (default: the bundled demo image and model)", Caption);

}  // namespace
}  // namespace glance::cli
