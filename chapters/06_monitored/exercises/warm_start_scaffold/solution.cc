// Reference solution for the WarmStartScaffold exercise.
#include <utility>

#include "chapters/06_monitored/exercises/warm_start_scaffold/warm_start_scaffold.h"
#include "src/02_chief_worker/saver.h"

namespace mts {

std::shared_ptr<Scaffold> WarmStartScaffold(const std::string& checkpoint_path,
                                            std::vector<Variable> restore) {
  // Made now, while the graph can still grow; not put in ScaffoldOptions::saver, which
  // saves this model's checkpoints and must cover all of it.
  auto warm_start_saver = std::make_shared<Saver>(std::move(restore));
  ScaffoldOptions options;
  options.init_fn = [warm_start_saver, checkpoint_path](const Scaffold&,
                                                        SessionInterface& session) {
    warm_start_saver->Restore(session, checkpoint_path);
  };
  return std::make_shared<Scaffold>(std::move(options));
}

}  // namespace mts
