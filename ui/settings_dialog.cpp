#include "ui/settings_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QScrollArea>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>

#include "core/npu/backend_select.h"
#include "core/npu/npu_detect.h"
#include "core/settings/registry.h"
#include "ui/settings_store.h"

namespace glance::ui {

namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

// The registry's group, label or help text (core/settings/registry.cpp, shared with glance-cli)
// in the UI's language: lupdate finds them through glance_settings_strings (ui/i18n).
QString TrSetting(const std::string& s) {
  return s.empty() ? QString() : QCoreApplication::translate("SettingsRegistry", s.c_str());
}

QWidget* MakeEditor(const settings::Key& k, QWidget* parent) {
  QWidget* w = nullptr;
  switch (k.type) {
    case settings::Type::kBool: w = new QCheckBox(parent); break;
    case settings::Type::kInt: {
      auto* spin = new QSpinBox(parent);
      spin->setRange(static_cast<int>(std::max<int64_t>(k.int_min, INT_MIN)),
                     static_cast<int>(std::min<int64_t>(k.int_max, INT_MAX)));
      if (k.name == "threads") spin->setSpecialValueText(SettingsDialog::tr("auto"));
      if (k.name == "top_k") spin->setSpecialValueText(SettingsDialog::tr("off"));
      // -1 (kFreshSeed, the minimum): said in words, not shown as a number to type over.
      if (k.name == "seed") spin->setSpecialValueText(SettingsDialog::tr("new each turn"));
      // Counts in the user's number format, as the context meter and the stats show them
      // ("65,536", not "65536"); a seed is a name, not a count.
      if (k.name != "seed" && k.int_max >= 10000) spin->setGroupSeparatorShown(true);
      w = spin;
      break;
    }
    case settings::Type::kDouble: {
      auto* spin = new QDoubleSpinBox(parent);
      spin->setDecimals(3);
      spin->setRange(k.double_min, k.double_max);
      spin->setSingleStep(0.05);
      w = spin;
      break;
    }
    case settings::Type::kEnum: {
      auto* combo = new QComboBox(parent);
      for (const auto& c : k.choices) combo->addItem(Q(c), Q(c));
      w = combo;
      break;
    }
    case settings::Type::kString:
      if (k.presentation == settings::Presentation::kMultiline) {
        auto* text = new QPlainTextEdit(parent);
        text->setTabChangesFocus(true);
        text->setMinimumHeight(80);
        if (k.name == "stop_sequences")  // the form is not guessable: say it where it is typed
          text->setPlaceholderText(SettingsDialog::tr("One a line; \\n is a line break, \\t a tab, \\\\ a "
                                                      "backslash. Empty: none."));
        w = text;
      } else {
        w = new QLineEdit(parent);
      }
      break;
  }
  w->setObjectName(QStringLiteral("setting_") + Q(k.name));
  w->setToolTip(TrSetting(k.help));
  return w;
}

}  // namespace

bool NoNpuPresent(const npu::NpuStatus& status) {
  bool node = false, pci = false;
  for (const npu::NpuCheck& c : status.checks) {
    if (c.name == "device node") node = c.passed;
    if (c.name == "PCI id") pci = c.passed;
  }
  return !node && !pci;
}

QString NpuSummary(const npu::NpuStatus& status) {
  if (status.ready()) return SettingsDialog::tr("NPU ready: auto runs the model on it.");
  if (NoNpuPresent(status)) return SettingsDialog::tr("No NPU on this computer: auto runs the model on the CPU.");
  return SettingsDialog::tr("An NPU is here but cannot be used (%1): auto runs the model on the CPU.")
      .arg(Q(status.summary()));
}

QString NpuDetails(const QString& checklist, const npu::NpuStatus& status) {
  if (!NoNpuPresent(status)) return checklist;
  QString text = checklist;
  return text.replace(QStringLiteral("[FAIL]"), QStringLiteral("[ -- ]"));
}

SettingsDialog::SettingsDialog(SettingsStore* store, QWidget* parent)
    : QDialog(parent), store_(store) {
  setWindowTitle(tr("Settings"));
  build();
  loadFromStore();
}

