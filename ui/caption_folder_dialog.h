#pragma once
// File ▸ Caption a folder…: choose a folder and an output file (.jsonl or .csv), then Start.
// The run itself is the EngineWorker's (captionFolder, core/engine/caption_folder.h); this
// dialog only asks, shows progress with an ETA and a log of what was captioned or skipped, and
// offers Stop. The output file is the resume state: rows are written as they are made, so a
// stopped run loses nothing and Start again continues where it stopped.
// GUI thread only.
#include <QDialog>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace glance::ui {

class CaptionFolderDialog : public QDialog {
  Q_OBJECT
 public:
  explicit CaptionFolderDialog(QWidget* parent = nullptr);

  void setFolder(const QString& dir);  // also proposes DIR/captions.jsonl when no output is set
  void setOutput(const QString& path);
  // A JSON schema file: every caption is then a JSON document the schema accepts (constrained
  // decoding, as glance-cli caption --json-schema), written into .jsonl as JSON. Empty: text.
  void setSchemaPath(const QString& path);
  QString schemaPath() const;
  QString folder() const;
  QString output() const;
  bool isRunning() const { return running_; }
  QString statusText() const;  // the line under the progress bar
  QString logText() const;

  // Checks the choices (the status line says what is wrong) and emits startRequested.
  void start();
  void stop();

 public Q_SLOTS:
  // From EngineWorker's folder signals (see engine_worker.h).
  void onProgress(int done, int total, const QString& file, double etaSeconds);
  void onItem(const QString& file, const QString& text, bool ok);
  void onFinished(int captioned, int alreadyDone, int skipped, bool stopped);
  void onFailed(const QString& message);  // the folder or the output file is unusable

 Q_SIGNALS:
  // `schema`: the JSON schema's text (checked before), or empty for plain captions.
  void startRequested(const QString& dir, const QString& out, const QString& prompt, const QString& schema);
  void stopRequested();

 protected:
  void reject() override;  // Close / Escape stop a running job first

 private:
  void setRunning(bool on);
  void chooseFolder();
  void chooseOutput();
  void chooseSchema();

  QLineEdit* folder_ = nullptr;
  QLineEdit* output_ = nullptr;
  QLineEdit* prompt_ = nullptr;
  QLineEdit* schema_ = nullptr;
  QProgressBar* bar_ = nullptr;
  QLabel* status_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  QPushButton* start_ = nullptr;
  QPushButton* stop_ = nullptr;
  bool running_ = false;
};

// "about 40 s left", "about 3 min left", "about 1 h 5 min left".
QString DescribeEta(double seconds);

}  // namespace glance::ui
