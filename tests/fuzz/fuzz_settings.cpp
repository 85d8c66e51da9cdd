// The settings file (ui/settings_file.h, read through ui/settings_store.h and
// core/settings/registry.h): a hand-edited or damaged file must read as valid values or the
// defaults (set aside with a notice), never crash.
#include <QString>

#include "core/settings/registry.h"
#include "tests/fuzz/fuzz_util.h"
#include "ui/settings_file.h"
#include "ui/settings_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = glance::fuzz::WriteScratch("settings.json", glance::fuzz::AsText(data, size));
  glance::ui::SettingsStore store(QString::fromStdString(path));
  (void)store.values();
  for (const auto& key : store.backend().allKeys()) (void)store.value(key.mid(key.indexOf(QLatin1Char('/')) + 1));
  return 0;
}
