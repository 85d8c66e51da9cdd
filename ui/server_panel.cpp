#include "ui/server_panel.h"

#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "core/util/error.h"
#include "ui/link_label.h"
#include "ui/server_request_log.h"
#include "ui/server_snippets.h"

namespace glance::ui {

ServerPanel::ServerPanel(ServerRequestLog* log, QWidget* parent) : QDialog(parent), log_(log) {
  setWindowTitle(tr("Local server"));
  auto* layout = new QVBoxLayout(this);

  // What the server is doing, and the one button that changes it.
  auto* top = new QHBoxLayout;
  state_ = new LinkLabel(this);  // its link follows a theme switch
  state_->setObjectName(QStringLiteral("serverState"));
  state_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
  state_->setOpenExternalLinks(true);
  state_->setWordWrap(true);
  top->addWidget(state_, 1);
  startStop_ = new QPushButton(this);
  startStop_->setDefault(true);
  top->addWidget(startStop_);
  layout->addLayout(top);
  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("serverError"));
  error_->setWordWrap(true);
  error_->setTextFormat(Qt::PlainText);
  error_->setVisible(false);
  layout->addWidget(error_);

  auto* settings = new QGroupBox(tr("Settings (change them while the server is stopped)"), this);
  auto* form = new QFormLayout(settings);
  port_ = new QSpinBox(settings);
  port_->setRange(0, 65535);
  port_->setSpecialValueText(tr("any free port"));
  port_->setToolTip(tr("A port in use falls back to a free one; the state line says which."));
  form->addRow(tr("&Port:"), port_);
  host_ = new QComboBox(settings);
  host_->setEditable(true);
  host_->addItem(QStringLiteral("127.0.0.1"));
  host_->addItem(QStringLiteral("0.0.0.0"));
  host_->setToolTip(tr("127.0.0.1: this computer's programs only. 0.0.0.0: every network this "
                       "computer is on."));
  form->addRow(tr("&Bind address:"), host_);
  hostWarning_ = new QLabel(settings);
  hostWarning_->setObjectName(QStringLiteral("hostWarning"));
  hostWarning_->setWordWrap(true);
  form->addRow(QString(), hostWarning_);
  auto* keyRow = new QHBoxLayout;
  key_ = new QLineEdit(settings);
  key_->setPlaceholderText(tr("none: any program that can reach the server may use it"));
  // Hidden like a password: the panel is often open while the screen is shared or watched.
  key_->setEchoMode(QLineEdit::Password);
  keyRow->addWidget(key_, 1);
  showKey_ = new QPushButton(tr("S&how"), settings);
  showKey_->setCheckable(true);
  showKey_->setToolTip(tr("Show the API key"));
  keyRow->addWidget(showKey_);
  generateKey_ = new QPushButton(tr("&Generate"), settings);
  copyKey_ = new QPushButton(tr("&Copy"), settings);
  copyKey_->setToolTip(tr("Copy the API key"));
  keyRow->addWidget(generateKey_);
  keyRow->addWidget(copyKey_);
  // A label of its own: a row that is a layout gets no buddy, and showed the '&'.
  auto* keyLabel = new QLabel(tr("API &key:"), settings);
  keyLabel->setBuddy(key_);
  form->addRow(keyLabel, keyRow);
  origins_ = new QLineEdit(settings);
  origins_->setPlaceholderText(tr("https://app.example, \u2026 or * (pages from this computer always may)"));
  origins_->setToolTip(tr("Web pages from other sites that may use the server and read its answers, "
                          "separated by commas; any other site's page is refused (403)."));
  form->addRow(tr("Allowed &origins:"), origins_);
  layout->addWidget(settings);

