#pragma once
// The "Timing" panel (Qt Charts): one stacked bar per turn split by stage (the top-level
// stages of TurnStats::stages — preprocess, vision, prefill, decode, … in first-seen order;
// per-kernel stages such as "cpu:matmul" run inside those, so they are listed, not stacked),
// the per-token latency of the latest turn, tokens/s, TTFT and totals; CSV export.
// GUI thread only.
#include <QColor>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "core/engine/events.h"

class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QStackedBarSeries;
class QValueAxis;

namespace glance::ui {

class TimingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TimingPanel(QWidget* parent = nullptr);

  void addTurn(const TurnStats& stats);
  // The conversation's turns, each its shown answer's, as bars numbered as in the chat (a
  // regenerated or edited answer replaces its turn's bar). Turns before the last Clear stay
  // hidden unless `fresh` (another conversation) or the last of them has a new answer.
  void setTurns(std::vector<TurnStats> turns, bool fresh);
  // The Clear button: hides the turns shown so far; later turns appear as they come.
  void clear();
  // Written whole (ui/atomic_save.h); false with *error (one line naming the file) on failure.
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  QByteArray toCsv() const;

  int turnCount() const { return static_cast<int>(turns_.size()); }
  // The stacked stages, in order, as the chart shows them (bar set labels).
  QStringList chartStages() const;
  // The stage names the legend under the chart shows (it wraps, never cuts a name).
  QStringList legendStages() const;
  // The bar value of `stage` for turn `turn` (0-based), in seconds; -1 when absent.
  double chartValue(int turn, const QString& stage) const;
  int latencyPointCount() const;
  QString summaryText() const;
  // The charts follow the application palette (dark mode): their background, for tests.
  QColor chartBackground() const;
  QStringList turnAxisCategories() const;
  // The latency chart's token axis as "first..last every step" (tests).
  QString tokenAxisTicks() const;
  bool turnAxisVisible() const;
  // The latest turn's stages split into NPU dispatch, transfer/sync and host time, one row a
  // stage ("prefill: 0.842 s = NPU 0.795 · transfer 0.003 · host 0.044"); shown only when the
  // turn ran on an NPU backend (npu, npu-emu). Empty otherwise.
  QStringList npuSplitRows() const;
  bool npuSplitShown() const;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void rebuildCharts();
  void applyPalette();
  void onExportCsv();

  std::vector<TurnStats> turns_;
  int first_ = 0;  // the conversation's index of turns_[0] (turns before it were cleared)
  QChart* stageChart_ = nullptr;
  QChartView* stageView_ = nullptr;
  QStackedBarSeries* stageSeries_ = nullptr;
  QBarCategoryAxis* turnAxis_ = nullptr;
  QValueAxis* secondsAxis_ = nullptr;
  QChart* latencyChart_ = nullptr;
  QChartView* latencyView_ = nullptr;
  QLineSeries* latencySeries_ = nullptr;
  QValueAxis* tokenAxis_ = nullptr;
  QValueAxis* msAxis_ = nullptr;
  QString legendHtml() const;
  QLabel* summary_ = nullptr;
  QLabel* stageLegend_ = nullptr;
  QLabel* kernels_ = nullptr;
  QLabel* npuSplit_ = nullptr;
};

}  // namespace glance::ui
