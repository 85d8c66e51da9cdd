// AttentionPanel's View menu: what is drawn over the picture and how the colours are scaled.
#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QSlider>
#include <QToolButton>
#include <utility>

#include "ui/attention_panel.h"

namespace glance::ui {

QToolButton* AttentionPanel::buildViewButton() {
  // What is drawn over the picture, in one small menu (the dock is narrow): the token grid, the
  // 2×2 patches each token merges, and the original picture around the crop the model saw.
  auto* view = new QToolButton(this);
  view->setText(tr("View"));
  view->setPopupMode(QToolButton::InstantPopup);
  view->setAccessibleName(tr("What the map shows"));
  auto* viewMenu = new QMenu(view);
  // The opacity slider's two ends and its default, by name: the picture's own colours mix into
  // the overlay in between, so "which cells" and "what is there" each get a clean view.
  struct Look {
    const char* name;
    QString label;
    int opacity;  // the slider's value
  };
  const Look looks[] = {{"heatOnly", tr("Heat only (opacity 100 %)"), 100},
                        {"pictureOnly", tr("Picture only (opacity 0 %)"), 0},
                        {"blend", tr("Heat over the picture (opacity 55 %)"), 55}};
  for (const Look& look : looks) {
    QAction* a = viewMenu->addAction(look.label);
    a->setObjectName(QString::fromLatin1(look.name));
    connect(a, &QAction::triggered, this, [this, value = look.opacity] { opacity_->setValue(value); });
  }
  viewMenu->addSeparator();
  gridLines_ = viewMenu->addAction(tr("Token grid"));
  gridLines_->setCheckable(true);
  gridLines_->setChecked(true);
  patchLines_ = viewMenu->addAction(tr("2\u00D7" "2 patches of each token"));
  patchLines_->setCheckable(true);
  patchLines_->setToolTip(tr("The vision tower cuts the image into 16-pixel patches and merges "
                             "each 2\u00D7" "2 of them into one token"));
  original_ = viewMenu->addAction(tr("Original picture"));
  original_->setCheckable(true);
  original_->setToolTip(tr("The whole picture as it was opened: the part the model saw (after "
                           "resizing and cropping) carries the map, the rest is dimmed"));
  viewMenu->addSeparator();
  auto* scales = new QActionGroup(viewMenu);
  const std::pair<Scaling, QString> scaleItems[] = {
      {Scaling::kMinMax, tr("Scale: each map's lowest to highest")},
      {Scaling::kPercentile, tr("Scale: clip to the 2nd\u2013" "98th percentile")},
      {Scaling::kLog, tr("Scale: logarithmic (small weights visible)")}};
  for (const auto& [scaling, label] : scaleItems) {
    QAction* a = viewMenu->addAction(label);
    a->setCheckable(true);
    a->setData(static_cast<int>(scaling));
    a->setChecked(scaling == Scaling::kMinMax);
    scales->addAction(a);
  }
  scales_ = scales;
  sameScale_ = viewMenu->addAction(tr("Same scale for every word"));
  sameScale_->setCheckable(true);
  sameScale_->setToolTip(tr("One colour range for the whole answer, so words compare by brightness; "
                            "otherwise each word's map spans every colour"));
  viewMenu->addSeparator();
  // The reverse lookup's default (DefaultLookup): content words on the last full-attention
  // layer, which names the object at its cell far more often than every word over all layers;
  // content words are named only where they looked more than at the rest of the image.
  contentWords_ = viewMenu->addAction(tr("Reverse lookup: content words only"));
  contentWords_->setCheckable(true);
  contentWords_->setChecked(true);
  contentWords_->setToolTip(tr("Leave out \u201C" "a\u201D, \u201Cthe\u201D, \u201Con\u201D and the like when ranking the "
                               "words that looked at a clicked cell (they rest their attention on the whole image), "
                               "and words that looked at the rest of the image more than at that cell"));
  lookupOnShown_ = viewMenu->addAction(tr("Reverse lookup: on the layers and head shown"));
  lookupOnShown_->setCheckable(true);
  lookupOnShown_->setToolTip(tr("Rank the words by the map chosen above; otherwise by the last full-attention "
                                "layer, whose maps name what is at a cell most often"));
  viewMenu->setToolTipsVisible(true);
  view->setMenu(viewMenu);
  viewButton_ = view;
  return view;
}

}  // namespace glance::ui
