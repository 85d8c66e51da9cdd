// MainWindow: construction, docks, menus, status bar and the remembered layout.
// The engine side (worker thread, events) is in main_window_engine.cpp.
#include "ui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/attention_panel.h"
#include "ui/chat_preset_bar.h"
#include "ui/chat_view.h"
#include "ui/conversation_sidebar.h"
#include "ui/conversation_store.h"
#include "ui/engine_worker.h"
#include "ui/image_drop_area.h"
#include "ui/known_models.h"
#include "ui/model_switch_menu.h"
#include "ui/notice_bar.h"
#include "ui/settings_file.h"
#include "ui/settings_store.h"
#include "ui/shortcuts_dialog.h"
#include "ui/theme.h"
#include "ui/timing_panel.h"

namespace glance::ui {
namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kThemeKey = QStringLiteral("view/theme");

// What a dock's scroll area holds: the panel, sized to the dock down to the panel's minimum
// size. Without this holder a panel with a word-wrapped label or a small multiple (height for
// width) was made as tall as its preferred height for the dock's width, so the dock scrolled
// even where everything fitted (the heatmap's controls below the fold; issue 34).
class DockContent : public QWidget {
 public:
  DockContent(QWidget* content, QWidget* parent) : QWidget(parent), content_(content) {
    content_->setParent(this);
  }
  QSize sizeHint() const override { return content_->sizeHint(); }
  QSize minimumSizeHint() const override {
    return content_->minimumSizeHint().expandedTo(content_->minimumSize());
  }

 protected:
  void resizeEvent(QResizeEvent*) override { content_->setGeometry(rect()); }
  bool event(QEvent* e) override {
    if (e->type() == QEvent::LayoutRequest) updateGeometry();  // the panel's needs changed
    return QWidget::event(e);
  }

