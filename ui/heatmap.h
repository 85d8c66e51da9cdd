#pragma once
// Heatmap rendering: one attention map over an image's token grid (any grid_h × grid_w),
// coloured through a small perceptual colour LUT, blended over the image with grid lines.
// The pure functions are separate from the widget so tests can compare rendered QImages.
// The widget can be interactive (the panel's main heatmap): mouse wheel or +/- zoom about
// the cursor, drag pans, double-click resets; a colour legend with the weight range under the
// image; hovering a cell reports its row, column and weight.
#include <QColor>
#include <QImage>
#include <QStringList>
#include <QWidget>
#include <array>
#include <utility>
#include <vector>

class QPainter;

namespace glance::ui {

enum class Colormap { kInferno, kViridis, kCividis, kMagma, kGreys };

// 256 colours sampled from piecewise-linear anchors that follow the shape of matplotlib's
// inferno / viridis / cividis / magma, and greys (dark → bright, monotonic lightness), so low
// weight reads as "dark".
const std::array<QRgb, 256>& ColormapLut(Colormap map);

// Cells whose weight exceeds `k` × the median are "attention sinks" (a token that soaks up
// attention regardless of content). Returns the mask; `k` <= 1 marks nothing.
std::vector<bool> FindSinks(const std::vector<float>& map, float k);

// The smallest and largest weight over the cells that are not sinks ({0, 0} when none).
std::pair<float, float> MapRange(const std::vector<float>& map, const std::vector<bool>& sinks);

// Min–max normalises to [0,1] over the cells that are not sinks (MapRange); sink cells become
// 0, so the colour range is spent on the rest of the image. A flat map becomes all zeros.
std::vector<float> NormalizeMap(const std::vector<float>& map, const std::vector<bool>& sinks);

// How weights become colours (issue 36 item 2).
enum class Scaling {
  kMinMax,      // the map's own smallest to largest weight
  kPercentile,  // the 2nd to 98th percentile: a few extreme cells no longer flatten the rest
  kLog,         // min–max, then log(1 + 1000x) / log(1001): small weights become visible
};
inline constexpr double kClipPercentLow = 2.0, kClipPercentHigh = 98.0;

struct OverlayStyle;
// The weights at the colour map's two ends for `map` under `style` (its fixed range when set).
std::pair<float, float> DisplayRange(const std::vector<float>& map, const std::vector<bool>& sinks,
                                     const OverlayStyle& style);
// [0,1] per cell for colouring under `style` (core's ScaleForDisplay over DisplayRange); sinks 0.
std::vector<float> NormalizeMap(const std::vector<float>& map, const std::vector<bool>& sinks,
                                const OverlayStyle& style);

struct OverlayStyle {
  Colormap colormap = Colormap::kInferno;
  double opacity = 0.55;   // 0 = image only, 1 = heatmap only
  bool grid_lines = true;
  // With grid_lines: also the vision tower's 16-pixel patches, faint and dotted, so each token
  // shows as the 2×2 patches its merger joined.
  bool patch_lines = false;
  bool hide_sinks = false;
  float sink_factor = 5.0f;
  Scaling scaling = Scaling::kMinMax;
  // Global normalisation: one range for every map (e.g. every word of the answer), so colours
  // compare across maps; otherwise each map spans the whole colour map.
  bool fixed_range = false;
  float range_lo = 0.0f, range_hi = 0.0f;
  bool range_of_two = false;  // the fixed range is that of two words side by side (the legend says so)
};

// Draws `image` into `target` (any rectangle: the caller keeps the aspect) with `map`
// ([grid_h*grid_w], row-major) over it. An empty map draws the image alone.
void PaintOverlay(QPainter& painter, const QRectF& target, const QImage& image,
                  const std::vector<float>& map, int grid_h, int grid_w, const OverlayStyle& style);
// The map's cells (and grid lines) alone, over whatever `target` already shows.
void PaintCells(QPainter& painter, const QRectF& target, const std::vector<float>& map, int grid_h,
                int grid_w, const OverlayStyle& style);

// Draws `image` scaled to fit `size` (aspect kept, centred on a transparent background) with
// `map` over it (PaintOverlay).
QImage RenderOverlay(const QImage& image, const std::vector<float>& map, int grid_h,
                     int grid_w, const OverlayStyle& style, QSize size);

// The part of `source` the vision tower saw: a centred crop to the processed aspect ratio
// (fast mode centre-crops; detail mode keeps the aspect, so the crop is a no-op there).
QImage ProcessedView(const QImage& source, int resized_w, int resized_h);
// The part of `source` ProcessedView keeps.
QRect ProcessedCrop(const QImage& source, int resized_w, int resized_h);

class HeatmapWidget : public QWidget {
  Q_OBJECT
 public:
  explicit HeatmapWidget(QWidget* parent = nullptr);

