#include "ui/model_download_catalogue.h"

namespace glance::ui {

QList<CatalogueFile> StandardQwen35Files() {
  QList<CatalogueFile> files;
  auto add = [&files](const char* name, bool optional = false, bool weights = false) {
    CatalogueFile f;
    f.name = QString::fromLatin1(name);
    f.optional = optional;
    f.weights = weights;
    files.append(f);
  };
  // Small files first: a wrong repository name fails fast, before gigabytes of weights.
  add("config.json");
  add("tokenizer.json");
  add("tokenizer_config.json");
  add("chat_template.jinja");
  add("preprocessor_config.json");
  add("generation_config.json", /*optional=*/true);
  add("model.safetensors", /*optional=*/false, /*weights=*/true);
  return files;
}

QList<CatalogueModel> ModelCatalogue() {
  auto model = [](const char* repo, const char* title, const char* description, double gigabytes) {
    CatalogueModel m;
    m.approx_bytes = static_cast<qint64>(gigabytes * 1e9);
    m.repo = QString::fromLatin1(repo);
    m.title = QString::fromLatin1(title);
    m.description = QString::fromLatin1(description);
    m.files = StandardQwen35Files();
    return m;
  };
  return {
      model("Qwen/Qwen3.5-0.8B", "Qwen3.5 0.8B (BF16)",
            "Smallest and fastest; about 1.8 GB. Good for captions on any laptop.", 1.8),
      model("Qwen/Qwen3.5-2B", "Qwen3.5 2B (BF16)",
            "Better answers; about 4.5 GB. Wants 8 GB of RAM.", 4.5),
      model("Qwen/Qwen3.5-4B", "Qwen3.5 4B (BF16)",
            "Best answers; about 9 GB. Wants 16 GB of RAM.", 9.0),
      model("cyankiwi/Qwen3.5-2B-AWQ-4bit", "Qwen3.5 2B (AWQ 4-bit)",
            "2B quantized to 4 bits (AWQ); about 2 GB, faster on the CPU.", 2.0),
      model("cyankiwi/Qwen3.5-4B-AWQ-4bit", "Qwen3.5 4B (AWQ 4-bit)",
            "4B quantized to 4 bits (AWQ); about 3.5 GB, faster on the CPU.", 3.5),
  };
}

}  // namespace glance::ui