 private:
  QWidget* content_;
};

// The dock's content scrolls when the dock is smaller than it needs, so no panel's minimum
// size (charts, selectors, small multiples) becomes the window's: the window fits small
// screens and large scale factors, and does not grow when an answer adds chips and maps.
QDockWidget* MakeDock(const QString& title, const QString& objectName, QWidget* content,
                      QMainWindow* window) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(objectName);  // saveState() needs it
  auto* scroll = new QScrollArea(dock);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(new DockContent(content, scroll));
  const int em = window->fontMetrics().height();
  scroll->setMinimumSize(em * 8, em * 6);
  dock->setWidget(scroll);
  // The View menu shows the title as a menu item, where "&" would mark a shortcut letter.
  QString menuText = title;
  dock->toggleViewAction()->setText(menuText.replace(QLatin1Char('&'), QStringLiteral("&&")));
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                    QDockWidget::DockWidgetClosable);
  return dock;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent, SettingsStore* settings, ConversationStore* store)
    : QMainWindow(parent),
      settings_(settings ? settings : new SettingsStore(this)),
      store_(store ? store : new ConversationStore(QString(), this)) {
  RegisterEventTypes();
  setWindowTitle(QStringLiteral("Glance"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  // The centre: an inline notice (bad input, read-only conversation) above the chat.
  auto* centre = new QWidget(this);
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(0, 0, 0, 0);
  notice_ = new NoticeBar(centre);
  chat_ = new ChatView(centre);
  centreLayout->addWidget(notice_);
  centreLayout->addWidget(chat_, 1);
  buildPresets(centreLayout);
  setCentralWidget(centre);
  buildDocks();
  buildMenus();
  buildStatusBar();
  connectWorker();
  connectTools();
  restoreLayout();
  applySettings();
  connect(settings_, &SettingsStore::valueChanged, this, &MainWindow::onSettingChanged);
  watchSettingsFile();
  current_.system_prompt = presetSystemPrompt(current_.preset);
  openNewestConversation();
}

MainWindow::~MainWindow() { shutdownWorker(); }

// A settings file that cannot be written (full disk, read-only or missing config folder) is said
// once above the chat; the values stay in memory, are retried, and the notice goes when a save
// succeeds (ui/settings_file.h). One that could not be read was set aside: said once too.
void MainWindow::watchSettingsFile() {
  const QString key = QStringLiteral("settings-file");
  SettingsFile* file = &settings_->backend();
  connect(file, &SettingsFile::saveFailed, this,
          [this, key](const QString& message) { notice_->showNotice(key, message, NoticeBar::Kind::kWarning); });
  connect(file, &SettingsFile::saveRecovered, this, [this, key] { notice_->clear(key); });
  if (!file->loadNotice().isEmpty())
    notice_->showNotice(key, file->loadNotice(),
                        file->loadFailed() ? NoticeBar::Kind::kWarning : NoticeBar::Kind::kInfo);
}

void MainWindow::buildDocks() {
  sidebar_ = new ConversationSidebar(store_, this);
  auto* convDock = MakeDock(tr("Conversations"), QStringLiteral("conversations"), sidebar_, this);
  addDockWidget(Qt::LeftDockWidgetArea, convDock);

  auto* imageBox = new QWidget(this);
  auto* imageLayout = new QVBoxLayout(imageBox);
  imageLayout->setContentsMargins(0, 0, 0, 0);
  dropArea_ = new ImageDropArea(imageBox);
  attention_ = new AttentionPanel(imageBox);
  imageLayout->addWidget(dropArea_);
  imageLayout->addWidget(attention_, 1);
  // "and", not "&": tabbed docks show their titles in a tab bar, where "&" marks a mnemonic
  // ("Image _attention").
  auto* imageDock = MakeDock(tr("Image and attention"), QStringLiteral("attention"), imageBox, this);
  addDockWidget(Qt::RightDockWidgetArea, imageDock);

  timing_ = new TimingPanel(this);
  auto* timingDock = MakeDock(tr("Timing"), QStringLiteral("timing"), timing_, this);
  addDockWidget(Qt::RightDockWidgetArea, timingDock);
  splitDockWidget(imageDock, timingDock, Qt::Vertical);
  resize(FitScreen(QSize(fontMetrics().height() * 100, fontMetrics().height() * 62)));
  applyDefaultLayout();
  defaultState_ = saveState();  // View ▸ Reset layout; restoreLayout() replaces it later

  connect(dropArea_, &ImageDropArea::imageFileChosen, this, [this](const QString& path) {
    if (prepareChatForImage()) attachImageFile(path, captionOnDrop_);
  });
  connect(dropArea_, &ImageDropArea::imagePasted, this, [this](const QImage& image) {
    if (prepareChatForImage()) attachImagePixels(image, captionOnDrop_);
  });
  connect(dropArea_, &ImageDropArea::demoSceneRequested, this, &MainWindow::tryDemoScene);
}

void MainWindow::applyDefaultLayout() {
  auto* convDock = findChild<QDockWidget*>(QStringLiteral("conversations"));
  auto* imageDock = findChild<QDockWidget*>(QStringLiteral("attention"));
  auto* timingDock = findChild<QDockWidget*>(QStringLiteral("timing"));
  const int em = fontMetrics().height();
  for (QDockWidget* dock : {convDock, imageDock, timingDock}) {
    dock->setFloating(false);
    dock->show();
  }
  // Three columns (the conversations, the chat, the image) need about 64 em: a narrower window
  // (800x500, 1600x1000 at scale 2) scrolled both docks sideways and cut their buttons (issue
  // 34). There the conversations are a tab beside the image, and that one column gets the room.
  const bool narrow = width() < em * 64;  // this window, as a first run or Reset layout finds it
  addDockWidget(narrow ? Qt::RightDockWidgetArea : Qt::LeftDockWidgetArea, convDock);
  addDockWidget(Qt::RightDockWidgetArea, imageDock);
  if (narrow) tabifyDockWidget(imageDock, convDock);
  // The map, its controls and the charts do not all fit one column unless the window is tall:
  // the image dock's header, words, legend, controls and small multiples take about 24 em
  // besides the map, and Timing about 24 em. Below 70 em (a 1600x1000 or 1920x1080 screen's
  // window; 1280x720; 1600x1000 at scale 2) Timing is a tab behind the image, else below it: in
  // a 1400x890 window, stacked, the map had 8 em and the latency chart 3 (issue 34).
  if (height() < em * 70) {
    tabifyDockWidget(imageDock, timingDock);
  } else {
    splitDockWidget(imageDock, timingDock, Qt::Vertical);
    resizeDocks({imageDock, timingDock}, {em * 36, em * 24}, Qt::Vertical);
  }
  imageDock->raise();
  // A dock at least as wide as its buttons and controls need (with room for an upright scroll
  // bar), so it never scrolls sideways; the rest goes to the chat.
  const auto need = [](QDockWidget* dock) {
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    return scroll->widget()->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width();
  };
  if (narrow)
    resizeDocks({imageDock}, {std::max(em * 20, need(imageDock))}, Qt::Horizontal);
  else
    resizeDocks({convDock, imageDock}, {std::max(em * 15, need(convDock)), std::max(em * 28, need(imageDock))},
                Qt::Horizontal);
}

void MainWindow::resetLayout() {
  restoreState(defaultState_);
  applyDefaultLayout();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* openImage = file->addAction(tr("Open &image\u2026"), dropArea_, &ImageDropArea::openDialog);
  openImage->setShortcut(QKeySequence::Open);
  QAction* paste = file->addAction(tr("&Paste image"), dropArea_, &ImageDropArea::pasteFromClipboard);
  paste->setShortcut(QKeySequence::Paste);
  buildToolsMenu(file);
  file->addSeparator();
  buildModelMenu(file);
  file->addSeparator();
  buildConversationMenu(file);
  file->addSeparator();
  QAction* settingsAction = file->addAction(tr("&Settings\u2026"), this, &MainWindow::openSettings);
  settingsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
  settingsAction->setMenuRole(QAction::PreferencesRole);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* chat = menuBar()->addMenu(tr("&Chat"));
  chat->addActions({chat_->sendAction(), chat_->stopAction(), chat_->regenerateAction(),
                    chat_->editAction(), chat_->newChatAction(), chat_->copyAnswerAction(),
                    chat_->previousAnswerAction(), chat_->nextAnswerAction()});
  chat->addSeparator();
  buildImageMenu(chat);
  chat->addMenu(presetBar_->menu());
  captionAction_ = chat->addAction(tr("&Caption dropped images"));
  captionAction_->setCheckable(true);
  connect(captionAction_, &QAction::toggled, this, [this](bool on) {
    settings_->setValue(QStringLiteral("caption_on_drop"), on ? QStringLiteral("true")
                                                              : QStringLiteral("false"));
  });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);
  view->addSeparator();
  QMenu* themeMenu = view->addMenu(tr("&Theme"));
  auto* themes = new QActionGroup(this);
  const Theme saved = ThemeFromString(SettingsFile::App()->value(kThemeKey).toString());
  for (Theme t : {Theme::kSystem, Theme::kLight, Theme::kDark}) {
    const QString label = t == Theme::kSystem ? tr("Follow &system")
                           : t == Theme::kLight ? tr("&Light") : tr("&Dark");
    QAction* a = themeMenu->addAction(label);
    a->setCheckable(true);
    a->setChecked(t == saved);
    themes->addAction(a);
    connect(a, &QAction::triggered, this, [t] {
      ApplyTheme(t);
      SettingsFile::App()->setValue(kThemeKey, ThemeToString(t));
    });
  }
  if (saved != Theme::kSystem) ApplyTheme(saved);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("Try a &demo scene"), this, &MainWindow::tryDemoScene);
  help->addAction(tr("&Model info"), this, &MainWindow::showModelInfo);
  QAction* keys = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
    ShortcutsDialog dialog(menuBar(), this);
    dialog.exec();
  });
  keys->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&About Glance"), this, [this] {
    QMessageBox::about(this, tr("About Glance"),
                       tr("<b>Glance %1</b><p>Private, inspectable image captioning and chat "
                          "with Qwen3.5, on your CPU.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::buildStatusBar() {
  modelLabel_ = new QLabel(tr("No model"), this);
  backendLabel_ = new QLabel(this);
  threadsLabel_ = new QLabel(this);
  memoryLabel_ = new QLabel(this);
  rateLabel_ = new QLabel(this);
  rateLabel_->setObjectName(QStringLiteral("liveRate"));
  rateLabel_->setAccessibleName(tr("Decoding speed"));
  loadBar_ = new QProgressBar(this);
  loadBar_->setRange(0, 1000);
  loadBar_->setMaximumWidth(fontMetrics().height() * 12);
  loadBar_->setVisible(false);
  cancelLoad_ = new QToolButton(this);
  cancelLoad_->setText(tr("Cancel"));
  cancelLoad_->setVisible(false);
  connect(cancelLoad_, &QToolButton::clicked, this, [this] { worker_->cancelLoad(); });
  statusBar()->addWidget(modelLabel_);
  modelSwitch_ = new ModelSwitchButton(
      [this](QString* loaded) {
        const ModelManagerDialog::Sources s = modelSources();
        *loaded = s.loadedDir;
        return ListKnownModels(s.demoDir, s.modelsRoots, s.recent, s.cacheDir);
      },
      this);
  connect(modelSwitch_, &ModelSwitchButton::loadRequested, this,
          [this](const QString& dir, bool demo) { demo ? loadDefaultModel() : loadModel(dir); });
  connect(modelSwitch_, &ModelSwitchButton::manageRequested, this, [this] { openModelManager(); });
  statusBar()->addWidget(modelSwitch_);
  // The backend's reason can be a sentence: it takes the room left and never widens the window
  // (the whole text is in the tooltip).
  backendLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  statusBar()->addWidget(backendLabel_, 1);
  statusBar()->addWidget(rateLabel_);
  statusBar()->addWidget(threadsLabel_);
  statusBar()->addWidget(memoryLabel_);
  statusBar()->addPermanentWidget(loadBar_);
  statusBar()->addPermanentWidget(cancelLoad_);
  auto* memoryTimer = new QTimer(this);
  connect(memoryTimer, &QTimer::timeout, this, &MainWindow::updateMemory);
  memoryTimer->start(2000);
  updateMemory();
}

void MainWindow::updateMemory() {
  // Resident set size from /proc (Linux); the label stays empty elsewhere.
  QFile statm(QStringLiteral("/proc/self/statm"));
  if (!statm.open(QIODevice::ReadOnly)) return;
  const QList<QByteArray> fields = statm.readAll().split(' ');
  if (fields.size() < 2) return;
  const double mib = fields[1].toDouble() * 4096.0 / (1024.0 * 1024.0);
  // The right-hand group starts with the thread count once a model is loaded; without one the
  // memory figure stands alone (a leading "·" there was a stray dot).
  const QString resident = tr("%1 MiB resident").arg(QLocale().toString(mib, 'f', 0));
  memoryLabel_->setText(threadsLabel_->text().isEmpty() ? resident : QStringLiteral("\u00B7 ") + resident);
}

QSize MainWindow::FitScreen(QSize wanted) const {
  const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
  if (screen == nullptr) return wanted;
  const QSize room = screen->availableGeometry().size() * 0.92;  // leave the frame its room
  return wanted.boundedTo(room);
}

void MainWindow::restoreLayout() {
  const auto settings = SettingsFile::App();
  restoreGeometry(settings->value(kGeometryKey).toByteArray());
  restoreState(settings->value(kStateKey).toByteArray());
  resize(FitScreen(size()));  // saved on a larger screen or at a smaller scale factor
}

void MainWindow::saveLayout() const {
  const auto settings = SettingsFile::App();
  settings->setValue(kGeometryKey, saveGeometry());
  settings->setValue(kStateKey, saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveLayout();
  shutdownWorker();
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls() || event->mimeData()->hasImage()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  if (dropArea_->handleMime(event->mimeData())) event->acceptProposedAction();
}

}  // namespace glance::ui
