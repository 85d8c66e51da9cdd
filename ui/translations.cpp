#include "ui/translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>

namespace glance::ui {

QStringList AvailableTranslations() {
  QStringList languages;
  const QStringList files = QDir(QString::fromLatin1(kTranslationsResourceDir))
                                .entryList({QStringLiteral("glance_*.qm")}, QDir::Files, QDir::Name);
  for (const QString& file : files)
    languages << file.mid(7, file.size() - 7 - 3);  // "glance_" ... ".qm"
  return languages;
}

QString InstallTranslations(const QLocale& locale) {
  auto* app = QCoreApplication::instance();
  if (!app) return {};
  for (const QString& name : locale.uiLanguages()) {
    const QLocale language(name);
    if (language.language() == QLocale::English) return {};  // the sources' own language
    auto* glance = new QTranslator(app);
    if (!glance->load(language, QStringLiteral("glance"), QStringLiteral("_"),
                      QString::fromLatin1(kTranslationsResourceDir))) {
      delete glance;
      continue;
    }
    QCoreApplication::installTranslator(glance);
    // Qt's own dialogs and buttons (OK, Cancel, Restore Defaults, the file dialog): best effort.
    auto* qt = new QTranslator(app);
    if (qt->load(language, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
      QCoreApplication::installTranslator(qt);
    else
      delete qt;
    return glance->language();
  }
  return {};
}

}  // namespace glance::ui
