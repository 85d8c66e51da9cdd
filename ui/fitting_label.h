#pragma once
// A one-line label that never shows a word cut in half (issue 34: the attention panel's hint read
// "Hover the heatmap for a c" at the default dock width). It is given its text in a few forms,
// longest first, and shows the first that fits its width; when none fits, the last one elided
// with "…". The longest form is its tooltip. Its width never widens the layout it is in.
// GUI thread only.
#include <QLabel>
#include <QStringList>

namespace glance::ui {

class FittingLabel : public QLabel {
 public:
  explicit FittingLabel(QWidget* parent = nullptr);
  // `forms`, longest first; empty clears the label.
  void setForms(const QStringList& forms);
  QString fullText() const { return forms_.value(0); }
  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void fit();
  QStringList forms_;
};

}  // namespace glance::ui
