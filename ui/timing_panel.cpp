#include "ui/timing_panel.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QStackedBarSeries>
#include <QTextDocument>
#include <QTextStream>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/atomic_save.h"
#include "ui/axis_scale.h"
#include "ui/event_types.h"
#include "ui/stats_format.h"

namespace glance::ui {
namespace {

bool IsKernelStage(const std::string& name) { return name.find(':') != std::string::npos; }

// The engine's stage names (core/engine/events.h StageTime::name) as the chart's legend shows
// them, translated; a stage this list does not know keeps its name. The CSV keeps the names.
QString StageLabel(const std::string& name) {
  if (name == kReReadStage) return TimingPanel::tr("re-read");
  if (name == "preprocess") return TimingPanel::tr("preprocess");
  if (name == "vision") return TimingPanel::tr("vision");
  if (name == "prefill") return TimingPanel::tr("prefill");
  if (name == "sample") return TimingPanel::tr("sample");
  if (name == "decode") return TimingPanel::tr("decode");
  return QString::fromStdString(name);
}

QString CsvField(const QString& s) {
  if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"'))) return s;
  QString quoted = s;
  quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
  return QStringLiteral("\"%1\"").arg(quoted);
}

// Token numbers 1..points (at least 1..5) with ticks on whole tokens: a "%d" label on a tick at
// a fractional position printed "0 0 0 0 1" on the empty chart and "9" for token 9.75.
void SetTokenAxis(QValueAxis* axis, int points) {
  const int last = std::max(points, 5);
  axis->setRange(1.0, last);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(1.0);
  axis->setTickInterval(std::max(1, (last - 1 + 3) / 4));  // at most 5 labels
}

// 0 to a round top with round ticks (ui/axis_scale.h): the stage chart read 0.00 / 26.53 / 53.07.
void SetValueAxis(QValueAxis* axis, double highest) {
  const AxisScale s = NiceAxisScale(highest, 3);  // at most 4 labels: readable in a short dock
  axis->setRange(0.0, s.top);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0.0);
  axis->setTickInterval(s.step);
  axis->setLabelFormat(QStringLiteral("%.") + QString::number(s.decimals) + QStringLiteral("f"));
}

QChart* MakeChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setMargins(QMargins(2, 2, 2, 2));
  chart->setBackgroundRoundness(0);
  chart->legend()->setAlignment(Qt::AlignBottom);
  // Axis numbers with the user's separators, as the stats text (ui/stats_format.h).
  chart->setLocalizeNumbers(true);
  return chart;
}

}  // namespace

