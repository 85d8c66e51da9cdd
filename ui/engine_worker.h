#pragma once
// The engine's thread (docs/design.md "ui/"): one long-lived QObject, moved to a QThread by
// its owner, holding the shared_ptr<const Engine> and the glance::Session. Commands arrive as
// queued slot calls; results leave as value-type signals (see event_types.h).
//
// Thread contract: every slot runs on the worker thread. stop() and cancelLoad() are the only
// methods the GUI thread calls directly: they set atomics the decode loop (StreamCallbacks::
// cancel, checked before every token) and the load progress callback read, so Stop takes
// effect within one token. Owners shut down with stop(); cancelLoad(); thread->quit(); wait().
#include <QImage>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "ui/event_types.h"

namespace glance::ui {

class EngineWorker : public QObject {
  Q_OBJECT
 public:
  explicit EngineWorker(QObject* parent = nullptr);
  ~EngineWorker() override;

  // Thread-safe. stop() halts the current (or the next queued) generation; armed again by
  // rearm(), which the GUI calls right before it queues a new generation command.
  void stop() { cancel_.store(true); }
  void rearm() { cancel_.store(false); }
  void cancelLoad() { cancelLoad_.store(true); }

 public Q_SLOTS:
  // `options` as the GUI built them from the settings registry (settings::ToEngineOptions).
  void loadModel(const QString& dir, const glance::EngineOptions& options);
  void attachImage(const QString& path);
  void attachPixels(const QImage& image);
  void send(const QString& text, const glance::GenerateOptions& options);
  void regenerate(const glance::GenerateOptions& options);
  void editLast(const QString& text, const glance::GenerateOptions& options);
  void reset();
  void setSystemPrompt(const QString& text);
  // For images attached from now on.
  void setImageMode(glance::ImageMode mode);

 Q_SIGNALS:
  void loadProgress(double fraction, const QString& what);
  void modelLoaded(const glance::ModelInfo& info);
  void imageAttached(const glance::ImageInfo& info);
  void turnStarted();
  void textPiece(const QString& piece);
  void attentionMap(const glance::AttentionMap& map);
  void turnFinished(const glance::TurnResult& result);
  // A failed command; `during` says which ("load", "image", "generate", "settings").
  void error(const QString& during, const QString& message);

 private:
  template <typename Run>
  void generate(Run&& run);
  StreamCallbacks callbacks();

  std::shared_ptr<const Engine> engine_;
  std::unique_ptr<Session> session_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> cancelLoad_{false};
  ImageMode imageMode_ = ImageMode::kFast;
};

}  // namespace glance::ui
