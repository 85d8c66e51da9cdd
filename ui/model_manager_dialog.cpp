#include "ui/model_manager_dialog.h"

#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStorageInfo>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace glance::ui {
namespace {

enum Column { kName, kSize, kCaches, kWhere, kColumns };

QString CachesText(const KnownModel& m) {
  if (m.caches.empty()) return QObject::tr("none");
  QStringList parts;
  for (const KnownModel::Cache& c : m.caches) parts << QStringLiteral("%1 %2").arg(c.precision, ByteSize(c.bytes));
  return parts.join(QStringLiteral(", "));
}

QString KindText(KnownModel::Kind kind) {
  switch (kind) {
    case KnownModel::Kind::kDemo:
      return QObject::tr("built in");
    case KnownModel::Kind::kDownloaded:
      return QObject::tr("downloaded");
    case KnownModel::Kind::kOpened:
      return QObject::tr("opened");
  }
  return {};
}

}  // namespace

ModelManagerDialog::ModelManagerDialog(Sources sources, QWidget* parent) : QDialog(parent), sources_(std::move(sources)) {
  setWindowTitle(tr("Models"));
  auto* layout = new QVBoxLayout(this);
  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName(QStringLiteral("models"));
  table_->setHorizontalHeaderLabels({tr("Model"), tr("Size on disk"), tr("Weight caches"), tr("Where")});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(kName, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kSize, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kCaches, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);  // a long path keeps its end (the model's folder)
  layout->addWidget(table_, 1);
  folder_ = new QLabel(this);
  folder_->setObjectName(QStringLiteral("modelsFolder"));
  folder_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  folder_->setWordWrap(true);
  layout->addWidget(folder_);
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("problem"));
  problem_->setWordWrap(true);
  problem_->setVisible(false);
  layout->addWidget(problem_);
  auto* row = new QHBoxLayout;
  load_ = new QPushButton(tr("&Load"), this);
  reveal_ = new QPushButton(tr("&Reveal folder"), this);
  delete_ = new QPushButton(tr("&Delete\u2026"), this);
  clearCaches_ = new QPushButton(tr("Clear &caches\u2026"), this);
  clearCaches_->setObjectName(QStringLiteral("clearCaches"));
  auto* download = new QPushButton(tr("Do&wnload\u2026"), this);
  for (QPushButton* b : {load_, reveal_, delete_, clearCaches_, download}) row->addWidget(b);
  row->addStretch(1);
  auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
  row->addWidget(close);
  layout->addLayout(row);
  connect(load_, &QPushButton::clicked, this, &ModelManagerDialog::loadSelected);
  connect(reveal_, &QPushButton::clicked, this, &ModelManagerDialog::revealSelected);
  connect(delete_, &QPushButton::clicked, this, &ModelManagerDialog::deleteSelected);
  connect(clearCaches_, &QPushButton::clicked, this, &ModelManagerDialog::clearSelectedCaches);
  connect(download, &QPushButton::clicked, this, &ModelManagerDialog::downloadRequested);
  connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &ModelManagerDialog::updateButtons);
  connect(table_, &QTableWidget::cellDoubleClicked, this, &ModelManagerDialog::loadSelected);
  confirm_ = [this](const QString& question) {
    return QMessageBox::question(this, tr("Delete from disk"), question, QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
  };
  refresh();
  resize(1000, 360);
}

void ModelManagerDialog::refresh() {
  models_ = ListKnownModels(sources_.demoDir, sources_.modelsRoots, sources_.recent, sources_.cacheDir);
  table_->setRowCount(static_cast<int>(models_.size()));
  for (int r = 0; r < table_->rowCount(); ++r) {
    const KnownModel& m = models_[static_cast<size_t>(r)];
    QString name = m.name;
    if (isLoaded(m)) name += tr(" (loaded)");
    auto* nameItem = new QTableWidgetItem(name);
    QFont f = nameItem->font();
    f.setBold(isLoaded(m));
    nameItem->setFont(f);
    table_->setItem(r, kName, nameItem);
    auto* size = new QTableWidgetItem(m.exists ? ByteSize(m.bytes) : tr("gone"));
    size->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(r, kSize, size);
    table_->setItem(r, kCaches, new QTableWidgetItem(CachesText(m)));
    auto* where = new QTableWidgetItem(QStringLiteral("%1 \u00b7 %2").arg(KindText(m.kind), QDir::toNativeSeparators(m.dir)));
    where->setToolTip(QDir::toNativeSeparators(m.dir));
    table_->setItem(r, kWhere, where);
  }
  const QString target = sources_.modelsRoots.value(0);
  const QStorageInfo storage(QFileInfo::exists(target) ? target : QDir::homePath());
  folder_->setText(tr("Downloads go to %1 (%2 free). Weight caches: %3.")
                       .arg(QDir::toNativeSeparators(target), ByteSize(storage.bytesAvailable()),
                            sources_.cacheDir.isEmpty() ? tr("none") : QDir::toNativeSeparators(sources_.cacheDir)));
  if (table_->rowCount() > 0 && table_->selectedItems().isEmpty()) table_->selectRow(0);
  updateButtons();
}

