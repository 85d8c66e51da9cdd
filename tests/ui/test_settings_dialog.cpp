// The settings dialog's NPU lines (issue 34): a computer without an NPU sees one sentence, not
// eight "[FAIL]" lines; the checklist is behind Details and reads "not present" ("[ -- ]").
// An NPU that is there but fails a check keeps "[FAIL]" and the summary names the check.
// The sampling fields are off unless they are used.
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include "core/npu/npu_detect.h"
#include "ui/event_types.h"
#include "ui/settings_dialog.h"
#include "ui/settings_store.h"

using glance::npu::NpuCheck;
using glance::npu::NpuStatus;
using glance::ui::SettingsDialog;
using glance::ui::SettingsStore;

namespace {

NpuStatus Status(bool node, bool pci, bool xrt) {
  NpuStatus s;
  s.checks = {NpuCheck{"device node", node, node ? "/dev/accel/accel0" : "/dev/accel/accel0 is missing"},
              NpuCheck{"driver", node, "amdxdna"},
              NpuCheck{"PCI id", pci, pci ? "1022:17f0" : "no AMD NPU on the PCI bus"},
              NpuCheck{"XRT", xrt, xrt ? "2.18" : "the NPU plugin is not loadable"}};
  return s;
}

}  // namespace

class TestSettingsDialog : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void noNpuIsNotAFailure() {
    const QString list = QStringLiteral("  [FAIL] device node  missing\n  [FAIL] XRT  not loadable");
    const NpuStatus none = Status(false, false, false);
    QVERIFY(glance::ui::NoNpuPresent(none));
    QVERIFY(glance::ui::NpuSummary(none).contains(QStringLiteral("No NPU")));
    QVERIFY(!glance::ui::NpuDetails(list, none).contains(QStringLiteral("FAIL")));
    QVERIFY(glance::ui::NpuDetails(list, none).contains(QStringLiteral("[ -- ] device node")));
    // Control: an NPU on the bus whose XRT check fails is a failure, and says which.
    const NpuStatus broken = Status(true, true, false);
    QVERIFY(!glance::ui::NoNpuPresent(broken));
    QVERIFY(glance::ui::NpuSummary(broken).contains(QStringLiteral("XRT")));
    QCOMPARE(glance::ui::NpuDetails(list, broken), list);
  }

  // The dialog on this machine: the checklist hidden until Details is pressed.
  void checklistIsBehindDetails() {
    QTemporaryDir dir;
    SettingsStore store(dir.filePath(QStringLiteral("settings.json")));
    SettingsDialog dialog(&store);
    dialog.show();
    auto* summary = dialog.findChild<QLabel*>(QStringLiteral("npu_summary"));
    auto* checklist = dialog.findChild<QLabel*>(QStringLiteral("npu_checklist"));
    auto* details = dialog.findChild<QToolButton*>(QStringLiteral("npu_details"));
    QVERIFY(summary && checklist && details);
    QVERIFY(!summary->text().isEmpty());
    QVERIFY(!checklist->isVisible());
    details->click();
    QVERIFY(checklist->isVisible());
    details->click();
    QVERIFY(!checklist->isVisible());
    if (summary->text().contains(QStringLiteral("No NPU")))
      QVERIFY2(!checklist->text().contains(QStringLiteral("[FAIL]")), qPrintable(checklist->text()));
  }

  // The sampling fields are greyed out unless Sampling is custom (the seed unless greedy), and
  // follow the choice as it changes; the answer's stats say how it was sampled.
  void samplingFieldsFollowTheSamplingChoice() {
    QTemporaryDir dir;
    SettingsStore store(dir.filePath(QStringLiteral("settings.json")));
    SettingsDialog dialog(&store);
    QCOMPARE(dialog.editorValue(QStringLiteral("sampling")), QStringLiteral("model"));
    QVERIFY(!dialog.editorFor(QStringLiteral("temperature"))->isEnabled());
    QVERIFY(!dialog.editorFor(QStringLiteral("top_p"))->isEnabled());
    QVERIFY(dialog.editorFor(QStringLiteral("temperature"))->toolTip().contains(QStringLiteral("custom")));
    QVERIFY(dialog.editorFor(QStringLiteral("seed"))->isEnabled());
    // The default seed (-1) reads as what it does, a set one as its number.
    auto* seed = qobject_cast<QSpinBox*>(dialog.editorFor(QStringLiteral("seed")));
    QVERIFY(seed);
    QCOMPARE(seed->text(), QStringLiteral("new each turn"));
    seed->setValue(123456);
    QCOMPARE(seed->text(), QStringLiteral("123456"));  // a seed is a name: no separators
    // A count in the user's number format, as the context meter shows it ("65,536 tokens").
    auto* context = qobject_cast<QSpinBox*>(dialog.editorFor(QStringLiteral("context_length")));
    QVERIFY(context);
    context->setValue(65536);
    QCOMPARE(context->text(), QLocale().toString(65536));
    QCOMPARE(dialog.editorValue(QStringLiteral("context_length")), QStringLiteral("65536"));
    seed->setValue(42);
    QCOMPARE(seed->text(), QStringLiteral("42"));
    seed->setValue(-1);
    dialog.setEditorValue(QStringLiteral("sampling"), QStringLiteral("custom"));
    QVERIFY(dialog.editorFor(QStringLiteral("temperature"))->isEnabled());
    QVERIFY(dialog.editorFor(QStringLiteral("presence_penalty"))->isEnabled());
    dialog.setEditorValue(QStringLiteral("sampling"), QStringLiteral("greedy"));
    QVERIFY(!dialog.editorFor(QStringLiteral("top_k"))->isEnabled());
    QVERIFY(!dialog.editorFor(QStringLiteral("seed"))->isEnabled());

    glance::TurnStats stats;
    QVERIFY(glance::ui::DescribeStats(stats).contains(QStringLiteral("greedy")));
    stats.seed = 42;
    QVERIFY(glance::ui::DescribeStats(stats).contains(QStringLiteral("sampled, seed 42")));
  }
};

QTEST_MAIN(TestSettingsDialog)
#include "test_settings_dialog.moc"
