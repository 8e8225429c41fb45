#include "src/03_hooked/hooked_session.h"

#include <algorithm>

#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

namespace {

// TensorFlow's message, then (beyond it) what to do: the usual cause is a loop that makes two
// runs per iteration but asks ShouldStop once.
constexpr char kRunAfterStopMessage[] =
    "Run called even after should_stop requested. A hook asked to stop in an earlier run: "
    "check ShouldStop() before every Run (a loop of two runs per step, before each), or make "
    "one run of both.";

// "[a:0, b:0]", the way the conflict errors list tensors.
std::string NameList(const std::vector<Output>& tensors) {
  std::string s = "[";
  for (size_t i = 0; i < tensors.size(); ++i) s += (i ? ", " : "") + tensors[i].name();
  return s + "]";
}

// The keys of `feeds` that `other` feeds too.
std::vector<Output> Overlap(const FeedDict& feeds, const FeedDict& other) {
  std::vector<Output> both;
  for (const auto& [tensor, value] : feeds) {
    if (other.count(tensor) > 0) both.push_back(tensor);
  }
  return both;
}

// Options merge by taking the most detailed of each setting.
void MergeOptions(RunOptions& into, const RunOptions& from) {
  into.trace_level = std::max(into.trace_level, from.trace_level);
  // The longest timeout wins, as in TensorFlow (a hook can lengthen a run's deadline, not
  // cut it short); zero means none was asked for.
  into.timeout_in_ms = std::max(into.timeout_in_ms, from.timeout_in_ms);
}

// Beyond TensorFlow: when a run the hooks added fetches to fails, says which fetches were
// theirs. The error may be one of them (a NanTensorHook's loss read during an initializer's
// run, a summary that needs a feed this run lacks), and its message names only the op. The
// errors that end or restart a loop as planned (end of input, preemption) say nothing.
void LogHookFetchesOfAFailedRun(const std::vector<Output>& all_fetches, size_t callers_fetches,
                                const OpError& error) {
  if (all_fetches.size() <= callers_fetches || error.code() == ErrorCode::kOutOfRange ||
      IsPreemptionError(error.code())) {
    return;
  }
  const std::vector<Output> theirs(all_fetches.begin() + callers_fetches, all_fetches.end());
  MTS_LOG(WARNING) << "A run with hooks failed: " << error.message() << ". Besides the "
                   << "caller's fetches it ran the hooks' " << NameList(theirs)
                   << ", with the caller's feeds. If the error is theirs, run what must not "
                   << "run them (an initializer, a run without the feeds they need) on the raw "
                   << "session: StepContext::session() inside MonitoredSession::RunStepFn.";
}

}  // namespace

HookedSession::HookedSession(std::unique_ptr<SessionInterface> session,
                             std::vector<std::shared_ptr<SessionRunHook>> hooks)
    : WrappedSession(std::move(session)), hooks_(std::move(hooks)) {}

// [mts:hooked-run]
void HookedSession::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                        const std::vector<Operation*>& targets, const RunOptions& options,
                        RunMetadata* run_metadata, std::vector<Tensor>* outputs) {
  // [mts:lab 03_hooked]
  if (ShouldStop()) throw RuntimeError(kRunAfterStopMessage);
  // Without hooks there is nothing to ask, merge or hand back: skip building the copies
  // below, which cost more than the layer's target of 100 ns (see the performance appendix).
  if (hooks_.empty()) {
    inner()->Run(fetches, feeds, targets, options, run_metadata, outputs);
    return;
  }

  SessionRunContext context(fetches, targets, feeds, *inner());
  RunOptions merged_options = options;  // A copy: the caller's options stay as they were.
  // The lists of the last run, their storage reused (a Run nested in a hook's call finds
  // none and makes its own). The caller's fetches and targets come first in them.
  std::unique_ptr<RunLists> lists = std::move(spare_lists_);
  if (lists == nullptr) lists = std::make_unique<RunLists>();
  lists->fetches.assign(fetches.begin(), fetches.end());
  lists->targets.assign(targets.begin(), targets.end());

  // 1. Ask every hook, in order, what it wants added to this run.
  FeedDict hook_feeds = AskHooks(context, *lists, merged_options);

  // 2. Merge the hooks' feeds with the caller's, without touching the caller's.
  FeedDict combined;
  const FeedDict& all_feeds = MergeFeeds(feeds, hook_feeds, &combined);

  // 3. One run of the session below, with one RunMetadata every hook shares. Its values
  //    go into a vector kept with the lists, whose storage the next run reuses. If it
  //    fails, a warning names the hooks' fetches first: the error may be one of theirs.
  RunMetadata local_metadata;
  RunMetadata& metadata = run_metadata != nullptr ? *run_metadata : local_metadata;
  try {
    inner()->Run(lists->fetches, all_feeds, lists->targets, merged_options, &metadata,
                 &lists->all_results);
  } catch (const OpError& error) {
    LogHookFetchesOfAFailedRun(lists->fetches, fetches.size(), error);
    throw;
  }

  // 4. Hand each hook its own results; a stop any of them requested sticks.
  HandBack(context, merged_options, metadata, *lists);
  should_stop_ = should_stop_ || context.stop_requested();

  // 5. The caller gets the first fetches.size() values, its own. The kept lists hold no
  //    tensor of this run past it.
  outputs->assign(lists->all_results.begin(), lists->all_results.begin() + fetches.size());
  lists->all_results.clear();
  lists->hook_results.clear();
  spare_lists_ = std::move(lists);
  // [mts:lab-end]
}
// [mts:hooked-run-end]

