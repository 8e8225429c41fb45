// training_util.h: the global step, the counter every layer above the Session reads.
//
// Stage 01: an int64 scalar variable "global_step", not trainable, found through
// GraphKeys::kGlobalStep; the chief initialises or restores it, the hooks read it. They
// fetch the *read* tensor GetOrCreateGlobalStepRead makes once per graph, which
// IncrementGlobalStep waits for: fetched with the train op, it gives the step from before
// this run's increment.
//
// Example:
//   Output train_op = IncrementGlobalStep();          // what an optimizer's Minimize does
//   session.Run({*GetOrCreateGlobalStepRead(), train_op});   // read gives 0, then 1
//
// TensorFlow: tf.train.create_global_step, get_global_step, get_or_create_global_step,
// global_step, _get_or_create_global_step_read, _increment_global_step (training_util.py).
#ifndef MTS_SRC_01_SESSION_TRAINING_UTIL_H_
#define MTS_SRC_01_SESSION_TRAINING_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"

namespace mts {

/// Creates the global step of `graph` (the default graph if null): variable "global_step" in
/// the root name scope, even when called inside a NameScope; int64, shape [], initial value
/// 0, not trainable, in collections GraphKeys::kGlobalVariables and GraphKeys::kGlobalStep.
/// \throws ValueError if the graph has a global step (GetGlobalStep finds one), with
///   TensorFlow's message `"global_step" already exists.`; TypeError if what it finds is
///   not a valid step (see GetGlobalStep). The graph is unchanged after either.
Variable CreateGlobalStep(Graph* graph = nullptr);

/// The global step of `graph` (the default graph if null), or std::nullopt if it has none.
///
/// The step is the single item of collection GraphKeys::kGlobalStep. If that collection is
/// empty, the tensor "global_step:0" is used when it is a variable's output. If the
/// collection holds several items, logs "Multiple tensors in global_step collection." to
/// stderr and returns std::nullopt, as TensorFlow returns None.
///
/// mts deviation: TensorFlow also accepts a plain (non-variable) tensor as the step; mts
/// needs a Variable, and raises TypeError for anything else.
/// \throws TypeError if the step found is not a variable, not of an integer dtype, or has
///   a fully defined non-scalar shape.
std::optional<Variable> GetGlobalStep(Graph* graph = nullptr);

/// GetGlobalStep, or CreateGlobalStep when there is none.
/// \throws TypeError as GetGlobalStep does.
Variable GetOrCreateGlobalStep(Graph* graph = nullptr);

/// Runs `step` in `session` and returns its value as an integer (TensorFlow's
/// `tf.train.global_step(sess, t)`). A Variable converts to its value tensor, so both the
/// variable and the read tensor of GetOrCreateGlobalStepRead may be passed.
/// \throws TypeError if `step` is not of an integer dtype; whatever Session::Run throws
///   (FailedPreconditionError while the step is uninitialised).
int64_t GlobalStepValue(SessionInterface& session, const Output& step);

/// The tensor hooks fetch to learn the step, made once per graph and cached in collection
/// GraphKeys::kGlobalStepReadOpCache; std::nullopt if the graph (the default graph if null)
/// has no global step.
///
/// It is an Identity of the step's value, named "<step name>/hook_read" in the step's own
/// (root) scope. IncrementGlobalStep puts it in the increment's control inputs, so within a
/// run that also increments, it holds the value from before the increment. Reading it
/// before the step is initialised raises FailedPreconditionError (TensorFlow reads through
/// `initialized_value()` and would see 0; no hook reads before initialisation).
/// \pre No ControlDependencies scope is open when the read is first made: it would inherit
///   the scope's control inputs, and every hook fetching it would run them.
/// \throws RuntimeError if the cache collection holds more than one item; TypeError as
///   GetGlobalStep does; ValueError if the \pre is broken (an unused op stays in the graph,
///   the cache stays empty).
std::optional<Output> GetOrCreateGlobalStepRead(Graph* graph = nullptr);

/// Adds `increment` to the global step of `graph` (the default graph if null), after the
/// read tensor of GetOrCreateGlobalStepRead (made here if needed): an AssignAdd named
/// "<step name>/AssignAdd" in the step's scope, whose output is the new step. This is the
/// train op's last action.
/// \throws ValueError if the graph has no global step (create it first with
///   GetOrCreateGlobalStep).
Output IncrementGlobalStep(int64_t increment = 1, Graph* graph = nullptr);

/// Adds `increment` to `step` after the ops `after`: an AssignAdd named `name` in the
/// current name scope, whose output is the new step. If `step` is its graph's global step,
/// the update also waits for the read tensor (made here if needed), so a hook reading it in
/// the same run sees the value before the update. An optimizer's `Minimize(loss, step)` ends
/// with this, passing its variable updates as `after`.
/// \throws TypeError if `step` is not of an integer dtype; ValueError as
///   GetOrCreateGlobalStepRead does when the read must be made inside a ControlDependencies
///   scope (pass the dependencies as `after` instead).
Output IncrementGlobalStep(const Variable& step, int64_t increment,
                           const std::vector<Operation*>& after = {},
                           const std::string& name = "AssignAdd");

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_TRAINING_UTIL_H_
