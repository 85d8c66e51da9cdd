#include "ui/model_info_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace glance::ui {
namespace {
QString FromStd(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

QList<QPair<QString, QString>> ModelInfoRows(const ModelInfo& info) {
  const QLocale locale;
  QString name = FromStd(info.name);
  if (info.is_demo) name += QObject::tr(" (bundled demo: a tiny model trained on coloured shapes)");
  return {
      {QObject::tr("Model"), name},
      {QObject::tr("Folder"), QDir::toNativeSeparators(FromStd(info.dir))},
      {QObject::tr("Parameters"), locale.toString(static_cast<qlonglong>(info.parameters))},
      {QObject::tr("Weights"), locale.formattedDataSize(static_cast<qint64>(info.weight_bytes), 2, QLocale::DataSizeSIFormat)},
      {QObject::tr("Data types"), FromStd(info.dtypes)},
      {QObject::tr("Tokenizer"), QObject::tr("%1 tokens").arg(locale.toString(static_cast<qlonglong>(info.tokenizer_size)))},
      {QObject::tr("Weight precision"),
       info.precision_reason.empty()
           ? FromStd(std::string(Name(info.precision)))
           : QObject::tr("%1 (auto: %2)").arg(FromStd(std::string(Name(info.precision))),
                                              FromStd(info.precision_reason))},
      {QObject::tr("Backend"), FromStd(info.backend)},
      {QObject::tr("Why this backend"), info.backend_reason.empty() ? QObject::tr("(chosen explicitly)")
                                                                    : FromStd(info.backend_reason)},
      {QObject::tr("Threads"), QString::number(info.threads)},
      {QObject::tr("CPU kernels"), FromStd(info.cpu_kernels)},
  };
}

ModelInfoDialog::ModelInfoDialog(const ModelInfo& info, bool loaded, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Model info"));
  auto* layout = new QVBoxLayout(this);
  if (!loaded) {
    layout->addWidget(new QLabel(tr("No model is loaded."), this));
  } else {
    auto* form = new QFormLayout;
    for (const auto& [label, value] : ModelInfoRows(info)) {
      auto* v = new QLabel(value, this);
      v->setTextInteractionFlags(Qt::TextSelectableByMouse);
      v->setWordWrap(true);
      form->addRow(label + QLatin1Char(':'), v);
    }
    layout->addLayout(form);
  }
  auto* box = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(box);
}

}  // namespace glance::ui
