// HookedSession: one raw run per Run, hooks called in order, fetches and feeds merged, each
// hook handed its own results, conflicts refused before anything runs.
#include "src/03_hooked/hooked_session.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "tests/testing/counting_session.h"
#include "tests/testing/recording_hook.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

class HookedSessionTest : public ::testing::Test {
 protected:
  HookedSessionTest() {
    a_ = Constant(2.0f, "a");
    b_ = Constant(3.0f, "b");
    x_ = Placeholder(DataType::kFloat, TensorShape{}, "x");
    counter_ = Variable(Tensor::Scalar(0.0f), "counter");
    increment_ = counter_.AssignAdd(Constant(1.0f)).op();
    init_ = GlobalVariablesInitializer();
  }

  // A HookedSession over a fresh, initialised raw session with `hooks`; `raw_` counts the
  // raw runs from then on.
  std::unique_ptr<HookedSession> Make(std::vector<std::shared_ptr<SessionRunHook>> hooks) {
    auto session = std::make_unique<Session>(&graph_);
    session->Run(init_);
    auto counting = std::make_unique<CountingSession>(std::move(session));
    raw_ = counting.get();
    return std::make_unique<HookedSession>(std::move(counting), std::move(hooks));
  }

  std::shared_ptr<RecordingHook> Hook(const std::string& name) {
    return std::make_shared<RecordingHook>(name, calls_);
  }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Output a_, b_, x_;
  Variable counter_;
  Operation* increment_ = nullptr;
  Operation* init_ = nullptr;
  CountingSession* raw_ = nullptr;
  std::shared_ptr<std::vector<std::string>> calls_ = std::make_shared<std::vector<std::string>>();
};

// Hooks are called in list order, BeforeRun all first, then AfterRun all.
TEST_F(HookedSessionTest, CallsHooksInListOrder) {
  auto session = Make({Hook("h1"), Hook("h2")});
  session->Run(std::vector<Output>{a_});
  EXPECT_EQ(*calls_, (std::vector<std::string>{"h1.BeforeRun", "h2.BeforeRun", "h1.AfterRun",
                                               "h2.AfterRun"}));
}

// The caller's and the hooks' fetches go into one raw run; each gets its own values back.
TEST_F(HookedSessionTest, AfterRunSeesFetchesRequestedInBeforeRun) {
  auto h1 = Hook("h1");
  auto h2 = Hook("h2");
  h1->request.fetches = {b_};
  h2->request.fetches = {a_, b_};
  auto session = Make({h1, h2});
  std::vector<Tensor> out = session->Run(std::vector<Output>{a_});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].scalar<float>(), 2.0f);
  ASSERT_EQ(h1->results.size(), 1u);
  EXPECT_EQ(h1->results[0].scalar<float>(), 3.0f);
  ASSERT_EQ(h2->results.size(), 2u);
  EXPECT_EQ(h2->results[0].scalar<float>(), 2.0f);
  EXPECT_EQ(h2->results[1].scalar<float>(), 3.0f);
  EXPECT_EQ(raw_->runs(), 1);
}

// The Run that fills a caller's vector hands back the caller's values only, replacing what the
// vector held, run after run. Here over the raw Session, which fills the layer's own vector in
// place, with a hook asking for more tensors than a SessionRunArgs keeps inside itself.
TEST_F(HookedSessionTest, RunIntoOutputsGivesTheCallerOnlyItsValues) {
  auto h = Hook("h");
  h->request.fetches = {a_, b_, a_, b_, a_};
  auto raw = std::make_unique<Session>(&graph_);
  raw->Run(init_);
  HookedSession session(std::move(raw), {h});
  std::vector<Tensor> out = {Tensor::Scalar(7.0f), Tensor::Scalar(8.0f)};
  for (int step = 0; step < 2; ++step) {
    session.Run({b_}, {}, {increment_}, {}, nullptr, &out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].scalar<float>(), 3.0f);
    ASSERT_EQ(h->results.size(), 5u);
    EXPECT_EQ(h->results[3].scalar<float>(), 3.0f);
    EXPECT_EQ(h->results[4].scalar<float>(), 2.0f);
  }
  session.Run({}, {}, {increment_}, {}, nullptr, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(session.Run(counter_.value()).scalar<float>(), 3.0f);
}