void SettingsDialog::build() {
  auto* tabs = new QTabWidget(this);
  QHash<QString, QFormLayout*> forms;
  for (const settings::Key& k : settings::Registry()) {
    const QString group = Q(k.group);
    if (!forms.contains(group)) {
      auto* page = new QWidget(tabs);
      forms.insert(group, new QFormLayout(page));
      tabs->addTab(page, TrSetting(k.group));
    }
    QFormLayout* form = forms.value(group);
    QWidget* editor = MakeEditor(k, form->parentWidget());
    editors_.insert(Q(k.name), editor);
    auto* label = new QLabel(TrSetting(k.label), form->parentWidget());
    label->setToolTip(TrSetting(k.help));
    label->setBuddy(editor);

    if (k.presentation == settings::Presentation::kDirectory) {
      auto* row = new QWidget(form->parentWidget());
      auto* h = new QHBoxLayout(row);
      h->setContentsMargins(0, 0, 0, 0);
      editor->setParent(row);
      auto* edit = static_cast<QLineEdit*>(editor);
      edit->setPlaceholderText(tr("bundled demo model"));
      auto* browse = new QPushButton(tr("Browse…"), row);
      connect(browse, &QPushButton::clicked, this, [this, edit] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Model folder"), edit->text());
        if (!dir.isEmpty()) edit->setText(dir);
      });
      h->addWidget(edit, 1);
      h->addWidget(browse);
      form->addRow(label, row);
    } else {
      form->addRow(label, editor);
    }
    if (k.name == "backend") {
      backend_reason_ = new QLabel(form->parentWidget());
      backend_reason_->setObjectName(QStringLiteral("backend_reason"));
      backend_reason_->setWordWrap(true);
      backend_reason_->setTextInteractionFlags(Qt::TextSelectableByMouse);
      backend_reason_->setVisible(false);
      form->addRow(QString(), backend_reason_);
      // One sentence about the NPU; every check `auto` goes by (glance-cli npu-status) behind
      // Details, read as "not present" rather than failed when there is no NPU at all.
      const std::string model_dir = store_->value(QStringLiteral("model_dir")).toStdString();
      npu::DetectOptions detect;
      detect.bundle_dir = npu::FindBundleDir("", model_dir);
      const npu::NpuStatus status = npu::DetectNpu(detect);
      npu_absent_ = NoNpuPresent(status);
      auto* summaryRow = new QWidget(form->parentWidget());
      auto* summaryLayout = new QHBoxLayout(summaryRow);
      summaryLayout->setContentsMargins(0, 0, 0, 0);
      auto* summary = new QLabel(NpuSummary(status), summaryRow);
      summary->setObjectName(QStringLiteral("npu_summary"));
      summary->setWordWrap(true);
      auto* details = new QToolButton(summaryRow);
      details->setObjectName(QStringLiteral("npu_details"));
      details->setText(tr("&Details"));
      details->setCheckable(true);
      details->setAccessibleName(tr("NPU checks"));
      summaryLayout->addWidget(summary, 1);
      summaryLayout->addWidget(details);
      form->addRow(QString(), summaryRow);
      auto* checklist = new QLabel(NpuDetails(Q(npu::NpuChecklist("", model_dir)), status), form->parentWidget());
      checklist->setObjectName(QStringLiteral("npu_checklist"));
      // In a scroll area a dozen lines tall, and the dialog grows to show it: shown in the
      // dialog's old size the rows above were squeezed and cut (seen under Xvfb, 1280x720).
      auto* scroll = new QScrollArea(form->parentWidget());
      scroll->setObjectName(QStringLiteral("npu_checklist_area"));
      scroll->setWidgetResizable(true);
      scroll->setFrameShape(QFrame::NoFrame);
      scroll->setMaximumHeight(fontMetrics().lineSpacing() * 12);
      scroll->setVisible(false);
      connect(details, &QToolButton::toggled, this, [this, scroll](bool on) {
        scroll->setVisible(on);
        QTimer::singleShot(0, this, [this] { adjustSize(); });
      });
      checklist->setTextInteractionFlags(Qt::TextSelectableByMouse);
      checklist->setStyleSheet(QStringLiteral("font-family: monospace"));
      // A failed check's reason can be a long dlopen error: wrap it rather than widen the
      // dialog past the screen.
      checklist->setWordWrap(true);
      scroll->setWidget(checklist);
      form->addRow(QString(), scroll);
    }
  }

  // The sampling fields only matter for "custom" (the seed for anything but greedy): they are
  // greyed out otherwise, with the reason as tooltip (issue 34: editable while ignored).
  if (auto* sampling = qobject_cast<QComboBox*>(editors_.value(QStringLiteral("sampling")))) {
    auto update = [this, sampling] {
      const QString mode = sampling->currentData().toString();
      for (const char* key : {"temperature", "top_k", "top_p", "min_p", "repetition_penalty", "presence_penalty"}) {
        QWidget* editor = editors_.value(QLatin1String(key));
        if (!editor) continue;
        const bool used = mode == QStringLiteral("custom");
        editor->setEnabled(used);
        const settings::Key* k = settings::FindKey(key);
        editor->setToolTip(used || !k ? (k ? TrSetting(k->help) : QString())
                                      : tr("Used only when Sampling is custom (now: %1).").arg(mode));
      }
      if (QWidget* seed = editors_.value(QStringLiteral("seed"))) seed->setEnabled(mode != QStringLiteral("greedy"));
    };
    connect(sampling, &QComboBox::currentIndexChanged, this, update);
    update();
  }

  error_label_ = new QLabel(this);
  error_label_->setObjectName(QStringLiteral("settings_error"));
  error_label_->setWordWrap(true);
  error_label_->setStyleSheet(QStringLiteral("color: palette(highlight)"));
  error_label_->setVisible(false);

  auto* buttons = new QDialogButtonBox(
      QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
  connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
          &SettingsDialog::restoreDefaults);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(tabs);
  layout->addWidget(error_label_);
  layout->addWidget(buttons);
}

