#pragma once
// Help ▸ Model info: what is loaded (ModelInfo from the engine): folder, parameters, weight
// bytes, dtypes, tokenizer size, backend and why, threads. GUI thread only.
#include <QDialog>
#include <QList>
#include <QPair>
#include <QString>

#include "core/engine/engine.h"

namespace glance::ui {

// (label, value) rows, in display order; the dialog shows exactly these.
QList<QPair<QString, QString>> ModelInfoRows(const ModelInfo& info);

class ModelInfoDialog : public QDialog {
  Q_OBJECT
 public:
  // loaded = false shows "No model is loaded." instead of the rows.
  ModelInfoDialog(const ModelInfo& info, bool loaded, QWidget* parent = nullptr);
};

}  // namespace glance::ui
