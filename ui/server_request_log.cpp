#include "ui/server_request_log.h"

#include <QBrush>
#include <QGuiApplication>
#include <QLocale>
#include <QPalette>

namespace glance::ui {

ServerRequestLog::ServerRequestLog(int capacity, QObject* parent)
    : QAbstractTableModel(parent), capacity_(capacity > 0 ? capacity : 1) {}

void ServerRequestLog::add(const server::ServedRequest& request, const QDateTime& when) {
  if (static_cast<int>(rows_.size()) >= capacity_) {
    beginRemoveRows({}, 0, 0);
    rows_.pop_front();
    endRemoveRows();
  }
  const int row = static_cast<int>(rows_.size());
  beginInsertRows({}, row, row);
  rows_.push_back({when, request});
  endInsertRows();
}

void ServerRequestLog::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

int ServerRequestLog::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ServerRequestLog::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant ServerRequestLog::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const server::ServedRequest& r = row.request;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case kTime:
        return row.when.toString(QStringLiteral("HH:mm:ss"));
      case kMethod:
        return QString::fromStdString(r.method);
      case kPath:
        return QString::fromStdString(r.path);
      case kStatus: {
        QString text = QString::number(r.status);
        if (r.client_gone) text += tr(" (client left)");
        else if (r.finish_reason == "length") text += tr(" (max tokens)");
        return text;
      }
      case kDuration:
        return r.seconds < 1.0 ? tr("%1 ms").arg(qRound(r.seconds * 1000.0))
                               : tr("%1 s").arg(QLocale().toString(r.seconds, 'f', 2));
      case kTokens:
        if (r.prompt_tokens == 0 && r.completion_tokens == 0) return QString();
        return tr("%1 in · %2 out").arg(QLocale().toString(r.prompt_tokens), QLocale().toString(r.completion_tokens));
    }
  } else if (role == Qt::ToolTipRole && index.column() == kStatus) {
    if (r.status == 401) return tr("Refused: no API key or the wrong one.");
    if (r.status == 403) return tr("Refused: a web page from a site that is not allowed, or a Host that is not this machine.");
    if (r.status == 429) return tr("Refused: too many requests waiting.");
    if (!r.finish_reason.empty()) return tr("Finish reason: %1").arg(QString::fromStdString(r.finish_reason));
  } else if (role == Qt::ForegroundRole && index.column() == kStatus && r.status >= 400) {
    // Red that reads on the light and the dark palette alike.
    const bool dark = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
    return QBrush(dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb0, 0x00, 0x20));
  } else if (role == Qt::TextAlignmentRole && (index.column() == kDuration || index.column() == kTokens)) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant ServerRequestLog::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kTime: return tr("Time");
    case kMethod: return tr("Method");
    case kPath: return tr("Path");
    case kStatus: return tr("Status");
    case kDuration: return tr("Duration");
    case kTokens: return tr("Tokens");
  }
  return {};
}

}  // namespace glance::ui
