#include "ui/folder_view.h"

#include <QAction>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QImageReader>
#include <QJsonDocument>
#include <QJsonObject>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>
#include <map>

#include "core/engine/caption_preset.h"
#include "ui/caption_folder_dialog.h"  // DescribeEta
#include "ui/caption_preset_store.h"
#include "ui/engine_worker.h"
#include "ui/folder_insight_bar.h"
#include "ui/folder_model.h"
#include "ui/folder_replace_dialog.h"
#include "ui/settings_file.h"
#include "ui/folder_thumbnails.h"
#include "ui/remote_endpoint.h"

namespace glance::ui {

namespace {

constexpr int kThumbnail = 96;
constexpr int kSaveDelayMs = 400;  // saved as you type, after a pause
// The caption preset last chosen and its placeholders' values (a JSON object), in the settings file.
constexpr const char* kPresetKey = "folder/caption_preset";
constexpr const char* kPresetVarsKey = "folder/caption_preset_vars";

// The large image, scaled to whatever room the splitter gives it.
class ScaledImage : public QLabel {
 public:
  explicit ScaledImage(QWidget* parent) : QLabel(parent) {
    setAlignment(Qt::AlignCenter);
    setMinimumSize(160, 120);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
  }
  void setImage(const QImage& image) {
    image_ = image;
    rescale();
  }

 protected:
  void resizeEvent(QResizeEvent* event) override {
    QLabel::resizeEvent(event);
    rescale();
  }

 private:
  void rescale() {
    if (image_.isNull()) {
      setPixmap(QPixmap());
      return;
    }
    setPixmap(QPixmap::fromImage(image_.scaled(size(), Qt::KeepAspectRatio, Qt::SmoothTransformation)));
  }
  QImage image_;
};

}  // namespace

FolderWindow::FolderWindow(EngineWorker* worker, std::function<GenerateOptions()> options,
                           std::function<bool()> modelLoaded, QWidget* parent, const QString& thumbnailCacheDir)
    : QMainWindow(parent),
      worker_(worker),
      options_(std::move(options)),
      modelLoaded_(std::move(modelLoaded)),
      presets_(std::make_unique<CaptionPresetStore>()) {
  {  // The preset chosen last time, and the values of its placeholders.
    const auto saved = SettingsFile::App();
    lastChoice_.preset = saved->value(QString::fromLatin1(kPresetKey)).toString();
    const QJsonObject vars = QJsonDocument::fromJson(saved->value(QString::fromLatin1(kPresetVarsKey)).toString().toUtf8()).object();
    for (auto it = vars.begin(); it != vars.end(); ++it) lastChoice_.vars.insert(it.key(), it.value().toString());
  }
  lastChoice_.remote = LoadRemoteEndpointChoice();  // this computer or the endpoint of the last run
  setWindowTitle(tr("Folder \u2014 Glance"));
  resize(1180, 680);
  thumbnails_ = new FolderThumbnails(
      kThumbnail, thumbnailCacheDir.isEmpty() ? FolderThumbnails::DefaultDiskDir() : thumbnailCacheDir, this);
  model_ = new FolderModel(thumbnails_, this);
  filter_ = new FolderFilter(this);
  filter_->setSourceModel(model_);
  filter_->setDynamicSortFilter(true);

  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(4, 4, 4, 4);
  auto* filters = new QHBoxLayout;
  stateFilter_ = new QComboBox(left);
  stateFilter_->setObjectName(QStringLiteral("stateFilter"));
  stateFilter_->addItem(tr("All images"), 0xF);
  stateFilter_->addItem(tr("No caption"), 1 << static_cast<int>(FolderImageState::kNone));
  stateFilter_->addItem(tr("Captioned"), 1 << static_cast<int>(FolderImageState::kCaptioned));
  stateFilter_->addItem(tr("Edited by hand"), 1 << static_cast<int>(FolderImageState::kEdited));
  stateFilter_->addItem(tr("Failed"), 1 << static_cast<int>(FolderImageState::kFailed));
  textFilter_ = new QLineEdit(left);
  textFilter_->setObjectName(QStringLiteral("textFilter"));
  textFilter_->setPlaceholderText(tr("Caption contains\u2026"));
  textFilter_->setClearButtonEnabled(true);
  filters->addWidget(stateFilter_);
  filters->addWidget(textFilter_, 1);
  leftLayout->addLayout(filters);
  list_ = new QListView(left);
  list_->setObjectName(QStringLiteral("images"));
  list_->setModel(filter_);
  list_->setViewMode(QListView::IconMode);
  list_->setIconSize(QSize(kThumbnail, kThumbnail));
  list_->setGridSize(QSize(kThumbnail + 28, kThumbnail + 30));
  list_->setUniformItemSizes(true);  // no per-row size questions: thousands of rows lay out at once
  list_->setMovement(QListView::Static);
  list_->setResizeMode(QListView::Adjust);
  list_->setLayoutMode(QListView::Batched);
  list_->setTextElideMode(Qt::ElideMiddle);
  list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  leftLayout->addWidget(list_, 1);

  auto* right = new QSplitter(Qt::Vertical, split);
  image_ = new ScaledImage(right);
  image_->setObjectName(QStringLiteral("largeImage"));
  auto* below = new QWidget(right);
  auto* belowLayout = new QVBoxLayout(below);
  belowLayout->setContentsMargins(4, 4, 4, 4);
  stateLabel_ = new QLabel(below);
  stateLabel_->setObjectName(QStringLiteral("imageState"));
  stateLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  stateLabel_->setWordWrap(true);
  editor_ = new QPlainTextEdit(below);
  editor_->setObjectName(QStringLiteral("captionEditor"));
  editor_->setEnabled(false);  // showCurrent() sets its placeholder for what is (not) chosen
  editor_->setPlaceholderText(tr("Open a folder of images: File \u25B8 Open folder\u2026"));
  belowLayout->addWidget(stateLabel_);
  insightBar_ = new FolderInsightBar(below);
  belowLayout->addWidget(insightBar_);
  connect(insightBar_, &FolderInsightBar::wordChanged, this,
          [this] { static_cast<ScaledImage*>(image_)->setImage(insightBar_->overlay(shown_)); });
  belowLayout->addWidget(editor_, 1);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 1);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({560, 620});
  setCentralWidget(split);

