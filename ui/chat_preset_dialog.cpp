#include "ui/chat_preset_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <exception>

#include "core/engine/stop_scanner.h"

namespace glance::ui {

ChatPresetDialog::ChatPresetDialog(const ChatPreset& initial, const QString& title, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(title);
  auto* form = new QFormLayout(this);
  name_ = new QLineEdit(QString::fromStdString(initial.name), this);
  name_->setObjectName(QStringLiteral("presetName"));
  form->addRow(tr("&Name:"), name_);
  system_ = new QPlainTextEdit(QString::fromStdString(initial.system_prompt), this);
  system_->setObjectName(QStringLiteral("presetSystemPrompt"));
  system_->setPlaceholderText(tr("empty: the one in File \u25b8 Settings"));
  system_->setTabChangesFocus(true);
  system_->setFixedHeight(system_->fontMetrics().lineSpacing() * 5 + 12);
  form->addRow(tr("S&ystem prompt:"), system_);
  temperature_ = new QDoubleSpinBox(this);
  temperature_->setObjectName(QStringLiteral("presetTemperature"));
  temperature_->setRange(0.0, 2.0);
  temperature_->setSingleStep(0.1);
  temperature_->setDecimals(2);
  temperature_->setSpecialValueText(tr("0 (greedy: the same answer every time)"));
  temperature_->setValue(initial.temperature);
  form->addRow(tr("&Temperature:"), temperature_);
  topP_ = new QDoubleSpinBox(this);
  topP_->setObjectName(QStringLiteral("presetTopP"));
  topP_->setRange(0.01, 1.0);
  topP_->setSingleStep(0.05);
  topP_->setDecimals(2);
  topP_->setValue(initial.top_p);
  form->addRow(tr("Top-&p:"), topP_);
  topK_ = new QSpinBox(this);
  topK_->setObjectName(QStringLiteral("presetTopK"));
  topK_->setRange(0, kMaxChatPresetTopK);
  topK_->setSpecialValueText(tr("0 (off)"));
  topK_->setValue(initial.top_k);
  form->addRow(tr("Top-&k:"), topK_);
  seed_ = new QLineEdit(initial.seed ? QString::number(*initial.seed) : QString(), this);
  seed_->setObjectName(QStringLiteral("presetSeed"));
  seed_->setPlaceholderText(tr("empty: a new seed each answer"));
  form->addRow(tr("S&eed:"), seed_);
  maxTokens_ = new QSpinBox(this);
  maxTokens_->setObjectName(QStringLiteral("presetMaxTokens"));
  maxTokens_->setRange(1, kMaxChatPresetTokens);
  maxTokens_->setValue(initial.max_tokens);
  maxTokens_->setSuffix(tr(" tokens"));
  form->addRow(tr("&Answer at most:"), maxTokens_);
  thinking_ = new QComboBox(this);
  thinking_->setObjectName(QStringLiteral("presetThinking"));
  thinking_->addItem(tr("The model's default"));
  thinking_->addItem(tr("On"));
  thinking_->addItem(tr("Off"));
  thinking_->setCurrentIndex(!initial.thinking ? 0 : (*initial.thinking ? 1 : 2));
  thinking_->setToolTip(tr("For models that can think before answering; others ignore it."));
  form->addRow(tr("T&hinking:"), thinking_);
  imageMode_ = new QComboBox(this);
  imageMode_->setObjectName(QStringLiteral("presetImageMode"));
  imageMode_->addItem(tr("As in File \u25b8 Settings"), QString());
  imageMode_->addItem(tr("Fast (224\u00D7" "224, 49 tokens)"), QString::fromLatin1(Name(ImageMode::kFast).data()));
  imageMode_->addItem(tr("Detail (the image's own size)"), QString::fromLatin1(Name(ImageMode::kDetail).data()));
  imageMode_->setCurrentIndex(
      initial.image_mode ? std::max(0, imageMode_->findData(QString::fromLatin1(Name(*initial.image_mode).data()))) : 0);
  imageMode_->setToolTip(tr("How the images attached while this preset is chosen are read: fast is quick, detail "
                            "sees small things and text but takes longer."));
  form->addRow(tr("&Image mode:"), imageMode_);
  stop_ = new QPlainTextEdit(QString::fromStdString(StopLines(initial.stop)), this);
  stop_->setObjectName(QStringLiteral("presetStop"));
  stop_->setPlaceholderText(tr("empty: the ones in File \u25b8 Settings"));
  stop_->setToolTip(tr("The answer ends before the first of these; it is not shown or saved. One a line; "
                       "\\n is a line break, \\t a tab, \\\\ a backslash."));
  stop_->setTabChangesFocus(true);
  stop_->setFixedHeight(stop_->fontMetrics().lineSpacing() * 3 + 12);
  form->addRow(tr("St&op sequences:"), stop_);
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("problem"));
  problem_->setWordWrap(true);
  form->addRow(problem_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Sa&ve"));
  connect(buttons, &QDialogButtonBox::accepted, this, &ChatPresetDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &ChatPresetDialog::reject);
  form->addRow(buttons);
  connect(temperature_, &QDoubleSpinBox::valueChanged, this, &ChatPresetDialog::updateEnabled);
  updateEnabled();
  resize(520, sizeHint().height());
}

void ChatPresetDialog::updateEnabled() {
  const bool sampling = temperature_->value() > 0.0;
  topP_->setEnabled(sampling);
  topK_->setEnabled(sampling);
  seed_->setEnabled(sampling);
}

ChatPreset ChatPresetDialog::preset() const {
  ChatPreset p;
  p.name = name_->text().trimmed().toStdString();
  p.system_prompt = system_->toPlainText().trimmed().toStdString();
  p.temperature = static_cast<float>(temperature_->value());
  p.top_p = static_cast<float>(topP_->value());
  p.top_k = topK_->value();
  bool ok = false;
  const qulonglong seed = seed_->text().trimmed().toULongLong(&ok);
  if (ok) p.seed = seed;
  p.max_tokens = maxTokens_->value();
  if (thinking_->currentIndex() > 0) p.thinking = thinking_->currentIndex() == 1;
  p.image_mode = ParseImageMode(imageMode_->currentData().toString().toStdString());  // "": unset
  try {
    p.stop = ParseStopLines(stop_->toPlainText().toStdString());
  } catch (const std::exception&) {  // accept() says why
  }
  return p;
}

QString ChatPresetDialog::problem() const { return problem_->text(); }

void ChatPresetDialog::accept() {
  const QString seed = seed_->text().trimmed();
  if (!seed.isEmpty()) {
    bool ok = false;
    seed.toULongLong(&ok);
    if (!ok) {
      problem_->setText(tr("Seed: '%1' is not a whole number \u2265 0").arg(seed));
      return;
    }
  }
  try {
    ParseStopLines(stop_->toPlainText().toStdString());
  } catch (const std::exception& e) {
    problem_->setText(tr("Stop sequences: %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  const ChatPreset p = preset();
  try {
    ValidateChatPreset(p, "preset");
  } catch (const std::exception& e) {
    problem_->setText(QString::fromUtf8(e.what()));
    return;
  }
  if (IsBuiltInChatPresetName(p.name)) {
    problem_->setText(tr("Name: '%1' is a built-in preset's name; choose another").arg(QString::fromStdString(p.name)));
    return;
  }
  QDialog::accept();
}

}  // namespace glance::ui