  tabs_ = new QTabWidget(this);
  auto* logPage = new QWidget(tabs_);
  auto* logLayout = new QVBoxLayout(logPage);
  logView_ = new QTableView(logPage);
  logView_->setModel(log_);
  logView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  logView_->verticalHeader()->setVisible(false);
  logView_->setWordWrap(false);
  // Widths for the longest each column shows (ResizeToContents sized them while the log was
  // empty and cut "13:05:12" and "200 (max tokens)"); the path takes the rest.
  const QFontMetrics fm = logView_->fontMetrics();
  const int pad = fm.horizontalAdvance(QStringLiteral("MM"));
  const QString widest[ServerRequestLog::kColumns] = {
      QStringLiteral("00:00:00"), QStringLiteral("OPTIONS"), QString(), tr("200 (client left)"),
      tr("%1 ms").arg(999), tr("%1 in \u00B7 %2 out").arg(QStringLiteral("99,999"), QStringLiteral("9,999"))};
  QHeaderView* header = logView_->horizontalHeader();
  header->setStretchLastSection(false);
  for (int column = 0; column < ServerRequestLog::kColumns; ++column) {
    const QString title = log_->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    header->resizeSection(column, std::max(fm.horizontalAdvance(widest[column]), fm.horizontalAdvance(title)) + pad);
  }
  header->setSectionResizeMode(ServerRequestLog::kPath, QHeaderView::Stretch);
  logView_->setAlternatingRowColors(true);
  logView_->setAccessibleName(tr("Request log"));
  logLayout->addWidget(logView_, 1);
  auto* logButtons = new QHBoxLayout;
  count_ = new QLabel(logPage);
  logButtons->addWidget(count_, 1);
  clearLog_ = new QPushButton(tr("C&lear"), logPage);
  logButtons->addWidget(clearLog_);
  logLayout->addLayout(logButtons);
  tabs_->addTab(logPage, tr("&Requests"));
  tabs_->addTab(snippetTab(&snippets_[0]), QStringLiteral("curl"));
  tabs_->addTab(snippetTab(&snippets_[1]), QStringLiteral("Python"));
  tabs_->addTab(snippetTab(&snippets_[2]), QStringLiteral("JavaScript"));
  layout->addWidget(tabs_, 1);

  auto* close = new QPushButton(tr("Close"), this);
  auto* bottom = new QHBoxLayout;
  bottom->addStretch(1);
  bottom->addWidget(close);
  layout->addLayout(bottom);

  connect(close, &QPushButton::clicked, this, &QDialog::close);
  connect(startStop_, &QPushButton::clicked, this, &ServerPanel::onStartStop);
  connect(generateKey_, &QPushButton::clicked, this, [this] { key_->setText(GenerateApiKey()); });
  connect(showKey_, &QPushButton::toggled, this, [this](bool shown) {
    key_->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password);
    showKey_->setText(shown ? tr("H&ide") : tr("S&how"));
    showKey_->setToolTip(shown ? tr("Hide the API key") : tr("Show the API key"));
  });
  connect(copyKey_, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(key_->text()); });
  connect(clearLog_, &QPushButton::clicked, log_, &ServerRequestLog::clear);
  connect(port_, &QSpinBox::valueChanged, this, &ServerPanel::updateSnippets);
  connect(host_, &QComboBox::currentTextChanged, this, [this] { updateState(); });
  connect(key_, &QLineEdit::textChanged, this, [this] { updateState(); });
  connect(log_, &QAbstractItemModel::rowsInserted, this, [this] {
    updateState();
    logView_->scrollToBottom();
  });
  connect(log_, &QAbstractItemModel::rowsRemoved, this, [this] { updateState(); });
  connect(log_, &QAbstractItemModel::modelReset, this, [this] { updateState(); });

  setConfig(LocalServerConfig::Load());
  resize(760, 640);
}

QWidget* ServerPanel::snippetTab(QPlainTextEdit** text) {
  auto* page = new QWidget(this);
  auto* layout = new QVBoxLayout(page);
  *text = new QPlainTextEdit(page);
  (*text)->setReadOnly(true);
  (*text)->setLineWrapMode(QPlainTextEdit::NoWrap);
  (*text)->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layout->addWidget(*text, 1);
  auto* row = new QHBoxLayout;
  auto* note = new QLabel(tr("Filled in with this server's address, model and key."), page);
  note->setWordWrap(true);
  row->addWidget(note, 1);
  auto* copy = new QPushButton(tr("Copy"), page);
  QPlainTextEdit* edit = *text;
  connect(copy, &QPushButton::clicked, this, [edit] { QApplication::clipboard()->setText(edit->toPlainText()); });
  row->addWidget(copy);
  layout->addLayout(row);
  return page;
}

LocalServerConfig ServerPanel::config() const {
  LocalServerConfig c;
  c.host = host_->currentText().trimmed();
  c.port = port_->value();
  c.apiKey = key_->text().trimmed();
  c.origins = origins_->text().trimmed();
  return c;
}

void ServerPanel::setConfig(const LocalServerConfig& config) {
  port_->setValue(config.port);
  host_->setCurrentText(config.host);
  key_->setText(config.apiKey);
  origins_->setText(config.origins);
  updateState();
}

void ServerPanel::setServerState(const QString& url, const QString& model) {
  url_ = url;
  if (!model.isEmpty()) model_ = model;
  starting_ = false;
  if (!url.isEmpty()) error_->setVisible(false);
  updateState();
}

