#include "ui/heatmap.h"

#include <QAccessible>
#include <QKeyEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "core/engine/attention_aggregate.h"
#include "ui/heatmap_description.h"
#include "ui/stats_format.h"

namespace glance::ui {
namespace {

struct Anchor {
  double t;
  int r, g, b;
};

std::array<QRgb, 256> BuildLut(const std::vector<Anchor>& anchors) {
  std::array<QRgb, 256> lut{};
  for (int i = 0; i < 256; ++i) {
    const double t = i / 255.0;
    size_t k = 1;
    while (k + 1 < anchors.size() && anchors[k].t < t) ++k;
    const Anchor& a = anchors[k - 1];
    const Anchor& b = anchors[k];
    const double u = std::clamp((t - a.t) / (b.t - a.t), 0.0, 1.0);
    auto mix = [u](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * u)); };
    lut[static_cast<size_t>(i)] = qRgb(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
  }
  return lut;
}

}  // namespace

const std::array<QRgb, 256>& ColormapLut(Colormap map) {
  // Anchors read off the published inferno / viridis curves at even steps.
  static const std::array<QRgb, 256> inferno = BuildLut({{0.00, 0, 0, 4},
                                                         {0.14, 40, 11, 84},
                                                         {0.29, 101, 21, 110},
                                                         {0.43, 159, 42, 99},
                                                         {0.57, 212, 72, 66},
                                                         {0.71, 245, 125, 21},
                                                         {0.86, 250, 193, 39},
                                                         {1.00, 252, 255, 164}});
  static const std::array<QRgb, 256> viridis = BuildLut({{0.00, 68, 1, 84},
                                                         {0.25, 59, 82, 139},
                                                         {0.50, 33, 145, 140},
                                                         {0.75, 94, 201, 98},
                                                         {1.00, 253, 231, 37}});
  // cividis: made for colour-vision deficiency (Nuñez, Anderton & Renslow 2018, PLOS ONE
  // 13(7): e0199239); the same in every common form of colour blindness.
  static const std::array<QRgb, 256> cividis = BuildLut({{0.00, 0, 32, 77},
                                                         {0.25, 65, 77, 107},
                                                         {0.50, 124, 123, 120},
                                                         {0.75, 188, 175, 111},
                                                         {1.00, 255, 234, 70}});
  static const std::array<QRgb, 256> magma = BuildLut({{0.00, 0, 0, 4},
                                                       {0.25, 81, 18, 124},
                                                       {0.50, 183, 55, 121},
                                                       {0.75, 252, 137, 97},
                                                       {1.00, 252, 253, 191}});
  static const std::array<QRgb, 256> greys = BuildLut({{0.00, 0, 0, 0}, {1.00, 255, 255, 255}});
  switch (map) {
    case Colormap::kViridis: return viridis;
    case Colormap::kCividis: return cividis;
    case Colormap::kMagma: return magma;
    case Colormap::kGreys: return greys;
    case Colormap::kInferno: break;
  }
  return inferno;
}

std::vector<bool> FindSinks(const std::vector<float>& map, float k) {
  std::vector<bool> sinks(map.size(), false);
  if (map.size() < 2 || k <= 1.0f) return sinks;
  std::vector<float> sorted = map;
  const auto mid = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), mid, sorted.end());
  const float median = *mid;
  if (median <= 0.0f) {
    // Mostly-zero maps: fall back to the single largest cell when it dominates the sum.
    const auto top = std::max_element(map.begin(), map.end());
    float sum = 0.0f;
    for (float v : map) sum += v;
    if (sum > 0.0f && *top > 0.5f * sum) sinks[static_cast<size_t>(top - map.begin())] = true;
    return sinks;
  }
  for (size_t i = 0; i < map.size(); ++i) sinks[i] = map[i] > k * median;
  return sinks;
}

std::pair<float, float> MapRange(const std::vector<float>& map, const std::vector<bool>& sinks) {
  float lo = 0.0f, hi = 0.0f;
  bool any = false;
  for (size_t i = 0; i < map.size(); ++i) {
    if (i < sinks.size() && sinks[i]) continue;
    lo = any ? std::min(lo, map[i]) : map[i];
    hi = any ? std::max(hi, map[i]) : map[i];
    any = true;
  }
  return {lo, hi};
}

