#include "ui/attention_panel.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QActionGroup>
#include <QMessageBox>
#include <QPoint>
#include <QToolButton>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QStringList>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/fitting_label.h"
#include "ui/attention_data.h"
#include "ui/layer_head_chart.h"
#include "ui/settings_file.h"
#include "ui/stats_format.h"
#include "ui/token_text.h"

namespace glance::ui {
namespace {

QString kIdleCaption() {
  return AttentionPanel::tr("Attach an image and ask about it to see where the model looks.");
}

}  // namespace

AttentionPanel::AttentionPanel(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  auto* layout = new QVBoxLayout(this);
  layout->setSpacing(fontMetrics().height() / 4);

  // Caption and word chips, the map taking what is left (aspect kept inside it), then the
  // hovered cell with the exports, the selectors and the first words' small multiples: all in
  // view at 1280x720 and at scale 2 (issue 34).
  caption_ = new QLabel(kIdleCaption(), this);
  caption_->setWordWrap(true);
  layout->addWidget(caption_);
  auto* chipScroll = new QScrollArea(this);
  chipScroll->setWidgetResizable(true);
  chipScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  chipScroll->setFrameShape(QFrame::NoFrame);
  chipRow_ = new QWidget(chipScroll);
  chipLayout_ = new QHBoxLayout(chipRow_);
  chipLayout_->setContentsMargins(0, 0, 0, 0);
  auto* whole = new QPushButton(tr("Whole answer"), chipRow_);
  whole->setFlat(true);
  whole->setToolTip(tr("Where the whole answer looked: the mean over all its tokens "
                       "(shift-click a word for a span from the selected one; ctrl-click a word to "
                       "see it beside the selected one, on the same scale)"));
  whole->setVisible(false);
  connect(whole, &QPushButton::clicked, this, [this] { selectSpan(0, wordCount() - 1); });
  wholeAnswer_ = whole;
  chipLayout_->addWidget(whole);
  chipLayout_->addStretch(1);
  chipScroll->setWidget(chipRow_);
  chipScroll->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  chipScroll->setFixedHeight(fontMetrics().height() * 5 / 2);
  layout->addWidget(chipScroll);

  heatmap_ = new HeatmapWidget(this);
  heatmap_->setInteractive(true);
  heatmap_->setObjectName(QStringLiteral("attentionHeatmap"));
  heatmap_->setAccessibleName(tr("Attention heatmap"));
  compareHeatmap_ = new HeatmapWidget(this);
  compareHeatmap_->setObjectName(QStringLiteral("compareHeatmap"));
  compareHeatmap_->setAccessibleName(tr("Second word's attention heatmap"));
  compareHeatmap_->setVisible(false);
  auto* maps = new QHBoxLayout;
  maps->addWidget(heatmap_, 1);
  maps->addWidget(compareHeatmap_, 1);
  layout->addLayout(maps, 1);  // all the space the dock gives: the panel is about this
  cellInfo_ = new FittingLabel(this);  // never widens the dock, never shows half a word
  cellInfo_->setObjectName(QStringLiteral("cellInfo"));
  cellInfo_->setForegroundRole(QPalette::PlaceholderText);
  cellInfo_->setForms(hoverHint());
  // The hovered cell and the exports share a line, so the map keeps the height.
  auto* infoRow = new QHBoxLayout;
  infoRow->addWidget(cellInfo_, 1);
  auto* help = new QToolButton(this);
  help->setText(QStringLiteral("?"));
  help->setToolTip(tr("What attention maps do and do not tell you"));
  help->setAccessibleName(tr("What attention maps show"));
  connect(help, &QToolButton::clicked, this, [this] {
    QMessageBox box(QMessageBox::Information, tr("What attention maps show"), helpText(), QMessageBox::Close, this);
    box.setTextFormat(Qt::RichText);
    box.exec();
  });
  help_ = help;
  infoRow->addWidget(help);
  layout->addLayout(infoRow);
  lookupInfo_ = new QLabel(this);
  lookupInfo_->setObjectName(QStringLiteral("lookupInfo"));
  lookupInfo_->setWordWrap(true);
  lookupInfo_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  lookupInfo_->setVisible(false);
  layout->addWidget(lookupInfo_);
  connect(heatmap_, &HeatmapWidget::cellClicked, this,
          [this](int cell) { lookUpCell(cell == lookedCell_ ? -1 : cell); });
  connect(heatmap_, &HeatmapWidget::hovered, this, [this](const QString& text) {
    cellInfo_->setForms(text.isEmpty() ? hoverHint() : heatmap_->hoverForms());
  });

  chipGroup_ = new QButtonGroup(this);
  chipGroup_->setExclusive(true);
  connect(chipGroup_, &QButtonGroup::idClicked, this, [this](int id) {
    // The word last clicked stays the first of the two (hovering a chip on the way previews it).
    const int first = clicked_ >= 0 && clicked_ < wordCount() ? clicked_ : selected_;
    if ((QGuiApplication::keyboardModifiers() & Qt::ControlModifier) && first >= 0 && id != first) {
      selectWord(first);
      compareWith(id == compare_ ? -1 : id);
    } else if ((QGuiApplication::keyboardModifiers() & Qt::ShiftModifier) && selected_ >= 0)
      selectSpan(std::min(selected_, id), std::max(spanLast_, id));
    else
      selectWord(clicked_ = id);
  });

  auto* form = new QFormLayout;
  auto* selectors = new QHBoxLayout;
  layerBox_ = new QComboBox(this);
  headBox_ = new QComboBox(this);
  colormapBox_ = new QComboBox(this);
  colormapBox_->addItem(tr("Inferno"), static_cast<int>(Colormap::kInferno));
  colormapBox_->addItem(tr("Viridis"), static_cast<int>(Colormap::kViridis));
  colormapBox_->addItem(tr("Cividis (colour-blind safe)"), static_cast<int>(Colormap::kCividis));
  colormapBox_->addItem(tr("Magma"), static_cast<int>(Colormap::kMagma));
  colormapBox_->addItem(tr("Greys"), static_cast<int>(Colormap::kGreys));
  selectors->addWidget(layerBox_, 1);
  selectors->addWidget(headBox_, 1);
  selectors->addWidget(colormapBox_, 1);
  for (QComboBox* box : {layerBox_, headBox_, colormapBox_}) {  // they share a narrow dock's width
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(4);
  }
  layerBox_->setAccessibleName(tr("Layer"));
  headBox_->setAccessibleName(tr("Head"));
  colormapBox_->setAccessibleName(tr("Colours"));
  form->addRow(selectors);  // the boxes say what they hold ("All layers", "Inferno")
  auto* look = new QHBoxLayout;
  opacity_ = new QSlider(Qt::Horizontal, this);
  opacity_->setRange(0, 100);
  opacity_->setValue(55);
  opacity_->setAccessibleName(tr("Heatmap opacity"));
  opacity_->setToolTip(tr("Left: the picture only; right: the heat only (also in View)"));
  hideSinks_ = new QCheckBox(tr("Hide sinks"), this);
  hideSinks_->setToolTip(tr("Grey out cells with more than 5\u00D7 the median weight "
                            "(attention sinks) and spread the colours over the rest."));
  QToolButton* view = buildViewButton();
  look->addWidget(opacity_, 1);
  look->addWidget(hideSinks_);
  look->addWidget(view);
  form->addRow(tr("Opacity"), look);
  layout->addLayout(form);
  rebuildSelectors();

  // The first words side by side in one row that shares the dock's width (it sat in a
  // second scroll area inside the dock's own).
  multiples_ = new QWidget(this);
  multiplesLayout_ = new QGridLayout(multiples_);
  multiplesLayout_->setContentsMargins(0, 0, 0, 0);
  // Up to 5 em tall, down to 2 em before the map gives up any height.
  multiples_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
  multiples_->setMinimumHeight(fontMetrics().height() * 2);
  multiples_->setMaximumHeight(fontMetrics().height() * 5);
  multiples_->setVisible(false);
  // Beside them, the layer × head chart (the same height), so the map keeps its room.
  chart_ = new LayerHeadChart(this);
  chart_->setObjectName(QStringLiteral("layerHeadChart"));
  chart_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);  // the row is as tall as the multiples
  chart_->setMinimumHeight(fontMetrics().height() * 3);  // 3 em: a title, a few rows of cells, the layer numbers
  chart_->setMaximumHeight(fontMetrics().height() * 5);
  chart_->setVisible(false);
  connect(chart_, &LayerHeadChart::cellClicked, this,
          [this](MapKind kind, int layer, int head) { setLayerChoice(kind, layer, head); });
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(multiples_, 3);
  bottom->addWidget(chart_, 2);
  layout->addLayout(bottom, 0);

