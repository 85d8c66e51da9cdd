#pragma once
// The main window (docs/design.md "The window"): Chat in the centre; Conversations,
// Image & attention and Timing as dock widgets the user can move or hide (layout remembered);
// a status bar with model · backend (and why) · threads · memory. Owns the engine thread:
// commands go to the EngineWorker by queued signals, events come back as values.
// GUI thread only.
#include <QImage>
#include <QMainWindow>

#include "ui/event_types.h"

class QLabel;
class QListWidget;
class QProgressBar;
class QThread;
class QToolButton;

namespace glance::ui {

class AttentionPanel;
class ChatView;
class EngineWorker;
class ImageDropArea;
class TimingPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  void loadModel(const QString& dir);
  void loadDefaultModel();  // the bundled demo (glance::DefaultDemoModelDir())
  // Attaches an image file; with `caption`, sends "Describe this image." once it is ready.
  void attachImageFile(const QString& path, bool caption);
  void attachImagePixels(const QImage& image, bool caption);
  // Grab the window to `path` after the first finished turn, then close (for docs/tests).
  void setScreenshotPath(const QString& path) { screenshotPath_ = path; }

  bool captionOnDrop() const { return captionOnDrop_; }
  void setCaptionOnDrop(bool on) { captionOnDrop_ = on; }
  GenerateOptions& generateOptions() { return options_; }
  bool isModelLoaded() const { return modelLoaded_; }

  ChatView* chat() const { return chat_; }
  AttentionPanel* attention() const { return attention_; }
  TimingPanel* timing() const { return timing_; }
  ImageDropArea* dropArea() const { return dropArea_; }
  QListWidget* conversations() const { return conversations_; }  // for the conversation store
  EngineWorker* worker() const { return worker_; }

 Q_SIGNALS:
  // To the worker (queued: it lives on the engine thread).
  void requestLoad(const QString& dir, int threads);
  void requestAttachImage(const QString& path);
  void requestAttachPixels(const QImage& image);
  void requestSend(const QString& text, const glance::GenerateOptions& options);
  void requestRegenerate(const glance::GenerateOptions& options);
  void requestEdit(const QString& text, const glance::GenerateOptions& options);
  void requestReset();
  // For observers (tests, the conversation store), on the GUI thread.
  void modelReady(const glance::ModelInfo& info);
  void turnCompleted(const glance::TurnResult& result);
  void failed(const QString& message);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildDocks();
  void buildMenus();
  void buildStatusBar();
  void connectWorker();
  void shutdownWorker();
  void restoreLayout();
  void saveLayout() const;

  void onModelLoaded(const ModelInfo& info);
  void onLoadProgress(double fraction, const QString& what);
  void onImageAttached(const ImageInfo& info);
  void onTurnFinished(const TurnResult& result);
  void onError(const QString& during, const QString& message);
  void startTurn();
  void updateMemory();

  QThread* thread_ = nullptr;
  EngineWorker* worker_ = nullptr;
  ChatView* chat_ = nullptr;
  AttentionPanel* attention_ = nullptr;
  TimingPanel* timing_ = nullptr;
  ImageDropArea* dropArea_ = nullptr;
  QListWidget* conversations_ = nullptr;
  QLabel* modelLabel_ = nullptr;
  QLabel* backendLabel_ = nullptr;
  QLabel* threadsLabel_ = nullptr;
  QLabel* memoryLabel_ = nullptr;
  QProgressBar* loadBar_ = nullptr;
  QToolButton* cancelLoad_ = nullptr;

  GenerateOptions options_;
  ModelInfo model_;
  bool modelLoaded_ = false;
  bool captionOnDrop_ = true;
  bool captionPending_ = false;
  QImage pendingImage_;  // the attached image, shown once the engine says what it became
  int imageCount_ = 0;   // images in this conversation (AttentionMap::image_index)
  QString screenshotPath_;
  bool shutDown_ = false;
};

}  // namespace glance::ui