std::vector<float> NormalizeMap(const std::vector<float>& map, const std::vector<bool>& sinks) {
  std::vector<float> out(map.size(), 0.0f);
  const auto [lo, hi] = MapRange(map, sinks);
  if (hi - lo <= 0.0f) return out;
  for (size_t i = 0; i < map.size(); ++i) {
    if (i < sinks.size() && sinks[i]) continue;
    out[i] = (map[i] - lo) / (hi - lo);
  }
  return out;
}

std::pair<float, float> DisplayRange(const std::vector<float>& map, const std::vector<bool>& sinks,
                                     const OverlayStyle& style) {
  if (style.fixed_range) return {style.range_lo, style.range_hi};
  if (style.scaling != Scaling::kPercentile) return MapRange(map, sinks);
  std::vector<float> kept;
  for (size_t i = 0; i < map.size(); ++i)
    if (i >= sinks.size() || !sinks[i]) kept.push_back(map[i]);
  return {Percentile(kept, kClipPercentLow), Percentile(kept, kClipPercentHigh)};
}

std::vector<float> NormalizeMap(const std::vector<float>& map, const std::vector<bool>& sinks,
                                const OverlayStyle& style) {
  const auto [lo, hi] = DisplayRange(map, sinks, style);
  std::vector<float> out = ScaleForDisplay(map, lo, hi, style.scaling == Scaling::kLog);
  for (size_t i = 0; i < out.size() && i < sinks.size(); ++i)
    if (sinks[i]) out[i] = 0.0f;
  return out;
}

QImage ProcessedView(const QImage& source, int resized_w, int resized_h) {
  if (source.isNull() || resized_w <= 0 || resized_h <= 0) return source;
  return source.copy(ProcessedCrop(source, resized_w, resized_h));
}

QRect ProcessedCrop(const QImage& source, int resized_w, int resized_h) {
  if (source.isNull() || resized_w <= 0 || resized_h <= 0) return source.rect();
  const double want = static_cast<double>(resized_w) / resized_h;
  const double have = static_cast<double>(source.width()) / source.height();
  QRect crop = source.rect();
  if (have > want * 1.01) {
    const int w = static_cast<int>(std::lround(source.height() * want));
    crop = QRect((source.width() - w) / 2, 0, w, source.height());
  } else if (have < want / 1.01) {
    const int h = static_cast<int>(std::lround(source.width() / want));
    crop = QRect(0, (source.height() - h) / 2, source.width(), h);
  }
  return crop;
}

void PaintOverlay(QPainter& p, const QRectF& target, const QImage& image,
                  const std::vector<float>& map, int grid_h, int grid_w, const OverlayStyle& style) {
  if (image.isNull()) return;
  p.save();
  p.setRenderHint(QPainter::SmoothPixmapTransform);
  p.drawImage(target, image);
  p.restore();
  PaintCells(p, target, map, grid_h, grid_w, style);
}