  counts_ = new QLabel(this);
  counts_->setObjectName(QStringLiteral("counts"));
  bar_ = new QProgressBar(this);
  bar_->setMaximumWidth(220);
  bar_->setVisible(false);
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setVisible(false);
  statusBar()->addPermanentWidget(counts_);
  statusBar()->addPermanentWidget(bar_);
  statusBar()->addPermanentWidget(stop_);
  connect(stop_, &QPushButton::clicked, this, &FolderWindow::stopCaption);

  saveTimer_ = new QTimer(this);
  saveTimer_->setSingleShot(true);
  saveTimer_->setInterval(kSaveDelayMs);
  connect(saveTimer_, &QTimer::timeout, this, &FolderWindow::saveNow);
  connect(editor_, &QPlainTextEdit::textChanged, this, &FolderWindow::editorChanged);
  connect(list_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { showCurrent(); });
  connect(stateFilter_, &QComboBox::currentIndexChanged, this, &FolderWindow::applyFilter);
  connect(textFilter_, &QLineEdit::textChanged, this, &FolderWindow::applyFilter);
  connect(model_, &QAbstractItemModel::modelReset, this, &FolderWindow::updateCounts);
  buildMenus();
  setRunning(false);
}

FolderWindow::~FolderWindow() = default;

void FolderWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open folder\u2026"), this, &FolderWindow::chooseFolder);
  open->setShortcut(QKeySequence::Open);
  recursiveAction_ = file->addAction(tr("Include &subfolders"));
  recursiveAction_->setCheckable(true);
  connect(recursiveAction_, &QAction::triggered, this, [this](bool on) {
    if (!model_->dir().isEmpty()) openFolder(model_->dir(), on);
  });
  file->addSeparator();
  QAction* close = file->addAction(tr("&Close"), this, &QWidget::close);
  close->setShortcut(QKeySequence::Close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = edit->addAction(tr("&Undo"), editor_, &QPlainTextEdit::undo);
  undo->setShortcut(QKeySequence::Undo);
  undo->setEnabled(false);
  connect(editor_, &QPlainTextEdit::undoAvailable, undo, &QAction::setEnabled);
  QAction* redo = edit->addAction(tr("&Redo"), editor_, &QPlainTextEdit::redo);
  redo->setShortcut(QKeySequence::Redo);
  redo->setEnabled(false);
  connect(editor_, &QPlainTextEdit::redoAvailable, redo, &QAction::setEnabled);
  edit->addSeparator();
  QAction* replace = edit->addAction(tr("Find and &replace in captions\u2026"), this, [this] { openReplace(); });
  replace->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
  QAction* find = edit->addAction(tr("&Filter by caption text"), this, [this] {
    textFilter_->setFocus();
    textFilter_->selectAll();
  });
  find->setShortcut(QKeySequence::Find);

  // Alt+arrows: plain arrows and Page keys belong to the caption editor and the grid.
  QMenu* go = menuBar()->addMenu(tr("&Go"));
  go->addAction(tr("&Next image"), this, &FolderWindow::next)->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
  go->addAction(tr("&Previous image"), this, &FolderWindow::previous)
      ->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
  go->addAction(tr("First &without a caption"), this, [this] { firstUncaptioned(); })
      ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_U));

  QMenu* caption = menuBar()->addMenu(tr("&Caption"));
  captionAction_ = caption->addAction(tr("&Caption into sidecar files\u2026"), this, &FolderWindow::chooseCaption);
  captionAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  stopAction_ = caption->addAction(tr("&Stop"), this, &FolderWindow::stopCaption);
  stopAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
}

bool FolderWindow::openFolder(const QString& dir, bool recursive, QString* error) {
  saveNow();
  if (running_) {
    statusBar()->showMessage(tr("A caption run is going: stop it first."));
    return false;
  }
  QString why;
  const bool ok = model_->open(dir, recursive, lastChoice_.ext, &why);
  recursiveAction_->setChecked(recursive);
  editing_.clear();
  filter_->setPinned(QString());
  if (!ok) {
    statusBar()->showMessage(why);
    if (error) *error = why;
    showCurrent();
    return false;
  }
  setWindowTitle(tr("%1 \u2014 Glance").arg(model_->dir()));
  if (replace_) {
    replace_->deleteLater();
    replace_ = nullptr;
  }
  if (filter_->rowCount() > 0) list_->setCurrentIndex(filter_->index(0, 0));
  statusBar()->showMessage(tr("%n image(s)", nullptr, model_->rowCount()), 5000);
  updateCounts();
  showCurrent();
  return true;
}

void FolderWindow::chooseFolder() {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Open folder"));
  auto* layout = new QVBoxLayout(&dialog);
  auto* row = new QHBoxLayout;
  auto* path = new QLineEdit(model_->dir(), &dialog);
  path->setMinimumWidth(420);
  auto* browse = new QPushButton(tr("&Browse\u2026"), &dialog);
  row->addWidget(path, 1);
  row->addWidget(browse);
  layout->addLayout(row);
  auto* sub = new QCheckBox(tr("Include &subfolders"), &dialog);
  sub->setChecked(recursiveAction_->isChecked());
  layout->addWidget(sub);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, &dialog);
  layout->addWidget(buttons);
  connect(browse, &QPushButton::clicked, &dialog, [&] {
    const QString d = QFileDialog::getExistingDirectory(&dialog, tr("Folder of images"), path->text());
    if (!d.isEmpty()) path->setText(d);
  });
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() == QDialog::Accepted && !path->text().trimmed().isEmpty())
    openFolder(path->text().trimmed(), sub->isChecked());
}

