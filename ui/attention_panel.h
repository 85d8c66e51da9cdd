#pragma once
// The "Image & attention" panel: the image with the selected word's heatmap over its token
// grid (large, zoomable, with a colour legend and the hovered cell's weight), word chips along the answer (click, hover, Left/Right), layer and head selectors
// (default: mean of all), colour map, opacity, attention-sink hiding, small multiples of the
// first words, and export (PNG of the overlay, JSON of the raw per-token maps).
// GUI thread only.
#include <QImage>
#include <QWidget>
#include <utility>
#include <vector>

#include "core/engine/events.h"
#include "ui/attention_data.h"
#include "ui/event_types.h"  // the metatype of rolloutRequested's maps, declared before moc uses it
#include "ui/heatmap.h"

class QAbstractButton;
class QAction;
class QActionGroup;
class QButtonGroup;
class QCheckBox;
class QComboBox;
class QGridLayout;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QScrollArea;
class QSlider;
class QToolButton;

namespace glance::ui {

class FittingLabel;
class LayerHeadChart;

class AttentionPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kSmallMultiples = 6;

  explicit AttentionPanel(QWidget* parent = nullptr);

  // The image as the vision tower saw it (see ProcessedView) and, when known, the picture it was
  // made from (View ▸ Original picture shows that, the map over the crop the model saw).
  void setImage(const QImage& image, const QImage& source = QImage());
  QAction* originalAction() const { return original_; }
  QAction* patchLinesAction() const { return patchLines_; }
  QAction* sameScaleAction() const { return sameScale_; }
  // View ▸ "Reverse lookup: content words only" (LookupRanking::kContentWords; off: every word).
  QAction* contentWordsAction() const { return contentWords_; }
  QAction* lookupOnShownAction() const { return lookupOnShown_; }
  void setScaling(Scaling scaling);
  // A finished turn's maps and words; selects the first word.
  void setAttention(std::vector<AttentionMap> maps, std::vector<AttentionWord> words);
  // Streaming: shows the newest token's map live (chips come with setAttention).
  void appendMap(const AttentionMap& map);
  void clear();

  void selectWord(int index);
  int selectedWord() const { return selected_; }
  // A span of words (shift-click a chip; "Whole answer" selects them all): the map is the mean
  // over every token from the first word's first to the last word's last. selectWord ends it.
  void selectSpan(int first, int last);
  std::pair<int, int> selectedSpan() const { return {selected_, spanLast_}; }
  QAbstractButton* wholeAnswerButton() const { return wholeAnswer_; }
  // Two words side by side (issue 36 item 3): ctrl-click a second word's chip; its map is drawn
  // beside the selected one's, both on one colour scale. -1 (or ctrl-clicking it again) ends it.
  void compareWith(int index);
  int comparedWord() const { return compare_; }
  std::vector<float> comparedMap() const;
  HeatmapWidget* compareHeatmap() const { return compareHeatmap_; }
  int wordCount() const { return static_cast<int>(words_.size()); }
  void setLayerHead(int layer_slot, int head);  // a full-attention layer slot and head; -1 = mean of all
  // Any layer of either kind (the DeltaNet layers' hidden attention when it was captured), by
  // decoder layer index (-1: all of that kind), one head or all fused by mean or max.
  void setLayerChoice(MapKind kind, int layer, int head, HeadFusion fusion = HeadFusion::kMean);
  MapAggregate currentAggregate() const;
  // "Rollout (every layer)" in the layer box (issue 36 item 2): attention rollout through every
  // layer (core/engine/attention_rollout.h). Choosing it asks for the maps (rolloutRequested,
  // answered by setRollout or setRolloutError); they last until new maps come.
  void chooseRollout();
  bool rolloutChosen() const;
  void setRollout(const std::vector<AttentionMap>& maps);
  void setRolloutError(const QString& message);
  void setHideSinks(bool hide);
  void setOpacity(double opacity);

  // The selected word's map under the current layer/head choice ([grid_h*grid_w]).
  std::vector<float> currentMap() const;
  // The overlay as drawn, at `size` (default: the image's own size, at least 448 px wide).
  QImage renderOverlay(QSize size = {}) const;
  // The PNG export: the overlay, then what it shows (word, grid, layer, head), the model and
  // the colour legend with its range; the same text in the PNG's Description.
  QImage renderExport() const;
  bool exportPng(const QString& path) const;
  bool exportJson(const QString& path) const;
  // The same maps as CSV, one row per cell (core/engine/attention_csv.h).
  bool exportCsv(const QString& path) const;
  // Named in the JSON export: the model and weight precision that produced the maps.
  void setModelDescription(const QString& model, const QString& precision);