void PaintCells(QPainter& p, const QRectF& target, const std::vector<float>& map, int grid_h, int grid_w,
                const OverlayStyle& style) {
  const size_t cells = static_cast<size_t>(std::max(grid_h, 0)) * std::max(grid_w, 0);
  if (cells == 0 || map.size() != cells) return;
  p.save();
  const std::vector<bool> sinks =
      style.hide_sinks ? FindSinks(map, style.sink_factor) : std::vector<bool>(cells, false);
  const std::vector<float> norm = NormalizeMap(map, sinks, style);
  const auto& lut = ColormapLut(style.colormap);
  // Paint the grid as a grid_w × grid_h image and scale it: cells stay exact rectangles.
  QImage cellsImage(grid_w, grid_h, QImage::Format_ARGB32);
  for (int y = 0; y < grid_h; ++y)
    for (int x = 0; x < grid_w; ++x) {
      const size_t i = static_cast<size_t>(y) * grid_w + x;
      const int idx = std::clamp(static_cast<int>(std::lround(norm[i] * 255.0f)), 0, 255);
      cellsImage.setPixel(x, y, sinks[i] ? qRgba(128, 128, 128, 255) : lut[static_cast<size_t>(idx)]);
    }
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.setOpacity(std::clamp(style.opacity, 0.0, 1.0));
  p.drawImage(target, cellsImage);
  p.setOpacity(1.0);
  auto lines = [&](int nx, int ny, bool skip_even) {
    for (int x = 1; x < nx; ++x) {
      if (skip_even && x % 2 == 0) continue;
      const double px = target.left() + target.width() * static_cast<double>(x) / nx;
      p.drawLine(QPointF(px, target.top()), QPointF(px, target.bottom()));
    }
    for (int y = 1; y < ny; ++y) {
      if (skip_even && y % 2 == 0) continue;
      const double py = target.top() + target.height() * static_cast<double>(y) / ny;
      p.drawLine(QPointF(target.left(), py), QPointF(target.right(), py));
    }
  };
  if (style.grid_lines) {
    p.setPen(QPen(QColor(255, 255, 255, 90), 0));
    lines(grid_w, grid_h, false);
    if (style.patch_lines) {  // each token is 2×2 patches (the merger's spatial_merge_size)
      p.setPen(QPen(QColor(255, 255, 255, 60), 0, Qt::DotLine));
      lines(2 * grid_w, 2 * grid_h, true);
    }
  }
  p.restore();
}