TimingPanel::TimingPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  summary_ = new QLabel(tr("No turns yet."), this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);

  stageChart_ = MakeChart(tr("Time per turn by stage (s)"));
  stageSeries_ = new QStackedBarSeries(stageChart_);
  stageChart_->addSeries(stageSeries_);
  turnAxis_ = new QBarCategoryAxis(stageChart_);
  secondsAxis_ = new QValueAxis(stageChart_);
  // Qt Charts elides a category label to "…" when the axis gets less height than it wants (a
  // short dock), even "1"; short labels are never worth eliding.
  turnAxis_->setTruncateLabels(false);
  stageChart_->addAxis(turnAxis_, Qt::AlignBottom);
  stageChart_->addAxis(secondsAxis_, Qt::AlignLeft);
  stageSeries_->attachAxis(turnAxis_);
  stageSeries_->attachAxis(secondsAxis_);
  // The stage names go in a label under the chart that wraps between names (stageLegend_):
  // Qt Charts' own legend gave each name an equal share of the width and elided "preprocess" to
  // "preproc…" in the default dock, and set to the right it lost the last names in a short one.
  stageChart_->legend()->hide();
  stageView_ = new QChartView(stageChart_, this);
  stageView_->setRenderHint(QPainter::Antialiasing);
  stageView_->setMinimumHeight(fontMetrics().height() * 8);  // room for the turn labels
  layout->addWidget(stageView_, 1);
  stageLegend_ = new QLabel(this);
  stageLegend_->setObjectName(QStringLiteral("stageLegend"));
  stageLegend_->setWordWrap(true);
  stageLegend_->setTextFormat(Qt::RichText);
  stageLegend_->setAlignment(Qt::AlignHCenter);
  layout->addWidget(stageLegend_);

  latencyChart_ = MakeChart(tr("Per-token latency, latest turn (ms)"));
  latencyChart_->legend()->hide();
  latencySeries_ = new QLineSeries(latencyChart_);
  latencyChart_->addSeries(latencySeries_);
  tokenAxis_ = new QValueAxis(latencyChart_);
  // "%.0f", not "%d": with localised numbers Qt Charts reads only "%.N" formats (a "%d" axis drew
  // no numbers at all).
  tokenAxis_->setLabelFormat(QStringLiteral("%.0f"));
  SetTokenAxis(tokenAxis_, 0);
  msAxis_ = new QValueAxis(latencyChart_);
  // As the turn axis: Qt Charts elided the token numbers to "…" in a short dock (issue 34).
  for (QValueAxis* axis : {secondsAxis_, tokenAxis_, msAxis_}) axis->setTruncateLabels(false);
  latencyChart_->addAxis(tokenAxis_, Qt::AlignBottom);
  latencyChart_->addAxis(msAxis_, Qt::AlignLeft);
  latencySeries_->attachAxis(tokenAxis_);
  latencySeries_->attachAxis(msAxis_);
  latencyView_ = new QChartView(latencyChart_, this);
  latencyView_->setRenderHint(QPainter::Antialiasing);
  latencyView_->setMinimumHeight(fontMetrics().height() * 6);
  layout->addWidget(latencyView_, 1);

  kernels_ = new QLabel(this);
  kernels_->setWordWrap(true);
  kernels_->setVisible(false);
  layout->addWidget(kernels_);

  npuSplit_ = new QLabel(this);
  npuSplit_->setWordWrap(true);
  npuSplit_->setVisible(false);
  layout->addWidget(npuSplit_);

  auto* buttons = new QHBoxLayout;
  auto* csv = new QPushButton(tr("Export CSV\u2026"), this);
  auto* clearButton = new QPushButton(tr("Clear"), this);
  buttons->addStretch(1);
  buttons->addWidget(clearButton);
  buttons->addWidget(csv);
  layout->addLayout(buttons);
  connect(csv, &QPushButton::clicked, this, &TimingPanel::onExportCsv);
  connect(clearButton, &QPushButton::clicked, this, &TimingPanel::clear);
  applyPalette();
}

void TimingPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) applyPalette();
  QWidget::changeEvent(event);
}

void TimingPanel::applyPalette() {
  // Qt Charts draw with their own (light) theme; take the widget palette's colours instead,
  // so dark mode does not leave two white boxes.
  const QPalette pal = palette();
  const QColor text = pal.color(QPalette::WindowText);
  const QColor grid = pal.color(QPalette::Mid);
  for (QChart* chart : {stageChart_, latencyChart_}) {
    chart->setBackgroundBrush(pal.color(QPalette::Base));
    chart->setBackgroundPen(QPen(grid));
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis* axis : chart->axes()) {
      axis->setLabelsColor(text);
      axis->setLinePenColor(grid);
      axis->setGridLineColor(grid);
    }
  }
  for (QChartView* view : {stageView_, latencyView_}) view->setBackgroundBrush(pal.color(QPalette::Window));
}

QColor TimingPanel::chartBackground() const { return stageChart_->backgroundBrush().color(); }

QStringList TimingPanel::turnAxisCategories() const { return turnAxis_->categories(); }

bool TimingPanel::turnAxisVisible() const { return turnAxis_->isVisible(); }

void TimingPanel::addTurn(const TurnStats& stats) {
  turns_.push_back(stats);
  rebuildCharts();
}

void TimingPanel::setTurns(std::vector<TurnStats> turns, bool fresh) {
  const int count = static_cast<int>(turns.size());
  first_ = fresh ? 0 : std::clamp(first_, 0, std::max(count - 1, 0));
  turns_.assign(turns.begin() + std::min(first_, count), turns.end());
  rebuildCharts();
}

void TimingPanel::clear() {
  first_ += turnCount();
  turns_.clear();
  rebuildCharts();
}

