#include "ui/folder_model.h"

#include <QColor>
#include <QDir>
#include <QIcon>
#include <QPixmap>
#include <exception>

#include "core/engine/caption_sidecar.h"
#include "core/engine/image_files.h"
#include "ui/folder_thumbnails.h"

namespace glance::ui {

QString DescribeState(FolderImageState state) {
  switch (state) {
    case FolderImageState::kNone: return FolderModel::tr("no caption");
    case FolderImageState::kCaptioned: return FolderModel::tr("captioned");
    case FolderImageState::kEdited: return FolderModel::tr("edited by hand");
    case FolderImageState::kFailed: return FolderModel::tr("failed");
  }
  return {};
}

FolderModel::FolderModel(FolderThumbnails* thumbnails, QObject* parent)
    : QAbstractListModel(parent), thumbnails_(thumbnails) {
  if (thumbnails_) connect(thumbnails_, &FolderThumbnails::ready, this, &FolderModel::thumbnailReady);
}

FolderModel::~FolderModel() = default;

bool FolderModel::open(const QString& dir, bool recursive, const QString& ext, QString* error) {
  beginResetModel();
  items_.clear();
  rows_.clear();
  writer_.reset();
  dir_ = QDir(dir).absolutePath();
  ext_ = ext;
  recursive_ = recursive;
  bool ok = true;
  try {
    CheckSidecarExtension(ext.toStdString());
    const std::string d = dir_.toStdString();
    const std::vector<std::string> files = recursive ? ListImageFilesRecursive(d) : ListImageFiles(d);
    SidecarOptions options;
    options.ext = ext.toStdString();
    writer_ = std::make_unique<SidecarWriter>(d, options);
    items_.reserve(files.size());
    for (const std::string& f : files) {
      Item item;
      item.name = QString::fromStdString(f);
      readState(item);
      rows_.insert(item.name, static_cast<int>(items_.size()));
      items_.push_back(std::move(item));
    }
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    items_.clear();
    rows_.clear();
    ok = false;
  }
  endResetModel();
  return ok;
}

bool FolderModel::reload(QString* error) {
  QHash<QString, QString> failed;
  for (const Item& item : items_)
    if (item.state == FolderImageState::kFailed) failed.insert(item.name, item.error);
  if (!open(dir_, recursive_, ext_, error)) return false;
  for (auto it = failed.cbegin(); it != failed.cend(); ++it) {
    const int row = rowOf(it.key());
    if (row >= 0 && items_[static_cast<size_t>(row)].state == FolderImageState::kNone) markFailed(it.key(), it.value());
  }
  return true;
}

void FolderModel::readState(Item& item) {
  std::string text;
  try {
    switch (writer_->State(item.name.toStdString(), &text)) {
      case SidecarState::kNone: item.state = FolderImageState::kNone; break;
      case SidecarState::kGlance: item.state = FolderImageState::kCaptioned; break;
      case SidecarState::kEdited: item.state = FolderImageState::kEdited; break;
    }
    item.caption = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
    item.error.clear();
  } catch (const std::exception& e) {  // a sidecar that is a folder, unreadable, ...
    item.state = FolderImageState::kFailed;
    item.error = QString::fromUtf8(e.what());
  }
}

void FolderModel::refresh(const QString& name) {
  const int row = rowOf(name);
  if (row < 0 || !writer_) return;
  // A run on the engine thread appended to the folder's record: read it again.
  SidecarOptions options;
  options.ext = ext_.toStdString();
  writer_ = std::make_unique<SidecarWriter>(dir_.toStdString(), options);
  readState(items_[static_cast<size_t>(row)]);
  Q_EMIT dataChanged(index(row), index(row));
}

void FolderModel::markFailed(const QString& name, const QString& why) {
  const int row = rowOf(name);
  if (row < 0) return;
  Item& item = items_[static_cast<size_t>(row)];
  item.state = FolderImageState::kFailed;
  item.error = why;
  Q_EMIT dataChanged(index(row), index(row));
}

QString FolderModel::path(int row) const { return dir_ + QLatin1Char('/') + name(row); }

QString FolderModel::sidecarPath(int row) const {
  return QString::fromStdString(writer_ ? writer_->SidecarOf(name(row).toStdString()) : std::string());
}

int FolderModel::count(FolderImageState state) const {
  int n = 0;
  for (const Item& item : items_) n += item.state == state ? 1 : 0;
  return n;
}

bool FolderModel::saveCaption(int row, const QString& text, QString* error) {
  if (row < 0 || row >= rowCount() || !writer_) return false;
  Item& item = items_[static_cast<size_t>(row)];
  try {
    writer_->WriteEdited(item.name.toStdString(), text.toStdString());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  readState(item);
  Q_EMIT dataChanged(index(row), index(row));
  return true;
}

int FolderModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(items_.size());
}

QVariant FolderModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Item& item = items_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole: {
      // A mark per state, readable without colour: ○ none, ● captioned, ✎ edited, ✕ failed.
      static const char16_t marks[] = {u'\u25CB', u'\u25CF', u'\u270E', u'\u2715'};
      return QString(QChar(marks[static_cast<int>(item.state)])) + QLatin1Char(' ') + item.name;
    }
    case Qt::ForegroundRole:
      switch (item.state) {
        case FolderImageState::kNone: return QColor(0x9a, 0x9a, 0x9a);
        case FolderImageState::kCaptioned: return QColor(0x4c, 0xaf, 0x50);
        case FolderImageState::kEdited: return QColor(0x42, 0x9b, 0xf5);
        case FolderImageState::kFailed: return QColor(0xe5, 0x4b, 0x4b);
      }
      return {};
    case kNameRole:
      return item.name;
    case Qt::ToolTipRole:
      return item.name + QStringLiteral(" \u00B7 ") + DescribeState(item.state) +
             (item.error.isEmpty() ? QString() : QStringLiteral("\n") + item.error) +
             (item.caption.isEmpty() ? QString() : QStringLiteral("\n") + item.caption.left(300));
    case Qt::DecorationRole: {
      if (!thumbnails_) return {};
      const QImage image = thumbnails_->get(path(index.row()));  // queued when not made yet
      if (!image.isNull()) return QPixmap::fromImage(image);
      // Until it is made (or when it cannot be): a plain square, so the grid does not move.
      static const QPixmap waiting = [] {
        QPixmap p(96, 96);  // the view's thumbnail edge (folder_view.cpp)
        p.fill(QColor(0x80, 0x80, 0x80, 0x40));
        return p;
      }();
      return waiting;
    }
    case kStateRole:
      return static_cast<int>(item.state);
    case kCaptionRole:
      return item.caption;
    case kPathRole:
      return path(index.row());
    case kErrorRole:
      return item.error;
    default:
      return {};
  }
}

void FolderModel::thumbnailReady(const QString& path) {
  const QString prefix = dir_ + QLatin1Char('/');
  if (!path.startsWith(prefix)) return;
  const int row = rowOf(path.mid(prefix.size()));
  if (row >= 0) Q_EMIT dataChanged(index(row), index(row), {Qt::DecorationRole});
}

// ---------------------------------------------------------------------------------------------

void FolderFilter::setStates(int mask) {
  states_ = mask;
  invalidateFilter();
}

void FolderFilter::setText(const QString& text) {
  text_ = text;
  invalidateFilter();
}

void FolderFilter::setPinned(const QString& name) { pinned_ = name; }

bool FolderFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
  if (!pinned_.isEmpty() && i.data(FolderModel::kNameRole).toString() == pinned_) return true;
  const int state = i.data(FolderModel::kStateRole).toInt();
  if ((states_ & (1 << state)) == 0) return false;
  return text_.isEmpty() || i.data(FolderModel::kCaptionRole).toString().contains(text_, Qt::CaseInsensitive);
}

}  // namespace glance::ui