void ModelManagerDialog::selectRow(int row) { table_->selectRow(row); }

const KnownModel* ModelManagerDialog::selected() const {
  const int row = table_->currentRow();
  const QList<QTableWidgetItem*> items = table_->selectedItems();
  if (items.isEmpty() || row < 0 || row >= static_cast<int>(models_.size())) return nullptr;
  return &models_[static_cast<size_t>(row)];
}

bool ModelManagerDialog::isLoaded(const KnownModel& m) const {
  const QString loaded = QFileInfo(sources_.loadedDir).canonicalFilePath();
  return !loaded.isEmpty() && m.dir == loaded;
}

void ModelManagerDialog::updateButtons() {
  const KnownModel* m = selected();
  load_->setEnabled(m && m->exists);
  // The loaded model loads again (settings that take effect at the next load): said so.
  load_->setText(m && isLoaded(*m) ? tr("Re&load") : tr("&Load"));
  reveal_->setEnabled(m && m->exists);
  delete_->setEnabled(m && m->deletable());
  delete_->setToolTip(m && !m->deletable() ? tr("Only models Glance downloaded are deleted here") : QString());
  clearCaches_->setEnabled(m && !m->caches.empty());
  clearCaches_->setToolTip(tr("The prepared weights kept to load faster; made again at the next load"));
}

void ModelManagerDialog::loadSelected() {
  if (const KnownModel* m = selected(); m && m->exists) Q_EMIT loadRequested(m->dir, m->kind == KnownModel::Kind::kDemo);
}

void ModelManagerDialog::revealSelected() {
  if (const KnownModel* m = selected(); m && m->exists) QDesktopServices::openUrl(QUrl::fromLocalFile(m->dir));
}

bool ModelManagerDialog::deleteSelected() {
  const KnownModel* m = selected();
  if (!m || !m->deletable()) return false;
  const KnownModel model = *m;
  if (isLoaded(model)) {
    problem_->setText(tr("%1 is loaded; load another model before deleting it.").arg(model.name));
    problem_->setVisible(true);
    return false;
  }
  QString question = tr("Delete %1?\n\nThis frees %2: the folder %3").arg(model.name, ByteSize(model.bytes + model.cacheBytes()),
                                                                          QDir::toNativeSeparators(model.dir));
  question += model.caches.empty() ? tr(".") : tr(" and its weight caches (%1).").arg(ByteSize(model.cacheBytes()));
  if (!confirm_(question)) return false;
  QString error;
  const bool ok = DeleteDownloadedModel(model, sources_.modelsRoots, &error);
  problem_->setText(error);
  problem_->setVisible(!ok);
  refresh();
  return ok;
}

bool ModelManagerDialog::clearSelectedCaches() {
  const KnownModel* m = selected();
  if (!m || m->caches.empty()) return false;
  const KnownModel model = *m;
  QStringList precisions;
  for (const KnownModel::Cache& c : model.caches) precisions << c.precision;
  if (!confirm_(tr("Delete the weight caches of %1 (%2: %3)?\n\nThe model stays; its next load at those precisions "
                   "prepares the weights again, which takes longer.")
                    .arg(model.name, precisions.join(QStringLiteral(", ")), ByteSize(model.cacheBytes()))))
    return false;
  QString error;
  const bool ok = ClearWeightCaches(model, &error);
  problem_->setText(error);
  problem_->setVisible(!ok);
  refresh();
  return ok;
}

QString ModelManagerDialog::problem() const { return problem_->isHidden() ? QString() : problem_->text(); }

}  // namespace glance::ui