QString FolderWindow::current() const { return editing_; }

bool FolderWindow::select(const QString& name) {
  const int row = model_->rowOf(name);
  if (row < 0) return false;
  const QModelIndex i = filter_->mapFromSource(model_->index(row));
  if (!i.isValid()) return false;
  list_->setCurrentIndex(i);
  list_->scrollTo(i);
  return true;
}

void FolderWindow::next() {
  const int n = filter_->rowCount();
  if (n == 0) return;
  const QModelIndex cur = list_->currentIndex();
  const int row = cur.isValid() ? std::min(cur.row() + 1, n - 1) : 0;
  list_->setCurrentIndex(filter_->index(row, 0));
}

void FolderWindow::previous() {
  const int n = filter_->rowCount();
  if (n == 0) return;
  const QModelIndex cur = list_->currentIndex();
  const int row = cur.isValid() ? std::max(cur.row() - 1, 0) : 0;
  list_->setCurrentIndex(filter_->index(row, 0));
}

bool FolderWindow::firstUncaptioned() {
  for (int row = 0; row < model_->rowCount(); ++row) {
    if (model_->state(row) != FolderImageState::kNone) continue;
    if (!filter_->mapFromSource(model_->index(row)).isValid()) {
      // Hidden by the filters: show everything rather than not go there.
      stateFilter_->setCurrentIndex(0);
      textFilter_->clear();
    }
    return select(model_->name(row));
  }
  statusBar()->showMessage(tr("Every image has a caption."), 5000);
  return false;
}

void FolderWindow::applyFilter() {
  saveNow();
  // The pin keeps the row being typed into from vanishing; a new filter is the user's own choice.
  filter_->setPinned(QString());
  filter_->setStates(stateFilter_->currentData().toInt());
  filter_->setText(textFilter_->text());
  if (!list_->currentIndex().isValid() && filter_->rowCount() > 0) list_->setCurrentIndex(filter_->index(0, 0));
  filter_->setPinned(editing_);
  statusBar()->showMessage(tr("%1 of %2 shown").arg(filter_->rowCount()).arg(model_->rowCount()));
}

void FolderWindow::showCurrent() {
  const QModelIndex cur = list_->currentIndex();
  const QString name = cur.isValid() ? cur.data(FolderModel::kNameRole).toString() : QString();
  if (name != editing_) saveNow();
  editing_ = name;
  filter_->setPinned(name);
  const int row = model_->rowOf(name);
  loading_ = true;
  if (row < 0) {
    editor_->setPlainText(QString());
    editor_->setEnabled(false);
    // Nothing to caption yet: say what to do first, not how to caption (an empty-state leftover).
    editor_->setPlaceholderText(model_->rowCount() == 0 ? tr("Open a folder of images: File \u25B8 Open folder\u2026")
                                                        : tr("Choose an image to see and edit its caption."));
    stateLabel_->clear();
    shown_ = QImage();
    insightBar_->setInsight(nullptr, QString());
    static_cast<ScaledImage*>(image_)->setImage(QImage());
  } else {
    editor_->setPlainText(model_->caption(row));
    editor_->setEnabled(true);
    editor_->setPlaceholderText(tr("No caption yet: type one, or caption the folder (Caption \u25B8 Caption into sidecar files\u2026, Ctrl+R)."));
    const QString error = cur.data(FolderModel::kErrorRole).toString();
    stateLabel_->setText(QStringLiteral("<b>%1</b> \u00B7 %2 \u00B7 %3%4")
                             .arg(name.toHtmlEscaped(), DescribeState(model_->state(row)).toHtmlEscaped(),
                                  QDir(model_->dir()).relativeFilePath(model_->sidecarPath(row)).toHtmlEscaped(),
                                  error.isEmpty() ? QString() : QStringLiteral("<br>") + error.toHtmlEscaped()));
    QImageReader reader(model_->path(row));
    reader.setAutoTransform(true);
    const QSize size = reader.size();
    if (size.isValid() && (size.width() > 1600 || size.height() > 1600))
      reader.setScaledSize(size.scaled(1600, 1600, Qt::KeepAspectRatio));  // a 50 MP photo need not be decoded whole
    const QImage image = reader.read();
    shown_ = image;
    insightBar_->setInsight(insight(name), insightWhere_.value(name));
    static_cast<ScaledImage*>(image_)->setImage(insightBar_->overlay(image));
    if (image.isNull()) image_->setText(tr("Cannot show this image: %1").arg(reader.errorString()));
  }
  loading_ = false;
  dirty_ = false;
}

