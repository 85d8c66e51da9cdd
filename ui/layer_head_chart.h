#pragma once
// The layer × head chart of the attention panel (issue 36 item 5; bertviz's head view and
// LVLM-Interpret's image-vs-text plot per head, in one small grid): one cell per layer
// (columns, full-attention and DeltaNet layers in layer order) and head (rows), coloured by the
// share of the chosen word's attention on the image (Cividis, colour-blind safe), with the
// image / text / sink shares in its tooltip. Clicking a cell asks the panel to show that
// layer and head. GUI thread only.
#include <QWidget>
#include <vector>

#include "core/engine/attention_aggregate.h"

namespace glance::ui {

class LayerHeadChart : public QWidget {
  Q_OBJECT
 public:
  explicit LayerHeadChart(QWidget* parent = nullptr);

  // The cells (core LayerHeadShares); empty shows a short line saying there is nothing to show:
  // "not captured", or with `whyNotSaved` (a reopened chat: the shares are not saved) "not
  // saved", that sentence its tooltip (the chart is a few lines tall beside the multiples).
  void setShares(std::vector<HeadShare> shares, const QString& whyNotSaved = {});
  // The line shown in place of an empty chart. For tests.
  QString emptyText() const;
  const std::vector<HeadShare>& shares() const { return shares_; }
  // Outlines the cell of this layer and head (head -1: the layer's whole column); layer -1: none.
  void setSelected(MapKind kind, int layer, int head);
  // Where the cell of (layer, head) is drawn; empty when there is none. For tests.
  QRect cellRect(int layer, int head) const;
  // The index into shares() of the cell under `pos`, or -1.
  int cellAt(const QPoint& pos) const;
  // The tooltip of shares()[index].
  QString cellText(int index) const;
  // The layer numbers drawn under the columns and where: the full-attention layers' first, then
  // every few others, each only where it overlaps no other and fits the widget. For tests.
  // A layer number under its column or a head number beside its row, where it is drawn.
  struct Label {
    int number = 0;
    bool bold = false;  // a full-attention layer
    QRect rect;
  };
  std::vector<Label> layerLabels() const;  // left to right, never on one another, inside the widget
  std::vector<Label> headLabels() const;   // top to bottom, as many as fit a line apart

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 Q_SIGNALS:
  void cellClicked(glance::MapKind kind, int layer, int head);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Geometry {
    std::vector<int> layers;  // distinct layers, ascending (one column each)
    int heads = 0;            // rows
    QRect grid;               // where the cells go
    int cell_w = 0, cell_h = 0;  // one cell: at least 2 px, no taller than wide, at most twice as wide as tall
  };
  Geometry geometry() const;

  std::vector<HeadShare> shares_;
  QString why_;
  float top_ = 1.0f;  // the colour scale's top: the largest image share (at least 0.01)
  MapKind selectedKind_ = MapKind::kSoftmax;
  int selectedLayer_ = -1, selectedHead_ = -1;
};

}  // namespace glance::ui