void ServerPanel::setModelName(const QString& model) {
  loadedModel_ = model;
  updateSnippets();
}

void ServerPanel::applyErrorColour() {
  // Red that reads on the light and the dark palette alike (as the log's refused statuses).
  QPalette palette = QApplication::palette(this);
  const bool dark = palette.color(QPalette::Window).lightness() < 128;
  palette.setColor(QPalette::WindowText, dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb0, 0x00, 0x20));
  error_->setPalette(palette);
}

void ServerPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) applyErrorColour();
  QDialog::changeEvent(event);
}

void ServerPanel::showError(const QString& message) {
  starting_ = false;
  applyErrorColour();
  error_->setText(message);
  error_->setVisible(true);
  updateState();
}

QString ServerPanel::stateText() const { return state_->text(); }
QString ServerPanel::errorText() const { return error_->isHidden() ? QString() : error_->text(); }
QString ServerPanel::snippet(int which) const { return snippets_[which]->toPlainText(); }

void ServerPanel::onStartStop() {
  if (isRunning()) {
    Q_EMIT stopRequested();
    return;
  }
  const LocalServerConfig c = config();
  try {
    c.ToServerOptions();  // an origin that is not one is named here, before anything starts
  } catch (const Error& e) {
    // The server's message names the command-line flag; here the field is named instead.
    QString why = QString::fromUtf8(e.what());
    why.remove(QStringLiteral("--allow-origin: "));
    showError(tr("Allowed origins: %1").arg(why));
    origins_->setFocus();
    return;
  }
  c.Save();
  error_->setVisible(false);
  starting_ = true;
  updateState();
  Q_EMIT startRequested(c);
}

void ServerPanel::updateState() {
  const bool running = isRunning();
  if (running)
    state_->setText(tr("<b>Running</b> at <a href=\"%1/v1/models\">%1</a> \u00B7 model %2")
                        .arg(url_.toHtmlEscaped(), model_.toHtmlEscaped()));
  else
    state_->setText(starting_ ? tr("<b>Starting\u2026</b>") : tr("<b>Stopped</b>"));
  startStop_->setText(running ? tr("&Stop server") : tr("&Start server"));
  startStop_->setEnabled(!starting_);
  const bool editable = !running && !starting_;
  for (QWidget* w : {static_cast<QWidget*>(port_), static_cast<QWidget*>(host_), static_cast<QWidget*>(generateKey_)})
    w->setEnabled(editable);
  // Read-only rather than off while it runs: the key and origins stay readable and selectable.
  key_->setReadOnly(!editable);
  origins_->setReadOnly(!editable);
  copyKey_->setEnabled(!key_->text().isEmpty());
  const bool exposed = !config().loopbackOnly();
  hostWarning_->setVisible(exposed);
  hostWarning_->setText(key_->text().trimmed().isEmpty()
                            ? tr("Other machines on your networks can reach the model, and without an API "
                                 "key anyone there may use it. Generate a key.")
                            : tr("Other machines on your networks can reach the model; they need the API key."));
  const int rows = log_->rowCount();
  count_->setText(rows == 0 ? tr("No requests yet.")
                            : tr("%n request(s) (the last %1 are kept)", nullptr, rows).arg(log_->capacity()));
  clearLog_->setEnabled(rows > 0);
  updateSnippets();
}

void ServerPanel::updateSnippets() {
  QString url = url_;
  if (url.isEmpty()) {
    const LocalServerConfig c = config();
    const QString host = c.host.contains(QLatin1Char(':')) ? QLatin1Char('[') + c.host + QLatin1Char(']') : c.host;
    // Any free port: which one is known once it starts (the examples then name it); 8080 here
    // would be a guess that copied examples then miss.
    const QString base = ClientBaseUrl(QStringLiteral("http://%1:%2").arg(host).arg(c.port == 0 ? 1 : c.port));
    url = c.port != 0 ? base : base.left(base.lastIndexOf(QLatin1Char(':'))) + QStringLiteral(":PORT");
  }
  const QString model = !url_.isEmpty() && !model_.isEmpty() ? model_
                        : loadedModel_.isEmpty()             ? QStringLiteral("glance")
                                                             : loadedModel_;
  const ServerSnippets s = MakeServerSnippets(url, model, key_->text().trimmed());
  const QString texts[3] = {s.curl, s.python, s.javascript};
  for (int i = 0; i < 3; ++i)
    if (snippets_[i] && snippets_[i]->toPlainText() != texts[i]) snippets_[i]->setPlainText(texts[i]);
}

}  // namespace glance::ui
