#include "ui/safe_text_browser.h"

namespace glance::ui {

SafeTextBrowser::SafeTextBrowser(QWidget* parent) : QTextBrowser(parent) {
  setOpenLinks(false);  // anchorClicked() only; no setSource(), no desktop services
  setOpenExternalLinks(false);
}

QVariant SafeTextBrowser::loadResource(int /*type*/, const QUrl& /*name*/) {
  ++refusedLoads_;
  return {};
}

}  // namespace glance::ui
