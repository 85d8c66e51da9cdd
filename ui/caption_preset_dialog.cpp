#include "ui/caption_preset_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <exception>

#include "core/util/error.h"

namespace glance::ui {

CaptionPresetDialog::CaptionPresetDialog(const CaptionPreset& initial, QWidget* parent) : QDialog(parent) {
  setWindowTitle(initial.name.empty() ? tr("New caption preset") : tr("Edit caption preset"));
  auto* form = new QFormLayout(this);
  name_ = new QLineEdit(QString::fromStdString(initial.name), this);
  name_->setObjectName(QStringLiteral("presetName"));
  form->addRow(tr("&Name:"), name_);
  style_ = new QComboBox(this);
  style_->setObjectName(QStringLiteral("presetStyle"));
  style_->addItem(tr("Short (one sentence)"), QStringLiteral("short"));
  style_->addItem(tr("Detailed (a paragraph)"), QStringLiteral("detailed"));
  style_->addItem(tr("Tags (comma-separated)"), QStringLiteral("tags"));
  style_->addItem(tr("JSON (a JSON object)"), QStringLiteral("json"));
  style_->setCurrentIndex(std::max(0, style_->findData(QString::fromLatin1(CaptionStyleName(initial.style)))));
  form->addRow(tr("&Style:"), style_);
  maxTokens_ = new QSpinBox(this);
  maxTokens_->setObjectName(QStringLiteral("presetMaxTokens"));
  maxTokens_->setRange(1, kMaxCaptionTokens);
  maxTokens_->setValue(initial.max_tokens);
  maxTokens_->setSuffix(tr(" tokens"));
  form->addRow(tr("&Length at most:"), maxTokens_);
  instructions_ = new QPlainTextEdit(QString::fromStdString(initial.instructions), this);
  instructions_->setObjectName(QStringLiteral("presetInstructions"));
  instructions_->setPlaceholderText(tr("e.g. Refer to the person as {name}. Mention the lighting."));
  instructions_->setToolTip(tr("Added after the style's question. Each {word} is asked for when captioning."));
  instructions_->setFixedHeight(instructions_->fontMetrics().lineSpacing() * 4 + 12);
  form->addRow(tr("&Instructions:"), instructions_);
  schema_ = new QPlainTextEdit(QString::fromStdString(initial.schema), this);
  schema_->setObjectName(QStringLiteral("presetSchema"));
  schema_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  schema_->setPlaceholderText(tr("optional JSON schema; empty: any JSON object"));
  schema_->setFixedHeight(schema_->fontMetrics().lineSpacing() * 4 + 12);
  form->addRow(tr("JSON s&chema:"), schema_);
  temperature_ = new QDoubleSpinBox(this);
  temperature_->setObjectName(QStringLiteral("presetTemperature"));
  temperature_->setRange(0.0, 2.0);
  temperature_->setSingleStep(0.1);
  temperature_->setDecimals(2);
  temperature_->setSpecialValueText(tr("0 (greedy: the same caption every time)"));
  temperature_->setValue(initial.temperature);
  form->addRow(tr("&Temperature:"), temperature_);
  topP_ = new QDoubleSpinBox(this);
  topP_->setObjectName(QStringLiteral("presetTopP"));
  topP_->setRange(0.01, 1.0);
  topP_->setSingleStep(0.05);
  topP_->setDecimals(2);
  topP_->setValue(initial.top_p);
  form->addRow(tr("Top-&p:"), topP_);
  seed_ = new QLineEdit(initial.seed ? QString::number(*initial.seed) : QString(), this);
  seed_->setObjectName(QStringLiteral("presetSeed"));
  seed_->setPlaceholderText(tr("empty: a new seed each image"));
  form->addRow(tr("S&eed:"), seed_);
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("problem"));
  problem_->setWordWrap(true);
  form->addRow(problem_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Sa&ve"));
  connect(buttons, &QDialogButtonBox::accepted, this, &CaptionPresetDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &CaptionPresetDialog::reject);
  form->addRow(buttons);
  connect(style_, &QComboBox::currentIndexChanged, this, &CaptionPresetDialog::updateEnabled);
  connect(temperature_, &QDoubleSpinBox::valueChanged, this, &CaptionPresetDialog::updateEnabled);
  updateEnabled();
  resize(520, sizeHint().height());
}

void CaptionPresetDialog::updateEnabled() {
  schema_->setEnabled(style_->currentData().toString() == QStringLiteral("json"));
  const bool sampling = temperature_->value() > 0.0;
  topP_->setEnabled(sampling);
  seed_->setEnabled(sampling);
}

CaptionPreset CaptionPresetDialog::preset() const {
  CaptionPreset p;
  p.name = name_->text().trimmed().toStdString();
  p.style = ParseCaptionStyle(style_->currentData().toString().toStdString());
  p.max_tokens = maxTokens_->value();
  p.instructions = instructions_->toPlainText().trimmed().toStdString();
  if (p.style == CaptionStyle::kJson) p.schema = schema_->toPlainText().trimmed().toStdString();
  p.temperature = static_cast<float>(temperature_->value());
  if (p.temperature > 0.0f) {
    p.top_p = static_cast<float>(topP_->value());
    bool ok = false;
    const qulonglong seed = seed_->text().trimmed().toULongLong(&ok);
    if (ok) p.seed = seed;
  }
  return p;
}

QString CaptionPresetDialog::problem() const { return problem_->text(); }

void CaptionPresetDialog::accept() {
  if (seed_->isEnabled() && !seed_->text().trimmed().isEmpty()) {
    bool ok = false;
    seed_->text().trimmed().toULongLong(&ok);
    if (!ok) {
      problem_->setText(tr("Seed: '%1' is not a whole number \u2265 0").arg(seed_->text().trimmed()));
      return;
    }
  }
  const CaptionPreset p = preset();
  try {
    ValidateCaptionPreset(p, "preset");
  } catch (const std::exception& e) {
    problem_->setText(QString::fromUtf8(e.what()));
    return;
  }
  if (IsBuiltInCaptionPresetName(p.name)) {
    problem_->setText(tr("Name: '%1' is a built-in preset's name; choose another").arg(QString::fromStdString(p.name)));
    return;
  }
  QDialog::accept();
}

}  // namespace glance::ui
