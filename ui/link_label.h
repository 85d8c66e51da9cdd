#pragma once
// A QLabel whose links follow the palette. A rich-text label bakes the palette's link colour
// into its text when the text is set, so after a theme switch its links kept the old theme's
// colour (the light theme's dark blue on the dark theme's background). This one sets its text
// again when its palette changes. GUI thread only.
#include <QLabel>

namespace glance::ui {

class LinkLabel : public QLabel {
 public:
  using QLabel::QLabel;

 protected:
  void changeEvent(QEvent* event) override;
};

}  // namespace glance::ui