// [mts:hooked-ask]
FeedDict HookedSession::AskHooks(SessionRunContext& context, RunLists& lists,
                                 RunOptions& options) const {
  // [mts:lab 03_hooked]
  // Each hook's fetches are laid after those before it, at an offset recorded for it, so
  // that HandBack finds them by position (a hook listed twice is asked twice).
  lists.offsets.clear();
  lists.counts.clear();
  FeedDict hook_feeds;
  for (const auto& hook : hooks_) {
    SessionRunArgs request = hook->BeforeRun(context);
    lists.offsets.push_back(lists.fetches.size());
    lists.counts.push_back(request.fetches.size());
    lists.fetches.insert(lists.fetches.end(), request.fetches.begin(), request.fetches.end());
    lists.targets.insert(lists.targets.end(), request.targets.begin(), request.targets.end());
    std::vector<Output> conflicts = Overlap(request.feeds, hook_feeds);
    if (!conflicts.empty()) {
      throw RuntimeError("Same tensor is fed by two hooks. Conflict(s): " + NameList(conflicts));
    }
    hook_feeds.insert(request.feeds.begin(), request.feeds.end());
    MergeOptions(options, request.options);
  }
  return hook_feeds;
  // [mts:lab-end]
}
// [mts:hooked-ask-end]

// [mts:hooked-merge-feeds]
const FeedDict& HookedSession::MergeFeeds(const FeedDict& feeds, const FeedDict& hook_feeds,
                                          FeedDict* combined) {
  // [mts:lab 03_hooked]
  // A copy only when both sides feed: most steps' hooks feed nothing.
  if (hook_feeds.empty()) return feeds;
  std::vector<Output> conflicts = Overlap(hook_feeds, feeds);
  if (!conflicts.empty()) {
    throw RuntimeError("Same tensor is fed by a SessionRunHook and user. Conflict(s): " +
                       NameList(conflicts));
  }
  *combined = feeds;
  combined->insert(hook_feeds.begin(), hook_feeds.end());
  return *combined;
  // [mts:lab-end]
}
// [mts:hooked-merge-feeds-end]

// [mts:hooked-hand-back]
void HookedSession::HandBack(SessionRunContext& context, const RunOptions& options,
                             const RunMetadata& metadata, RunLists& lists) const {
  // [mts:lab 03_hooked]
  // Each hook gets exactly its own results, in list order, in a vector lent to it for its
  // AfterRun and taken back, storage and all, for the next hook.
  std::vector<Tensor>& results = lists.hook_results;
  for (size_t h = 0; h < hooks_.size(); ++h) {
    auto begin = lists.all_results.begin() + lists.offsets[h];
    results.assign(begin, begin + lists.counts[h]);
    SessionRunValues values{std::move(results), options, metadata};
    hooks_[h]->AfterRun(context, values);
    results = std::move(values.results);
  }
  // [mts:lab-end]
}
// [mts:hooked-hand-back-end]

std::vector<Tensor> HookedSession::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                       const std::vector<Operation*>& targets,
                                       const RunOptions& options, RunMetadata* run_metadata) {
  std::vector<Tensor> outputs;
  Run(fetches, feeds, targets, options, run_metadata, &outputs);
  return outputs;
}

}  // namespace mts