  png_ = new QPushButton(tr("Export &PNG\u2026"), this);
  json_ = new QPushButton(tr("Export &maps\u2026"), this);
  json_->setToolTip(tr("The raw per-token maps as JSON or CSV, with the model, precision, layers, heads and grid"));
  QPushButton* png = png_;
  QPushButton* json = json_;
  infoRow->addWidget(png);
  infoRow->addWidget(json);

  // The look of the map is kept between runs (it was reset every start).
  {
    const auto saved = SettingsFile::App();
    colormapBox_->setCurrentIndex(std::clamp(saved->value(QStringLiteral("attention/colormap"), 0).toInt(), 0,
                                             colormapBox_->count() - 1));
    opacity_->setValue(saved->value(QStringLiteral("attention/opacity"), 55).toInt());
    hideSinks_->setChecked(saved->value(QStringLiteral("attention/hide_sinks"), false).toBool());
    gridLines_->setChecked(saved->value(QStringLiteral("attention/grid"), true).toBool());
    patchLines_->setChecked(saved->value(QStringLiteral("attention/patches"), false).toBool());
    const int scaling = saved->value(QStringLiteral("attention/scale"), 0).toInt();
    for (QAction* a : scales_->actions()) a->setChecked(a->data().toInt() == scaling);
    if (!scales_->checkedAction()) scales_->actions().front()->setChecked(true);
    sameScale_->setChecked(saved->value(QStringLiteral("attention/same_scale"), false).toBool());
  }
  auto restyle = [this] {
    const auto saved = SettingsFile::App();
    saved->setValue(QStringLiteral("attention/colormap"), colormapBox_->currentIndex());
    saved->setValue(QStringLiteral("attention/opacity"), opacity_->value());
    saved->setValue(QStringLiteral("attention/hide_sinks"), hideSinks_->isChecked());
    saved->setValue(QStringLiteral("attention/grid"), gridLines_->isChecked());
    saved->setValue(QStringLiteral("attention/patches"), patchLines_->isChecked());
    if (const QAction* scale = scales_->checkedAction()) saved->setValue(QStringLiteral("attention/scale"), scale->data().toInt());
    saved->setValue(QStringLiteral("attention/same_scale"), sameScale_->isChecked());
    refresh();
  };
  connect(layerBox_, &QComboBox::currentIndexChanged, this, [this, restyle] {
    if (rolloutChosen()) requestRollout();
    rebuildHeads();  // a DeltaNet layer has its own value heads
    restyle();
  });
  connect(headBox_, &QComboBox::currentIndexChanged, this, restyle);
  connect(colormapBox_, &QComboBox::currentIndexChanged, this, restyle);
  connect(opacity_, &QSlider::valueChanged, this, restyle);
  connect(hideSinks_, &QCheckBox::toggled, this, restyle);
  connect(gridLines_, &QAction::toggled, this, restyle);
  connect(patchLines_, &QAction::toggled, this, restyle);
  connect(scales_, &QActionGroup::triggered, this, restyle);
  connect(sameScale_, &QAction::toggled, this, restyle);
  connect(contentWords_, &QAction::toggled, this, &AttentionPanel::refreshLookup);
  connect(lookupOnShown_, &QAction::toggled, this, &AttentionPanel::refreshLookup);
  connect(original_, &QAction::toggled, this, &AttentionPanel::showImage);
  connect(png, &QPushButton::clicked, this, &AttentionPanel::onExportPng);
  connect(json, &QPushButton::clicked, this, &AttentionPanel::onExportJson);
  refresh();  // the empty state: its controls off until maps come
}

