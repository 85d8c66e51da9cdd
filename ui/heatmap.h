#pragma once
// Heatmap rendering: one attention map over an image's token grid (any grid_h × grid_w),
// coloured through a small perceptual colour LUT, blended over the image with grid lines.
// The pure functions are separate from the widget so tests can compare rendered QImages.
#include <QColor>
#include <QImage>
#include <QWidget>
#include <array>
#include <vector>

namespace glance::ui {

enum class Colormap { kInferno, kViridis };

// 256 colours sampled from piecewise-linear anchors that follow the shape of matplotlib's
// inferno / viridis (dark → bright, monotonic lightness), so low weight reads as "dark".
const std::array<QRgb, 256>& ColormapLut(Colormap map);

// Cells whose weight exceeds `k` × the median are "attention sinks" (a token that soaks up
// attention regardless of content). Returns the mask; `k` <= 1 marks nothing.
std::vector<bool> FindSinks(const std::vector<float>& map, float k);

// Min–max normalises to [0,1] over the cells that are not sinks; sink cells become 0, so the
// colour range is spent on the rest of the image. A flat map becomes all zeros.
std::vector<float> NormalizeMap(const std::vector<float>& map, const std::vector<bool>& sinks);

struct OverlayStyle {
  Colormap colormap = Colormap::kInferno;
  double opacity = 0.55;   // 0 = image only, 1 = heatmap only
  bool grid_lines = true;
  bool hide_sinks = false;
  float sink_factor = 5.0f;
};

// Draws `image` scaled to fit `size` (aspect kept, centred on a transparent background) with
// `map` ([grid_h*grid_w], row-major) over it. An empty map draws the image alone.
QImage RenderOverlay(const QImage& image, const std::vector<float>& map, int grid_h,
                     int grid_w, const OverlayStyle& style, QSize size);

// The part of `source` the vision tower saw: a centred crop to the processed aspect ratio
// (fast mode centre-crops; detail mode keeps the aspect, so the crop is a no-op there).
QImage ProcessedView(const QImage& source, int resized_w, int resized_h);

class HeatmapWidget : public QWidget {
  Q_OBJECT
 public:
  explicit HeatmapWidget(QWidget* parent = nullptr);

  void setImage(const QImage& image);
  void setMap(const std::vector<float>& map, int grid_h, int grid_w);
  void setStyle(const OverlayStyle& style);
  void setCaption(const QString& caption);  // drawn under the image (small multiples)
  const OverlayStyle& overlayStyle() const { return style_; }

  // What paintEvent draws, at `size` logical pixels.
  QImage render(QSize size) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 Q_SIGNALS:
  void clicked();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  QImage image_;
  std::vector<float> map_;
  int grid_h_ = 0, grid_w_ = 0;
  OverlayStyle style_;
  QString caption_;
};

}  // namespace glance::ui
