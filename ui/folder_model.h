#pragma once
// The folder view's images (issue 33): one row per image of a folder (and its subfolders when
// asked), with the state of its caption sidecar and the sidecar's text, read through the same
// core/engine/caption_sidecar.h SidecarWriter as glance-cli caption --sidecar, and saves of the
// user's caption through it (atomic, recorded as edited by hand). FolderFilter shows the rows of
// some states and with some text in their caption.
//
// Thread contract: GUI thread only (the thumbnails are made on FolderThumbnails' pool).
#include <QAbstractListModel>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QString>
#include <memory>
#include <vector>

namespace glance {
class SidecarWriter;
}

namespace glance::ui {

class FolderThumbnails;

enum class FolderImageState { kNone = 0, kCaptioned = 1, kEdited = 2, kFailed = 3 };

// "no caption", "captioned", "edited by hand", "failed".
QString DescribeState(FolderImageState state);

class FolderModel : public QAbstractListModel {
  Q_OBJECT
 public:
  enum Role { kStateRole = Qt::UserRole + 1, kCaptionRole, kNameRole, kPathRole, kErrorRole };

  explicit FolderModel(FolderThumbnails* thumbnails, QObject* parent = nullptr);
  ~FolderModel() override;

  // Lists the images of `dir` and reads their sidecars (`ext`, e.g. ".txt"). False with *error
  // (one line naming the folder or the extension) when it cannot; the model is then empty.
  bool open(const QString& dir, bool recursive, const QString& ext, QString* error);
  // Lists and reads again (after a caption run or a replace); the failed marks of this session stay.
  bool reload(QString* error);
  // Reads one image's sidecar again (a run just wrote it).
  void refresh(const QString& name);
  void markFailed(const QString& name, const QString& why);

  QString dir() const { return dir_; }
  QString extension() const { return ext_; }
  bool recursive() const { return recursive_; }

  int rowOf(const QString& name) const { return rows_.value(name, -1); }
  QString name(int row) const { return items_[static_cast<size_t>(row)].name; }
  QString path(int row) const;
  QString sidecarPath(int row) const;
  QString caption(int row) const { return items_[static_cast<size_t>(row)].caption; }
  FolderImageState state(int row) const { return items_[static_cast<size_t>(row)].state; }
  int count(FolderImageState state) const;

  // The user's caption for `row`: written atomically, recorded as edited by hand (unless it is
  // the text Glance wrote there: then it reads as captioned again). False with *error otherwise.
  bool saveCaption(int row, const QString& text, QString* error);

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role) const override;

 private:
  struct Item {
    QString name;  // relative to dir_ ("trip/a.jpg")
    FolderImageState state = FolderImageState::kNone;
    QString caption;
    QString error;  // why it failed, or why its sidecar cannot be read
  };
  void readState(Item& item);
  void thumbnailReady(const QString& path);

  FolderThumbnails* thumbnails_;
  QString dir_, ext_;
  bool recursive_ = false;
  std::unique_ptr<SidecarWriter> writer_;
  std::vector<Item> items_;
  QHash<QString, int> rows_;  // name -> row
};

// Rows whose state is among the shown ones and whose caption holds the text (ignoring case).
// The pinned row (the one being edited) always shows, so typing never hides it.
class FolderFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  // A bit per FolderImageState (1 << state); all by default.
  void setStates(int mask);
  int states() const { return states_; }
  void setText(const QString& text);
  void setPinned(const QString& name);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  int states_ = 0xF;
  QString text_;
  QString pinned_;
};

}  // namespace glance::ui
