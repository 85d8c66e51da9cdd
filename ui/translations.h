// The desktop app's translations (issue 34): resources/translations/glance_<lang>.ts, compiled
// to .qm at build time and embedded under :/i18n, plus Qt's own strings (qtbase_<lang>.qm from
// Qt's translations folder, where the distribution installed them).
#pragma once

#include <QLocale>
#include <QStringList>
#include <QTranslator>

namespace glance::ui {

// Where the embedded .qm files live (qt_add_translations' resource prefix).
inline constexpr const char kTranslationsResourceDir[] = ":/i18n";

// The languages Glance has a translation for ("de"), from the embedded .qm files.
QStringList AvailableTranslations();

// Installs Glance's translation and Qt's for the first of `locale`'s UI languages that Glance is
// translated to (QLocale::system() follows LANGUAGE, LC_ALL, LC_MESSAGES and LANG), on the
// application and parented to it. Stops at English, the language of the sources. Returns the
// language installed (the .qm's, "de_DE"), or an empty string for none.
QString InstallTranslations(const QLocale& locale = QLocale::system());

}  // namespace glance::ui
