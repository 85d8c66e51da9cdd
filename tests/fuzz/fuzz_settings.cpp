// The settings file (ui/settings_store.h over QSettings' INI format, core/settings/registry.h):
// a hand-edited or damaged file must read as valid values or the defaults, never crash.
#include <QSettings>
#include <QString>
#include <memory>

#include "core/settings/registry.h"
#include "tests/fuzz/fuzz_util.h"
#include "ui/settings_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = glance::fuzz::WriteScratch("settings.ini", glance::fuzz::AsText(data, size));
  glance::ui::SettingsStore store(
      std::make_unique<QSettings>(QString::fromStdString(path), QSettings::IniFormat));
  (void)store.values();
  for (const auto& key : store.backend().allKeys()) (void)store.value(key.mid(key.indexOf(QLatin1Char('/')) + 1));
  return 0;
}
