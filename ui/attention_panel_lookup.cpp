// The attention panel's reverse lookup: a clicked cell ranks the answer's words by the weight
// their maps give it, names the first few and tints their chips.
#include <QAbstractButton>
#include <QButtonGroup>
#include <QCheckBox>
#include <QLabel>
#include <QStringList>
#include <algorithm>

#include "ui/attention_panel.h"
#include "ui/stats_format.h"
#include "ui/token_text.h"

namespace glance::ui {
namespace {

constexpr size_t kLookupWords = 5;  // the reverse lookup names and tints this many words

}  // namespace

void AttentionPanel::lookUpCell(int cell) {
  const int cells = maps_.empty() ? 0 : maps_.front().grid_h * maps_.front().grid_w;
  lookedCell_ = live_ || cell >= cells ? -1 : cell;
  refreshLookup();
}

QString AttentionPanel::lookupText() const {
  if (lookedCell_ < 0) return {};
  const int grid_w = maps_.front().grid_w;
  if (lookupNoneHere_)
    return tr("Row %1, col %2 — no content word looked there more than at the rest of the image. "
              "Click it again to clear.")
        .arg(lookedCell_ / grid_w + 1)
        .arg(lookedCell_ % grid_w + 1);
  if (lookup_.empty()) return {};
  QStringList top;
  for (size_t i = 0; i < std::min<size_t>(lookup_.size(), kLookupWords); ++i)
    top << tr("\u201C%1\u201D %2")
               .arg(ChipText(words_[static_cast<size_t>(lookup_[i].word)].text))
               .arg(FormatWeight(lookup_[i].weight));
  const LookupChoice choice = lookupChoice();
  const QString on = choice.aggregate.first_layer >= 0 && choice.aggregate.first_layer == choice.aggregate.last_layer &&
                             !lookupOnShown_->isChecked()
                         ? tr("layer %1").arg(choice.aggregate.first_layer)
                         : tr("the map shown");
  const QString which = choice.ranking == LookupRanking::kContentWords ? tr("content words") : tr("every word");
  return tr("Row %1, col %2 \u2014 the words that looked there most (%3, %4): %5. Click it again to clear.")
      .arg(lookedCell_ / grid_w + 1)
      .arg(lookedCell_ % grid_w + 1)
      .arg(which, on, top.join(QStringLiteral(" \u00B7 ")));
}

LookupChoice AttentionPanel::lookupChoice() const {
  LookupChoice choice = lookupOnShown_->isChecked() ? LookupChoice{currentAggregate()} : DefaultLookup(shownMaps());
  choice.ranking = contentWords_->isChecked() ? LookupRanking::kContentWords : LookupRanking::kRaw;
  return choice;
}

void AttentionPanel::refreshLookup() {
  const LookupChoice choice = lookupChoice();
  lookup_ = lookedCell_ >= 0 ? RankWordsAtCell(shownMaps(), words_, lookedCell_, choice.aggregate, choice.ranking)
                             : std::vector<WordAtCell>{};
  // Content words leave out those that looked elsewhere (RankWordsAtCell): with none left the
  // cell stays marked and the line says so, unlike words without maps, which mark nothing.
  lookupNoneHere_ = lookup_.empty() && lookedCell_ >= 0 && choice.ranking == LookupRanking::kContentWords &&
                    !RankWordsAtCell(shownMaps(), words_, lookedCell_, choice.aggregate, LookupRanking::kRaw).empty();
  heatmap_->setMarkedCell(lookup_.empty() && !lookupNoneHere_ ? -1 : lookedCell_);
  // The top words' chips are tinted by their weight relative to the first; the others plain.
  const QColor tint = palette().color(QPalette::Highlight);
  const float top = lookup_.empty() ? 0.f : lookup_.front().weight;
  for (QAbstractButton* b : chipGroup_->buttons()) {
    b->setStyleSheet(QString());
    b->setAccessibleDescription(QString());
  }
  for (size_t i = 0; i < std::min<size_t>(lookup_.size(), kLookupWords); ++i) {
    QAbstractButton* b = chip(lookup_[i].word);
    if (!b || top <= 0.f) continue;
    const int alpha = 60 + static_cast<int>(160.f * lookup_[i].weight / top);
    b->setStyleSheet(QStringLiteral("QPushButton { background: rgba(%1, %2, %3, %4); border-radius: 3px; }")
                         .arg(tint.red()).arg(tint.green()).arg(tint.blue()).arg(alpha));
    b->setAccessibleDescription(tr("Looked at the chosen cell: rank %1").arg(i + 1));
  }
  const QString text = lookupText();
  lookupInfo_->setText(text);
  lookupInfo_->setVisible(!text.isEmpty());
}

}  // namespace glance::ui