void AttentionPanel::setImage(const QImage& image, const QImage& source) {
  image_ = image;
  source_ = image.isNull() ? QImage() : source;
  original_->setEnabled(!source_.isNull());
  showImage();
  for (HeatmapWidget* w : multipleWidgets_) w->setImage(image);
}

void AttentionPanel::setScaling(Scaling scaling) {
  for (QAction* a : scales_->actions())
    if (a->data().toInt() == static_cast<int>(scaling)) a->trigger();
}

void AttentionPanel::showImage() {
  if (original_->isChecked() && !source_.isNull()) {
    heatmap_->setImage(source_);
    heatmap_->setMapArea(ProcessedCrop(source_, image_.width(), image_.height()));
  } else {
    heatmap_->setImage(image_);
  }
}

void AttentionPanel::setAttention(std::vector<AttentionMap> maps, std::vector<AttentionWord> words) {
  maps_ = std::move(maps);
  words_ = words.empty() ? TokensAsWords(maps_) : std::move(words);
  live_ = false;
  rollout_.clear();
  rolloutPending_ = false;
  rolloutError_.clear();
  selected_ = -1;
  spanLast_ = -1;
  lookedCell_ = -1;
  compare_ = -1;
  clicked_ = -1;
  rebuildSelectors();
  buildChips();
  buildSmallMultiples();
  if (rolloutChosen()) requestRollout();  // still chosen: the new answer's
  if (words_.empty())
    refresh();
  else
    selectWord(0);
}

