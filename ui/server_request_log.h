#pragma once
// The local server's request log (the server panel's table): one row per request the server
// answered — time, method, path, status, duration, tokens — newest last, at most `capacity`
// rows (the oldest go first), cleared on demand. Fed by EngineWorker::requestServed.
// GUI thread only.
#include <QAbstractTableModel>
#include <QDateTime>
#include <deque>

#include "server/served_request.h"

namespace glance::ui {

class ServerRequestLog : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kTime, kMethod, kPath, kStatus, kDuration, kTokens, kColumns };
  explicit ServerRequestLog(int capacity = 500, QObject* parent = nullptr);

  void add(const server::ServedRequest& request, const QDateTime& when = QDateTime::currentDateTime());
  void clear();
  int capacity() const { return capacity_; }
  const server::ServedRequest& request(int row) const { return rows_[static_cast<size_t>(row)].request; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  struct Row {
    QDateTime when;
    server::ServedRequest request;
  };
  int capacity_;
  std::deque<Row> rows_;
};

}  // namespace glance::ui
