// saver_crash_model.h: the model saver_crash_test kills a child process over: variables of
// every dtype whose values are a function of the step, so that any restored checkpoint
// can be checked exactly ("these are step 17's values, all of them").
#ifndef MTS_TESTS_02_CHIEF_WORKER_SAVER_CRASH_MODEL_H_
#define MTS_TESTS_02_CHIEF_WORKER_SAVER_CRASH_MODEL_H_

#include <cstdint>
#include <vector>

#include "src/01_session/session.h"
#include "src/01_session/variables.h"

namespace mts {

/// Variables of every dtype and one op that sets them all to a step's values.
struct CrashModel {
  /// Builds the variables and the setter in the default graph.
  CrashModel();

  /// The feeds that make `set_all` give every variable the values of `step`.
  FeedDict FeedsFor(int64_t step) const;
  /// The step whose values `session` holds.
  /// \throws std::runtime_error naming the first variable whose value is not that step's.
  int64_t CheckedStep(Session& session) const;

  Variable step, weights, doubles, ints, flags, names;
  std::vector<Output> placeholders;  ///< One per variable, in the order above.
  Operation* set_all = nullptr;      ///< Assigns every variable from its placeholder.
};

}  // namespace mts

#endif  // MTS_TESTS_02_CHIEF_WORKER_SAVER_CRASH_MODEL_H_
