#pragma once
// The models Glance offers to download, and the files each needs. Sizes and sha256 digests are
// optional: when absent, the downloader takes them from Hugging Face's response headers
// (X-Linked-Size / X-Linked-ETag for LFS files).
#include <QList>
#include <QString>

namespace glance::ui {

struct CatalogueFile {
  QString name;            // path inside the repository, e.g. "tokenizer.json"
  qint64 size = -1;        // expected bytes, -1 = unknown
  QString sha256;          // expected lowercase hex digest, empty = unknown
  bool optional = false;   // a 404 skips it instead of failing the download
  // The weights: when "model.safetensors" is missing (404) the repository is sharded, so the
  // downloader fetches "model.safetensors.index.json" and then every shard it names.
  bool weights = false;
};

struct CatalogueModel {
  QString repo;         // "Qwen/Qwen3.5-0.8B"
  QString title;        // "Qwen3.5 0.8B (BF16)"
  QString description;  // one line for the picker
  QList<CatalogueFile> files;
  // About how many bytes the whole folder takes (the sizes in the description), for the free
  // space check before a download; 0 = unknown.
  qint64 approx_bytes = 0;
};

// The standard file list of a Qwen3.5 checkpoint folder (what Engine::Load reads).
QList<CatalogueFile> StandardQwen35Files();
// Qwen/Qwen3.5-0.8B, -2B, -4B and 4-bit AWQ variants.
QList<CatalogueModel> ModelCatalogue();

}  // namespace glance::ui
