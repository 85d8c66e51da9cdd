#include "ui/folder_insight_bar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>

#include "ui/heatmap.h"
#include "ui/stats_format.h"

namespace glance::ui {

FolderInsightBar::FolderInsightBar(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel(tr("&Looked at for:"), this);
  words_ = new QComboBox(this);
  words_->setObjectName(QStringLiteral("insightWord"));
  words_->setToolTip(tr("Where the model looked in the image while it wrote this word of the caption"));
  label->setBuddy(words_);
  timing_ = new QLabel(this);
  timing_->setObjectName(QStringLiteral("insightTiming"));
  timing_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  timing_->setWordWrap(true);  // a long line wraps rather than widening the image's side
  layout->addWidget(label);
  layout->addWidget(words_);
  layout->addWidget(timing_, 1);
  connect(words_, &QComboBox::currentIndexChanged, this, &FolderInsightBar::wordChanged);
  setVisible(false);
}

void FolderInsightBar::setInsight(const CaptionInsight* insight, const QString& where) {
  const QSignalBlocker quiet(words_);
  words_->clear();
  insight_ = insight ? *insight : CaptionInsight();
  setVisible(insight != nullptr);
  if (!insight) return;
  words_->addItem(tr("(the image only)"), -1);
  for (int i = 0; i < static_cast<int>(insight_.words.size()); ++i)
    if (!insight_.words[static_cast<size_t>(i)].map.empty())
      words_->addItem(QString::fromStdString(insight_.words[static_cast<size_t>(i)].text).trimmed(), i);
  words_->setEnabled(words_->count() > 1);
  const TurnStats& s = insight_.stats;
  // The stats' forms (ui/stats_format.h), in the user's number format.
  QString line = tr("Captioned in %1: prefill %2, %3 tokens at %4")
                     .arg(FormatDuration(s.total_s), FormatDuration(s.prefill_s), FormatCount(s.generated_tokens),
                          FormatRate(s.decode_tokens_per_s, tr("tokens/s")));
  line += where.isEmpty() ? tr(" (here)") : tr(" (on %1)").arg(where);
  timing_->setText(line);
}

QString FolderInsightBar::timingText() const { return timing_->text(); }

QImage FolderInsightBar::overlay(const QImage& image) const {
  const int i = words_->currentData().isValid() ? words_->currentData().toInt() : -1;
  if (i < 0 || image.isNull() || i >= static_cast<int>(insight_.words.size())) return image;
  const CaptionWordMap& w = insight_.words[static_cast<size_t>(i)];
  return RenderOverlay(image, w.map, w.grid_h, w.grid_w, OverlayStyle{}, image.size());
}

}  // namespace glance::ui
