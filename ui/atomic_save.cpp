#include "ui/atomic_save.h"

#include <QFile>
#include <QFileInfo>
#include <QObject>

#include "core/util/atomic_write.h"
#include "core/util/error.h"

namespace glance::ui {

bool SaveFileAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  const std::string file = QFile::encodeName(path).toStdString();
  try {
    // Temporaries an earlier save killed part way left here (hidden, ".NAME.glance-tmp-XXXXXX").
    RemoveAtomicWriteLeftovers(QFile::encodeName(QFileInfo(path).absolutePath()).toStdString());
    WriteFileAtomically(file, bytes.toStdString());
  } catch (const Error& e) {
    if (error)
      *error = QObject::tr("Cannot save %1. Free some disk space or check the folder's permissions.")
                   .arg(QString::fromLocal8Bit(e.what()));
    return false;
  }
  return true;
}

}  // namespace glance::ui
