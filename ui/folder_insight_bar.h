#pragma once
// Below the folder view's large image (issue 33): for an image captioned in this window's runs,
// here or through a Glance server (whose answers carry the same maps and timing in their
// "glance" field), where the model looked for each word of its caption — a word chosen in the
// box paints its map over the image — and one line of timing. Hidden for other images.
// GUI thread only.
#include <QImage>
#include <QWidget>

#include "core/engine/caption_insight.h"

class QComboBox;
class QLabel;

namespace glance::ui {

class FolderInsightBar : public QWidget {
  Q_OBJECT
 public:
  explicit FolderInsightBar(QWidget* parent = nullptr);

  // `insight` null: nothing to show (hidden). `where`: "" here, else the server's URL.
  void setInsight(const CaptionInsight* insight, const QString& where);
  // `image` with the chosen word's map over it, or `image` itself when none is chosen.
  QImage overlay(const QImage& image) const;
  QComboBox* words() const { return words_; }
  QString timingText() const;

 Q_SIGNALS:
  void wordChanged();

 private:
  QComboBox* words_ = nullptr;
  QLabel* timing_ = nullptr;
  CaptionInsight insight_;
};

}  // namespace glance::ui