void AttentionPanel::compareWith(int index) {
  compare_ = index >= 0 && index < wordCount() ? index : -1;
  refresh();
}

std::vector<float> AttentionPanel::comparedMap() const {
  if (compare_ < 0 || compare_ >= wordCount() || live_) return {};
  return WordMap(shownMaps(), words_[static_cast<size_t>(compare_)], currentAggregate());
}

bool AttentionPanel::rolloutChosen() const { return layerBox_->currentData().toPoint().x() == 2; }

void AttentionPanel::chooseRollout() {
  const int at = layerBox_->findData(QPoint(2, -1));
  if (at >= 0) layerBox_->setCurrentIndex(at);
}

void AttentionPanel::requestRollout() {
  if (!rollout_.empty() || rolloutPending_ || live_ || maps_.empty()) return;
  rolloutPending_ = true;
  rolloutError_.clear();
  Q_EMIT rolloutRequested(maps_);
}

void AttentionPanel::setRollout(const std::vector<AttentionMap>& maps) {
  rolloutPending_ = false;
  rollout_ = maps;
  refresh();
}

void AttentionPanel::setRolloutError(const QString& message) {
  rolloutPending_ = false;
  rolloutError_ = message;
  refresh();
}

void AttentionPanel::appendMap(const AttentionMap& map) {
  if (!live_) {  // the first map of a new answer
    rollout_.clear();
    rolloutPending_ = false;
    rolloutError_.clear();
    maps_.clear();
    words_.clear();
    selected_ = -1;
    spanLast_ = -1;
    lookedCell_ = -1;
    compare_ = -1;
    clicked_ = -1;
    buildChips();
    buildSmallMultiples();
  }
  live_ = true;
  const bool first = maps_.empty();
  maps_.push_back(map);
  if (first) rebuildSelectors();
  refresh();
}

void AttentionPanel::clear() {
  maps_.clear();
  words_.clear();
  selected_ = -1;
  spanLast_ = -1;
  lookedCell_ = -1;
  compare_ = -1;
  clicked_ = -1;
  live_ = false;
  rebuildSelectors();
  buildChips();
  buildSmallMultiples();
  refresh();
}

void AttentionPanel::selectWord(int index) {
  if (index < 0 || index >= wordCount()) return;
  live_ = false;
  const bool changed = index != selected_ || spanLast_ != selected_;
  selected_ = index;
  spanLast_ = index;
  chipGroup_->setExclusive(false);  // a span left several checked
  for (QAbstractButton* b : chipGroup_->buttons()) b->setChecked(false);
  chipGroup_->setExclusive(true);
  if (QAbstractButton* b = chip(index)) {
    b->setChecked(true);
    if (auto* scroll = qobject_cast<QScrollArea*>(chipRow_->parentWidget()->parentWidget()))
      scroll->ensureWidgetVisible(b);
  }
  refresh();
  if (changed) Q_EMIT wordSelected(index);
}

void AttentionPanel::selectSpan(int first, int last) {
  first = std::clamp(first, 0, wordCount() - 1);
  last = std::clamp(last, first, wordCount() - 1);
  if (wordCount() == 0) return;
  if (first == last) return selectWord(first);
  live_ = false;
  selected_ = first;
  spanLast_ = last;
  chipGroup_->setExclusive(false);
  for (QAbstractButton* b : chipGroup_->buttons()) {
    const int id = chipGroup_->id(b);
    b->setChecked(id >= first && id <= last);
  }
  refresh();
  Q_EMIT wordSelected(first);
}

void AttentionPanel::setLayerHead(int layer_slot, int head) {
  // The full-attention layers come first, after "All layers".
  layerBox_->setCurrentIndex(std::clamp(layer_slot + 1, 0, layerBox_->count() - 1));
  headBox_->setCurrentIndex(std::max(0, headBox_->findData(head < 0 ? -1 : head)));
}

void AttentionPanel::setLayerChoice(MapKind kind, int layer, int head, HeadFusion fusion) {
  const int at = layerBox_->findData(QPoint(kind == MapKind::kHidden ? 1 : 0, layer));
  if (at >= 0) layerBox_->setCurrentIndex(at);
  const int h = head >= 0 ? head : fusion == HeadFusion::kMax ? -2 : -1;
  headBox_->setCurrentIndex(std::max(0, headBox_->findData(h)));
}

