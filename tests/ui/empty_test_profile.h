#pragma once
// A test binary's QStandardPaths test-mode profile (~/.qttest), emptied before its tests: a
// MainWindow restores the last chat, its settings and its folder state, so a second run on the
// same machine started from what the first one left (an answered chat made a dropped image ask
// in a modal dialog, and dropStreamsACaption waited on it until the watchdog). Only this binary's
// own files (named after it) are removed: other test binaries may run beside it.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include "ui/settings_file.h"

inline void StartWithAnEmptyTestProfile() {
  QStandardPaths::setTestModeEnabled(true);
  QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
  QFile::remove(glance::ui::SettingsFile::DefaultPath());
  QFile::remove(glance::ui::SettingsFile::LegacyPath());
}
