// SettingsStore over QSettings and the generated SettingsDialog.
#include <sys/stat.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "core/settings/registry.h"
#include "ui/settings_dialog.h"
#include "ui/settings_store.h"

using glance::ui::SettingsDialog;
using glance::ui::SettingsStore;

namespace {
QString Q(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

class SettingsStoreTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString IniPath() const { return dir_.filePath(QStringLiteral("glance.ini")); }
  std::unique_ptr<QSettings> Ini() const {
    return std::make_unique<QSettings>(IniPath(), QSettings::IniFormat);
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
  }
  void cleanup() { QFile::remove(IniPath()); }

  void defaultsWhenEmpty() {
    SettingsStore store(Ini());
    for (const auto& k : glance::settings::Registry())
      QCOMPARE(store.value(Q(k.name)), Q(k.default_value));
    QCOMPARE(store.values(), glance::settings::Defaults());
  }

  void roundTripThroughQSettings() {
    {
      SettingsStore store(Ini());
      QSignalSpy changed(&store, &SettingsStore::valueChanged);
      QVERIFY(store.setValue(QStringLiteral("temperature"), QStringLiteral("0.70")));
      QVERIFY(store.setValue(QStringLiteral("sampling"), QStringLiteral("custom")));
      QVERIFY(store.setValue(QStringLiteral("backend"), QStringLiteral("npu-emu")));
      QVERIFY(store.setValue(QStringLiteral("system_prompt"), QStringLiteral("Be brief.\nÜber.")));
      QVERIFY(store.setValue(QStringLiteral("top_k"), QStringLiteral("20")));
      QCOMPARE(changed.count(), 5);
      store.backend().sync();
    }
    SettingsStore reopened(Ini());
    QCOMPARE(reopened.value(QStringLiteral("temperature")), QStringLiteral("0.7"));
    QCOMPARE(reopened.value(QStringLiteral("sampling")), QStringLiteral("custom"));
    QCOMPARE(reopened.value(QStringLiteral("backend")), QStringLiteral("npu-emu"));
    QCOMPARE(reopened.value(QStringLiteral("system_prompt")), QStringLiteral("Be brief.\nÜber."));
    const auto options = glance::settings::ToGenerateOptions(reopened.values());
    QVERIFY(options.sampling.has_value());
    QCOMPARE(options.sampling->top_k, 20);
    QVERIFY(!options.sampling->greedy);
    QCOMPARE(options.sampling->temperature, 0.7f);
  }

  void defaultQSettingsInTestMode() {
    // The application's own QSettings (what the app uses), redirected by test mode.
    QCoreApplication::setOrganizationName(QStringLiteral("GlanceTest"));
    QCoreApplication::setApplicationName(QStringLiteral("settings-store-test"));
    {
      SettingsStore store;
      store.resetAll();
      QVERIFY(store.setValue(QStringLiteral("seed"), QStringLiteral("77")));
    }
    SettingsStore again;
    QCOMPARE(again.value(QStringLiteral("seed")), QStringLiteral("77"));
    again.resetAll();
    QCOMPARE(again.value(QStringLiteral("seed")), QStringLiteral("-1"));
  }

  // A FIFO where the app's settings file goes is named before any QSettings reads it (one
  // would block forever). The location checked is the one QSettings really uses.
  void fifoInPlaceOfTheSettingsFileIsNamed() {
    QCoreApplication::setOrganizationName(QStringLiteral("GlanceTest"));
    QCoreApplication::setApplicationName(QStringLiteral("settings-fifo-test"));
    const QString path = QSettings().fileName();
    QFile::remove(path);
    QVERIFY(glance::ui::DefaultSettingsFileProblem().isEmpty());  // absent: fine
    {
      QSettings s;
      s.setValue(QStringLiteral("x"), 1);
    }
    QVERIFY(QFile::exists(path));
    QVERIFY(glance::ui::DefaultSettingsFileProblem().isEmpty());  // a regular file: fine
    QVERIFY(QFile::remove(path));
    QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    const QString problem = glance::ui::DefaultSettingsFileProblem();
    QVERIFY2(problem.contains(path), qPrintable(problem + QStringLiteral(" / ") + path));
    QVERIFY(problem.contains(QStringLiteral("not a regular file")));
    QVERIFY(!problem.contains(QLatin1Char('\n')));
    QVERIFY(QFile::remove(path));
  }

  void invalidWritesRejected() {
    SettingsStore store(Ini());
    QString error;
    QVERIFY(!store.setValue(QStringLiteral("top_p"), QStringLiteral("2"), &error));
    QVERIFY2(error.contains(QStringLiteral("top_p")) && error.contains(QStringLiteral("0.01..1")),
             qPrintable(error));
    QVERIFY(!store.setValue(QStringLiteral("backend"), QStringLiteral("gpu"), &error));
    QVERIFY(!store.setValue(QStringLiteral("no_such"), QStringLiteral("1"), &error));
    QVERIFY(error.contains(QStringLiteral("no_such")));
    QCOMPARE(store.value(QStringLiteral("top_p")), QStringLiteral("1"));
    QVERIFY(!store.backend().contains(QStringLiteral("settings/top_p")));
  }

  void invalidStoredValuesFallBackToDefaults() {
    {
      auto raw = Ini();
      raw->setValue(QStringLiteral("settings/threads"), QStringLiteral("many"));
      raw->setValue(QStringLiteral("settings/precision"), QStringLiteral("fp8"));
      raw->setValue(QStringLiteral("settings/unknown_key"), QStringLiteral("x"));
      raw->setValue(QStringLiteral("settings/top_k"), 5);
      raw->sync();
    }
    SettingsStore store(Ini());
    QSignalSpy ignored(&store, &SettingsStore::invalidValueIgnored);
    QCOMPARE(store.value(QStringLiteral("threads")), QStringLiteral("0"));
    QCOMPARE(store.value(QStringLiteral("precision")), QStringLiteral("auto"));
    QCOMPARE(store.value(QStringLiteral("top_k")), QStringLiteral("5"));  // valid one kept
    QCOMPARE(store.value(QStringLiteral("unknown_key")), QString());
    QCOMPARE(ignored.count(), 2);
    QVERIFY(ignored.at(0).at(1).toString().contains(QStringLiteral("threads")));
    // values() never hands invalid strings to the builders.
    QVERIFY(glance::settings::ToEngineOptions(store.values()).threads == 0);
  }

  void dialogHasAnEditorPerKeyAndAppliesValid() {
    SettingsStore store(Ini());
    SettingsDialog dialog(&store);
    for (const auto& k : glance::settings::Registry()) {
      QWidget* w = dialog.editorFor(Q(k.name));
      QVERIFY2(w, k.name.c_str());
      QCOMPARE(w->objectName(), QStringLiteral("setting_") + Q(k.name));
      QCOMPARE(dialog.editorValue(Q(k.name)), Q(k.default_value));
    }
    auto* backend = qobject_cast<QComboBox*>(dialog.editorFor(QStringLiteral("backend")));
    QVERIFY(backend);
    QCOMPARE(backend->count(), 4);
    dialog.setBackendReason(QStringLiteral("auto chose cpu: no NPU device"));
    QCOMPARE(dialog.findChild<QLabel*>(QStringLiteral("backend_reason"))->text(),
             QStringLiteral("auto chose cpu: no NPU device"));

    backend->setCurrentIndex(backend->findText(QStringLiteral("cpu")));
    qobject_cast<QDoubleSpinBox*>(dialog.editorFor(QStringLiteral("top_p")))->setValue(0.8);
    qobject_cast<QCheckBox*>(dialog.editorFor(QStringLiteral("caption_on_drop")))->setChecked(false);
    QString error;
    QVERIFY2(dialog.apply(&error), qPrintable(error));
    QCOMPARE(store.value(QStringLiteral("backend")), QStringLiteral("cpu"));
    QCOMPARE(store.value(QStringLiteral("top_p")), QStringLiteral("0.8"));
    QCOMPARE(store.value(QStringLiteral("caption_on_drop")), QStringLiteral("false"));

    dialog.restoreDefaults();
    QCOMPARE(dialog.editorValue(QStringLiteral("backend")), QStringLiteral("auto"));
    QCOMPARE(store.value(QStringLiteral("backend")), QStringLiteral("cpu"));  // not yet applied
    dialog.reject();
    SettingsDialog fresh(&store);
    QCOMPARE(fresh.editorValue(QStringLiteral("top_p")), QStringLiteral("0.8"));
  }

  // The NPU checklist's lines can be long (the XRT plugin's dlopen error names a path and a
  // driver); they wrap, so the dialog fits a laptop screen instead of running off its edge.
  void dialogFitsALaptopScreenWhateverTheNpuChecklistSays() {
    SettingsStore store(Ini());
    SettingsDialog dialog(&store);
    auto* checklist = dialog.findChild<QLabel*>(QStringLiteral("npu_checklist"));
    QVERIFY(checklist);
    const QString long_line = QStringLiteral("  [FAIL] XRT  ") + QStringLiteral("cannot open ").repeated(40);
    checklist->setText(checklist->text() + QStringLiteral("\n") + long_line);
    dialog.adjustSize();
    QVERIFY2(dialog.width() <= 1280, qPrintable(QString::number(dialog.width())));
    QVERIFY(checklist->text().endsWith(long_line));  // wrapped, not cut
  }
};

QTEST_MAIN(SettingsStoreTest)
#include "test_settings_store.moc"