MapAggregate AttentionPanel::currentAggregate() const {
  MapAggregate a;
  const QPoint layer = layerBox_->currentData().toPoint();
  const int head = headBox_->currentIndex() >= 0 ? headBox_->currentData().toInt() : -1;
  if (layer.x() == 2) return a;  // rollout: its maps hold one map each (`mean`)
  a.kind = layer.x() == 1 ? MapKind::kHidden : MapKind::kSoftmax;
  a.first_layer = a.last_layer = layerBox_->currentIndex() >= 0 ? layer.y() : -1;
  a.head = head >= 0 ? head : -1;
  a.fusion = head == -2 ? HeadFusion::kMax : HeadFusion::kMean;
  return a;
}

void AttentionPanel::setHideSinks(bool hide) { hideSinks_->setChecked(hide); }

void AttentionPanel::setOpacity(double opacity) {
  opacity_->setValue(static_cast<int>(opacity * 100.0));
}

std::vector<float> AttentionPanel::currentMap() const {
  const MapAggregate choice = currentAggregate();
  if (live_ && !maps_.empty()) return rolloutChosen() ? std::vector<float>{} : SelectMap(maps_.back(), choice);
  if (selected_ < 0 || selected_ >= wordCount()) return {};
  const std::vector<AttentionMap>& maps = shownMaps();
  if (spanLast_ > selected_ && spanLast_ < wordCount())  // a span: every token of its words
    return WordMap(maps, {std::string(), words_[static_cast<size_t>(selected_)].first_step,
                          words_[static_cast<size_t>(spanLast_)].last_step}, choice);
  return WordMap(maps, words_[static_cast<size_t>(selected_)], choice);
}

QImage AttentionPanel::renderOverlay(QSize size) const {
  if (!size.isValid() || size.isEmpty()) {
    size = image_.size();
    if (size.width() < 448 && !size.isEmpty()) size = size.scaled(448, 448, Qt::KeepAspectRatio);
    if (size.isEmpty()) size = QSize(448, 448);
  }
  const AttentionMap* ref = maps_.empty() ? nullptr : &maps_.front();
  return RenderOverlay(image_, currentMap(), ref ? ref->grid_h : 0, ref ? ref->grid_w : 0,
                       currentStyle(), size);
}

void AttentionPanel::setModelDescription(const QString& model, const QString& precision) {
  model_ = model;
  precision_ = precision;
}

QStringList AttentionPanel::hoverHint() {
  return {tr("Hover the heatmap for a cell's weight; wheel zooms; click a cell for the words that looked there."),
          tr("Hover a cell for its weight; wheel zooms; click for its words."),
          tr("Hover: weight \u00B7 wheel: zoom \u00B7 click: words"),
          tr("Hover a cell for its weight")};
}

QString AttentionPanel::helpText() {
  return tr(
      "<p><b>What the map shows.</b> For the chosen word, how much weight the model's "
      "full-attention layers gave each image token while writing it: the softmax attention "
      "of the word's tokens, averaged over the chosen layers and heads (or one of them). Each "
      "cell is one token of the image as the model saw it \u2014 2\u00D7" "2 patches of 16 pixels "
      "merged, 32\u00D7" "32 pixels of the resized image.</p>"
      "<p><b>What it does not tell you.</b> Attention says where information was read from, "
      "not why a word was chosen: a bright cell is not proof that it caused the word (Jain and "
      "Wallace, \u201C" "Attention is not Explanation\u201D, 2019). Only one layer in four is full "
      "attention; the Gated DeltaNet layers between them have no softmax, and their "
      "<i>hidden attention</i> (the weight each earlier token's value gets in the layer's "
      "output, Ali et al. 2024) is signed and does not sum to one. By the time a word is "
      "written, earlier layers have already moved information between image tokens, so a cell "
      "can stand for its neighbours. Some heads park their attention on a few tokens that carry "
      "little content (attention sinks, Xiao et al. 2023): <i>Hide sinks</i> leaves them out of "
      "the colour scale. The colours are scaled to each map (the legend gives its range), so "
      "compare words by where their maps peak, not by brightness.</p>"
      "<p><b>Layer \u00D7 head chart.</b> One cell per layer (columns; full attention in bold) "
      "and head (rows), coloured by the share of the word's attention on this image's tokens; "
      "its tooltip gives the shares on the image, on the text (every other token) and on the "
      "sink \u2014 here the sequence's first token, <tt>&lt;|im_start|&gt;</tt>, where many "
      "heads rest. For a DeltaNet layer they are fractions of the signed sum of its weights. "
      "Click a cell to see that layer and head.</p>"
      "<p><b>Rollout and two words.</b> <i>Rollout (every layer)</i> in the layer list follows "
      "attention through all layers, the residual counted (Abnar and Zuidema 2020; the DeltaNet "
      "layers enter through their hidden attention); it runs the chat again, so it takes a "
      "moment and is refused for very long chats. Ctrl-click a second word to see its map beside "
      "the selected one, on the same scale.</p>"
      "<p><b>Reverse lookup.</b> Click a cell: the answer's words are ranked by the weight "
      "their maps give it, and the first five are tinted among the words above. Words such as "
      "\u201Con\u201D or \u201Cthe\u201D often rest on the whole image and come first, "
      "so by default the ranking leaves them out and uses the last full-attention layer: on the "
      "demo model that puts the object's name or colour first for 87 % of objects, against "
      "6.5 % for every word over all layers. <i>View \u25B8 Reverse lookup: content words only</i> "
      "and <i>on the layers and head shown</i> change that.</p>");
}