// Runs reuse the lists of the one before: a hook whose request shrinks, grows or fails
// between runs still gets exactly its own values, and so does the caller.
TEST_F(HookedSessionTest, EachRunMergesItsOwnRequests) {
  auto h1 = Hook("h1");
  auto h2 = Hook("h2");
  h1->request.fetches = {a_, b_};
  h2->request.fetches = {b_};
  auto session = Make({h1, h2});
  session->Run(std::vector<Output>{a_, b_});
  h1->request.fetches = {};
  h2->request.fetches = {a_, a_, b_};
  std::vector<Tensor> out = session->Run(std::vector<Output>{b_});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].scalar<float>(), 3.0f);
  EXPECT_TRUE(h1->results.empty());
  ASSERT_EQ(h2->results.size(), 3u);
  EXPECT_EQ(h2->results[0].scalar<float>(), 2.0f);
  EXPECT_EQ(h2->results[2].scalar<float>(), 3.0f);
  h1->fail_in_after_run = ErrorCode::kInternal;
  EXPECT_THROW(session->Run(std::vector<Output>{a_}), InternalError);
  h1->fail_in_after_run.reset();
  h1->request.fetches = {b_};
  out = session->Run(std::vector<Output>{a_});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].scalar<float>(), 2.0f);
  ASSERT_EQ(h1->results.size(), 1u);
  EXPECT_EQ(h1->results[0].scalar<float>(), 3.0f);
  EXPECT_EQ(raw_->runs(), 4);
}

// The context shows a hook the caller's fetches, targets and feeds, not the hooks' additions.
TEST_F(HookedSessionTest, ContextShowsTheCallersRequest) {
  class OriginalArgsHook : public SessionRunHook {
   public:
    SessionRunArgs BeforeRun(SessionRunContext& context) override {
      seen = context.original_args();
      SessionRunArgs args;
      args.fetches = {extra};
      return args;
    }
    Output extra;
    SessionRunArgs seen;
  };
  auto h = std::make_shared<OriginalArgsHook>();
  h->extra = b_;
  auto session = Make({h});
  session->Run({a_}, {{x_, Tensor::Scalar(1.0f)}}, {increment_});
  EXPECT_THAT(h->seen.fetches, ElementsAre(a_));
  EXPECT_EQ(h->seen.targets, std::vector<Operation*>{increment_});
  ASSERT_EQ(h->seen.feeds.size(), 1u);
  EXPECT_EQ(h->seen.feeds.begin()->first, x_);
  EXPECT_EQ(h->seen.feeds.begin()->second.scalar<float>(), 1.0f);
}

// A hook listed twice is asked twice and answered twice, each time with the values of
// what it asked for that time: results are found by position in the run, not looked up by
// hook (a lookup keyed by the hook object hands both calls the same values).
TEST_F(HookedSessionTest, HookListedTwiceGetsEachRequestsOwnValues) {
  class TwoRequestsHook : public SessionRunHook {
   public:
    SessionRunArgs BeforeRun(SessionRunContext&) override {
      SessionRunArgs args;
      const std::vector<Output>& request = requests.at(asked++ % requests.size());
      args.fetches.assign(request.begin(), request.end());
      return args;
    }
    void AfterRun(SessionRunContext&, const SessionRunValues& values) override {
      std::vector<float> got;
      for (const Tensor& t : values.results) got.push_back(t.scalar<float>());
      answers.push_back(got);
    }
    std::vector<std::vector<Output>> requests;
    size_t asked = 0;
    std::vector<std::vector<float>> answers;
  };
  auto h = std::make_shared<TwoRequestsHook>();
  h->requests = {{a_}, {b_, a_}};
  auto session = Make({h, h});
  std::vector<Tensor> out = session->Run(std::vector<Output>{b_});
  EXPECT_EQ(h->asked, 2u);
  EXPECT_EQ(h->answers, (std::vector<std::vector<float>>{{2.0f}, {3.0f, 2.0f}}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].scalar<float>(), 3.0f);
  EXPECT_EQ(raw_->runs(), 1);
}

// A hook's targets run in the same raw run, once.
TEST_F(HookedSessionTest, HookTargetsRunInTheSameRun) {
  auto h = Hook("h");
  h->request.targets = {increment_};
  auto session = Make({h});
  session->Run(std::vector<Output>{a_});
  session->Run(std::vector<Output>{a_});
  EXPECT_EQ(raw_->runs(), 2);
  EXPECT_EQ(raw_->Run(counter_.value()).scalar<float>(), 2.0f);
}

