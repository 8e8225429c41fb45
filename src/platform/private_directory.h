// private_directory.h: refuses a checkpoint directory that another local user can write
// into (beyond TensorFlow).
//
//   HookedSession      CheckpointSaverHook locks its directory (DirectoryLock), which checks
//                      it first; MonitoredTrainingSession checks a chief's directory before
//                      anything restores from it
//   platform           <-- this file: CheckPrivateDirectory, beside DirectoryLock
//
// A chief trusts its checkpoint directory twice: it restores the newest checkpoint it finds
// there, and it writes files there by name (the lock file, the state file, checkpoints).
// On a shared machine the default directories are under /tmp, where anyone can create
// them first: another user who makes /tmp/mts_spirals (mode 777) before the victim's first
// run can plant a checkpoint the run resumes, or a symbolic link named like a file the run
// writes, which then overwrites a file of the link's choosing. So a directory is refused
// when someone other than this user (or root) owns it, or when every user may create and
// remove files in it (world-writable without the sticky bit, as /tmp has). A directory
// writable by a group is accepted: sharing one with chosen colleagues is a decision, not an
// accident.
//
// Thread safety: a free function; safe from any thread.
//
// TensorFlow: none; TF1 uses whatever directory it is given.
#ifndef MTS_SRC_PLATFORM_PRIVATE_DIRECTORY_H_
#define MTS_SRC_PLATFORM_PRIVATE_DIRECTORY_H_

#include <string>

namespace mts {

/// Checks that only this user (and root) can change what `dir` holds: `dir` is owned by
/// this process's effective user or by root, and is not writable by every user unless its
/// sticky bit is set. `what` says what the directory holds ("checkpoints"), for the message.
/// A path that is not an existing directory passes: whoever makes it owns it, and a file
/// or an unusable path fails where it is used, with that use's own message.
/// \throws PermissionDeniedError naming the directory, its owner or mode, why that is
///   unsafe and what to do.
void CheckPrivateDirectory(const std::string& dir, const std::string& what);

}  // namespace mts

#endif  // MTS_SRC_PLATFORM_PRIVATE_DIRECTORY_H_