QAbstractButton* AttentionPanel::chip(int index) const { return chipGroup_->button(index); }

void AttentionPanel::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Left || event->key() == Qt::Key_Right) {
    const int step = event->key() == Qt::Key_Left ? -1 : 1;
    selectWord(std::clamp(std::max(selected_, 0) + (selected_ < 0 ? 0 : step), 0,
                          std::max(wordCount() - 1, 0)));
    event->accept();
    return;
  }
  QWidget::keyPressEvent(event);
}

bool AttentionPanel::eventFilter(QObject* watched, QEvent* event) {
  if (auto* button = qobject_cast<QAbstractButton*>(watched)) {
    if (event->type() == QEvent::Enter && spanLast_ == selected_ && compare_ < 0 &&
        !(QGuiApplication::keyboardModifiers() & Qt::ControlModifier)) {
      selectWord(chipGroup_->id(button));  // hover previews the word (a chosen span stays)
    } else if (event->type() == QEvent::KeyPress) {
      auto* key = static_cast<QKeyEvent*>(event);
      if (key->key() == Qt::Key_Left || key->key() == Qt::Key_Right) {
        keyPressEvent(key);
        if (QAbstractButton* b = chip(selected_)) b->setFocus();
        return true;
      }
    }
  }
  return QWidget::eventFilter(watched, event);
}

void AttentionPanel::buildChips() {
  for (QAbstractButton* b : chipGroup_->buttons()) {
    chipGroup_->removeButton(b);
    b->deleteLater();
  }
  for (int i = 0; i < wordCount(); ++i) {
    const AttentionWord& w = words_[static_cast<size_t>(i)];
    auto* b = new QPushButton(ChipText(w.text), chipRow_);
    b->setCheckable(true);
    b->setFlat(true);
    b->setToolTip(tr("Tokens %1\u2013%2").arg(w.first_step).arg(w.last_step));
    b->installEventFilter(this);
    chipGroup_->addButton(b, i);
    chipLayout_->insertWidget(chipLayout_->count() - 1, b);  // before the stretch
  }
  wholeAnswer_->setVisible(wordCount() > 1);
}

void AttentionPanel::buildSmallMultiples() {
  for (HeatmapWidget* w : multipleWidgets_) w->deleteLater();
  multipleWidgets_.clear();
  const int n = std::min(wordCount(), kSmallMultiples);
  const int columns = kSmallMultiples;  // one row
  for (int i = 0; i < n; ++i) {
    auto* w = new HeatmapWidget(multiples_);
    w->setImage(image_);
    w->setCaption(ChipText(words_[static_cast<size_t>(i)].text));
    w->setAccessibleName(tr("Attention of \u201C%1\u201D").arg(ChipText(words_[static_cast<size_t>(i)].text)));
    w->setMinimumSize(fontMetrics().height() * 2, fontMetrics().height() * 2);
    connect(w, &HeatmapWidget::clicked, this, [this, i] { selectWord(i); });
    multiplesLayout_->addWidget(w, i / columns, i % columns);
    multipleWidgets_.push_back(w);
  }
  multiples_->setVisible(n > 0);
}