void TimingPanel::rebuildCharts() {
  // Stage names in first-seen order across all turns.
  std::vector<std::string> stages;
  for (const TurnStats& t : turns_)
    for (const StageTime& s : t.stages)
      if (!IsKernelStage(s.name) && std::find(stages.begin(), stages.end(), s.name) == stages.end())
        stages.push_back(s.name);

  stageSeries_->clear();
  QStringList categories;
  // Plain numbers (the chart's title says "per turn"): "Turn 1".."Turn 4" were elided to "…"
  // at the default dock size, and an axis title took the height the labels need.
  for (int i = 0; i < turnCount(); ++i) categories << QString::number(first_ + i + 1);
  double tallest = 0.0;
  for (const std::string& stage : stages) {
    auto* set = new QBarSet(StageLabel(stage));
    for (const TurnStats& t : turns_) {
      double seconds = 0.0;
      for (const StageTime& s : t.stages)
        if (s.name == stage) seconds += s.seconds;
      *set << seconds;
    }
    stageSeries_->append(set);
  }
  for (int i = 0; i < turnCount(); ++i) {
    double sum = 0.0;
    for (QBarSet* set : stageSeries_->barSets()) sum += set->at(i);
    tallest = std::max(tallest, sum);
  }
  stageLegend_->setText(legendHtml());
  turnAxis_->clear();
  turnAxis_->append(categories);
  // An emptied category axis keeps drawing its last labels ("Turn 1".."Turn 4" after New
  // chat): hide it while there are no turns.
  turnAxis_->setVisible(!categories.isEmpty());
  SetValueAxis(secondsAxis_, tallest);

  latencySeries_->clear();
  double slowest = 0.0;
  int points = 0;
  if (!turns_.empty()) {
    const auto& lat = turns_.back().token_latencies_s;
    for (size_t i = 0; i < lat.size(); ++i) {
      latencySeries_->append(static_cast<double>(i + 1), lat[i] * 1000.0);
      slowest = std::max(slowest, lat[i] * 1000.0);
    }
    points = static_cast<int>(lat.size());
  }
  SetTokenAxis(tokenAxis_, points);
  SetValueAxis(msAxis_, slowest);

  QStringList kernelLines;
  if (!turns_.empty())
    for (const StageTime& s : turns_.back().stages)
      if (IsKernelStage(s.name))
        kernelLines << tr("%1: %2 in %3 calls")
                           .arg(QString::fromStdString(s.name), FormatDuration(s.seconds), FormatCount(s.calls));
  kernels_->setText(kernelLines.join(QStringLiteral(" \u00B7 ")));
  kernels_->setVisible(!kernelLines.isEmpty());
  const QStringList split = npuSplitRows();
  npuSplit_->setText(tr("On the NPU path, latest turn:") + QStringLiteral("<br>") + split.join(QStringLiteral("<br>")));
  npuSplit_->setVisible(!split.isEmpty());
  summary_->setText(summaryText());
}

QStringList TimingPanel::npuSplitRows() const {
  QStringList rows;
  if (turns_.empty() || turns_.back().backend.rfind("npu", 0) != 0) return rows;
  for (const StageTime& s : turns_.back().stages)
    if (!IsKernelStage(s.name) && s.seconds > 0.0)
      rows << tr("%1: %2 = NPU %3 \u00B7 transfer %4 \u00B7 host %5")
                  .arg(StageLabel(s.name), FormatDuration(s.seconds), FormatDuration(s.npu_s),
                       FormatDuration(s.transfer_s), FormatDuration(s.host_s()));
  return rows;
}

bool TimingPanel::npuSplitShown() const { return !npuSplit_->isHidden(); }

QString TimingPanel::summaryText() const {
  if (turns_.empty()) return tr("No turns yet.");
  const TurnStats& s = turns_.back();
  const double image = ImageSeconds(s);
  const QString ttft = image > 0.0 ? tr("%1 (image %2)").arg(FormatDuration(TtftWithImages(s)), FormatDuration(image))
                                   : FormatDuration(s.ttft_s);
  QString extras = s.draft_tokens > 0 ? QStringLiteral(" \u00B7 ") + SpeculativeSummary(s) : QString();
  if (const double reread = ReReadSeconds(s); reread > 0.0)  // before the answer, not in its total
    extras += QStringLiteral(" \u00B7 ") + tr("re-read the chat first in %1").arg(FormatDuration(reread));
  // One form for each kind of number (ui/stats_format.h), replaced in one pass.
  return tr("Turn %1: TTFT %2 \u00B7 total %3 \u00B7 prompt %4 tok (%5 image) at %6 "
            "\u00B7 %7 tok generated at %8%9 \u00B7 %10")
      .arg(FormatCount(first_ + turnCount()), ttft, FormatDuration(s.total_s + image), FormatCount(s.prompt_tokens),
           FormatCount(s.image_tokens), FormatRate(s.prefill_tokens_per_s, tr("tok/s")), FormatCount(s.generated_tokens),
           FormatRate(s.decode_tokens_per_s, tr("tok/s")), extras, ThreadCount(s.threads));
}

