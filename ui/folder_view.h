#pragma once
// File ▸ Open folder… (issue 33 item 1): a window over one folder of images for captioning into
// sidecar files. A thumbnail grid with each image's state (no caption / captioned / edited by
// hand / failed) and filters by state and caption text; the selected image large with its caption
// in a plain-text editor (undo/redo; saved as you type, atomically, through the sidecar writer,
// and recorded as edited by hand, so a caption run leaves it alone unless told otherwise);
// Go ▸ Next / Previous / First without a caption; Caption ▸ Caption… runs the folder (the whole
// of it, the uncaptioned or the selected images) into sidecars on the engine thread with progress
// and Stop, each image's state updating as it is written; Edit ▸ Find and replace in captions…
// (folder_replace_dialog.h).
//
// The model behind it is folder_model.h; thumbnails come from folder_thumbnails.h (off the GUI
// thread, cached in memory and on disk). GUI thread only.
#include <QImage>
#include <QMainWindow>
#include <QMap>
#include <QString>
#include <QStringList>
#include <functional>

#include "core/engine/session.h"
#include <memory>

#include "core/engine/caption_insight.h"
#include "ui/folder_caption_dialog.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QListView;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace glance::ui {

class EngineWorker;
class FolderFilter;
class FolderInsightBar;
class FolderModel;
class FolderReplaceDialog;
class FolderThumbnails;
class CaptionPresetStore;

// What a caption run asks of each image: the question and the generation options (a preset's
// length and sampling over the main window's settings), and whether answers are JSON.
struct FolderCaptionRequest {
  QString preset;  // its name, "" for a question of one's own
  QString prompt;
  GenerateOptions options;
  bool json = false;
  QString schema;  // with json: the preset's schema ("" = any JSON object)
};

class FolderWindow : public QMainWindow {
  Q_OBJECT
 public:
  // `worker` null: no captioning (the view and editing still work). `options` and `modelLoaded`
  // ask the main window at the time of a run.
  FolderWindow(EngineWorker* worker, std::function<GenerateOptions()> options, std::function<bool()> modelLoaded,
               QWidget* parent = nullptr, const QString& thumbnailCacheDir = QString());
  ~FolderWindow() override;

  // Opens `dir`; false with the reason in the status bar (and *error).
  bool openFolder(const QString& dir, bool recursive, QString* error = nullptr);
  // The Open folder dialog (a folder and "include subfolders"), then openFolder.
  void chooseFolder();

  // Selects the image by name (relative to the folder); false when it is not shown.
  bool select(const QString& name);
  QString current() const;  // the selected image's name, "" for none
  void next();
  void previous();
  bool firstUncaptioned();
  void saveNow();  // the editor's pending change, if any

  // Starts a caption run with these choices (no dialog); false (and why, in the status bar)
  // when there is no model (for a run on this computer) or a run is going, or the preset is
  // unknown or lacks a placeholder's value. choice.remote.on: through that endpoint
  // (EngineWorker::captionFolderSidecars), its settings kept for the next run (ui/remote_endpoint.h).
  bool startCaption(const FolderCaptionChoice& choice);
  // The choices of the last run started, the next caption dialog's start; its preset and the
  // preset's values are kept in the settings file across restarts.
  const FolderCaptionChoice& lastChoice() const { return lastChoice_; }
  // What the last run started asked (the preset's question, length and sampling).
  const FolderCaptionRequest& lastRequest() const { return lastRequest_; }
  // The saved caption presets (ui/caption_preset_store.h), shared by every caption dialog of this window.
  CaptionPresetStore& presets() { return *presets_; }
  void stopCaption();
  bool isCaptioning() const { return running_; }
  FolderReplaceDialog* openReplace();

  FolderModel* model() const { return model_; }
  FolderFilter* filter() const { return filter_; }
  FolderThumbnails* thumbnails() const { return thumbnails_; }
  QListView* list() const { return list_; }
  QPlainTextEdit* editor() const { return editor_; }
  QComboBox* stateFilter() const { return stateFilter_; }
  QLineEdit* textFilter() const { return textFilter_; }
  // Below the large image: the word maps and timing of an image captioned in this window's runs
  // (here, or through a Glance server), ui/folder_insight_bar.h.
  FolderInsightBar* insightBar() const { return insightBar_; }
  const CaptionInsight* insight(const QString& name) const;
  QString statusText() const;
  QString countsText() const;

 Q_SIGNALS:
  void captionFinished(int captioned, int skipped, bool stopped);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void showCurrent();
  void editorChanged();
  void updateCounts();
  void applyFilter();
  void chooseCaption();
  void setRunning(bool on);
  void reloadKeepingCurrent();
  // The question and options `choice` asks; false with *error one line (unknown preset, a
  // placeholder without a value).
  bool resolveRequest(const FolderCaptionChoice& choice, FolderCaptionRequest* request, QString* error) const;

  EngineWorker* worker_;
  std::function<GenerateOptions()> options_;
  std::function<bool()> modelLoaded_;
  FolderThumbnails* thumbnails_ = nullptr;
  FolderModel* model_ = nullptr;
  FolderFilter* filter_ = nullptr;
  QListView* list_ = nullptr;
  QComboBox* stateFilter_ = nullptr;
  QLineEdit* textFilter_ = nullptr;
  QLabel* image_ = nullptr;
  QLabel* stateLabel_ = nullptr;
  QLabel* counts_ = nullptr;
  QPlainTextEdit* editor_ = nullptr;
  FolderInsightBar* insightBar_ = nullptr;
  QMap<QString, CaptionInsight> insights_;  // by image name, this window's runs only
  QMap<QString, QString> insightWhere_;     // "" here, else the endpoint's URL
  QImage shown_;                            // the large image as read, before any map over it
  QProgressBar* bar_ = nullptr;
  QPushButton* stop_ = nullptr;
  QTimer* saveTimer_ = nullptr;
  QAction* recursiveAction_ = nullptr;
  QAction* captionAction_ = nullptr;
  QAction* stopAction_ = nullptr;
  FolderReplaceDialog* replace_ = nullptr;
  FolderCaptionChoice lastChoice_;
  FolderCaptionRequest lastRequest_;
  std::unique_ptr<CaptionPresetStore> presets_;
  QString editing_;       // the image whose caption the editor shows
  bool loading_ = false;  // the editor's text is being set, not typed
  bool dirty_ = false;
  bool running_ = false;
};

}  // namespace glance::ui
