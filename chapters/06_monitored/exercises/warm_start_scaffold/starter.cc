// Starter for the WarmStartScaffold exercise.
#include <utility>

#include "chapters/06_monitored/exercises/warm_start_scaffold/warm_start_scaffold.h"
#include "src/02_chief_worker/saver.h"

namespace mts {

// [mts:exercise-todo]
std::shared_ptr<Scaffold> WarmStartScaffold(const std::string& checkpoint_path,
                                            std::vector<Variable> restore) {
  // TODO: make a Saver over `restore` now (its constructor adds the restore ops, so it
  // cannot wait for the session), held by a shared_ptr. Set ScaffoldOptions::init_fn to a
  // function (const Scaffold&, SessionInterface& session) that restores the checkpoint at
  // checkpoint_path into `session` with that Saver. Leave ScaffoldOptions::saver unset:
  // the scaffold's own Saver must save every variable.
  return std::make_shared<Scaffold>();
}
// [mts:exercise-todo-end]

}  // namespace mts
