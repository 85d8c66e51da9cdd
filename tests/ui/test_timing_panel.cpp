// The timing panel shows the stages of the given TurnStats as stacked bars, the per-token
// latency line and exports the numbers as CSV.
#include <QStandardPaths>
#include <QTest>

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QLocale>
#include <QRegularExpression>
#include <QValueAxis>

#include "ui/axis_scale.h"
#include "ui/event_types.h"
#include "ui/stats_format.h"
#include "ui/timing_panel.h"

using glance::StageTime;
using glance::TurnStats;
using glance::ui::TimingPanel;

namespace {

TurnStats MakeStats(double scale, bool with_extra_stage) {
  TurnStats s;
  s.prompt_tokens = 60;
  s.image_tokens = 49;
  s.generated_tokens = 4;
  s.ttft_s = 0.25 * scale;
  s.total_s = 1.0 * scale;
  s.stages = {{"preprocess", 0.01 * scale, 1}, {"vision", 0.2 * scale, 1},
              {"prefill", 0.3 * scale, 1},     {"cpu:matmul", 0.4 * scale, 90},
              {"decode", 0.4 * scale, 3}};
  if (with_extra_stage) s.stages.push_back({"sample", 0.05, 4});
  s.token_latencies_s = {0.25, 0.1, 0.12, 0.11};
  return s;
}

}  // namespace

class TestTimingPanel : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void chartShowsStagesOfTurnStats() {
    TimingPanel panel;
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.addTurn(MakeStats(1.0, false));
    // Kernel stages run inside the top-level ones, so they are not stacked.
    QCOMPARE(panel.chartStages(), (QStringList{QStringLiteral("preprocess"), QStringLiteral("vision"),
                                               QStringLiteral("prefill"), QStringLiteral("decode")}));
    // The legend under the chart names every stage in full, whatever the width (Qt Charts' own
    // elided "preproc…" along the bottom and dropped names at the right of a short chart).
    panel.resize(220, 400);
    QCOMPARE(panel.legendStages(), panel.chartStages());
    QCOMPARE(panel.chartValue(0, QStringLiteral("vision")), 0.2);
    QCOMPARE(panel.chartValue(0, QStringLiteral("cpu:matmul")), -1.0);
    QCOMPARE(panel.latencyPointCount(), 4);
    QCOMPARE(panel.tokenAxisTicks(), QStringLiteral("1..5 every 1"));  // whole tokens, not "0 0 0 0 1"

    panel.addTurn(MakeStats(2.0, true));  // a new stage appears in the second turn
    QCOMPARE(panel.turnCount(), 2);
    QCOMPARE(panel.chartStages().last(), QStringLiteral("sample"));
    // Short turn labels (the chart title says "per turn"): "Turn 1" was elided to "…" in a narrow dock.
    QCOMPARE(panel.turnAxisCategories(), (QStringList{QStringLiteral("1"), QStringLiteral("2")}));
    QCOMPARE(panel.chartValue(1, QStringLiteral("prefill")), 0.6);
    QCOMPARE(panel.chartValue(0, QStringLiteral("sample")), 0.0);
    // TTFT as the user waits it: the image stages (0.02 + 0.4 s) before the 0.5 s to the first token.
    QVERIFY2(panel.summaryText().contains(QStringLiteral("TTFT 920 ms (image 420 ms)")), qPrintable(panel.summaryText()));

    // No axis elides its numbers to "…" in a short dock (issue 34: the latency chart's token
    // numbers did), and they follow the locale as the stats text does.
    const auto views = panel.findChildren<QChartView*>();
    QCOMPARE(views.size(), 2);
    for (QChartView* view : views) {
      QVERIFY(view->chart()->localizeNumbers());
      for (QAbstractAxis* axis : view->chart()->axes()) {
        QVERIFY2(!axis->truncateLabels(), qPrintable(view->chart()->title()));
        // A localised value axis draws only "%.N" formats ("%d" drew no numbers at all).
        if (auto* values = qobject_cast<QValueAxis*>(axis))
          QVERIFY2(QRegularExpression(QStringLiteral("^%\\.\\d+[fgeEG]$")).match(values->labelFormat()).hasMatch(),
                   qPrintable(values->labelFormat()));
      }
    }

