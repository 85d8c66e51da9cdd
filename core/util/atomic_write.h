#pragma once
// Replacing a small file whole, so that a reader, a crash or a power cut finds the old content or
// the new, never part of either (issue 33: caption sidecars): the bytes go to a temporary file in
// the same folder (".NAME.glance-tmp-XXXXXX", hidden, and not NAME's extension, so no tool takes
// it for the file), are fsync()ed, the temporary is renamed over NAME, and the folder is fsync()ed
// (SyncParentFolder, append_file.h) so the new name survives a power cut.
//
// A process killed between creating the temporary and the rename leaves it behind; the next
// writer of that folder removes such leftovers (RemoveAtomicWriteLeftovers).
//
// Thread contract: none; two writers of one path race (the last rename wins, each file whole).
#include <string>

namespace glance {

// Writes `bytes` as `path` (created or replaced; a new file gets mode 0644 less the umask, a
// replaced one keeps its mode). Throws glance::Error naming `path` when any step fails (no
// space, no permission, the folder gone); the temporary is removed and `path` is as it was.
void WriteFileAtomically(const std::string& path, const std::string& bytes);

// True for the name (not path) of a temporary WriteFileAtomically makes.
bool IsAtomicWriteLeftover(const std::string& name);

// Removes the temporaries a killed WriteFileAtomically left directly in `dir`; returns how many.
// Never throws (a leftover that cannot be removed stays; it is hidden and harmless).
int RemoveAtomicWriteLeftovers(const std::string& dir);

}  // namespace glance
