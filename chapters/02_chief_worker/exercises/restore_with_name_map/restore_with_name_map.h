// restore_with_name_map.h: an exercise of chapter 02. Restore variables from a checkpoint
// whose tensor names differ from the variables' names.
//
//   Chief / Worker     the chief restores before the first step
//   Saver              restores by matching names exactly
//   checkpoint_file.h  CheckpointReader: the stored names, dtypes, shapes and values
//
// A Saver matches a variable to a stored tensor by name. Names drift: a layer moves into a
// new name scope ("dense/kernel" becomes "encoder/dense/kernel"), or you want to start a new
// model from part of an old one, say a pretrained embedding. A NameMappedRestorer restores
// from a map of stored name to variable instead; variables not in the map are left alone,
// and stored tensors no entry asks for are ignored.
//
// It must keep the Saver's promise: all or nothing. Everything that can be wrong is found
// before any variable changes (a name the checkpoint does not hold, a dtype or shape that
// differs, a damaged tensor), and then one Run assigns every mapped variable together.
// Like the Saver, it therefore adds its restore ops while the graph is being built: one
// placeholder and one Assign per mapped variable, grouped into one op.
//
// Lifecycle: 1. construct while building the graph (before Finalize); 2. Restore into any
// session of that graph, as often as wanted.
// Thread safety: Restore may be called from several threads, each with its own session.
//
// Example:
//   NameMappedRestorer restorer({{"dense/kernel", encoder_kernel},
//                                {"dense/bias", encoder_bias}});
//   ...
//   restorer.Restore(session, "/tmp/pretrained/model.ckpt-20000");
//
// TensorFlow: tf.train.Saver(var_list={"dense/kernel": var, ...}) takes the same map, and
// tf.train.init_from_checkpoint(ckpt, {"old_scope/": "new_scope/"}) maps whole scopes.
// mts's Saver takes a list, and this exercise leaves saver.h as it is.
#ifndef MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_RESTORE_WITH_NAME_MAP_RESTORE_WITH_NAME_MAP_H_
#define MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_RESTORE_WITH_NAME_MAP_RESTORE_WITH_NAME_MAP_H_

#include <map>
#include <string>
#include <vector>

#include "src/01_session/session_interface.h"
#include "src/01_session/variables.h"
#include "src/platform/file_system.h"

namespace mts {

// [mts:name-map-api]
/// Restores variables from stored tensors of other names, all together or not at all.
class NameMappedRestorer {
 public:
  /// A restorer assigning each stored tensor `name_map[i].first` to variable
  /// `name_map[i].second`. Adds its ops to the variables' graph (given).
  /// \throws ValueError if the map is empty, maps two names to one variable, or holds
  ///   variables of different graphs; RuntimeError if the graph is finalized.
  explicit NameMappedRestorer(std::map<std::string, Variable> name_map);

  /// Assigns every mapped variable its stored tensor from the checkpoint at `path` (yours).
  /// \throws NotFoundError naming every mapped name the checkpoint lacks (and the file).
  /// \throws InvalidArgumentError naming the first stored name whose dtype or shape differs
  ///   from its variable's, and the variable.
  /// \throws DataLossError if the file or a mapped tensor is damaged.
  /// After any error, no variable has changed.
  void Restore(SessionInterface& session, const std::string& path, FileSystem* fs = nullptr);

 private:
  std::vector<std::string> stored_names_;  // Sorted, parallel to the two below.
  std::vector<Variable> variables_;
  std::vector<Output> placeholders_;
  std::vector<Operation*> assigns_;  // Each variable's Assign from its placeholder.
  Operation* restore_op_ = nullptr;  // Groups assigns_.
};
// [mts:name-map-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_RESTORE_WITH_NAME_MAP_RESTORE_WITH_NAME_MAP_H_
