#include "ui/layer_head_chart.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QLocale>
#include <QToolTip>
#include <algorithm>

#include "ui/heatmap.h"
#include "ui/stats_format.h"

namespace glance::ui {

LayerHeadChart::LayerHeadChart(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  setAccessibleName(tr("Layer \u00D7 head chart"));
  setToolTip(QString());  // per cell, from event()
}

void LayerHeadChart::setShares(std::vector<HeadShare> shares, const QString& whyNotSaved) {
  shares_ = std::move(shares);
  why_ = whyNotSaved;
  top_ = 0.01f;
  for (const HeadShare& s : shares_) top_ = std::max(top_, s.image);
  updateGeometry();
  update();
}

QString LayerHeadChart::emptyText() const {
  return why_.isEmpty() ? tr("Layer \u00D7 head shares: not captured") : tr("Layer \u00D7 head: not saved");
}

void LayerHeadChart::setSelected(MapKind kind, int layer, int head) {
  selectedKind_ = kind;
  selectedLayer_ = layer;
  selectedHead_ = head;
  update();
}

LayerHeadChart::Geometry LayerHeadChart::geometry() const {
  Geometry g;
  for (const HeadShare& s : shares_) {
    g.layers.push_back(s.layer);
    g.heads = std::max(g.heads, s.head + 1);
  }
  std::sort(g.layers.begin(), g.layers.end());
  g.layers.erase(std::unique(g.layers.begin(), g.layers.end()), g.layers.end());
  const int em = fontMetrics().height();
  // The layer numbers below, the head numbers on the left (what the colours mean is in the
  // tooltip: the panel gives this chart only a few lines of height).
  g.grid = rect().adjusted(fontMetrics().horizontalAdvance(QStringLiteral("00")) + 4, 2, -2, -em - 2);
  if (!g.layers.empty() && g.heads > 0) {
    // Cells as large as fit. A 2B model's 24 layers x 16 heads in a few lines of height would be
    // 2-px squares if cells had to be square; letting them be up to twice as wide as tall keeps
    // each head a visible (and clickable) strip.
    const int n_layers = static_cast<int>(g.layers.size());
    g.cell_h = std::max(2, g.grid.height() / g.heads);
    g.cell_w = std::max(2, g.grid.width() / n_layers);
    g.cell_h = std::min(g.cell_h, g.cell_w);
    g.cell_w = std::min(g.cell_w, 2 * g.cell_h);
    g.grid.setSize(QSize(g.cell_w * n_layers, g.cell_h * g.heads));
  }
  return g;
}

QRect LayerHeadChart::cellRect(int layer, int head) const {
  const Geometry g = geometry();
  const auto it = std::find(g.layers.begin(), g.layers.end(), layer);
  if (it == g.layers.end() || head < 0 || head >= g.heads) return {};
  bool present = false;
  for (const HeadShare& s : shares_) present = present || (s.layer == layer && s.head == head);
  if (!present) return {};
  return QRect(g.grid.left() + static_cast<int>(it - g.layers.begin()) * g.cell_w, g.grid.top() + head * g.cell_h,
               g.cell_w, g.cell_h);
}

int LayerHeadChart::cellAt(const QPoint& pos) const {
  for (size_t i = 0; i < shares_.size(); ++i)
    if (cellRect(shares_[i].layer, shares_[i].head).contains(pos)) return static_cast<int>(i);
  return -1;
}

QString LayerHeadChart::cellText(int index) const {
  if (index < 0 || index >= static_cast<int>(shares_.size())) return {};
  const HeadShare& s = shares_[static_cast<size_t>(index)];
  const auto pct = [](float x) { return FormatPercent(static_cast<double>(x)); };
  const QString kind = s.kind == MapKind::kHidden ? tr("DeltaNet, hidden attention") : tr("full attention");
  QString text = tr("Layer %1 (%2), head %3\nimage %4 \u00B7 text %5 \u00B7 sink %6")
                     .arg(s.layer)
                     .arg(kind)
                     .arg(s.head)
                     .arg(pct(s.image), pct(s.text), pct(s.sink));
  if (s.kind == MapKind::kHidden)
    text += tr("\nFractions of the signed sum of its weights: they add up to 100 % but can be negative.");
  return text + tr("\nClick to show this layer and head.");
}

std::vector<LayerHeadChart::Label> LayerHeadChart::layerLabels() const {
  std::vector<Label> labels;
  const Geometry g = geometry();
  if (g.layers.empty() || g.heads <= 0) return labels;
  const int em = fontMetrics().height();
  QFont bold = font();
  bold.setBold(true);
  const QFontMetrics plainMetrics(font()), boldMetrics(bold);
  const int gap = plainMetrics.horizontalAdvance(QLatin1Char(' '));
  const auto place = [&](size_t i, bool full) {
    const QString text = QString::number(g.layers[i]);
    const int width = (full ? boldMetrics : plainMetrics).horizontalAdvance(text) + 2;
    const int centre = g.grid.left() + static_cast<int>(i) * g.cell_w + g.cell_w / 2;
    const QRect r(centre - width / 2, g.grid.bottom() + 2, width, em);
    if (r.left() < 0 || r.right() > rect().right() || r.bottom() > rect().bottom()) return;
    for (const Label& other : labels)
      if (r.adjusted(-gap, 0, gap, 0).intersects(other.rect)) return;  // never two on one another
    labels.push_back({g.layers[i], full, r});
  };
  std::vector<bool> full(g.layers.size(), false);
  for (size_t i = 0; i < g.layers.size(); ++i)
    for (const HeadShare& s : shares_) full[i] = full[i] || (s.layer == g.layers[i] && s.kind == MapKind::kSoftmax);
  for (size_t i = 0; i < g.layers.size(); ++i)
    if (full[i]) place(i, true);  // the full-attention layers first: the ones the maps come from
  for (size_t i = 0; i < g.layers.size(); ++i)
    if (!full[i]) place(i, false);
  std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.rect.left() < b.rect.left(); });
  return labels;
}