// Layer items carry QPoint(kind, layer): kind 0 the full-attention (softmax) layers, 1 the
// DeltaNet layers' hidden attention (when captured); layer -1 is all layers of that kind. Head
// items carry the head, -1 all heads by mean, -2 all heads by max.
void AttentionPanel::rebuildSelectors() {
  const QSignalBlocker blockLayer(layerBox_);
  const QVariant layer = layerBox_->currentData();
  layerBox_->clear();
  layerBox_->addItem(tr("All layers"), QPoint(0, -1));
  if (!maps_.empty()) {
    const AttentionMap& m = maps_.front();
    for (int l : m.layers) layerBox_->addItem(tr("Layer %1").arg(l), QPoint(0, l));
    if (!m.linear_layers.empty()) {
      layerBox_->addItem(tr("All DeltaNet layers (hidden attention)"), QPoint(1, -1));
      for (int l : m.linear_layers) layerBox_->addItem(tr("Layer %1 \u00B7 DeltaNet").arg(l), QPoint(1, l));
    }
    layerBox_->addItem(tr("Rollout (every layer)"), QPoint(2, -1));
    layerBox_->setItemData(layerBox_->count() - 1,
                           tr("Attention rollout (Abnar & Zuidema 2020): attention followed through every layer, "
                              "the residual counted; computed on demand by running the chat again"),
                           Qt::ToolTipRole);
  }
  layerBox_->setCurrentIndex(std::max(0, layer.isValid() ? layerBox_->findData(layer) : 0));
  rebuildHeads();
}

void AttentionPanel::rebuildHeads() {
  const QSignalBlocker blockHead(headBox_);
  const QVariant head = headBox_->currentData();
  headBox_->clear();
  headBox_->addItem(tr("All heads"), -1);
  headBox_->addItem(tr("All heads, max"), -2);
  const bool hidden = layerBox_->currentData().toPoint().x() == 1;
  const int n = maps_.empty() || rolloutChosen() ? 0 : hidden ? maps_.front().linear_heads : maps_.front().n_heads;
  for (int h = 0; h < n; ++h) headBox_->addItem(tr("Head %1").arg(h), h);
  headBox_->setCurrentIndex(std::max(0, head.isValid() ? headBox_->findData(head) : 0));
}

OverlayStyle AttentionPanel::currentStyle() const {
  OverlayStyle style;
  style.colormap = static_cast<Colormap>(colormapBox_->currentData().toInt());
  style.opacity = opacity_->value() / 100.0;
  style.hide_sinks = hideSinks_->isChecked();
  style.grid_lines = gridLines_->isChecked();
  style.patch_lines = patchLines_->isChecked();
  if (const QAction* scale = scales_->checkedAction()) style.scaling = static_cast<Scaling>(scale->data().toInt());
  if (sameScale_->isChecked() && !live_ && wordCount() > 0) {
    // Global normalisation: the range over every word's map under this layer/head choice.
    const MapAggregate choice = currentAggregate();
    std::vector<float> all;
    for (const AttentionWord& w : words_) {
      const std::vector<float> map = WordMap(shownMaps(), w, choice);
      const std::vector<bool> sinks = style.hide_sinks ? FindSinks(map, style.sink_factor) : std::vector<bool>(map.size(), false);
      for (size_t i = 0; i < map.size(); ++i)
        if (!sinks[i]) all.push_back(map[i]);
    }
    if (!all.empty()) {
      OverlayStyle plain = style;  // the range of all of them taken together, as of one map
      const auto [lo, hi] = DisplayRange(all, {}, plain);
      style.fixed_range = true;
      style.range_lo = lo;
      style.range_hi = hi;
    }
  }
  return style;
}

