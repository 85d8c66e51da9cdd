#include "ui/remote_endpoint_fields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
#include <QPointer>
#include <QSpinBox>
#include <QWidget>
#include <algorithm>
#include <exception>
#include <thread>

#include "core/remote/remote_client.h"
#include "core/remote/remote_run.h"

namespace glance::ui {

RemoteEndpointFields::RemoteEndpointFields(const RemoteEndpointChoice& initial, QFormLayout* form, QWidget* parent)
    : QObject(parent), form_(form) {
  runOn_ = new QComboBox(parent);
  runOn_->setObjectName(QStringLiteral("runOn"));
  runOn_->addItem(tr("This computer (the model loaded here)"), false);
  runOn_->addItem(tr("An OpenAI-compatible endpoint"), true);
  runOn_->setCurrentIndex(initial.on ? 1 : 0);
  runOn_->setToolTip(tr("Another machine's glance-cli serve, llama.cpp's server, LM Studio, vLLM\u2026 "
                        "(glance-cli caption DIR --endpoint URL)"));
  form->addRow(tr("&Run on:"), runOn_);

  url_ = new QLineEdit(initial.url, parent);
  url_->setObjectName(QStringLiteral("endpointUrl"));
  url_->setPlaceholderText(tr("http://192.168.1.5:8080 (with or without /v1)"));
  form->addRow(tr("Endpoint &URL:"), url_);

  auto* keyRow = new QWidget(parent);
  auto* keyLayout = new QHBoxLayout(keyRow);
  keyLayout->setContentsMargins(0, 0, 0, 0);
  key_ = new QLineEdit(initial.apiKey, keyRow);
  key_->setObjectName(QStringLiteral("apiKey"));
  key_->setEchoMode(QLineEdit::Password);
  key_->setPlaceholderText(qEnvironmentVariableIsSet("GLANCE_API_KEY") ? tr("from GLANCE_API_KEY")
                                                                       : tr("none (or set GLANCE_API_KEY)"));
  remember_ = new QCheckBox(tr("Remem&ber"), keyRow);
  remember_->setObjectName(QStringLiteral("rememberKey"));
  remember_->setChecked(initial.rememberKey);
  keyLayout->addWidget(key_, 1);
  keyLayout->addWidget(remember_);
  form->addRow(tr("API &key:"), keyRow);
  if (auto* label = qobject_cast<QLabel*>(form->labelForField(keyRow))) label->setBuddy(key_);  // Alt+K
  keyNote_ = new QLabel(parent);
  keyNote_->setObjectName(QStringLiteral("keyNote"));
  keyNote_->setWordWrap(true);
  keyNote_->setText(tr("The key is sent as Authorization: Bearer and kept in memory only; ticking "
                       "Remember stores it in plain text in the settings file. Empty: GLANCE_API_KEY."));
  form->addRow(QString(), keyNote_);

  model_ = new QLineEdit(initial.model, parent);
  model_->setObjectName(QStringLiteral("remoteModel"));
  model_->setPlaceholderText(tr("the server's first model"));
  form->addRow(tr("Remote &model:"), model_);

  concurrency_ = new QSpinBox(parent);
  concurrency_->setObjectName(QStringLiteral("concurrency"));
  concurrency_->setRange(1, 64);
  concurrency_->setValue(std::clamp(initial.concurrency, 1, 64));
  concurrency_->setToolTip(tr("Requests in flight at once (the server answers several together)"));
  form->addRow(tr("Concurrenc&y:"), concurrency_);

  timeout_ = new QDoubleSpinBox(parent);
  timeout_->setObjectName(QStringLiteral("timeout"));
  timeout_->setRange(0, 86400);
  timeout_->setDecimals(1);
  timeout_->setSuffix(tr(" s"));
  timeout_->setValue(initial.timeoutS);
  timeout_->setToolTip(tr("How long one request waits for its answer; a server that never answers is "
                          "tried 6 times, then the run stops"));
  form->addRow(tr("Time&out:"), timeout_);

  connect(runOn_, &QComboBox::currentIndexChanged, this, [this] {
    showRows();
    Q_EMIT runOnChanged(runOn_->currentData().toBool());
  });
  showRows();
}

QWidget* RemoteEndpointFields::runOn() const { return runOn_; }

void RemoteEndpointFields::showRows() {
  const bool on = runOn_->currentData().toBool();
  for (QWidget* w : {static_cast<QWidget*>(url_), key_->parentWidget(), static_cast<QWidget*>(keyNote_),
                     static_cast<QWidget*>(model_), static_cast<QWidget*>(concurrency_),
                     static_cast<QWidget*>(timeout_)})
    form_->setRowVisible(w, on);
}

RemoteEndpointChoice RemoteEndpointFields::choice() const {
  RemoteEndpointChoice c;
  c.on = runOn_->currentData().toBool();
  c.url = url_->text().trimmed();
  c.apiKey = key_->text();
  c.rememberKey = remember_->isChecked();
  c.model = model_->text().trimmed();
  c.concurrency = concurrency_->value();
  c.timeoutS = timeout_->value();
  return c;
}

QString RemoteEndpointFields::problem() const {
  const RemoteEndpointChoice c = choice();
  if (!c.on) return QString();
  if (c.url.isEmpty()) return tr("Endpoint URL: give the server's address, e.g. http://192.168.1.5:8080");
  try {
    remote::ParseEndpointUrl(c.url.toStdString());
  } catch (const std::exception& e) {
    return tr("Endpoint URL: %1").arg(RemoteMessage(e.what()));
  }
  if (c.timeoutS <= 0) return tr("Timeout: give a number of seconds above 0");
  return QString();
}

void RemoteEndpointFields::check(std::function<void(const QString&)> done) {
  const RemoteEndpointChoice c = choice();
  remote::RemoteOptions o;
  o.endpoint = c.url.toStdString();
  o.api_key = c.effectiveKey().toStdString();
  o.read_timeout_s = c.timeoutS;
  const std::string model = c.model.toStdString();
  QPointer<RemoteEndpointFields> self(this);
  std::thread([o, model, self, done = std::move(done)] {
    QString problem;
    try {
      remote::ResolveRemoteModel(remote::RemoteClient(o), model);
    } catch (const std::exception& e) {
      problem = RemoteMessage(e.what());
    }
    // Back on the GUI thread, and only while the dialog is there.
    QMetaObject::invokeMethod(
        QCoreApplication::instance(), [self, done, problem] { if (self) done(problem); }, Qt::QueuedConnection);
  }).detach();
}

}  // namespace glance::ui
