// Starter for the name-mapped restore exercise.
#include <set>

#include "chapters/02_chief_worker/exercises/restore_with_name_map/restore_with_name_map.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/platform/errors.h"

namespace mts {

NameMappedRestorer::NameMappedRestorer(std::map<std::string, Variable> name_map) {
  if (name_map.empty()) throw ValueError("NameMappedRestorer: the name map is empty");
  Graph* graph = name_map.begin()->second.graph();
  std::set<Operation*> seen;
  for (const auto& [name, variable] : name_map) {
    if (variable.graph() != graph) {
      throw ValueError("NameMappedRestorer: variable '" + variable.name() +
                       "' is in another graph than '" + name_map.begin()->second.name() + "'");
    }
    if (!seen.insert(variable.op()).second) {
      throw ValueError("NameMappedRestorer: two names map to variable '" + variable.name() + "'");
    }
  }
  if (graph->finalized()) {
    throw RuntimeError("NameMappedRestorer: graph is finalized; make it while building");
  }
  // As the Saver does: a placeholder and an Assign per variable, grouped, so a restore is
  // one Run that assigns all of them.
  DefaultGraphScope as_default(*graph);
  NameScope scope(*graph, "restore_with_name_map");
  for (const auto& [name, variable] : name_map) {
    Output value = Placeholder(variable.dtype(), variable.shape(), "value");
    stored_names_.push_back(name);
    variables_.push_back(variable);
    placeholders_.push_back(value);
    assigns_.push_back(variable.Assign(value).op());
  }
  restore_op_ = Group(assigns_, "restore_all");
}

// [mts:exercise-todo]
void NameMappedRestorer::Restore(SessionInterface& session, const std::string& path,
                                 FileSystem* fs) {
  // TODO: this works when all is well, but it assigns the variables one by one, so a
  // problem with the third leaves the first two changed, and it stops at the first missing
  // name. Keep the Saver's promise, all or nothing (saver.cc, [mts:restore-all-or-nothing]
  // shows how the Saver does it). Decide what must be known before the first variable may
  // change (which of the header's errors can only the Read of a value find?), how many runs
  // the restore takes, and why the missing names are collected rather than raised one by
  // one.
  CheckpointReader reader(fs != nullptr ? *fs : *DefaultFileSystem(), path);
  for (size_t i = 0; i < variables_.size(); ++i) {
    session.Run(assigns_[i], {{placeholders_[i], reader.Read(stored_names_[i])}});
  }
}
// [mts:exercise-todo-end]

}  // namespace mts
