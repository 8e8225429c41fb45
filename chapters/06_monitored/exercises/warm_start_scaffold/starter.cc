// Starter for the WarmStartScaffold exercise.
#include <utility>

#include "chapters/06_monitored/exercises/warm_start_scaffold/warm_start_scaffold.h"
#include "src/02_chief_worker/saver.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
std::shared_ptr<Scaffold> WarmStartScaffold(const std::string& checkpoint_path,
                                            std::vector<Variable> restore,
                                            ScaffoldOptions options) {
  // TODO: the contract is in the header. The restore needs a Saver over the chosen
  // variables, and a Saver adds ops to the graph: when can it be made? Decide what an
  // empty `restore` covers (what else does the old checkpoint hold, and what would the new
  // model inherit from it?), and how your init_fn and the caller's options.init_fn share
  // the one slot a Scaffold has, in which order, and why.
  return std::make_shared<Scaffold>(std::move(options));
}
// [mts:exercise-todo-end]

}  // namespace mts
