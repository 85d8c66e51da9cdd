#pragma once
// Saving a user's file whole from the desktop app (issue 35): saved conversations, kept images,
// exports (timing CSV, attention maps as JSON, CSV or PNG). A crash, a power cut, a full disk or
// an I/O error leaves the earlier file or the new one, never part of either, and a failure is one
// message naming the file.
//
// Through core's WriteFileAtomically (core/util/atomic_write.h): a hidden temporary in the same
// folder, fsync, rename over `path`, fsync of the folder; temporaries a killed save left there are
// removed first. Not QSaveFile: buffered, it flushes in commit(), where a short write then ENOSPC
// is not seen as an error and the cut-off file is renamed into place (Qt 6.4; found by tests/crash
// with an injected full disk); unbuffered it is safe but its errors often read "Unknown error",
// and a kill between its link and its rename leaves a visible NAME.XXXXXX beside the file.
//
// Thread contract: any thread; two saves of one path race (the last rename wins, each file whole).
#include <QByteArray>
#include <QString>

namespace glance::ui {

// Writes `bytes` as `path` (created or replaced). False on failure, with *error (when given) one
// line naming `path` and the reason; `path` is then as it was.
bool SaveFileAtomically(const QString& path, const QByteArray& bytes, QString* error = nullptr);

}  // namespace glance::ui
