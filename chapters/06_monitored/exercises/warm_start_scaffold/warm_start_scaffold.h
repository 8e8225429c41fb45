// warm_start_scaffold.h: chapter 06's exercise: start training a new model from part of an
// old one (TensorFlow's "warm start").
//
//   MonitoredSession
//     RecoverableSession
//       CoordinatedSession
//         HookedSession
//           Chief          <-- ChiefSessionCreator prepares each new session with the
//                              Scaffold: restore a checkpoint of this model, or else run
//                              init_op, then the scaffold's init_fn (this exercise)
//             Session
//
// A new model often shares layers with one already trained: the same embedding with a new
// head, one more feature column, a wider output layer. Its own checkpoint directory is
// empty, so the chief initialises it from scratch, yet the shared variables could start
// from the old model's values. The Scaffold has a hook for exactly this moment, init_fn:
// the chief calls it after init_op on a session it did not restore. An init_fn that
// restores only the shared variables from the old checkpoint, with a Saver over just those,
// leaves every other variable at the value init_op gave it.
//
// The Saver adds its restore ops to the graph, so WarmStartScaffold must be called while
// the graph is still being built, before the session finalizes it. This Saver restores; it
// must not become the scaffold's saver, which writes this model's own checkpoints and must
// cover every variable.
//
// Two decisions are the exercise's. What does "warm-start the model" mean when no list is
// given? Not "every variable the Saver would save": the old checkpoint also holds its
// global step (and an optimizer's slots), and the new model would start at the old
// model's step, with momenta computed for other weights. TensorFlow's warm start takes the
// trainable variables unless told otherwise, and so does this one. And what happens to
// the options the caller already has, an init_fn of their own in particular? They are
// kept, and the warm start runs before their init_fn, which then sees warm values.
#ifndef MTS_CHAPTERS_06_MONITORED_EXERCISES_WARM_START_SCAFFOLD_WARM_START_SCAFFOLD_H_
#define MTS_CHAPTERS_06_MONITORED_EXERCISES_WARM_START_SCAFFOLD_WARM_START_SCAFFOLD_H_

#include <memory>
#include <string>
#include <vector>

#include "src/01_session/variables.h"
#include "src/02_chief_worker/scaffold.h"

namespace mts {

// [mts:warm-start-scaffold-api]
/// A Scaffold made of `options` whose init_fn first restores the variables `restore` from
/// the checkpoint at `checkpoint_path` (a file path such as "dir/model.ckpt-100", not a
/// directory), then calls `options.init_fn`, if any. Every other variable keeps the value
/// init_op gives it. The other pieces of `options` are kept as given; those left unset are
/// for Finalize to fill, as in a default Scaffold. An empty `restore` means the trainable
/// variables of the default graph: not the global step, nor any other variable that is
/// not trained.
/// The restore happens when the chief prepares a session: its errors leave the creation
/// (MonitoredSession's constructor, or a recovery), not this function.
/// \throws ValueError "WarmStartScaffold: nothing to warm-start; ..." if `restore` is
///   empty and the default graph has no trainable variable.
/// \throws RuntimeError "Saver: graph is finalized; ..." if the variables' graph is
///   finalized (the Saver adds ops).
/// \throws ValueError "At least two variables have the same name: <name>" if two
///   variables of `restore` do.
/// \throws ValueError "The passed save_path is not a valid checkpoint: <path>" from the
///   creation, if no checkpoint is there.
/// \throws NotFoundError from the creation, naming each variable the checkpoint lacks.
/// \throws InvalidArgumentError from the creation, naming a variable whose stored shape or
///   dtype differs.
std::shared_ptr<Scaffold> WarmStartScaffold(const std::string& checkpoint_path,
                                            std::vector<Variable> restore,
                                            ScaffoldOptions options = {});
// [mts:warm-start-scaffold-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_06_MONITORED_EXERCISES_WARM_START_SCAFFOLD_WARM_START_SCAFFOLD_H_
