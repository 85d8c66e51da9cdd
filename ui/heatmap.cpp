#include "ui/heatmap.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

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
  return map == Colormap::kViridis ? viridis : inferno;
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

std::vector<float> NormalizeMap(const std::vector<float>& map, const std::vector<bool>& sinks) {
  std::vector<float> out(map.size(), 0.0f);
  float lo = 0.0f, hi = 0.0f;
  bool any = false;
  for (size_t i = 0; i < map.size(); ++i) {
    if (i < sinks.size() && sinks[i]) continue;
    lo = any ? std::min(lo, map[i]) : map[i];
    hi = any ? std::max(hi, map[i]) : map[i];
    any = true;
  }
  if (!any || hi - lo <= 0.0f) return out;
  for (size_t i = 0; i < map.size(); ++i) {
    if (i < sinks.size() && sinks[i]) continue;
    out[i] = (map[i] - lo) / (hi - lo);
  }
  return out;
}

QImage ProcessedView(const QImage& source, int resized_w, int resized_h) {
  if (source.isNull() || resized_w <= 0 || resized_h <= 0) return source;
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
  return source.copy(crop);
}

QImage RenderOverlay(const QImage& image, const std::vector<float>& map, int grid_h,
                     int grid_w, const OverlayStyle& style, QSize size) {
  QImage out(size.expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
  out.fill(Qt::transparent);
  if (image.isNull()) return out;
  QPainter p(&out);
  p.setRenderHint(QPainter::SmoothPixmapTransform);
  const QSize fitted = image.size().scaled(out.size(), Qt::KeepAspectRatio);
  const QRect target(QPoint((out.width() - fitted.width()) / 2,
                            (out.height() - fitted.height()) / 2),
                     fitted);
  p.drawImage(target, image);
  const size_t cells = static_cast<size_t>(std::max(grid_h, 0)) * std::max(grid_w, 0);
  if (cells == 0 || map.size() != cells) return out;

  const std::vector<bool> sinks =
      style.hide_sinks ? FindSinks(map, style.sink_factor) : std::vector<bool>(cells, false);
  const std::vector<float> norm = NormalizeMap(map, sinks);
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
  if (style.grid_lines) {
    p.setPen(QPen(QColor(255, 255, 255, 90), 0));
    for (int x = 1; x < grid_w; ++x) {
      const double px = target.left() + target.width() * static_cast<double>(x) / grid_w;
      p.drawLine(QPointF(px, target.top()), QPointF(px, target.bottom() + 1));
    }
    for (int y = 1; y < grid_h; ++y) {
      const double py = target.top() + target.height() * static_cast<double>(y) / grid_h;
      p.drawLine(QPointF(target.left(), py), QPointF(target.right() + 1, py));
    }
  }
  return out;
}

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void HeatmapWidget::setImage(const QImage& image) {
  image_ = image;
  update();
}

void HeatmapWidget::setMap(const std::vector<float>& map, int grid_h, int grid_w) {
  map_ = map;
  grid_h_ = grid_h;
  grid_w_ = grid_w;
  update();
}

void HeatmapWidget::setStyle(const OverlayStyle& style) {
  style_ = style;
  update();
}

void HeatmapWidget::setCaption(const QString& caption) {
  caption_ = caption;
  setToolTip(caption);
  update();
}

QImage HeatmapWidget::render(QSize size) const {
  return RenderOverlay(image_, map_, grid_h_, grid_w_, style_, size);
}

QSize HeatmapWidget::sizeHint() const {
  const int em = fontMetrics().height();
  return {em * 16, em * 16};
}

QSize HeatmapWidget::minimumSizeHint() const {
  const int em = fontMetrics().height();
  return {em * 4, em * 4};
}

int HeatmapWidget::heightForWidth(int width) const {
  const int text = caption_.isEmpty() ? 0 : fontMetrics().height();
  if (image_.isNull() || image_.width() == 0) return width + text;
  return width * image_.height() / image_.width() + text;
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const int text = caption_.isEmpty() ? 0 : fontMetrics().height();
  const QSize area(width(), std::max(1, height() - text));
  const qreal dpr = devicePixelRatioF();
  QImage img = render((QSizeF(area) * dpr).toSize());
  img.setDevicePixelRatio(dpr);
  p.drawImage(QPoint(0, 0), img);
  if (text > 0) {
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, area.height(), width(), text), Qt::AlignCenter,
               fontMetrics().elidedText(caption_, Qt::ElideRight, width()));
  }
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && rect().contains(event->position().toPoint()))
    Q_EMIT clicked();
  QWidget::mouseReleaseEvent(event);
}

}  // namespace glance::ui
