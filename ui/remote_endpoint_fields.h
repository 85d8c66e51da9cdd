#pragma once
// The caption dialog's "Run on" row and, for an OpenAI-compatible endpoint, its fields (issue 33):
// URL, API key (with "remember", and a line saying where the key is and is not kept), the
// remote model, concurrency and timeout, as rows of the dialog's own form so their labels line
// up with the rest. problem() checks what is typed; check() asks the server, off the GUI thread,
// whether it answers and takes the key (GET /v1/models, as glance-cli caption --endpoint does
// before a run) and reports one line.
// GUI thread only.
#include <QObject>
#include <QString>
#include <functional>

#include "ui/remote_endpoint.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QWidget;

namespace glance::ui {

class RemoteEndpointFields : public QObject {
  Q_OBJECT
 public:
  // Adds the rows to `form` (whose widgets have `parent`), at its end.
  RemoteEndpointFields(const RemoteEndpointChoice& initial, QFormLayout* form, QWidget* parent);

  RemoteEndpointChoice choice() const;
  // One line naming the field that is wrong ("" when all are usable). Remote off: "".
  QString problem() const;
  // Asks the server (a thread of its own); `done` gets "" when it answers and takes the key, else
  // the one line why, on the GUI thread — not at all when this object is gone by then.
  void check(std::function<void(const QString& problem)> done);

  QWidget* runOn() const;  // the first of the fields, for the tab order

 Q_SIGNALS:
  void runOnChanged(bool remote);

 private:
  void showRows();

  QFormLayout* form_;
  QComboBox* runOn_ = nullptr;
  QLineEdit* url_ = nullptr;
  QLineEdit* key_ = nullptr;
  QCheckBox* remember_ = nullptr;
  QLabel* keyNote_ = nullptr;
  QLineEdit* model_ = nullptr;
  QSpinBox* concurrency_ = nullptr;
  QDoubleSpinBox* timeout_ = nullptr;
};

}  // namespace glance::ui
