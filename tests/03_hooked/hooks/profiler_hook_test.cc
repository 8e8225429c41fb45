// Tests of profiler_hook.h: which runs are traced (never the first; then every N steps or
// seconds on a FakeClock), the file each writes, and that the file is a Chrome trace with
// one event per op the traced run executed.
#include "src/03_hooked/hooks/profiler_hook.h"

#include <algorithm>
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/03_hooked/hooks/mini_json.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr int64_t kSecond = 1000000;

// A hook after the profiler that records, per run, whether it was traced and which ops ran
// (the RunMetadata is shared by every hook of a run).
class TraceRecorder : public SessionRunHook {
 public:
  void AfterRun(SessionRunContext&, const SessionRunValues& values) override {
    traced.push_back(values.options.trace_level == RunOptions::TraceLevel::kFullTrace);
    std::vector<std::string> names;
    for (const NodeExecStats& stats : values.run_metadata.step_stats) {
      names.push_back(stats.node_name);
    }
    ops.push_back(names);
  }
  std::vector<bool> traced;
  std::vector<std::vector<std::string>> ops;
};

class ProfilerHookTest : public ::testing::Test {
 protected:
  ProfilerHookTest() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = JoinPath(::testing::TempDir(), std::string("profiler_") + info->name());
  }
  // The hooks' writers live in the process-wide cache: close them, so that each test starts
  // with writers of its own.
  ~ProfilerHookTest() override { SummaryWriterCache::Clear(); }

  // The steps whose timeline file exists in dir_, among 0..max_step.
  std::vector<int64_t> TimelineSteps(int64_t max_step) {
    std::vector<int64_t> steps;
    for (int64_t s = 0; s <= max_step; ++s) {
      if (DefaultFileSystem()->Exists(JoinPath(dir_, "timeline-" + std::to_string(s) + ".json"))) {
        steps.push_back(s);
      }
    }
    return steps;
  }

  HookTestHarness harness_;
  FakeClock clock_;
  std::string dir_;
  std::shared_ptr<TraceRecorder> recorder_ = std::make_shared<TraceRecorder>();
};

// Exactly one of save_steps and save_secs, with SecondOrStepTimer's messages.
TEST_F(ProfilerHookTest, NeedsExactlyOneFrequency) {
  ProfilerHookOptions neither;
  neither.output_dir = dir_;
  EXPECT_THROW(ProfilerHook{neither}, ValueError);
  ProfilerHookOptions both = neither;
  both.save_steps = 2;
  both.save_secs = 1.0;
  EXPECT_THROW(ProfilerHook{both}, ValueError);
}

// Without a global step, Begin refuses, naming the hook.
TEST(ProfilerHookBeginTest, NeedsAGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  ProfilerHookOptions options;
  options.save_steps = 1;
  ProfilerHook hook(options);
  EXPECT_THAT(
      [&] { hook.Begin(); },
      ThrowsMessage<RuntimeError>(StrEq("Global step should be created to use ProfilerHook.")));
}

// save_steps=2 from step 0: the first run only arms the timer, then every second run is
// traced and named after the step it ended at: timeline-2, -4, -6.
TEST_F(ProfilerHookTest, TracesEveryNStepsButNeverTheFirstRun) {
  ProfilerHookOptions options;
  options.save_steps = 2;
  options.output_dir = dir_;
  auto hook = std::make_shared<ProfilerHook>(options);
  harness_.Start({hook, recorder_});
  ScopedLogCapture capture;
  for (int i = 0; i < 7; ++i) harness_.Step();
  EXPECT_EQ(recorder_->traced,
            (std::vector<bool>{false, true, false, true, false, true, false}));
  EXPECT_EQ(TimelineSteps(10), (std::vector<int64_t>{2, 4, 6}));
  EXPECT_EQ(LoggedMessages(capture).front(),
            "Saving timeline for 2 into '" + JoinPath(dir_, "timeline-2.json") + "'.");
}

// The steps count from the first session's step: restored at 10 with save_steps=5, the
// first trace is of the run that ends at 15.
TEST_F(ProfilerHookTest, CountsFromTheStepOfTheFirstRun) {
  ProfilerHookOptions options;
  options.save_steps = 5;
  options.output_dir = dir_;
  auto hook = std::make_shared<ProfilerHook>(options);
  harness_.Start({hook}, /*initial_step=*/10);
  for (int i = 0; i < 11; ++i) harness_.Step();  // Ends at step 21.
  EXPECT_EQ(TimelineSteps(30), (std::vector<int64_t>{15, 20}));
}