std::vector<LayerHeadChart::Label> LayerHeadChart::headLabels() const {
  std::vector<Label> labels;
  const Geometry g = geometry();
  if (g.layers.empty() || g.heads <= 0) return labels;
  const int em = fontMetrics().height();
  // Every few heads, each label a whole line high, centred on its row and inside the widget.
  const int every = std::max(1, (em + g.cell_h - 1) / g.cell_h);
  for (int h = 0; h < g.heads; h += every) {
    const int centre = g.grid.top() + h * g.cell_h + g.cell_h / 2;
    const QRect r(0, centre - em / 2, g.grid.left() - 3, em);
    if (r.top() < 0 || r.bottom() > rect().bottom()) continue;
    if (!labels.empty() && r.top() <= labels.back().rect.bottom()) continue;
    labels.push_back({h, false, r});
  }
  return labels;
}

QSize LayerHeadChart::sizeHint() const {
  const Geometry g = geometry();
  const int em = fontMetrics().height();
  const int cols = std::max<int>(8, static_cast<int>(g.layers.size())), rows = std::max(4, g.heads);
  return {fontMetrics().horizontalAdvance(QStringLiteral("00")) + 6 + cols * em * 2 / 3, em + 4 + rows * em * 2 / 3};
}

QSize LayerHeadChart::minimumSizeHint() const {
  // Wide enough for 5-px columns (up to 32 layers): a 2B model's chart is not squeezed to a few
  // pixels by the small multiples beside it.
  const int em = fontMetrics().height();
  const Geometry g = geometry();
  const int cols = std::clamp(static_cast<int>(g.layers.size()), 4, 32);
  return {fontMetrics().horizontalAdvance(QStringLiteral("00")) + 6 + cols * 5, em * 2};
}

void LayerHeadChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette& pal = palette();
  const Geometry g = geometry();
  QFont small = font();
  p.setPen(pal.color(QPalette::WindowText));
  if (g.layers.empty()) {
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, emptyText());
    return;
  }
  const auto& lut = ColormapLut(Colormap::kCividis);
  for (const HeadShare& s : shares_) {
    const QRect r = cellRect(s.layer, s.head);
    const float x = std::clamp(s.image / top_, 0.0f, 1.0f);
    p.fillRect(r.adjusted(0, 0, -1, -1), QColor(lut[static_cast<size_t>(x * 255.0f)]));
  }
  // The chosen layer and head (or the layer's column).
  if (selectedLayer_ >= 0) {
    for (const HeadShare& s : shares_)
      if (s.kind == selectedKind_ && s.layer == selectedLayer_ && (selectedHead_ < 0 || s.head == selectedHead_)) {
        p.setPen(QPen(pal.color(QPalette::Highlight), 2));
        p.drawRect(cellRect(s.layer, s.head).adjusted(1, 1, -2, -2));
      }
  }
  // Layer numbers under the columns (the full-attention ones in bold), heads on the left.
  for (const Label& label : layerLabels()) {
    small.setBold(label.bold);
    p.setFont(small);
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(label.rect, Qt::AlignHCenter | Qt::AlignTop, QString::number(label.number));
  }
  small.setBold(false);
  p.setFont(small);
  for (const Label& label : headLabels()) p.drawText(label.rect, Qt::AlignRight | Qt::AlignVCenter, QString::number(label.number));
}

void LayerHeadChart::mousePressEvent(QMouseEvent* event) {
  const int i = cellAt(event->position().toPoint());
  if (i < 0) return QWidget::mousePressEvent(event);
  const HeadShare& s = shares_[static_cast<size_t>(i)];
  setSelected(s.kind, s.layer, s.head);
  Q_EMIT cellClicked(s.kind, s.layer, s.head);
}

bool LayerHeadChart::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = cellText(cellAt(help->pos()));
    if (shares_.empty() && !why_.isEmpty()) {
      QToolTip::showText(help->globalPos(), why_, this);
    } else if (text.isEmpty()) {
      QToolTip::showText(help->globalPos(),
                         tr("Layer \u00D7 head: each cell is one head of one layer (columns: layers, the "
                            "full-attention ones in bold; rows: heads), its colour the share of the word's "
                            "attention on the image, from 0 (dark) to %1 % (bright).")
                             .arg(QLocale().toString(100.0 * static_cast<double>(top_), 'f', 0)),
                         this);
    } else {
      QToolTip::showText(help->globalPos(), text, this);
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace glance::ui