void FolderWindow::editorChanged() {
  if (loading_ || editing_.isEmpty()) return;
  dirty_ = true;
  saveTimer_->start();
}

void FolderWindow::saveNow() {
  saveTimer_->stop();
  if (!dirty_ || editing_.isEmpty()) return;
  dirty_ = false;
  const int row = model_->rowOf(editing_);
  if (row < 0) return;
  QString error;
  if (!model_->saveCaption(row, editor_->toPlainText(), &error)) {
    statusBar()->showMessage(tr("Not saved: %1").arg(error));
    return;
  }
  statusBar()->showMessage(tr("Saved %1 (edited by hand)")
                               .arg(QDir(model_->dir()).relativeFilePath(model_->sidecarPath(row))),
                           3000);
  stateLabel_->setText(QStringLiteral("<b>%1</b> \u00B7 %2 \u00B7 %3")
                           .arg(editing_.toHtmlEscaped(), DescribeState(model_->state(row)).toHtmlEscaped(),
                                QDir(model_->dir()).relativeFilePath(model_->sidecarPath(row)).toHtmlEscaped()));
  updateCounts();
}

void FolderWindow::updateCounts() {
  counts_->setText(countsText());
}

QString FolderWindow::countsText() const {
  return tr("%n image(s)", nullptr, model_->rowCount()) + QStringLiteral(" \u00B7 ") +
         tr("%1 captioned \u00B7 %2 edited by hand \u00B7 %3 no caption \u00B7 %4 failed")
             .arg(model_->count(FolderImageState::kCaptioned))
             .arg(model_->count(FolderImageState::kEdited))
             .arg(model_->count(FolderImageState::kNone))
             .arg(model_->count(FolderImageState::kFailed));
}

const CaptionInsight* FolderWindow::insight(const QString& name) const {
  const auto it = insights_.find(name);
  return it == insights_.end() ? nullptr : &it.value();
}

QString FolderWindow::statusText() const { return statusBar()->currentMessage(); }

