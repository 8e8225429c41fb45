// The WarmStartScaffold exercise of chapter 06: WarmStartScaffold(), so that
// warm_start_scaffold_test passes. The part to write lies between the
// `[mts:lab warm_start_scaffold]` markers; the comment outside them says what to decide.
#include <utility>

#include "chapters/06_monitored/exercises/warm_start_scaffold/warm_start_scaffold.h"
#include "src/02_chief_worker/saver.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
std::shared_ptr<Scaffold> WarmStartScaffold(const std::string& checkpoint_path,
                                            std::vector<Variable> restore,
                                            ScaffoldOptions options) {
  // TODO(student): the contract is in the header. The restore needs a Saver over the chosen
  // variables, and a Saver adds ops to the graph: when can it be made? Decide what an
  // empty `restore` covers (what else does the old checkpoint hold, and what would the new
  // model inherit from it?), and how your init_fn and the caller's options.init_fn share
  // the one slot a Scaffold has, in which order, and why. The result is
  // std::make_shared<Scaffold>(std::move(options)), with your options.
  // [mts:lab warm_start_scaffold]
  // Not the Saver's "every global variable": that would bring the old global step (the new
  // model would start at the old one's step) and any optimizer slots along.
  if (restore.empty()) restore = TrainableVariables();
  if (restore.empty()) {
    throw ValueError(
        "WarmStartScaffold: nothing to warm-start; the default graph has no trainable "
        "variable. Create the model first, or name the variables to restore.");
  }
  // Made now, while the graph can still grow; not put in ScaffoldOptions::saver, which
  // saves this model's checkpoints and must cover all of it.
  auto warm_start_saver = std::make_shared<Saver>(std::move(restore));
  // The caller's own init_fn runs after the warm start, so it sees (and may adjust) the
  // warm values rather than have them overwrite its work.
  ScaffoldInitFn user_init_fn = std::move(options.init_fn);
  options.init_fn = [warm_start_saver, checkpoint_path, user_init_fn](const Scaffold& scaffold,
                                                                      SessionInterface& session) {
    warm_start_saver->Restore(session, checkpoint_path);
    if (user_init_fn) user_init_fn(scaffold, session);
  };
  return std::make_shared<Scaffold>(std::move(options));
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