QImage RenderOverlay(const QImage& image, const std::vector<float>& map, int grid_h,
                     int grid_w, const OverlayStyle& style, QSize size) {
  QImage out(size.expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
  out.fill(Qt::transparent);
  if (image.isNull()) return out;
  QPainter p(&out);
  const QSize fitted = image.size().scaled(out.size(), Qt::KeepAspectRatio);
  const QRect target(QPoint((out.width() - fitted.width()) / 2,
                            (out.height() - fitted.height()) / 2),
                     fitted);
  PaintOverlay(p, target, image, map, grid_h, grid_w, style);
  return out;
}

namespace {
constexpr double kMaxZoom = 16.0;
constexpr int kDisplayMax = 2048;  // long side of the image the widget paints
}  // namespace

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void HeatmapWidget::setInteractive(bool on) {
  interactive_ = on;
  setMouseTracking(on);
  setFocusPolicy(on ? Qt::WheelFocus : Qt::NoFocus);
  setToolTip(on ? tr("Wheel or +/\u2212 zooms, drag pans, double-click shows the whole image.")
                : caption_);
  update();
}

void HeatmapWidget::setImage(const QImage& image) {
  const bool sameSize = image.size() == image_.size();
  image_ = image;
  mapArea_ = QRect();  // a new picture: the map covers it unless told otherwise
  display_ = image.width() > kDisplayMax || image.height() > kDisplayMax
                 ? image.scaled(kDisplayMax, kDisplayMax, Qt::KeepAspectRatio, Qt::SmoothTransformation)
                 : image;
  if (!sameSize) resetView();
  updateGeometry();
  update();
}

void HeatmapWidget::setMap(const std::vector<float>& map, int grid_h, int grid_w) {
  const bool hadLegend = legendHeight() > 0;
  map_ = map;
  if ((legendHeight() > 0) != hadLegend) updateGeometry();  // the legend's room is in the minimum
  grid_h_ = grid_h;
  grid_w_ = grid_w;
  if (lastHover_.x() >= 0) updateHover(lastHover_);
  describe();
  update();
}

void HeatmapWidget::setStyle(const OverlayStyle& style) {
  const bool sinksChanged = style.hide_sinks != style_.hide_sinks || style.sink_factor != style_.sink_factor;
  style_ = style;
  if (sinksChanged) describe();
  update();
}

void HeatmapWidget::describe() {
  const std::vector<bool> hidden = style_.hide_sinks ? FindSinks(map_, style_.sink_factor) : std::vector<bool>();
  const QString text = TopCellsDescription(map_, grid_h_, grid_w_, hidden);
  if (text == accessibleDescription()) return;
  setAccessibleDescription(text);
  // Screen readers hear of it without the user leaving and re-entering the widget.
  QAccessibleEvent event(this, QAccessible::DescriptionChanged);
  QAccessible::updateAccessibility(&event);
}

void HeatmapWidget::setCaption(const QString& caption) {
  caption_ = caption;
  if (!interactive_) setToolTip(caption);
  update();
}

QImage HeatmapWidget::render(QSize size) const {
  return RenderOverlay(image_, map_, grid_h_, grid_w_, style_, size);
}

QSize HeatmapWidget::sizeHint() const {
  const int em = fontMetrics().height();
  return interactive_ ? QSize(em * 20, em * 16) : QSize(em * 8, em * 8);
}

QSize HeatmapWidget::minimumSizeHint() const {
  const int em = fontMetrics().height();
  // The panel's map keeps room for a readable grid and its legend; small multiples shrink.
  return interactive_ ? QSize(em * 6, em * 6 + legendHeight()) : QSize(em * 2, em * 2);
}

int HeatmapWidget::heightForWidth(int width) const {
  const int text = (caption_.isEmpty() ? 0 : fontMetrics().height()) + legendHeight();
  if (image_.isNull() || image_.width() == 0) return width * 3 / 4 + text;
  return width * image_.height() / image_.width() + text;
}

int HeatmapWidget::legendHeight() const {
  return interactive_ && !map_.empty() ? fontMetrics().height() * 2 : 0;
}

QRectF HeatmapWidget::fittedRect() const {
  const int text = (caption_.isEmpty() ? 0 : fontMetrics().height()) + legendHeight();
  const QSizeF area(width(), std::max(1, height() - text));
  if (image_.isNull()) return QRectF(QPointF(0, 0), area);
  const QSizeF fitted = QSizeF(image_.size()).scaled(area, Qt::KeepAspectRatio);
  return QRectF(QPointF((area.width() - fitted.width()) / 2, (area.height() - fitted.height()) / 2),
                fitted);
}

void HeatmapWidget::setMapArea(const QRect& area) {
  mapArea_ = area == image_.rect() ? QRect() : area;
  update();
}

QRectF HeatmapWidget::mapRect() const {
  const QRectF whole = imageRect();
  if (mapArea_.isNull() || image_.isNull()) return whole;
  const double sx = whole.width() / image_.width(), sy = whole.height() / image_.height();
  return QRectF(whole.left() + mapArea_.left() * sx, whole.top() + mapArea_.top() * sy, mapArea_.width() * sx,
                mapArea_.height() * sy);
}

QRectF HeatmapWidget::imageRect() const {
  const QRectF fit = fittedRect();
  const QPointF centre = fit.center() + pan_;
  const QSizeF size = fit.size() * zoom_;
  return QRectF(centre - QPointF(size.width() / 2, size.height() / 2), size);
}

void HeatmapWidget::setZoom(double zoom, QPointF anchor) {
  zoom = std::clamp(zoom, 1.0, kMaxZoom);
  const QRectF before = imageRect();
  if (anchor.x() < 0) anchor = fittedRect().center();
  // Keep the image point under `anchor` where it is.
  const QPointF rel((anchor.x() - before.left()) / before.width(), (anchor.y() - before.top()) / before.height());
  zoom_ = zoom;
  const QRectF fit = fittedRect();
  const QSizeF size = fit.size() * zoom_;
  const QPointF topLeft(anchor.x() - rel.x() * size.width(), anchor.y() - rel.y() * size.height());
  pan_ = topLeft + QPointF(size.width() / 2, size.height() / 2) - fit.center();
  if (zoom_ == 1.0) pan_ = QPointF();
  update();
}

void HeatmapWidget::resetView() {
  zoom_ = 1.0;
  pan_ = QPointF();
  update();
}

void HeatmapWidget::setMarkedCell(int cell) {
  marked_ = cell;
  update();
}

int HeatmapWidget::cellAt(QPointF pos) const {
  if (grid_h_ <= 0 || grid_w_ <= 0 || image_.isNull()) return -1;
  const QRectF r = mapRect();
  if (!r.contains(pos)) return -1;
  const int col = std::clamp(static_cast<int>((pos.x() - r.left()) / r.width() * grid_w_), 0, grid_w_ - 1);
  const int row = std::clamp(static_cast<int>((pos.y() - r.top()) / r.height() * grid_h_), 0, grid_h_ - 1);
  return row * grid_w_ + col;
}

std::pair<float, float> HeatmapWidget::legendRange() const {
  const std::vector<bool> sinks =
      style_.hide_sinks ? FindSinks(map_, style_.sink_factor) : std::vector<bool>(map_.size(), false);
  return DisplayRange(map_, sinks, style_);
}

void HeatmapWidget::updateHover(QPointF pos) {
  lastHover_ = pos;
  QString text;
  const int cell = interactive_ ? cellAt(pos) : -1;
  if (cell >= 0 && static_cast<size_t>(cell) < map_.size()) {
    double sum = 0.0;
    for (float v : map_) sum += static_cast<double>(v);
    const double value = static_cast<double>(map_[static_cast<size_t>(cell)]);
    const QString row = QString::number(cell / grid_w_ + 1), col = QString::number(cell % grid_w_ + 1);
    const QString weight = FormatWeight(value);
    const QString share = sum > 0.0 ? QLocale().toString(100.0 * value / sum, 'f', 1) : QString();
    text = tr("row %1, col %2 \u00B7 weight %3").arg(row, col, weight);
    if (!share.isEmpty()) text += tr(" (%1% of this map)").arg(share);
    // Shorter forms for a narrow dock: the weight is what must not be cut (issue 34).
    hoverForms_ = {text};
    if (!share.isEmpty()) hoverForms_ << tr("row %1, col %2 \u00B7 %3 (%4%)").arg(row, col, weight, share);
    hoverForms_ << tr("r%1 c%2 \u00B7 %3").arg(row, col, weight);
  } else {
    hoverForms_.clear();
  }
  if (text != hoverText_) {
    hoverText_ = text;
    Q_EMIT hovered(text);
  }
}

void HeatmapWidget::paintLegend(QPainter& p, const QRect& area) const {
  const auto& lut = ColormapLut(style_.colormap);
  const int em = fontMetrics().height();
  const QRect bar(area.left() + em / 2, area.top() + em / 4, std::max(1, area.width() - em), em * 3 / 4);
  QLinearGradient gradient(bar.topLeft(), bar.topRight());
  for (int i = 0; i <= 8; ++i) gradient.setColorAt(i / 8.0, QColor(lut[static_cast<size_t>(i * 255 / 8)]));
  p.fillRect(bar, gradient);
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(bar.adjusted(0, 0, -1, -1));
  const auto [lo, hi] = legendRange();
  const QRect labels(bar.left(), bar.bottom() + 1, bar.width(), area.bottom() - bar.bottom());
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, FormatWeight(static_cast<double>(lo)));
  QString what = style_.scaling == Scaling::kLog ? tr("attention weight, log scale") : tr("attention weight");
  if (style_.scaling == Scaling::kPercentile && !style_.fixed_range) what = tr("attention weight, 2nd\u2013" "98th pct");
  if (style_.fixed_range) what += style_.range_of_two ? tr(", same for both words") : tr(", same for every word");
  if (style_.hide_sinks) what += tr(" (sinks grey)");
  // Between the two numbers, shortened when the map is narrow (two words side by side).
  const QFontMetrics fm = fontMetrics();
  const int ends = 2 * std::max(fm.horizontalAdvance(FormatWeight(static_cast<double>(lo))),
                                fm.horizontalAdvance(FormatWeight(static_cast<double>(hi)))) + em;
  p.drawText(labels, Qt::AlignHCenter | Qt::AlignTop, fm.elidedText(what, Qt::ElideRight, std::max(0, labels.width() - ends)));
  p.drawText(labels, Qt::AlignRight | Qt::AlignTop, FormatWeight(static_cast<double>(hi)));
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const int caption = caption_.isEmpty() ? 0 : fontMetrics().height();
  const int legend = legendHeight();
  const int imageBottom = height() - caption - legend;
  p.save();
  p.setClipRect(QRect(0, 0, width(), std::max(0, imageBottom)));
  const QRectF r = mapRect();
  if (mapArea_.isNull()) {
    PaintOverlay(p, r, display_, map_, grid_h_, grid_w_, style_);
  } else {  // the whole picture, dimmed where the model did not look, the map over its crop
    PaintOverlay(p, imageRect(), display_, {}, 0, 0, style_);
    QPainterPath outside;
    outside.addRect(imageRect());
    QPainterPath inside;
    inside.addRect(r);
    p.fillPath(outside.subtracted(inside), QColor(0, 0, 0, 150));
    PaintCells(p, r, map_, grid_h_, grid_w_, style_);
    p.setPen(QPen(Qt::white, 1, Qt::DashLine));
    p.drawRect(r);
  }
  const int cell = interactive_ ? cellAt(lastHover_) : -1;
  const double cw = grid_w_ > 0 ? r.width() / grid_w_ : 0.0, ch = grid_h_ > 0 ? r.height() / grid_h_ : 0.0;
  auto cellRect = [&](int c) { return QRectF(r.left() + (c % grid_w_) * cw, r.top() + (c / grid_w_) * ch, cw, ch); };
  p.setBrush(Qt::NoBrush);
  if (marked_ >= 0 && marked_ < grid_h_ * grid_w_) {  // the looked-up cell: white over black, seen on any colour
    p.setPen(QPen(Qt::black, 4));
    p.drawRect(cellRect(marked_));
    p.setPen(QPen(Qt::white, 2));
    p.drawRect(cellRect(marked_));
  }
  if (cell >= 0) {  // outline the hovered cell
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.drawRect(cellRect(cell));
  }
  p.restore();
  if (legend > 0) paintLegend(p, QRect(0, imageBottom, width(), legend));
  if (hasFocus()) {  // keyboard users see where they are (+/- zoom, arrows pick words)
    p.setPen(QPen(palette().color(QPalette::Highlight), 2, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(rect()).adjusted(1, 1, -1, -1));
  }
  if (caption > 0) {
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, height() - caption, width(), caption), Qt::AlignCenter,
               fontMetrics().elidedText(caption_, Qt::ElideRight, width()));
  }
}

void HeatmapWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    dragging_ = interactive_;
    moved_ = false;
    dragFrom_ = event->position();
  }
  QWidget::mousePressEvent(event);
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_ && zoom_ > 1.0) {
    const QPointF delta = event->position() - dragFrom_;
    if (delta.manhattanLength() > 2) moved_ = true;
    pan_ += delta;
    dragFrom_ = event->position();
  }
  updateHover(event->position());
  update();
  QWidget::mouseMoveEvent(event);
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent* event) {
  dragging_ = false;
  if (event->button() == Qt::LeftButton && rect().contains(event->position().toPoint()) && !moved_) {
    Q_EMIT clicked();
    if (const int cell = cellAt(event->position()); cell >= 0) Q_EMIT cellClicked(cell);
  }
  QWidget::mouseReleaseEvent(event);
}

void HeatmapWidget::mouseDoubleClickEvent(QMouseEvent* event) {
  if (interactive_) resetView();
  QWidget::mouseDoubleClickEvent(event);
}

void HeatmapWidget::wheelEvent(QWheelEvent* event) {
  if (!interactive_) return QWidget::wheelEvent(event);
  const double steps = event->angleDelta().y() / 120.0;
  setZoom(zoom_ * std::pow(1.25, steps), event->position());
  updateHover(event->position());
  event->accept();
}

void HeatmapWidget::keyPressEvent(QKeyEvent* event) {
  if (interactive_ && (event->key() == Qt::Key_Plus || event->key() == Qt::Key_Equal)) {
    setZoom(zoom_ * 1.25);
  } else if (interactive_ && event->key() == Qt::Key_Minus) {
    setZoom(zoom_ / 1.25);
  } else if (interactive_ && event->key() == Qt::Key_0) {
    resetView();
  } else {
    QWidget::keyPressEvent(event);  // Left/Right reach the panel's word stepping
  }
}

void HeatmapWidget::leaveEvent(QEvent* event) {
  updateHover(QPointF(-1, -1));
  update();
  QWidget::leaveEvent(event);
}

}  // namespace glance::ui