// A hook's feeds reach the run; the caller's FeedDict is not modified.
TEST_F(HookedSessionTest, HookFeedsAreMergedWithoutMutatingTheCallersFeeds) {
  Output y = Placeholder(DataType::kFloat, TensorShape{}, "y");
  Output sum = Add(x_, y);
  auto h = Hook("h");
  h->request.feeds = {{y, Tensor::Scalar(10.0f)}};
  auto session = Make({h});
  const FeedDict caller_feeds{{x_, Tensor::Scalar(1.0f)}};
  EXPECT_EQ(session->Run(std::vector<Output>{sum}, caller_feeds)[0].scalar<float>(), 11.0f);
  EXPECT_EQ(caller_feeds.size(), 1u);
}

// Two hooks feeding one tensor is refused before the run, and later hooks are not asked.
TEST_F(HookedSessionTest, SameTensorFedByTwoHooksRaisesBeforeRunning) {
  auto h1 = Hook("h1");
  auto h2 = Hook("h2");
  auto h3 = Hook("h3");
  h1->request.feeds = {{x_, Tensor::Scalar(1.0f)}};
  h2->request.feeds = {{x_, Tensor::Scalar(2.0f)}};
  auto session = Make({h1, h2, h3});
  EXPECT_THAT(
      [&] { session->Run(std::vector<Output>{x_}); },
      ThrowsMessage<RuntimeError>(StrEq("Same tensor is fed by two hooks. Conflict(s): [x:0]")));
  EXPECT_EQ(raw_->runs(), 0);
  EXPECT_EQ(*calls_, (std::vector<std::string>{"h1.BeforeRun", "h2.BeforeRun"}));
}

// A hook and the caller feeding one tensor is refused before the run.
TEST_F(HookedSessionTest, SameTensorFedByHookAndCallerRaisesBeforeRunning) {
  auto h = Hook("h");
  h->request.feeds = {{x_, Tensor::Scalar(1.0f)}};
  auto session = Make({h});
  EXPECT_THAT(
      [&] {
        session->Run(std::vector<Output>{x_}, {{x_, Tensor::Scalar(5.0f)}});
      },
      ThrowsMessage<RuntimeError>(
          StrEq("Same tensor is fed by a SessionRunHook and user. Conflict(s): [x:0]")));
  EXPECT_EQ(raw_->runs(), 0);
}

// The conflict between a hook and the caller is checked once every hook has answered, as
// TensorFlow's _call_hook_before_run does: a later hook is still asked, and a tensor that
// two hooks and the caller all feed is reported as fed by two hooks (that check runs as
// each hook answers, the caller's after the last).
TEST_F(HookedSessionTest, HookAndCallerConflictIsCheckedAfterEveryHookAnswered) {
  auto h1 = Hook("h1");
  auto h2 = Hook("h2");
  h1->request.feeds = {{x_, Tensor::Scalar(1.0f)}};
  auto session = Make({h1, h2});
  const FeedDict caller_feeds{{x_, Tensor::Scalar(5.0f)}};
  EXPECT_THAT([&] { session->Run(std::vector<Output>{x_}, caller_feeds); },
              ThrowsMessage<RuntimeError>(
                  StrEq("Same tensor is fed by a SessionRunHook and user. Conflict(s): [x:0]")));
  EXPECT_EQ(*calls_, (std::vector<std::string>{"h1.BeforeRun", "h2.BeforeRun"}));

  h2->request.feeds = {{x_, Tensor::Scalar(2.0f)}};
  EXPECT_THAT(
      [&] { session->Run(std::vector<Output>{x_}, caller_feeds); },
      ThrowsMessage<RuntimeError>(StrEq("Same tensor is fed by two hooks. Conflict(s): [x:0]")));
  EXPECT_EQ(raw_->runs(), 0);
}

