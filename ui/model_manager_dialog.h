#pragma once
// File ▸ Manage models… (issue 34 'a model manager'): the models Glance knows
// (ui/known_models.h) in a table — name, size on disk, weight caches by precision, where it is,
// and which is loaded — with Load, Reveal folder, Delete… (only for a model Glance downloaded;
// the confirmation names the folder and the bytes it frees, caches included) and Download…
// (the download dialog). Under the table: the models folder and its free space.
// GUI thread only.
#include <QDialog>
#include <functional>
#include <vector>

#include "ui/known_models.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace glance::ui {

class ModelManagerDialog : public QDialog {
  Q_OBJECT
 public:
  struct Sources {
    QString demoDir;
    QStringList modelsRoots;  // where downloads went; the first is where they go now
    QStringList recent;
    QString cacheDir;
    QString loadedDir;  // the model loaded now ("" none)
  };
  explicit ModelManagerDialog(Sources sources, QWidget* parent = nullptr);

  const std::vector<KnownModel>& models() const { return models_; }
  QTableWidget* table() const { return table_; }
  QPushButton* loadButton() const { return load_; }
  // Reads the disk again (after a download or a delete).
  void refresh();
  // The commands on the selected row, callable directly (tests).
  void selectRow(int row);
  void loadSelected();
  void revealSelected();
  bool deleteSelected();
  // Deletes the selected model's weight caches (asks first), whatever kind of model it is.
  bool clearSelectedCaches();
  // Delete asks first; tests answer instead (true = yes). The question is passed in.
  void setConfirm(std::function<bool(const QString&)> confirm) { confirm_ = std::move(confirm); }
  QString problem() const;

 Q_SIGNALS:
  void loadRequested(const QString& dir, bool demo);
  void downloadRequested();

 private:
  const KnownModel* selected() const;
  bool isLoaded(const KnownModel& m) const;  // the model loaded now (Sources::loadedDir)
  void updateButtons();

  Sources sources_;
  std::vector<KnownModel> models_;
  QTableWidget* table_ = nullptr;
  QPushButton* load_ = nullptr;
  QPushButton* reveal_ = nullptr;
  QPushButton* delete_ = nullptr;
  QPushButton* clearCaches_ = nullptr;
  QLabel* folder_ = nullptr;
  QLabel* problem_ = nullptr;
  std::function<bool(const QString&)> confirm_;
};

}  // namespace glance::ui
