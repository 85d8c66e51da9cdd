// SettingsStore over its SettingsFile (ui/settings_file.h) and the generated SettingsDialog.
#include <sys/stat.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDir>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "core/settings/registry.h"
#include "ui/settings_dialog.h"
#include "ui/settings_store.h"

using glance::ui::SettingsDialog;
using glance::ui::SettingsFile;
using glance::ui::SettingsStore;

namespace {
QString Q(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

class SettingsStoreTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString IniPath() const { return dir_.filePath(QStringLiteral("glance.json")); }
  QString Ini() const { return IniPath(); }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
  }
  void cleanup() {
    QFile::remove(IniPath());
    QFile::remove(IniPath() + QStringLiteral(".unreadable"));
  }

  void defaultsWhenEmpty() {
    SettingsStore store(Ini());
    for (const auto& k : glance::settings::Registry())
      QCOMPARE(store.value(Q(k.name)), Q(k.default_value));
    QCOMPARE(store.values(), glance::settings::Defaults());
  }

  void roundTripThroughTheFile() {
    {
      SettingsStore store(Ini());
      QSignalSpy changed(&store, &SettingsStore::valueChanged);
      QVERIFY(store.setValue(QStringLiteral("temperature"), QStringLiteral("0.70")));
      QVERIFY(store.setValue(QStringLiteral("sampling"), QStringLiteral("custom")));
      QVERIFY(store.setValue(QStringLiteral("backend"), QStringLiteral("npu-emu")));
      QVERIFY(store.setValue(QStringLiteral("system_prompt"), QStringLiteral("Be brief.\nÜber.")));
      QVERIFY(store.setValue(QStringLiteral("top_k"), QStringLiteral("20")));
      QCOMPARE(changed.count(), 5);
      QVERIFY(store.backend().save());
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

  // A FIFO where the app's settings file goes (or the QSettings file it imports) is named before
  // anything reads it (a read would block forever). The locations checked are the ones used.
  void fifoInPlaceOfTheSettingsFileIsNamed() {
    QCoreApplication::setOrganizationName(QStringLiteral("GlanceTest"));
    QCoreApplication::setApplicationName(QStringLiteral("settings-fifo-test"));
    QVERIFY(QSettings().fileName() == glance::ui::SettingsFile::LegacyPath());
    for (const QString& path : {glance::ui::SettingsFile::DefaultPath(), QSettings().fileName()}) {
      QFile::remove(path);
      QVERIFY(glance::ui::DefaultSettingsFileProblem().isEmpty());  // absent: fine
      {
        QSettings s;
        s.setValue(QStringLiteral("x"), 1);
      }
      {
        glance::ui::SettingsFile::App()->setValue(QStringLiteral("x"), 1);
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
      auto raw = glance::ui::SettingsFile::Open(Ini());
      raw->setValue(QStringLiteral("settings/threads"), QStringLiteral("many"));
      raw->setValue(QStringLiteral("settings/precision"), QStringLiteral("fp8"));
      raw->setValue(QStringLiteral("settings/unknown_key"), QStringLiteral("x"));
      raw->setValue(QStringLiteral("settings/top_k"), 5);
      QVERIFY(raw->save());
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

  // Every kind of value the app keeps comes back as it went in: text with a newline and non-ASCII,
  // numbers, bools, and binary (window geometry).
  void fileKeepsEveryKindOfValue() {
    const QByteArray binary("\x00\x01\xff geometry", 13);
    {
      auto file = SettingsFile::Open(IniPath());
      file->setValue(QStringLiteral("a/text"), QStringLiteral("Be brief.\nÜber \"quoted\""));
      file->setValue(QStringLiteral("a/number"), 55);
      file->setValue(QStringLiteral("a/flag"), true);
      file->setValue(QStringLiteral("window/geometry"), binary);
      QVERIFY(file->hasUnsavedChanges());
      QVERIFY(file->save());
      QVERIFY(!file->hasUnsavedChanges());
      QVERIFY(SettingsFile::Open(IniPath()) == file);  // one object per path while held
    }
    auto again = SettingsFile::Open(IniPath());
    QCOMPARE(again->value(QStringLiteral("a/text")).toString(), QStringLiteral("Be brief.\nÜber \"quoted\""));
    QCOMPARE(again->value(QStringLiteral("a/number")).toInt(), 55);
    QCOMPARE(again->value(QStringLiteral("a/flag")).toBool(), true);
    QCOMPARE(again->value(QStringLiteral("window/geometry")).toByteArray(), binary);
    QVERIFY(again->loadNotice().isEmpty());
  }

  // Changes are written together a moment later without a call to save(), and by the destructor.
  void changesAreSavedWithoutAskingAndOnClose() {
    {
      auto file = SettingsFile::Open(IniPath());
      file->setValue(QStringLiteral("x"), 1);
      QTRY_VERIFY_WITH_TIMEOUT(!file->hasUnsavedChanges(), 5000);
      QVERIFY(QFile::exists(IniPath()));
      file->setValue(QStringLiteral("y"), 2);
    }
    QCOMPARE(SettingsFile::Open(IniPath())->value(QStringLiteral("y")).toInt(), 2);
  }

  // A file that is not a settings file (a hand edit gone wrong) is set aside, never silently
  // dropped: one notice naming both paths, the defaults used, the next save does not overwrite it.
  // Control: a whole file reads without a notice.
  void unreadableFileIsSetAsideWithANotice() {
    for (const QByteArray& bad : {QByteArray("{\"glance_settings\": 1, \"values\": {\"settings/seed\": \"4"),
                                  QByteArray("[settings]\nseed=4\n"), QByteArray("{\"values\": {}}"),
                                  QByteArray("{\"glance_settings\": 1, \"values\": {\"x\": [1]}}")}) {
      QFile f(IniPath());
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bad);
      f.close();
      SettingsStore store(Ini());
      const QString notice = store.backend().loadNotice();
      QVERIFY2(notice.contains(IniPath()) && notice.contains(IniPath() + QStringLiteral(".unreadable")), qPrintable(notice));
      QVERIFY(!notice.contains(QLatin1Char('\n')));
      QVERIFY(store.backend().loadFailed());  // a warning, whatever the language's words
      QCOMPARE(store.value(QStringLiteral("seed")), QStringLiteral("-1"));
      QVERIFY(store.setValue(QStringLiteral("seed"), QStringLiteral("5")));
      QVERIFY(store.backend().save());
      QFile aside(IniPath() + QStringLiteral(".unreadable"));
      QVERIFY(aside.open(QIODevice::ReadOnly));
      QCOMPARE(aside.readAll(), bad);
    }
    SettingsStore whole(Ini());
    QVERIFY(whole.backend().loadNotice().isEmpty());
    QVERIFY(!whole.backend().loadFailed());
    QCOMPARE(whole.value(QStringLiteral("seed")), QStringLiteral("5"));
  }

  // The settings QSettings kept before (INI) are taken over on the first start, once, with a notice.
  void oldQSettingsFileIsImportedOnce() {
    QCoreApplication::setOrganizationName(QStringLiteral("GlanceTest"));
    QCoreApplication::setApplicationName(QStringLiteral("settings-import-test"));
    QFile::remove(SettingsFile::DefaultPath());
    {
      QSettings old(SettingsFile::LegacyPath(), QSettings::IniFormat);
      old.setValue(QStringLiteral("settings/seed"), QStringLiteral("9"));
      old.setValue(QStringLiteral("window/geometry"), QByteArray("\x01\x02", 2));
    }
    {
      SettingsStore store;
      QCOMPARE(store.value(QStringLiteral("seed")), QStringLiteral("9"));
      QVERIFY2(store.backend().loadNotice().contains(SettingsFile::LegacyPath()), qPrintable(store.backend().loadNotice()));
      QVERIFY(!store.backend().loadFailed());  // an import is news, not a failure
      QCOMPARE(store.backend().value(QStringLiteral("window/geometry")).toByteArray(), QByteArray("\x01\x02", 2));
      QVERIFY(store.setValue(QStringLiteral("seed"), QStringLiteral("10")));
    }
    SettingsStore again;
    QCOMPARE(again.value(QStringLiteral("seed")), QStringLiteral("10"));  // not imported again
    QVERIFY(again.backend().loadNotice().isEmpty());
  }

  // A config folder that cannot be made (a file where it should be: works as root too, unlike a
  // chmod) fails each save with one line naming the file; saveFailed is said once for the run of
  // failures, the values stay in memory, and when the folder can be made again the next save
  // writes them and saveRecovered is said. Control: the file is not there until then.
  void failedSaveIsReportedOnceAndKeptUntilItSucceeds() {
    const QString blocker = dir_.filePath(QStringLiteral("blocked"));
    const QString path = blocker + QStringLiteral("/glance.json");
    QFile b(blocker);
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.close();
    SettingsStore store(path);
    QSignalSpy failed(&store.backend(), &SettingsFile::saveFailed);
    QSignalSpy recovered(&store.backend(), &SettingsFile::saveRecovered);
    QVERIFY(store.setValue(QStringLiteral("seed"), QStringLiteral("7")));
    QString error;
    QVERIFY(!store.backend().save(&error));
    QVERIFY2(error.contains(path) && !error.contains(QLatin1Char('\n')), qPrintable(error));
    QVERIFY(store.setValue(QStringLiteral("top_k"), QStringLiteral("3")));
    QVERIFY(!store.backend().save());
    QCOMPARE(failed.count(), 1);
    QCOMPARE(store.value(QStringLiteral("seed")), QStringLiteral("7"));  // kept in memory
    QVERIFY(store.backend().hasUnsavedChanges());
    QVERIFY(!QFile::exists(path));
    QVERIFY(QFile::remove(blocker));
    QVERIFY(store.backend().save());
    QCOMPARE(recovered.count(), 1);
    QCOMPARE(failed.count(), 1);
    QVERIFY(store.backend().saveError().isEmpty());
    QVERIFY(QDir(blocker).removeRecursively());
  }

  // The fuzz harness's reader: whatever the bytes, a map or one line, never a crash (a control
  // here for the seeds' kinds).
  void parserRefusesWithOneLine() {
    QVariantMap values;
    QString error;
    QVERIFY(glance::ui::ParseSettingsFile(glance::ui::SettingsFileBytes({{QStringLiteral("k"), 1}}), &values, &error));
    QCOMPARE(values.value(QStringLiteral("k")).toInt(), 1);
    QVERIFY(!glance::ui::ParseSettingsFile("{\"glance_settings\": 1, \"values\": {\"k\": {\"bytes\": \"!!\"}}}", &values, &error));
    QVERIFY2(error.contains(QStringLiteral("'k'")), qPrintable(error));
    QVERIFY(!glance::ui::ParseSettingsFile(QByteArray(), &values, &error));
    // Numbers past a 64-bit integer stay doubles (casting them was undefined behaviour); whole
    // numbers within range become integers.
    QVERIFY(glance::ui::ParseSettingsFile(
        "{\"glance_settings\": 1, \"values\": {\"a\": 5.5e54, \"b\": -1e300, \"c\": 42, \"d\": 1.5}}", &values, &error));
    QCOMPARE(values.value(QStringLiteral("a")).typeId(), QMetaType::Double);
    QCOMPARE(values.value(QStringLiteral("a")).toDouble(), 5.5e54);
    QCOMPARE(values.value(QStringLiteral("b")).toDouble(), -1e300);
    QCOMPARE(values.value(QStringLiteral("c")).typeId(), QMetaType::LongLong);
    QCOMPARE(values.value(QStringLiteral("d")).toDouble(), 1.5);
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
    // What the model runs on, and why; on a computer without an NPU only that it is the CPU
    // (the NPU summary says there is none; issue 34 found the two lines saying it twice).
    auto* reason = dialog.findChild<QLabel*>(QStringLiteral("backend_reason"));
    dialog.setBackendReason(QStringLiteral("npu"), QStringLiteral("auto chose the NPU"));
    QCOMPARE(reason->text(), QString::fromUtf8("Now: npu \u2014 auto chose the NPU"));
    const bool npuAbsent = dialog.findChild<QLabel*>(QStringLiteral("npu_summary"))->text().startsWith(QStringLiteral("No NPU"));
    dialog.setBackendReason(QStringLiteral("cpu"), QStringLiteral("no usable NPU (device node missing); using the CPU"));
    QCOMPARE(reason->text(), npuAbsent ? QStringLiteral("Now on the CPU.")
                                       : QString::fromUtf8("Now: cpu \u2014 no usable NPU (device node missing); using the CPU"));

    backend->setCurrentIndex(backend->findText(QStringLiteral("cpu")));
    qobject_cast<QDoubleSpinBox*>(dialog.editorFor(QStringLiteral("top_p")))->setValue(0.8);
    qobject_cast<QCheckBox*>(dialog.editorFor(QStringLiteral("caption_on_drop")))->setChecked(false);
    QString error;
    QVERIFY2(dialog.apply(&error), qPrintable(error));
    QCOMPARE(store.value(QStringLiteral("backend")), QStringLiteral("cpu"));
    QCOMPARE(store.value(QStringLiteral("top_p")), QStringLiteral("0.8"));
    QCOMPARE(store.value(QStringLiteral("caption_on_drop")), QStringLiteral("false"));

    // A bad value is named by the field's label, as the dialog shows it, not by its file key;
    // nothing is stored.
    dialog.setEditorValue(QStringLiteral("stop_sequences"), QStringLiteral("end\\q"));
    QVERIFY(!dialog.apply(&error));
    QVERIFY2(error.startsWith(QStringLiteral("Stop sequences: ")), qPrintable(error));
    QVERIFY2(!error.contains(QStringLiteral("stop_sequences")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("unknown escape")), qPrintable(error));
    QCOMPARE(store.value(QStringLiteral("stop_sequences")), QString());
    dialog.setEditorValue(QStringLiteral("stop_sequences"), QString());

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
