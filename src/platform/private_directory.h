// private_directory.h: refuses a checkpoint directory that another local user can write
// into (beyond TensorFlow).
//
//   MonitoredTrainingSession, DirectoryLock   check a chief's directory before using it
//   CheckPrivateDirectory                     <-- this file, in platform
//
// A directory is refused (FailedPreconditionError) when someone other than this user or
// root owns it, or when every user may create and remove files in it (world-writable
// without the sticky bit). A directory writable by a group is accepted.
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