    panel.clear();
    QCOMPARE(panel.tokenAxisTicks(), QStringLiteral("1..5 every 1"));
    QCOMPARE(panel.chartStages(), QStringList());
    QCOMPARE(panel.latencyPointCount(), 0);
  }

  // The bars follow the conversation (issue 34: a regenerated answer was drawn as a new turn,
  // "Turn 3" under a chat of two): setTurns replaces them, numbered as in the chat; Clear hides
  // the turns so far until another conversation, or a new answer to the last of them.
  void barsFollowTheConversationAndClearHidesTheTurnsSoFar() {
    TimingPanel panel;
    panel.setTurns({MakeStats(1.0, false), MakeStats(2.0, false)}, true);
    QCOMPARE(panel.turnCount(), 2);
    panel.setTurns({MakeStats(1.0, false), MakeStats(3.0, false)}, false);  // turn 2 regenerated
    QCOMPARE(panel.turnCount(), 2);
    QCOMPARE(panel.chartValue(1, QStringLiteral("prefill")), 0.3 * 3.0);
    QVERIFY2(panel.summaryText().startsWith(QStringLiteral("Turn 2:")), qPrintable(panel.summaryText()));
    panel.clear();
    QCOMPARE(panel.turnCount(), 0);
    panel.setTurns({MakeStats(1.0, false), MakeStats(3.0, false), MakeStats(4.0, false)}, false);  // a third turn
    QCOMPARE(panel.turnAxisCategories(), QStringList{QStringLiteral("3")});
    QVERIFY2(panel.summaryText().startsWith(QStringLiteral("Turn 3:")), qPrintable(panel.summaryText()));
    QVERIFY(panel.toCsv().contains("\n3,summary,prompt_tokens,"));
    QVERIFY(!panel.toCsv().contains("\n1,summary,"));
    panel.clear();
    panel.setTurns({MakeStats(1.0, false), MakeStats(3.0, false), MakeStats(5.0, false)}, false);  // turn 3 again
    QCOMPARE(panel.turnAxisCategories(), QStringList{QStringLiteral("3")});
    QCOMPARE(panel.chartValue(0, QStringLiteral("prefill")), 0.3 * 5.0);
    panel.setTurns({MakeStats(1.0, false)}, true);  // another conversation: all of it
    QCOMPARE(panel.turnAxisCategories(), QStringList{QStringLiteral("1")});
  }

  // Issue 34: the stage chart's ticks read 0.00 / 26.53 / 53.07 s (and 0.00 / 0.01 / 0.03 for a
  // short turn): its axes now end on a round number with round steps.
  void valueAxesHaveRoundTicks() {
    struct Case {
      double highest, top, step;
      int decimals;
    };
    for (const Case& c : {Case{53.07, 60, 20, 0}, Case{2787.6, 3000, 1000, 0}, Case{0.028, 0.03, 0.01, 2},
                          Case{1.0, 1.0, 0.5, 1}, Case{7.2, 7.5, 2.5, 1}, Case{100, 100, 50, 0}, Case{0.24, 0.3, 0.1, 1}}) {
      const glance::ui::AxisScale s = glance::ui::NiceAxisScale(c.highest, 3);
      QVERIFY2(std::fabs(s.top - c.top) < 1e-9 && std::fabs(s.step - c.step) < 1e-9 && s.decimals == c.decimals,
               qPrintable(QStringLiteral("%1 -> top %2 step %3 decimals %4").arg(c.highest).arg(s.top).arg(s.step).arg(s.decimals)));
      QVERIFY(s.top >= c.highest && s.top / s.step <= 3.0 + 1e-9);
    }
    for (double bad : {0.0, -1.0, std::nan("")}) QCOMPARE(glance::ui::NiceAxisScale(bad).top, 1.0);

    TimingPanel panel;
    panel.addTurn(MakeStats(1.0, false));
    for (QChartView* view : panel.findChildren<QChartView*>())
      for (QAbstractAxis* axis : view->chart()->axes(Qt::Vertical)) {
        auto* values = qobject_cast<QValueAxis*>(axis);
        QVERIFY(values);
        QCOMPARE(values->tickType(), QValueAxis::TicksDynamic);
        QCOMPARE(values->min(), 0.0);
        const double steps = values->max() / values->tickInterval();
        QVERIFY2(std::fabs(steps - std::round(steps)) < 1e-6 && steps <= 3.0 + 1e-6,
                 qPrintable(QStringLiteral("%1: 0..%2 every %3").arg(view->chart()->title()).arg(values->max()).arg(values->tickInterval())));
      }
  }

  void csvHasEveryStageAndToken() {
    TimingPanel panel;
    panel.addTurn(MakeStats(1.0, false));
    const QString csv = QString::fromUtf8(panel.toCsv());
    const QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QStringLiteral("turn,kind,name,value,calls"));
    QVERIFY(lines.contains(QStringLiteral("1,stage,cpu:matmul,0.4,90")));
    QVERIFY(lines.contains(QStringLiteral("1,token_latency_s,2,0.12,")));
    QVERIFY(lines.contains(QStringLiteral("1,summary,ttft_s,0.25,")));
    QCOMPARE(lines.size(), 1 + 7 + 5 + 4);
  }

  // A speculative turn shows its acceptance and tokens per weight pass; a plain one does not.
  void speculativeTurnShowsAcceptance() {
    TimingPanel panel;
    TurnStats s = MakeStats(1.0, false);
    panel.addTurn(s);
    QVERIFY2(!panel.summaryText().contains(QStringLiteral("MTP")), qPrintable(panel.summaryText()));
    s.generated_tokens = 11;
    s.draft_tokens = 1;
    s.drafted = 6;
    s.accepted = 4;
    s.weight_passes = 6;  // 10 tokens after the first in 6 passes
    s.token_latencies_s.assign(36, 0.01);
    panel.addTurn(s);
    QCOMPARE(panel.tokenAxisTicks(), QStringLiteral("1..36 every 9"));
    QVERIFY2(panel.summaryText().contains(QStringLiteral("MTP 67% of drafts accepted, 1.67 tok/pass")),
             qPrintable(panel.summaryText()));
    const QString csv = QString::fromUtf8(panel.toCsv());
    QVERIFY2(csv.contains(QStringLiteral("2,summary,drafts_accepted,4,")), qPrintable(csv));
    QVERIFY(!csv.contains(QStringLiteral("1,summary,drafts_accepted")));
  }

  // Issue 34: one form for each kind of number in the stats, through the user's locale; the
  // panel's summary and the answer's stats line write the same number the same way.
  void numbersHaveOneLocaleAwareForm() {
    using namespace glance::ui;
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    QCOMPARE(FormatCount(1234567), QStringLiteral("1,234,567"));
    QCOMPARE(FormatDuration(0.0042), QStringLiteral("4.2 ms"));
    QCOMPARE(FormatDuration(0.00996), QStringLiteral("10 ms"));  // rounded before the form is chosen
    QCOMPARE(FormatDuration(0.85), QStringLiteral("850 ms"));
    QCOMPARE(FormatDuration(0.9996), QStringLiteral("1.00 s"));  // not "1,000 ms"
    QCOMPARE(FormatDuration(1.234), QStringLiteral("1.23 s"));
    QCOMPARE(FormatDuration(1234.5), QStringLiteral("1,234.50 s"));
    QCOMPARE(FormatRate(1234.56, QStringLiteral("tok/s")), QStringLiteral("1,234.6 tok/s"));
    QCOMPARE(FormatRate(9.0, QStringLiteral("tok/s")), QStringLiteral("9.0 tok/s"));
    QCOMPARE(FormatShare(0.6667), QStringLiteral("67%"));
    QCOMPARE(FormatRatio(1.6667), QStringLiteral("1.67"));
    QCOMPARE(FormatWeight(0.17312), QStringLiteral("0.173"));
    QCOMPARE(FormatWeight(0.0019612), QStringLiteral("0.00196"));
    QCOMPARE(FormatPercent(0.1249), QStringLiteral("12.5 %"));

    TurnStats s = MakeStats(5.0, false);  // TTFT 1.25 s, total 5 s
    s.prompt_tokens = 1234;
    s.prefill_tokens_per_s = 2345.67;
    s.decode_tokens_per_s = 12.34;
    s.backend = "cpu";
    TimingPanel panel;
    panel.addTurn(s);
    const QString summary = panel.summaryText(), line = DescribeStats(s);
    for (const QString& part : {QStringLiteral("prompt 1,234 tok"), QStringLiteral("2,345.7 tok/s"),
                                QStringLiteral("12.3 tok/s"), QStringLiteral("TTFT 2.30 s")}) {
      QVERIFY2(summary.contains(part), qPrintable(part + QStringLiteral(" | ") + summary));
      QVERIFY2(line.contains(part), qPrintable(part + QStringLiteral(" | ") + line));
    }
    QVERIFY2(summary.contains(QStringLiteral("total 6.05 s")), qPrintable(summary));  // total + image stages

    // German: the same forms with its separators.
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    QCOMPARE(FormatDuration(1.234), QStringLiteral("1,23 s"));
    QCOMPARE(FormatRate(1234.56, QStringLiteral("tok/s")), QStringLiteral("1.234,6 tok/s"));
    QCOMPARE(FormatCount(1234), QStringLiteral("1.234"));
    // The heatmap's legend and hover text (they printed "0.173" beside the stats' "1,23 s").
    QCOMPARE(FormatWeight(0.17312), QStringLiteral("0,173"));
    QCOMPARE(FormatPercent(0.1249), QStringLiteral("12,5 %"));
    QVERIFY2(DescribeStats(s).contains(QStringLiteral("prompt 1.234 tok")), qPrintable(DescribeStats(s)));
    QVERIFY2(DescribeStats(s).contains(QStringLiteral("decode 12,3 tok/s")), qPrintable(DescribeStats(s)));
    QLocale::setDefault(before);
  }

  // Issue 30 item 5: on an NPU backend each stage's time splits into NPU dispatch, transfer/sync
  // and host time, one row a stage; a CPU turn shows no split (the control).
  void npuTurnSplitsEachStage() {
    TimingPanel panel;
    TurnStats s = MakeStats(1.0, false);
    s.backend = "npu-emu";
    for (StageTime& st : s.stages)
      if (st.name == "prefill") {
        st.npu_s = 0.2;
        st.transfer_s = 0.05;
      }
    panel.addTurn(s);
    const QStringList rows = panel.npuSplitRows();
    QCOMPARE(rows.size(), 4);  // preprocess, vision, prefill, decode: not the cpu:matmul entry
    QVERIFY2(rows.contains(QStringLiteral("prefill: 300 ms = NPU 200 ms \u00B7 transfer 50 ms \u00B7 host 50 ms")),
             qPrintable(rows.join(QLatin1Char('|'))));
    QVERIFY(rows.contains(QStringLiteral("decode: 400 ms = NPU 0.0 ms \u00B7 transfer 0.0 ms \u00B7 host 400 ms")));
    QVERIFY(panel.npuSplitShown());
    const QString csv = QString::fromUtf8(panel.toCsv());
    QVERIFY2(csv.contains(QStringLiteral("1,stage_npu_s,prefill,0.2,")), qPrintable(csv));
    QVERIFY2(csv.contains(QStringLiteral("1,stage_transfer_s,prefill,0.05,")), qPrintable(csv));
    s.backend = "cpu";
    panel.addTurn(s);
    QVERIFY(panel.npuSplitRows().isEmpty());
    QVERIFY(!panel.npuSplitShown());
  }
};

QTEST_MAIN(TestTimingPanel)
#include "test_timing_panel.moc"
