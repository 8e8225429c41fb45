#include "src/03_hooked/hooks/final_ops_hook.h"

#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

FinalOpsHook::FinalOpsHook(std::vector<Output> final_ops, FeedDict final_ops_feed_dict)
    : final_ops_(std::move(final_ops)), final_ops_feed_dict_(std::move(final_ops_feed_dict)) {}

void FinalOpsHook::End(SessionInterface& session) {
  try {
    final_ops_values_ = session.Run(final_ops_, final_ops_feed_dict_);
  } catch (const OutOfRangeError&) {
    // Not swallowed: the caller must see it. The warning explains the usual cause, because
    // an OutOfRangeError at the end of an evaluation otherwise looks like a clean end.
    // TensorFlow's text, word for word.
    MTS_LOG(WARNING)
        << "An OutOfRangeError or StopIteration exception is raised by the code in "
           "FinalOpsHook. This typically means the Ops running by the FinalOpsHook have a "
           "dependency back to some input source, which should not happen. For example, for "
           "metrics in tf.estimator.Estimator, all metrics functions return two Ops: "
           "`value_op` and `update_op`. Estimator.evaluate calls the `update_op` for each "
           "batch of the data in input source and, once it is exhausted, it call the "
           "`value_op` to get the metric values. The `value_op` here should have dependency "
           "back to variables reading only, rather than reading another batch from input. "
           "Otherwise, the `value_op`, executed by `FinalOpsHook`, triggers another data "
           "reading, which ends OutOfRangeError/StopIteration. Please fix that.";
    throw;
  }
}

}  // namespace mts