void SettingsDialog::setBackendReason(const QString& backend, const QString& reason) {
  const QString text = backend.isEmpty() ? QString()
                       : npu_absent_ && backend == QStringLiteral("cpu") ? tr("Now on the CPU.")
                       : reason.isEmpty() ? tr("Now: %1").arg(backend)
                                          : tr("Now: %1 \u2014 %2").arg(backend, reason);
  backend_reason_->setText(text);
  backend_reason_->setVisible(!text.isEmpty());
}

QString SettingsDialog::backendReason() const { return backend_reason_->text(); }

QWidget* SettingsDialog::editorFor(const QString& key) const { return editors_.value(key); }

QString SettingsDialog::editorValue(const QString& key) const {
  QWidget* w = editors_.value(key);
  if (auto* c = qobject_cast<QCheckBox*>(w)) return c->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
  if (auto* s = qobject_cast<QSpinBox*>(w)) return QString::number(s->value());
  if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) {
    // Through the registry's canonical form so 0.700 reads "0.7", like stored values.
    return Q(settings::Canonical(key.toStdString(), QString::number(d->value(), 'g', 6).toStdString()));
  }
  if (auto* cb = qobject_cast<QComboBox*>(w)) return cb->currentData().toString();
  if (auto* t = qobject_cast<QPlainTextEdit*>(w)) return t->toPlainText();
  if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text();
  return {};
}

void SettingsDialog::setEditorValue(const QString& key, const QString& value) {
  QWidget* w = editors_.value(key);
  if (auto* c = qobject_cast<QCheckBox*>(w)) {
    const settings::Key* k = settings::FindKey(key.toStdString());
    c->setChecked(k && !settings::ValidationError(*k, value.toStdString()) &&
                  settings::Canonical(k->name, value.toStdString()) == "true");
  } else if (auto* s = qobject_cast<QSpinBox*>(w)) {
    s->setValue(value.toInt());
  } else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) {
    d->setValue(value.toDouble());
  } else if (auto* cb = qobject_cast<QComboBox*>(w)) {
    cb->setCurrentIndex(std::max(0, cb->findData(value)));
  } else if (auto* t = qobject_cast<QPlainTextEdit*>(w)) {
    t->setPlainText(value);
  } else if (auto* e = qobject_cast<QLineEdit*>(w)) {
    e->setText(value);
  }
}

void SettingsDialog::loadFromStore() {
  for (const settings::Key& k : settings::Registry())
    setEditorValue(Q(k.name), store_->value(Q(k.name)));
  error_label_->setVisible(false);
}

void SettingsDialog::restoreDefaults() {
  for (const settings::Key& k : settings::Registry())
    setEditorValue(Q(k.name), Q(k.default_value));
}

bool SettingsDialog::apply(QString* error) {
  // Validate everything first so a bad value stores nothing.
  for (const settings::Key& k : settings::Registry()) {
    if (auto err = settings::ValidationError(k, editorValue(Q(k.name)).toStdString())) {
      // Named by the field's label as the dialog shows it ("Stop sequences: ..."), not by the
      // settings file's key ("stop_sequences: ...") that the registry's message starts with.
      const std::string key_prefix = k.name + ": ";
      const std::string problem = err->rfind(key_prefix, 0) == 0 ? err->substr(key_prefix.size()) : *err;
      const QString shown = (k.label.empty() ? Q(k.name) : TrSetting(k.label)) + QStringLiteral(": ") + Q(problem);
      if (error) *error = shown;
      error_label_->setText(shown);
      error_label_->setVisible(true);
      return false;
    }
  }
  for (const settings::Key& k : settings::Registry())
    store_->setValue(Q(k.name), editorValue(Q(k.name)));
  error_label_->setVisible(false);
  return true;
}

void SettingsDialog::accept() {
  if (apply()) QDialog::accept();
}

}  // namespace glance::ui
