#pragma once
// File ▸ Local server panel… (issue 34): the OpenAI-compatible server's settings and state in
// one window, like LM Studio's Developer tab — port, bind address (with a warning when other
// machines can reach it), API key (generate, copy), allowed web origins, Start/Stop with what the
// server is doing, the live request log (ServerRequestLog: method, path, status, duration,
// tokens; Clear) and copy-paste examples (curl, Python and JavaScript `openai`) filled with the
// real URL, model and key. The settings are kept (LocalServerConfig) and can be changed while the
// server is stopped. The panel asks; MainWindow starts and stops the server and reports back.
// GUI thread only.
#include <QDialog>

#include "ui/local_server_config.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace glance::ui {

class ServerRequestLog;

class ServerPanel : public QDialog {
  Q_OBJECT
 public:
  // `log`: the window's request log (kept while the panel is closed); not owned.
  explicit ServerPanel(ServerRequestLog* log, QWidget* parent = nullptr);

  LocalServerConfig config() const;  // as the fields say now
  void setConfig(const LocalServerConfig& config);
  // The server's state from the engine thread: `url` empty = stopped.
  void setServerState(const QString& url, const QString& model);
  // The model the examples name while the server is off (the loaded model's name).
  void setModelName(const QString& model);
  // A failed start (the address is taken, no model): shown under the state until the next try.
  void showError(const QString& message);

  bool isRunning() const { return !url_.isEmpty(); }
  QString stateText() const;
  QString errorText() const;
  // The three examples as shown: 0 curl, 1 Python, 2 JavaScript.
  QString snippet(int which) const;
  QPushButton* startStopButton() const { return startStop_; }
  QPushButton* clearLogButton() const { return clearLog_; }
  QPushButton* generateKeyButton() const { return generateKey_; }
  QPushButton* copyKeyButton() const { return copyKey_; }
  QPushButton* showKeyButton() const { return showKey_; }
  QSpinBox* portBox() const { return port_; }
  QComboBox* hostBox() const { return host_; }
  QLineEdit* keyEdit() const { return key_; }
  QLineEdit* originsEdit() const { return origins_; }
  QLabel* hostWarning() const { return hostWarning_; }
  QTableView* logView() const { return logView_; }

 protected:
  void changeEvent(QEvent* event) override;

 Q_SIGNALS:
  void startRequested(const glance::ui::LocalServerConfig& config);
  void stopRequested();

 private:
  void onStartStop();
  void applyErrorColour();
  void updateState();
  void updateSnippets();
  QWidget* snippetTab(QPlainTextEdit** text);

  ServerRequestLog* log_;
  QLabel* state_ = nullptr;
  QLabel* error_ = nullptr;
  QPushButton* startStop_ = nullptr;
  QSpinBox* port_ = nullptr;
  QComboBox* host_ = nullptr;
  QLabel* hostWarning_ = nullptr;
  QLineEdit* key_ = nullptr;
  QPushButton* generateKey_ = nullptr;
  QPushButton* copyKey_ = nullptr;
  QPushButton* showKey_ = nullptr;
  QLineEdit* origins_ = nullptr;
  QLabel* count_ = nullptr;
  QTableView* logView_ = nullptr;
  QPushButton* clearLog_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QPlainTextEdit* snippets_[3] = {nullptr, nullptr, nullptr};
  QString url_, model_, loadedModel_;
  bool starting_ = false;
};

}  // namespace glance::ui
