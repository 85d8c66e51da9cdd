// English plural forms for the sources' own language (issue 34). A count goes through Qt's
// numerus form, tr("%n image(s)", nullptr, n), so each translation can give its language's
// plural forms (German two, Polish three); English needs a translation too, for its two
// ("1 image", "3 images"), or it shows the source's "(s)". resources/translations/plurals_en.ts
// holds only those messages (lupdate -pluralonly; built into :/i18n/plurals).
//
// Installed as the application object starts, before any other translator, so a language's
// own translation (installed later, so asked first) still wins. Compiled into every program that
// links glance_ui (an INTERFACE source): in a static library an object file nothing calls into
// would be dropped, and the windows' tests need the English forms as much as the app does.
#include <QCoreApplication>
#include <QString>
#include <QTranslator>

namespace {

void InstallEnglishPluralForms() {
  auto* forms = new QTranslator(QCoreApplication::instance());
  if (forms->load(QStringLiteral(":/i18n/plurals/plurals_en.qm")))
    QCoreApplication::installTranslator(forms);
  else
    delete forms;  // a build without it: "(s)" shows, nothing else changes
}

}  // namespace

Q_COREAPP_STARTUP_FUNCTION(InstallEnglishPluralForms)
