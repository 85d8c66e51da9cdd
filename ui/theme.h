#pragma once
// Light and dark palettes. "System" keeps the palette the platform gave us at start-up, so the
// app follows the desktop's colour scheme; Light/Dark are explicit Fusion palettes.
#include <QString>

namespace glance::ui {

enum class Theme { kSystem, kLight, kDark };

void ApplyTheme(Theme theme);
Theme ThemeFromString(const QString& name);  // "system" | "light" | "dark"
QString ThemeToString(Theme theme);

}  // namespace glance::ui