  void setImage(const QImage& image);
  // Also sets the accessible description: the strongest cells (ui/heatmap_description.h).
  void setMap(const std::vector<float>& map, int grid_h, int grid_w);
  void setStyle(const OverlayStyle& style);
  void setCaption(const QString& caption);  // drawn under the image (small multiples)
  const OverlayStyle& overlayStyle() const { return style_; }
  // Zoom, pan, hover and the colour legend (the panel's main heatmap).
  void setInteractive(bool on);

  // What paintEvent draws for the image and map at zoom 1, at `size` logical pixels.
  QImage render(QSize size) const;

  // View: 1 = the whole image fits; up to 16. `anchor` (widget coordinates) stays put.
  double zoom() const { return zoom_; }
  void setZoom(double zoom, QPointF anchor = QPointF(-1, -1));
  void resetView();
  // Where the image is drawn now (zoom and pan applied), in widget coordinates.
  QRectF imageRect() const;
  // The part of the image the map covers, in the image's pixels (the attention panel's
  // "Original" view: the whole picture, the map over the crop the model saw, the rest dimmed).
  // A null rectangle: the whole image.
  void setMapArea(const QRect& area);
  // Where the map is drawn now, in widget coordinates (imageRect() without a map area).
  QRectF mapRect() const;
  // The grid cell under `pos` (widget coordinates) as row * grid_w + col, or -1.
  int cellAt(QPointF pos) const;
  // "row 3, col 5 · weight 0.0123 (4.1% of this map)" for the hovered cell, else empty.
  QString hoverText() const { return hoverText_; }
  // hoverText() and shorter forms of it, longest first (for a FittingLabel); empty with it.
  QStringList hoverForms() const { return hoverForms_; }
  // A cell outlined until cleared (-1): the one the reverse lookup is about.
  void setMarkedCell(int cell);
  int markedCell() const { return marked_; }
  // The legend's range (MapRange of the drawn map under the style's sink hiding).
  std::pair<float, float> legendRange() const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  // Small multiples follow the width; the interactive map takes the room it is given and fits
  // the image inside it, aspect kept (sizing by width pushed its rows and the controls below
  // the dock's fold, and widening the dock cropped it further; issue 34).
  bool hasHeightForWidth() const override { return !interactive_; }
  int heightForWidth(int width) const override;

 Q_SIGNALS:
  void clicked();
  void cellClicked(int cell);         // a click (not a drag) on a grid cell: row * grid_w + col
  void hovered(const QString& text);  // hoverText() changed

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  QRectF fittedRect() const;  // the image at zoom 1, centred in the drawing area
  int legendHeight() const;
  void updateHover(QPointF pos);
  void describe();  // the accessible description follows the map and the hidden sinks
  void paintLegend(QPainter& p, const QRect& area) const;

  QImage image_;    // what was set (tests compare renders of it)
  QImage display_;  // image_ at most 2048 px on its long side: painting stays fast
  std::vector<float> map_;
  int grid_h_ = 0, grid_w_ = 0;
  OverlayStyle style_;
  QString caption_;
  bool interactive_ = false;
  double zoom_ = 1.0;
  QPointF pan_;  // offset of the zoomed image from its zoom-1 place, in widget pixels
  QPointF dragFrom_;
  bool dragging_ = false;
  bool moved_ = false;
  QPointF lastHover_{-1, -1};
  QRect mapArea_;
  int marked_ = -1;
  QString hoverText_;
  QStringList hoverForms_;
};

}  // namespace glance::ui
