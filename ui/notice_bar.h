#pragma once
// The inline notice above the chat (issue 34 item 4): one message at a time, with a close
// button and, when something can be done about it, an action button ("Reload now").
// Each notice carries a key naming what it is about, so the window takes it away the moment
// it stops being true (clear(key): the model was reloaded, the answer finished, a new chat
// began); a passing one ("Exported to …") can also go by itself after a timeout.
// Colours are taken from the palette when painting, so the notice follows a theme switch
// (a style sheet resolves palette() once, which left it white in the dark theme).
// GUI thread only.
#include <QFrame>
#include <QString>
#include <functional>

class QLabel;
class QPushButton;
class QTimer;
class QToolButton;

namespace glance::ui {

class NoticeBar : public QFrame {
  Q_OBJECT
 public:
  enum class Kind { kInfo, kWarning, kError };
  explicit NoticeBar(QWidget* parent = nullptr);

  // Shows `text` under `key`, replacing whatever was shown. `actionText` + `action`: a button
  // that runs `action` and closes the notice. `timeoutMs` > 0: it goes by itself.
  void showNotice(const QString& key, const QString& text, Kind kind = Kind::kInfo,
                  const QString& actionText = {}, std::function<void()> action = {},
                  int timeoutMs = 0);
  // Hides the notice when it is the one under `key` (any notice when `key` is empty).
  void clear(const QString& key = {});

  bool isShown() const { return !isHidden(); }
  QString key() const { return isHidden() ? QString() : key_; }
  QString text() const;
  Kind kind() const { return kind_; }
  QPushButton* actionButton() const { return action_; }
  QToolButton* closeButton() const { return close_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QLabel* label_ = nullptr;
  QPushButton* action_ = nullptr;
  QToolButton* close_ = nullptr;
  QTimer* timeout_ = nullptr;
  QString key_;
  Kind kind_ = Kind::kInfo;
  std::function<void()> run_;
};

}  // namespace glance::ui
