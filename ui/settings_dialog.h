#pragma once
// The settings dialog, generated from the settings registry: one tab per group, one editor per
// key (check box, spin box, combo box, line edit, multi-line text, folder picker), the help text
// as tooltip. OK validates every value through the store; a bad value keeps the dialog open and
// names the key. The backend row also shows why "auto" chose what it chose (a string from the
// engine's ModelInfo::backend_reason).
//
// Thread contract: GUI thread only.
#include <QDialog>
#include <QHash>
#include <QString>

class QLabel;

namespace glance::npu {
struct NpuStatus;
}

namespace glance::ui {

class SettingsStore;

// The backend tab's NPU lines (issue 34: every CPU-only user saw eight "[FAIL]" lines on the
// first tab). NoNpuPresent: neither the device node nor an NPU on the PCI bus, so the other
// checks cannot pass and are not failures. NpuSummary: one sentence for the tab. NpuDetails:
// `checklist` (npu::NpuChecklist) with "[FAIL]" read as "[ -- ]" (not present) when there is
// no NPU; kept as "[FAIL]" when an NPU is there and a check failed.
bool NoNpuPresent(const npu::NpuStatus& status);
QString NpuSummary(const npu::NpuStatus& status);
QString NpuDetails(const QString& checklist, const npu::NpuStatus& status);

class SettingsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SettingsDialog(SettingsStore* store, QWidget* parent = nullptr);

  // Shown under the backend combo box: what the loaded model runs on and why ("Now: cpu — the
  // NPU bundle lacks ..."). Only "Now on the CPU." where there is no NPU at all: the NPU
  // summary below says that already, and the reason repeated it in device-node terms.
  void setBackendReason(const QString& backend, const QString& reason);
  QString backendReason() const;

  // The editor widget of a key (objectName "setting_<key>"), or nullptr.
  QWidget* editorFor(const QString& key) const;
  // The value an editor currently shows, in the registry's string form.
  QString editorValue(const QString& key) const;
  // Puts a value into a key's editor (not yet stored).
  void setEditorValue(const QString& key, const QString& value);

  // Re-reads every editor from the store.
  void loadFromStore();
  // Puts every key's default into its editor (stored on apply()).
  void restoreDefaults();
  // Validates every editor value and stores them all, or none: returns false with the first
  // problem in *error.
  bool apply(QString* error = nullptr);

 public Q_SLOTS:
  void accept() override;

 private:
  void build();
  SettingsStore* store_;
  QHash<QString, QWidget*> editors_;
  QLabel* backend_reason_ = nullptr;
  bool npu_absent_ = false;  // NoNpuPresent on this computer when the dialog was built
  QLabel* error_label_ = nullptr;
};

}  // namespace glance::ui