// Each stage's colour swatch and name, kept together (a no-break space between them); the label
// wraps between stages.
QString TimingPanel::legendHtml() const {
  QStringList items;
  for (QBarSet* set : stageSeries_->barSets())
    items << QStringLiteral("<span style=\"color:%1\">\u25A0</span>&nbsp;%2")
                 .arg(set->color().name(), set->label().toHtmlEscaped().replace(QLatin1Char(' '), QStringLiteral("&nbsp;")));
  return items.join(QStringLiteral(" &nbsp; "));
}

QStringList TimingPanel::legendStages() const {
  QTextDocument shown;
  shown.setHtml(stageLegend_->text());
  QStringList out;
  for (const QString& item : shown.toPlainText().split(QChar(0x25A0), Qt::SkipEmptyParts))
    out << QString(item).replace(QChar(0x00A0), QLatin1Char(' ')).trimmed();
  return out;
}

QStringList TimingPanel::chartStages() const {
  QStringList out;
  for (QBarSet* set : stageSeries_->barSets()) out << set->label();
  return out;
}

double TimingPanel::chartValue(int turn, const QString& stage) const {
  for (QBarSet* set : stageSeries_->barSets())
    if (set->label() == stage && turn >= 0 && turn < set->count()) return set->at(turn);
  return -1.0;
}

QString TimingPanel::tokenAxisTicks() const {
  return QStringLiteral("%1..%2 every %3").arg(tokenAxis_->min()).arg(tokenAxis_->max()).arg(tokenAxis_->tickInterval());
}

int TimingPanel::latencyPointCount() const { return static_cast<int>(latencySeries_->count()); }

QByteArray TimingPanel::toCsv() const {
  // Long format: one row per measurement, so spreadsheets can pivot it.
  QString text;
  QTextStream out(&text);
  out << "turn,kind,name,value,calls\n";
  for (size_t t = 0; t < turns_.size(); ++t) {
    const TurnStats& s = turns_[t];
    const qsizetype turn = first_ + static_cast<qsizetype>(t) + 1;  // as the chat numbers it
    auto metric = [&](const char* name, double value) {
      out << turn << ",summary," << name << ',' << QString::number(value, 'g', 9) << ",\n";
    };
    metric("prompt_tokens", s.prompt_tokens);
    metric("image_tokens", s.image_tokens);
    metric("generated_tokens", s.generated_tokens);
    metric("ttft_s", s.ttft_s);
    metric("prefill_tokens_per_s", s.prefill_tokens_per_s);
    metric("decode_tokens_per_s", s.decode_tokens_per_s);
    metric("total_s", s.total_s);
    if (s.draft_tokens > 0) {
      metric("draft_tokens", s.draft_tokens);
      metric("drafts_accepted", s.accepted);
      metric("drafts_verified", s.drafted);
      metric("weight_passes", s.weight_passes);
    }
    for (const StageTime& st : s.stages)
      out << turn << ",stage," << CsvField(QString::fromStdString(st.name)) << ','
          << QString::number(st.seconds, 'g', 9) << ',' << st.calls << '\n';
    if (s.backend.rfind("npu", 0) == 0)  // the NPU path's split of each stage (npuSplitRows)
      for (const StageTime& st : s.stages)
        if (!IsKernelStage(st.name))
          for (const auto& [part, value] : {std::pair<const char*, double>{"npu_s", st.npu_s},
                                            {"transfer_s", st.transfer_s}, {"host_s", st.host_s()}})
            out << turn << ",stage_" << part << ',' << CsvField(QString::fromStdString(st.name)) << ','
                << QString::number(value, 'g', 9) << ",\n";
    for (size_t i = 0; i < s.token_latencies_s.size(); ++i)
      out << turn << ",token_latency_s," << i << ','
          << QString::number(s.token_latencies_s[i], 'g', 9) << ",\n";
  }
  return text.toUtf8();
}

bool TimingPanel::exportCsv(const QString& path, QString* error) const {
  return SaveFileAtomically(path, toCsv(), error);
}

void TimingPanel::onExportCsv() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export timing"),
                                                    QStringLiteral("timing.csv"),
                                                    tr("CSV files (*.csv)"));
  QString error;
  if (!path.isEmpty() && !exportCsv(path, &error)) summary_->setText(error);
}

}  // namespace glance::ui
