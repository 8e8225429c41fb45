#include "src/03_hooked/final_ops_hook.h"

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
    MTS_LOG(WARNING) << "FinalOpsHook: a final op raised OutOfRangeError. Final ops run "
                        "after the input is exhausted, so they must only read state (such "
                        "as metric variables), never pull another batch of input.";
    throw;
  }
}

}  // namespace mts