void AttentionPanel::refresh() {
  // Controls with nothing to control are off until there are maps (empty-state leftovers).
  for (QWidget* w : std::initializer_list<QWidget*>{layerBox_, headBox_, colormapBox_, opacity_, hideSinks_,
                                                   viewButton_, png_, json_})
    w->setEnabled(!maps_.empty());
  if (maps_.empty()) cellInfo_->setForms({});
  else if (cellInfo_->fullText().isEmpty())
    cellInfo_->setForms(hoverHint());
  OverlayStyle style = currentStyle();
  const std::vector<float> second = comparedMap();
  if (!second.empty() && !style.fixed_range) {
    // Two words side by side share one colour range: the range of both maps taken together.
    std::vector<float> both = currentMap();
    const std::vector<float> a = both;
    both.insert(both.end(), second.begin(), second.end());
    std::vector<bool> sinks = style.hide_sinks ? FindSinks(a, style.sink_factor) : std::vector<bool>(a.size(), false);
    const std::vector<bool> sinks2 =
        style.hide_sinks ? FindSinks(second, style.sink_factor) : std::vector<bool>(second.size(), false);
    sinks.insert(sinks.end(), sinks2.begin(), sinks2.end());
    std::vector<float> kept;
    for (size_t i = 0; i < both.size(); ++i)
      if (!sinks[i]) kept.push_back(both[i]);
    const auto [lo, hi] = DisplayRange(kept, {}, style);
    style.fixed_range = true;
    style.range_lo = lo;
    style.range_hi = hi;
    style.range_of_two = true;
  }
  heatmap_->setStyle(style);
  refreshLookup();  // the layer/head choice changes the ranking
  const AttentionMap* ref = maps_.empty() ? nullptr : &maps_.front();
  heatmap_->setMap(currentMap(), ref ? ref->grid_h : 0, ref ? ref->grid_w : 0);
  compareHeatmap_->setVisible(!second.empty());
  if (!second.empty()) {
    compareHeatmap_->setImage(image_);
    compareHeatmap_->setStyle(style);
    compareHeatmap_->setCaption(ChipText(words_[static_cast<size_t>(compare_)].text));
    compareHeatmap_->setMap(second, ref ? ref->grid_h : 0, ref ? ref->grid_w : 0);
  }
  if (live_ && !maps_.empty()) {
    caption_->setText(tr("Generating\u2026 token %1 \u201C%2\u201D")
                          .arg(maps_.back().step)
                          .arg(VisibleToken(maps_.back().token_text)));
  } else if (rolloutChosen() && (rolloutPending_ || !rolloutError_.isEmpty())) {
    caption_->setText(rolloutPending_ ? tr("Rollout: running the chat again with every layer\u2019s attention\u2026")
                                      : tr("Rollout: %1").arg(rolloutError_));
  } else if (selected_ >= 0 && selected_ < wordCount()) {
    QString what = QStringLiteral("\u201C%1\u201D").arg(ChipText(words_[static_cast<size_t>(selected_)].text));
    if (spanLast_ > selected_) {
      QString span;
      for (int i = selected_; i <= spanLast_; ++i) span += QString::fromStdString(words_[static_cast<size_t>(i)].text);
      span = span.simplified();
      if (span.size() > 40) span = span.left(39) + QChar(0x2026);
      what = spanLast_ - selected_ + 1 == wordCount()
                 ? tr("Whole answer")
                 : tr("\u201C%1\u201D (words %2\u2013%3)").arg(span).arg(selected_ + 1).arg(spanLast_ + 1);
    }
    if (!second.empty())
      what = tr("%1 beside \u201C%2\u201D (one scale)").arg(what, ChipText(words_[static_cast<size_t>(compare_)].text));
    caption_->setText(tr("%1 \u00B7 %2\u00D7%3 grid \u00B7 %4 \u00B7 %5")
                          .arg(what)
                          .arg(ref ? ref->grid_w : 0)
                          .arg(ref ? ref->grid_h : 0)
                          .arg(layerBox_->currentText(), headBox_->currentText()));
  } else if (!image_.isNull()) {
    caption_->setText(tr("Ask about the image to see where the model looks."));
  } else {
    caption_->setText(kIdleCaption());
  }
  refreshSmallMultiples();
  refreshChart();
}

void AttentionPanel::refreshChart() {
  // The shares of what the map shows: the streamed token, or the selected word or span.
  std::vector<HeadShare> shares;
  if (live_ && !maps_.empty())
    shares = LayerHeadShares(maps_, maps_.back().step, maps_.back().step);
  else if (selected_ >= 0 && selected_ < wordCount())
    shares = LayerHeadShares(maps_, words_[static_cast<size_t>(selected_)].first_step,
                             words_[static_cast<size_t>(std::max(spanLast_, selected_))].last_step);
  chart_->setVisible(!maps_.empty());
  // A chat saved by an earlier version, or an answer whose shares did not fit the saved
  // chat's budget (ui/attention_codec.h), reopens without them.
  const bool saved = !maps_.empty() && std::all_of(maps_.begin(), maps_.end(), [](const AttentionMap& m) {
    return m.shares.empty() && m.linear_shares.empty();
  });
  chart_->setShares(std::move(shares), saved ? tr("This answer's layer \u00D7 head shares were not saved with the chat "
                                                  "(saved by an earlier version, or too long to keep them): "
                                                  "regenerate the answer to see them.")
                                             : QString());
  const MapAggregate a = currentAggregate();
  chart_->setSelected(a.kind, a.first_layer, a.head);
}

void AttentionPanel::refreshSmallMultiples() {
  const OverlayStyle style = currentStyle();
  const MapAggregate choice = currentAggregate();
  const AttentionMap* ref = maps_.empty() ? nullptr : &maps_.front();
  for (size_t i = 0; i < multipleWidgets_.size(); ++i) {
    multipleWidgets_[i]->setStyle(style);
    multipleWidgets_[i]->setMap(WordMap(shownMaps(), words_[i], choice), ref ? ref->grid_h : 0,
                                ref ? ref->grid_w : 0);
  }
}

}  // namespace glance::ui