// Issue 32, item 12. The directory's shared writer is not built on the hook's clock: a hook
// whose test clock dies before the cache entry leaves a writer that still works, and the
// events it writes carry the real time, not the dead clock's.
TEST_F(ProfilerHookTest, TheSharedWriterDoesNotBorrowTheHooksClock) {
  auto clock = std::make_unique<FakeClock>();  // On the heap, so ASan sees a use after free.
  ProfilerHookOptions options;
  options.save_steps = 1;
  options.output_dir = dir_;
  options.clock = clock.get();
  auto hook = std::make_shared<ProfilerHook>(options);
  harness_.Start({hook});
  harness_.Step();
  harness_.Step();  // Traced: a run-metadata event goes to the shared writer.
  clock.reset();
  std::shared_ptr<FileWriter> writer = SummaryWriterCache::Get(dir_);
  writer->Flush();
  SummaryWriterCache::Clear();  // Joins the writer's thread, which must not touch `clock`.
  const std::vector<tensorflow::Event> events = ReadEventDirectory(dir_);
  ASSERT_FALSE(events.empty());
  for (const tensorflow::Event& event : events) {
    EXPECT_GT(event.wall_time(), FakeClock::kDefaultWallStartMicros / 1e6 + 1e7)
        << "an event stamped by the hook's fake clock";
  }
}

// save_secs=10 on a FakeClock: the first run (t=0) arms; the run that starts once 10 s have
// passed is traced, and the interval restarts from it.
TEST_F(ProfilerHookTest, TracesEveryNSeconds) {
  ProfilerHookOptions options;
  options.save_secs = 10.0;
  options.output_dir = dir_;
  options.clock = &clock_;
  auto hook = std::make_shared<ProfilerHook>(options);
  harness_.Start({hook, recorder_});
  harness_.Step();              // t=0: arms the timer; step 1.
  clock_.Advance(6 * kSecond);
  harness_.Step();              // t=6: too early; step 2.
  clock_.Advance(4 * kSecond);
  harness_.Step();              // t=10: traced; step 3.
  clock_.Advance(9 * kSecond);
  harness_.Step();              // t=19: too early; step 4.
  clock_.Advance(1 * kSecond);
  harness_.Step();              // t=20: traced; step 5.
  EXPECT_EQ(recorder_->traced, (std::vector<bool>{false, false, true, false, true}));
  EXPECT_EQ(TimelineSteps(10), (std::vector<int64_t>{3, 5}));
}

// The file is valid JSON (checked by a strict parser), loadable as a Chrome trace: one
// complete event per op the traced run executed, in order, and the process lane's name.
TEST_F(ProfilerHookTest, FileIsAChromeTraceOfTheTracedRun) {
  ProfilerHookOptions options;
  options.save_steps = 1;
  options.output_dir = dir_;
  auto hook = std::make_shared<ProfilerHook>(options);
  harness_.Start({hook, recorder_});
  harness_.Step();
  harness_.Step();  // Traced: ends at step 2.
  ASSERT_EQ(recorder_->traced, (std::vector<bool>{false, true}));
  const std::vector<std::string>& executed = recorder_->ops[1];
  ASSERT_FALSE(executed.empty());

  const JsonValue trace =
      ParseJson(DefaultFileSystem()->ReadFile(JoinPath(dir_, "timeline-2.json")));
  std::vector<std::string> slices;
  bool lane_named = false;
  for (const JsonValue& event : trace.at("traceEvents").array) {
    if (event.at("ph").string == "X") slices.push_back(event.at("name").string);
    if (event.at("ph").string == "M" && event.at("name").string == "process_name") {
      lane_named = true;
    }
  }
  EXPECT_EQ(slices, executed);
  EXPECT_TRUE(lane_named);
  // The train op's increment is among them.
  EXPECT_NE(std::find(slices.begin(), slices.end(), harness_.train_op()->name()), slices.end());
}

// show_dataflow (the default) adds arrows; without it there are none.
TEST_F(ProfilerHookTest, ShowDataflowControlsTheArrows) {
  ProfilerHookOptions with_dataflow;
  with_dataflow.save_steps = 1;
  with_dataflow.output_dir = JoinPath(dir_, "with");
  ProfilerHookOptions without_dataflow = with_dataflow;
  without_dataflow.output_dir = JoinPath(dir_, "without");
  without_dataflow.show_dataflow = false;
  auto with = std::make_shared<ProfilerHook>(with_dataflow);
  auto without = std::make_shared<ProfilerHook>(without_dataflow);
  harness_.Start({with, without});
  harness_.Step();
  harness_.Step();
  auto count_flows = [](const std::string& path) {
    int flows = 0;
    const JsonValue trace = ParseJson(DefaultFileSystem()->ReadFile(path));
    for (const JsonValue& event : trace.at("traceEvents").array) {
      if (event.at("ph").string == "s") ++flows;
    }
    return flows;
  };
  EXPECT_GT(count_flows(JoinPath(dir_, "with/timeline-2.json")), 0);
  EXPECT_EQ(count_flows(JoinPath(dir_, "without/timeline-2.json")), 0);
}

}  // namespace
}  // namespace mts
