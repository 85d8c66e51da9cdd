#pragma once
// A QTextBrowser that shows only what it is given: it never loads a resource (an image, a
// style sheet) from a file or URL a text names, and never follows a link by itself (a
// relative link would load a local file into the view). Images the app registered with the
// document (QTextDocument::addResource) still show; links are reported by anchorClicked().
// For the chat transcript, whose answers are Markdown written by a model (issue 34).
#include <QTextBrowser>

namespace glance::ui {

class SafeTextBrowser : public QTextBrowser {
  Q_OBJECT
 public:
  explicit SafeTextBrowser(QWidget* parent = nullptr);

  // Refuses every load (the document's own resources never get here).
  QVariant loadResource(int type, const QUrl& name) override;
  int refusedLoads() const { return refusedLoads_; }

 private:
  int refusedLoads_ = 0;
};

}  // namespace glance::ui