void FolderWindow::chooseCaption() {
  const int selected = static_cast<int>(list_->selectionModel()->selectedIndexes().size());
  FolderCaptionDialog dialog(lastChoice_, selected, presets_.get(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  startCaption(dialog.choice());
}

bool FolderWindow::startCaption(const FolderCaptionChoice& choice) {
  saveNow();
  if (running_) {
    statusBar()->showMessage(tr("A caption run is going already."));
    return false;
  }
  if (!worker_ || (!choice.remote.on && (!modelLoaded_ || !modelLoaded_()))) {
    statusBar()->showMessage(tr("Load a model first (in the main window): captioning needs one."));
    return false;
  }
  if (model_->dir().isEmpty()) {
    statusBar()->showMessage(tr("Open a folder first."));
    return false;
  }
  FolderCaptionRequest request;
  QString unresolved;
  if (!resolveRequest(choice, &request, &unresolved)) {
    statusBar()->showMessage(unresolved);
    return false;
  }
  lastChoice_ = choice;
  if (choice.ext != model_->extension()) {
    // The states are those of the sidecars with this extension.
    QString why;
    if (!model_->open(model_->dir(), model_->recursive(), choice.ext, &why)) {
      statusBar()->showMessage(why);
      return false;
    }
  }
  QStringList only;
  if (choice.which == FolderCaptionChoice::Which::kSelected) {
    for (const QModelIndex& i : list_->selectionModel()->selectedIndexes())
      only << i.data(FolderModel::kNameRole).toString();
    if (only.isEmpty()) {
      statusBar()->showMessage(tr("Select the images to caption first."));
      return false;
    }
  } else if (choice.which == FolderCaptionChoice::Which::kUncaptioned) {
    for (int row = 0; row < model_->rowCount(); ++row)
      if (model_->state(row) == FolderImageState::kNone || model_->state(row) == FolderImageState::kFailed)
        only << model_->name(row);
    if (only.isEmpty()) {
      statusBar()->showMessage(tr("Every image has a caption."));
      return false;
    }
  }
  // The captions edited by hand this run will leave alone (caption_sidecar.h kProtected), to say
  // so at the end; in skip mode every caption is left, edited or not.
  int leftAlone = 0;
  if (choice.existing != QStringLiteral("skip") && !choice.replaceEdited) {
    for (int row = 0; row < model_->rowCount(); ++row)
      if (model_->state(row) == FolderImageState::kEdited && (only.isEmpty() || only.contains(model_->name(row))))
        ++leftAlone;
  }
  lastRequest_ = request;
  {
    const auto saved = SettingsFile::App();
    saved->setValue(QString::fromLatin1(kPresetKey), choice.preset);
    QJsonObject vars;
    for (auto it = choice.vars.begin(); it != choice.vars.end(); ++it) vars.insert(it.key(), it.value());
    saved->setValue(QString::fromLatin1(kPresetVarsKey), QString::fromUtf8(QJsonDocument(vars).toJson(QJsonDocument::Compact)));
  }
  SaveRemoteEndpointChoice(choice.remote);
  setRunning(true);
  bar_->setRange(0, 0);
  statusBar()->showMessage(request.preset.isEmpty() ? tr("Starting\u2026")
                                                    : tr("Starting with the preset '%1'\u2026").arg(request.preset));
  // A remote run says where its images go in each progress line.
  const QString through = choice.remote.on ? QLatin1Char(' ') + tr("through %1").arg(choice.remote.url) : QString();
  statusBar()->showMessage(statusBar()->currentMessage() + through);
  // The run's signals reach this window only during the run (the main window's Caption a
  // folder dialog listens to the same ones).
  auto* run = new QObject(this);
  connect(worker_, &EngineWorker::folderProgress, run, [this, through](int done, int total, const QString& file, double eta) {
    bar_->setRange(0, std::max(total, 1));
    bar_->setValue(done);
    QString line = (file.isEmpty() ? tr("Captioned %1 of %2").arg(done).arg(total)
                                   : tr("Captioning %1 (%2 of %3)").arg(file).arg(done + 1).arg(total)) +
                   through;
    if (eta >= 0) line += QStringLiteral(" \u00B7 ") + DescribeEta(eta);
    statusBar()->showMessage(line);
  });
  const QString where = choice.remote.on ? choice.remote.url : QString();
  connect(worker_, &EngineWorker::folderInsight, run, [this, where](const QString& file, const CaptionInsight& insight) {
    insights_.insert(file, insight);
    insightWhere_.insert(file, where);
  });
  connect(worker_, &EngineWorker::folderItem, run, [this](const QString& file, const QString& text, bool ok) {
    if (ok) model_->refresh(file);
    else model_->markFailed(file, text);
    if (file == editing_ && !dirty_) showCurrent();
    updateCounts();
  });
  auto finish = [this, run] {
    run->deleteLater();
    setRunning(false);
    reloadKeepingCurrent();
  };
  connect(worker_, &EngineWorker::folderFinished, run,
          [this, finish, leftAlone](int captioned, int alreadyDone, int skipped, bool stopped) {
            finish();
            (void)alreadyDone;
            QString line = (stopped ? tr("Stopped: %1 captioned.") : tr("Done: %1 captioned.")).arg(captioned);
            if (skipped > 0) line += QLatin1Char(' ') + tr("%1 failed.").arg(skipped);
            if (leftAlone == 1) line += QLatin1Char(' ') + tr("1 caption edited by hand left as it was.");
            if (leftAlone > 1) line += QLatin1Char(' ') + tr("%1 captions edited by hand left as they were.").arg(leftAlone);
            statusBar()->showMessage(line);
            Q_EMIT captionFinished(captioned, skipped, stopped);
          });
  connect(worker_, &EngineWorker::error, run, [this, finish](const QString& during, const QString& message) {
    if (during != QStringLiteral("folder")) return;
    finish();
    statusBar()->showMessage(message);
    Q_EMIT captionFinished(0, 0, true);
  });
  worker_->rearm();
  EngineWorker* worker = worker_;
  const QString dir = model_->dir();
  const bool recursive = model_->recursive();
  QMetaObject::invokeMethod(
      worker_,
      [worker, dir, only, choice, recursive, request] {
        worker->captionFolderSidecars(dir, only, choice.ext, choice.existing, choice.prefix, choice.replaceEdited,
                                      recursive, request.prompt, request.options, request.json, request.schema,
                                      choice.remote);
      },
      Qt::QueuedConnection);
  return true;
}

bool FolderWindow::resolveRequest(const FolderCaptionChoice& choice, FolderCaptionRequest* request,
                                  QString* error) const {
  request->options = options_ ? options_() : GenerateOptions{};
  request->preset = choice.preset;
  if (choice.preset.isEmpty()) {
    request->prompt = choice.prompt.trimmed().isEmpty() ? tr("Describe this image.") : choice.prompt;
    return true;
  }
  const CaptionPreset* preset = presets_->find(choice.preset);
  if (!preset) {
    *error = tr("There is no caption preset called '%1'.").arg(choice.preset);
    return false;
  }
  std::map<std::string, std::string> vars;
  for (const std::string& name : CaptionPresetPlaceholders(*preset)) {
    const QString value = choice.vars.value(QString::fromStdString(name)).trimmed();
    if (value.isEmpty()) {
      *error = tr("The preset '%1' uses {%2}: give its value in the caption dialog.")
                   .arg(choice.preset, QString::fromStdString(name));
      return false;
    }
    vars[name] = value.toStdString();
  }
  request->prompt = QString::fromStdString(CaptionPresetPrompt(*preset, vars));
  ApplyCaptionPreset(*preset, request->options);
  request->json = preset->style == CaptionStyle::kJson;
  request->schema = QString::fromStdString(preset->schema);
  return true;
}

void FolderWindow::stopCaption() {
  if (running_ && worker_) {
    worker_->stop();
    statusBar()->showMessage(tr("Stopping\u2026"));
  }
}

void FolderWindow::setRunning(bool on) {
  running_ = on;
  bar_->setVisible(on);
  stop_->setVisible(on);
  captionAction_->setEnabled(!on);
  stopAction_->setEnabled(on);
  recursiveAction_->setEnabled(!on);
}

void FolderWindow::reloadKeepingCurrent() {
  saveNow();
  const QString keep = editing_;
  QString why;
  if (!model_->reload(&why)) {
    statusBar()->showMessage(why);
    return;
  }
  editing_.clear();
  if (!keep.isEmpty() && !select(keep) && filter_->rowCount() > 0) list_->setCurrentIndex(filter_->index(0, 0));
  showCurrent();
  updateCounts();
}

FolderReplaceDialog* FolderWindow::openReplace() {
  if (model_->dir().isEmpty()) {
    statusBar()->showMessage(tr("Open a folder first."));
    return nullptr;
  }
  saveNow();
  if (!replace_) {
    replace_ = new FolderReplaceDialog(model_->dir(), model_->extension(), model_->recursive(), this);
    connect(replace_, &FolderReplaceDialog::changed, this, &FolderWindow::reloadKeepingCurrent);
  }
  replace_->show();
  replace_->raise();
  return replace_;
}

void FolderWindow::closeEvent(QCloseEvent* event) {
  saveNow();
  stopCaption();
  QMainWindow::closeEvent(event);
}

}  // namespace glance::ui
