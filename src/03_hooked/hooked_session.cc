#include "src/03_hooked/hooked_session.h"

#include <algorithm>

#include "src/platform/errors.h"

namespace mts {

namespace {

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

}  // namespace

HookedSession::HookedSession(std::unique_ptr<SessionInterface> session,
                             std::vector<std::shared_ptr<SessionRunHook>> hooks)
    : WrappedSession(std::move(session)), hooks_(std::move(hooks)) {}

// [mts:hooked-run]
void HookedSession::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                        const std::vector<Operation*>& targets, const RunOptions& options,
                        RunMetadata* run_metadata, std::vector<Tensor>* outputs) {
  // [mts:lab 03_hooked]
  if (ShouldStop()) throw RuntimeError("Run called even after should_stop requested.");
  // Without hooks there is nothing to ask, merge or hand back: skip building the copies
  // below, which cost more than the layer's target of 100 ns (see the performance appendix).
  if (hooks_.empty()) {
    inner()->Run(fetches, feeds, targets, options, run_metadata, outputs);
    return;
  }

  SessionRunContext context(fetches, targets, feeds, *inner());
  RunOptions merged_options = options;  // A copy: the caller's options stay as they were.
  // The lists of the last run, emptied, their storage reused. (A Run nested in a hook's
  // call finds none and makes its own.)
  std::unique_ptr<RunLists> lists = std::move(spare_lists_);
  if (lists == nullptr) lists = std::make_unique<RunLists>();

  // 1. Ask every hook, in order, what it wants added to this run. The caller's fetches come
  //    first in the combined list; each hook's follow, at an offset recorded for it.
  std::vector<Output>& all_fetches = lists->fetches;
  std::vector<Operation*>& all_targets = lists->targets;
  all_fetches.assign(fetches.begin(), fetches.end());
  all_targets.assign(targets.begin(), targets.end());
  lists->offsets.clear();
  lists->counts.clear();
  FeedDict hook_feeds;
  for (const auto& hook : hooks_) {
    SessionRunArgs request = hook->BeforeRun(context);
    lists->offsets.push_back(all_fetches.size());
    lists->counts.push_back(request.fetches.size());
    all_fetches.insert(all_fetches.end(), request.fetches.begin(), request.fetches.end());
    all_targets.insert(all_targets.end(), request.targets.begin(), request.targets.end());
    std::vector<Output> conflicts = Overlap(request.feeds, hook_feeds);
    if (!conflicts.empty()) {
      throw RuntimeError("Same tensor is fed by two hooks. Conflict(s): " + NameList(conflicts));
    }
    hook_feeds.insert(request.feeds.begin(), request.feeds.end());
    MergeOptions(merged_options, request.options);
  }

  // 2. Combine the feeds without touching the caller's: a copy only when both sides feed.
  const FeedDict* all_feeds = &feeds;
  FeedDict combined;
  if (!hook_feeds.empty()) {
    std::vector<Output> conflicts = Overlap(hook_feeds, feeds);
    if (!conflicts.empty()) {
      throw RuntimeError("Same tensor is fed by a SessionRunHook and user. Conflict(s): " +
                         NameList(conflicts));
    }
    combined = feeds;
    combined.insert(hook_feeds.begin(), hook_feeds.end());
    all_feeds = &combined;
  }

  // 3. One run of the session below, with one RunMetadata every hook shares. Its values
  //    go into a vector kept with the lists, whose storage the next run reuses.
  RunMetadata local_metadata;
  RunMetadata& metadata = run_metadata != nullptr ? *run_metadata : local_metadata;
  std::vector<Tensor>& all_results = lists->all_results;
  inner()->Run(all_fetches, *all_feeds, all_targets, merged_options, &metadata, &all_results);

  // 4. Each hook gets exactly its own results, in list order, in a vector lent to it for
  //    its AfterRun and taken back, storage and all, for the next hook.
  std::vector<Tensor>& results = lists->hook_results;
  for (size_t h = 0; h < hooks_.size(); ++h) {
    auto begin = all_results.begin() + lists->offsets[h];
    results.assign(begin, begin + lists->counts[h]);
    SessionRunValues values{std::move(results), merged_options, metadata};
    hooks_[h]->AfterRun(context, values);
    results = std::move(values.results);
  }
  should_stop_ = should_stop_ || context.stop_requested();

  // 5. The caller gets the first fetches.size() values, its own. The kept lists hold no
  //    tensor of this run past it.
  outputs->assign(all_results.begin(), all_results.begin() + fetches.size());
  all_results.clear();
  results.clear();
  spare_lists_ = std::move(lists);
  // [mts:lab-end]
}
// [mts:hooked-run-end]

std::vector<Tensor> HookedSession::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                       const std::vector<Operation*>& targets,
                                       const RunOptions& options, RunMetadata* run_metadata) {
  std::vector<Tensor> outputs;
  Run(fetches, feeds, targets, options, run_metadata, &outputs);
  return outputs;
}

}  // namespace mts