// Feeding one tensor twice is a conflict even when both values are the same: TensorFlow
// compares the feeds' keys, never their values.
TEST_F(HookedSessionTest, SameValueFedTwiceStillConflicts) {
  auto h1 = Hook("h1");
  auto h2 = Hook("h2");
  h1->request.feeds = {{x_, Tensor::Scalar(1.0f)}};
  auto session = Make({h1, h2});
  EXPECT_THAT(
      [&] {
        session->Run(std::vector<Output>{x_}, {{x_, Tensor::Scalar(1.0f)}});
      },
      ThrowsMessage<RuntimeError>(
          StrEq("Same tensor is fed by a SessionRunHook and user. Conflict(s): [x:0]")));
  h2->request.feeds = {{x_, Tensor::Scalar(1.0f)}};
  EXPECT_THAT(
      [&] { session->Run(std::vector<Output>{x_}); },
      ThrowsMessage<RuntimeError>(StrEq("Same tensor is fed by two hooks. Conflict(s): [x:0]")));
  EXPECT_EQ(raw_->runs(), 0);
}

// A stop requested in AfterRun lets the run return, then ShouldStop is true and Run raises.
TEST_F(HookedSessionTest, RequestStopEndsTheLoopAfterTheRun) {
  auto h = Hook("h");
  h->stop_in_after_run = true;
  auto session = Make({h});
  EXPECT_FALSE(session->ShouldStop());
  EXPECT_EQ(session->Run(std::vector<Output>{a_})[0].scalar<float>(), 2.0f);
  EXPECT_TRUE(session->ShouldStop());
  EXPECT_THAT(
      [&] { session->Run(std::vector<Output>{a_}); },
      ThrowsMessage<RuntimeError>(StartsWith("Run called even after should_stop requested.")));
}

// A stop requested in BeforeRun still counts once the run completes.
TEST_F(HookedSessionTest, StopRequestedInBeforeRunCountsAfterTheRun) {
  auto h = Hook("h");
  h->stop_in_before_run = true;
  auto session = Make({h});
  session->Run(std::vector<Output>{a_});
  EXPECT_TRUE(session->ShouldStop());
}

// When a hook's AfterRun raises, later hooks miss AfterRun and the stop request is lost.
TEST_F(HookedSessionTest, FailingAfterRunSkipsLaterHooksAndLosesTheStop) {
  auto h1 = Hook("h1");
  auto h2 = Hook("h2");
  h1->stop_in_after_run = true;
  h1->fail_in_after_run = ErrorCode::kInternal;
  auto session = Make({h1, h2});
  EXPECT_THROW(session->Run(std::vector<Output>{a_}), InternalError);
  EXPECT_EQ(*calls_, (std::vector<std::string>{"h1.BeforeRun", "h2.BeforeRun", "h1.AfterRun"}));
  EXPECT_FALSE(session->ShouldStop());
}

// A failed raw run calls no AfterRun.
TEST_F(HookedSessionTest, FailedRunCallsNoAfterRun) {
  auto h = Hook("h");
  auto session = Make({h});
  EXPECT_THROW(session->Run(std::vector<Output>{x_}), InvalidArgumentError);  // Unfed.
  EXPECT_EQ(*calls_, (std::vector<std::string>{"h.BeforeRun"}));
}

// Options merge by maximum, and all hooks share the caller's RunMetadata.
TEST_F(HookedSessionTest, OptionsMergeAndMetadataIsShared) {
  auto h1 = Hook("h1");
  auto h2 = Hook("h2");
  h1->request.options.trace_level = RunOptions::TraceLevel::kFullTrace;
  auto session = Make({h1, h2});
  RunOptions caller_options;
  RunMetadata metadata;
  session->Run(std::vector<Output>{a_}, {}, {}, caller_options, &metadata);
  EXPECT_EQ(h2->trace_level_seen, RunOptions::TraceLevel::kFullTrace);
  EXPECT_EQ(caller_options.trace_level, RunOptions::TraceLevel::kNoTrace);
  EXPECT_EQ(h1->metadata_seen, &metadata);
  EXPECT_EQ(h2->metadata_seen, &metadata);
  EXPECT_FALSE(metadata.step_stats.empty());
}

// The context's session is the raw one, so a hook's own runs bypass the hooks.
TEST_F(HookedSessionTest, ContextSessionIsTheRawSession) {
  class RawRunHook : public SessionRunHook {
   public:
    SessionRunArgs BeforeRun(SessionRunContext& context) override {
      session_seen = &context.session();
      return {};
    }
    SessionInterface* session_seen = nullptr;
  };
  auto h = std::make_shared<RawRunHook>();
  auto session = Make({h});
  session->Run(std::vector<Output>{a_});
  EXPECT_EQ(h->session_seen, raw_);
}

}  // namespace
}  // namespace mts