  // Reverse lookup (a click on a cell of the map): the answer's words ranked by how much they
  // looked at `cell` — by default content words on the last full-attention layer
  // (DefaultLookup), or the layer/head choice above (lookupOnShownAction) — the top ones
  // highlighted among the word chips and named under the map. -1, or the same cell again, clears it.
  void lookUpCell(int cell);
  int lookedUpCell() const { return lookedCell_; }
  const std::vector<WordAtCell>& lookup() const { return lookup_; }
  QString lookupText() const;
  glance::LookupChoice lookupChoice() const;

  // "What attention does and does not tell you", shown by the panel's "?" button.
  static QString helpText();
  // The hint under the map when no cell is hovered, longest first (FittingLabel's forms).
  static QStringList hoverHint();
  QAbstractButton* helpButton() const { return help_; }

  QAbstractButton* chip(int index) const;
  HeatmapWidget* heatmap() const { return heatmap_; }
  // The layer × head chart (issue 36 item 5): the selected word's shares on the image, the text
  // and the sink per layer and head; a click on a cell chooses that layer and head.
  LayerHeadChart* layerHeadChart() const { return chart_; }

 Q_SIGNALS:
  void wordSelected(int index);
  void rolloutRequested(const std::vector<glance::AttentionMap>& answer);

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void buildChips();
  QToolButton* buildViewButton();  // the View menu (attention_panel_view_menu.cpp)
  void buildSmallMultiples();
  void rebuildSelectors();
  void rebuildHeads();
  void refresh();
  void refreshSmallMultiples();
  void refreshChart();
  OverlayStyle currentStyle() const;
  void onExportPng();
  void onExportJson();
  void refreshLookup();
  void showImage();  // the processed image, or the original with the map over its crop

  QImage image_;
  QImage source_;  // the picture image_ was made from (may be empty)
  std::vector<AttentionMap> maps_;
  std::vector<AttentionWord> words_;
  int selected_ = -1;
  int spanLast_ = -1;  // the selected span's last word (selected_ when one word is selected)
  int lookedCell_ = -1;
  std::vector<WordAtCell> lookup_;
  bool lookupNoneHere_ = false;  // a cell is looked up, the words have maps, no content word looked there
  std::vector<AttentionMap> rollout_;  // per answer token, `mean` the rollout row (empty: none yet)
  bool rolloutPending_ = false;
  QString rolloutError_;
  void requestRollout();
  const std::vector<AttentionMap>& shownMaps() const { return rolloutChosen() ? rollout_ : maps_; }
  bool live_ = false;
  QString model_, precision_;  // showing the newest streamed token, not a selected word

  HeatmapWidget* heatmap_ = nullptr;
  HeatmapWidget* compareHeatmap_ = nullptr;  // the second word's map (hidden unless comparing)
  int compare_ = -1;
  int clicked_ = -1;  // the chip last clicked (hover previews change selected_, not this)
  QLabel* caption_ = nullptr;
  FittingLabel* cellInfo_ = nullptr;  // the hovered cell's row, column and weight, or the hint
  QLabel* lookupInfo_ = nullptr;  // the reverse lookup's words
  QAbstractButton* help_ = nullptr;
  QAbstractButton* wholeAnswer_ = nullptr;
  QWidget* chipRow_ = nullptr;
  QHBoxLayout* chipLayout_ = nullptr;
  QButtonGroup* chipGroup_ = nullptr;
  QComboBox* layerBox_ = nullptr;
  QComboBox* headBox_ = nullptr;
  QComboBox* colormapBox_ = nullptr;
  QSlider* opacity_ = nullptr;
  QCheckBox* hideSinks_ = nullptr;
  QAction* gridLines_ = nullptr;
  QAction* patchLines_ = nullptr;
  QActionGroup* scales_ = nullptr;
  QAction* sameScale_ = nullptr;
  QAction* contentWords_ = nullptr;
  QAction* lookupOnShown_ = nullptr;  // rank on the map chosen above, not DefaultLookup's layer
  QAction* original_ = nullptr;
  QWidget* viewButton_ = nullptr;
  QPushButton* png_ = nullptr;
  QPushButton* json_ = nullptr;
  LayerHeadChart* chart_ = nullptr;
  QWidget* multiples_ = nullptr;
  QGridLayout* multiplesLayout_ = nullptr;
  std::vector<HeatmapWidget*> multipleWidgets_;
};

}  // namespace glance::ui
