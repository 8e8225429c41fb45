// Tests of summary_saver_hook.h: summaries by steps and by seconds (FakeClock) at the real
// step, the START event after the first run, the summary fetched only when due, the
// Scaffold's summary op, the given writer, End's flush; all read back from the event file.
#include "src/03_hooked/hooks/summary_saver_hook.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/summary.pb.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr int64_t kSecond = 1000000;

// Below the hooks: records how many tensors each run fetched.
class FetchCountingSession : public SessionInterface {
 public:
  FetchCountingSession(std::unique_ptr<SessionInterface> inner, std::vector<size_t>* counts)
      : inner_(std::move(inner)), counts_(counts) {}
  using SessionInterface::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    counts_->push_back(fetches.size());
    return inner_->Run(fetches, feeds, targets, options, run_metadata);
  }
  Graph* graph() const override { return inner_->graph(); }
  void Close() override { inner_->Close(); }

 private:
  std::unique_ptr<SessionInterface> inner_;
  std::vector<size_t>* counts_;
};

// A string constant holding a serialized Summary with one scalar: what a scalar summary op
// returns, fixed here so each step's expected bytes are known.
Output SummaryConstant(const std::string& tag, float value) {
  tensorflow::Summary summary;
  tensorflow::Summary::Value* v = summary.add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
  return Constant(Tensor::Scalar<std::string>(summary.SerializeAsString()), tag);
}

// A harness whose program has two "summary ops": "loss" (1.5) and "lr" (0.25).
class SummarySaverHookTest : public ::testing::Test {
 protected:
  SummarySaverHookTest() : loss_(SummaryConstant("loss", 1.5f)), lr_(SummaryConstant("lr", 0.25f)) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = JoinPath(::testing::TempDir(), std::string("summaries_") + info->name());
  }
  ~SummarySaverHookTest() override { SummaryWriterCache::Clear(); }

  std::shared_ptr<SummarySaverHook> StepsHook(int64_t save_steps) {
    SummarySaverHookOptions options;
    options.save_steps = save_steps;
    options.output_dir = dir_;
    options.summary_op = {loss_};
    return std::make_shared<SummarySaverHook>(options);
  }

  // "<step> <what>" for every non-header event in `dir` (after flushing its writer):
  // "1 START", "1 loss=1.5".
  std::vector<std::string> Events(const std::string& dir) {
    SummaryWriterCache::Get(dir)->Flush();
    return Describe(ReadEventDirectory(dir));
  }
  static std::vector<std::string> Describe(const std::vector<tensorflow::Event>& events) {
    std::vector<std::string> out;
    for (const tensorflow::Event& event : events) {
      const std::string step = std::to_string(event.step());
      if (event.has_session_log()) {
        out.push_back(step + " " +
                      tensorflow::SessionLog::SessionStatus_Name(event.session_log().status()));
      }
      if (event.has_summary()) {
        for (const auto& value : event.summary().value()) {
          std::ostringstream line;
          line << step << " " << value.tag() << "=" << value.simple_value();
          out.push_back(line.str());
        }
      }
    }
    return out;
  }

  HookTestHarness harness_;
  FakeClock clock_;
  Output loss_;
  Output lr_;
  std::string dir_;
};

// Exactly one of scaffold and summary_op, then the timer's rules.
TEST_F(SummarySaverHookTest, RefusesInvalidSettings) {
  const std::string kExactlyOne = "Exactly one of scaffold or summary_op must be provided.";
  SummarySaverHookOptions neither;
  neither.save_steps = 1;
  neither.output_dir = dir_;
  EXPECT_THAT([&] { SummarySaverHook{neither}; }, ThrowsMessage<ValueError>(StrEq(kExactlyOne)));
  SummarySaverHookOptions both = neither;
  both.scaffold = std::make_shared<Scaffold>();
  both.summary_op = {loss_};
  EXPECT_THAT([&] { SummarySaverHook{both}; }, ThrowsMessage<ValueError>(StrEq(kExactlyOne)));
  SummarySaverHookOptions both_frequencies = neither;
  both_frequencies.save_secs = 1.0;
  both_frequencies.summary_op = {loss_};
  EXPECT_THROW(SummarySaverHook{both_frequencies}, ValueError);
  SummarySaverHookOptions no_frequency;
  no_frequency.output_dir = dir_;
  no_frequency.summary_op = {loss_};
  EXPECT_THROW(SummarySaverHook{no_frequency}, ValueError);
}

// Without a global step, Begin refuses, naming the hook.
TEST(SummarySaverHookBeginTest, NeedsAGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  SummarySaverHookOptions options;
  options.save_steps = 1;
  options.summary_op = {SummaryConstant("x", 1)};
  SummarySaverHook hook(options);
  EXPECT_THAT(
      [&] { hook.Begin(); },
      ThrowsMessage<RuntimeError>(StrEq("Global step should be created to use SummarySaverHook.")));
}

// save_steps=8, one increment per run: START and a summary after the first run (step 1),
// then summaries at 9, 17 and 25, TensorFlow's own test case.
TEST_F(SummarySaverHookTest, WritesEveryNStepsFromTheFirstRun) {
  harness_.Start({StepsHook(8)});
  for (int i = 0; i < 30; ++i) harness_.Step();
  EXPECT_THAT(Events(dir_), ElementsAre("1 START", "1 loss=1.5", "9 loss=1.5", "17 loss=1.5",
                                        "25 loss=1.5"));
}

// The summary op is fetched only in the runs that write it: the first, then every 3rd.
TEST_F(SummarySaverHookTest, FetchesTheSummaryOnlyWhenDue) {
  std::vector<size_t> fetch_counts;
  harness_.Start({StepsHook(3)}, 0, [&](std::unique_ptr<SessionInterface> s) {
    return std::make_unique<FetchCountingSession>(std::move(s), &fetch_counts);
  });
  fetch_counts.clear();
  for (int i = 0; i < 5; ++i) harness_.Step();
  // Each hooked run fetches the step's read, plus the summary when due; a run that fetched
  // the summary is followed by a raw read of the real step.
  EXPECT_THAT(fetch_counts, ElementsAre(2, 1,   // Run 1 (step 1): summary, real step.
                                        1,      // Run 2.
                                        1,      // Run 3.
                                        2, 1,   // Run 4 (step 4 = 1 + 3): summary, real step.
                                        1));    // Run 5.
}

// save_secs=10 on a FakeClock: the first run writes; then the first run that starts once
// 10 s have passed since the last write.
TEST_F(SummarySaverHookTest, WritesEveryNSeconds) {
  SummarySaverHookOptions options;
  options.save_secs = 10.0;
  options.output_dir = dir_;
  options.summary_op = {loss_};
  options.clock = &clock_;
  auto hook = std::make_shared<SummarySaverHook>(options);
  harness_.Start({hook});
  harness_.Step();  // t=0, step 1: written.
  clock_.Advance(9 * kSecond);
  harness_.Step();  // t=9, step 2: not yet.
  clock_.Advance(1 * kSecond);
  harness_.Step();  // t=10, step 3: written.
  clock_.Advance(5 * kSecond);
  harness_.Step();  // t=15, step 4: not yet.
  EXPECT_THAT(Events(dir_), ElementsAre("1 START", "1 loss=1.5", "3 loss=1.5"));
}

// A job restored at step 29 writes START at the step its first run ends at, so TensorBoard
// drops what the previous run had written from there on.
TEST_F(SummarySaverHookTest, StartIsAtTheStepOfTheFirstRun) {
  harness_.Start({StepsHook(100)}, /*initial_step=*/29);
  harness_.Step();
  EXPECT_THAT(Events(dir_), ElementsAre("30 START", "30 loss=1.5"));
}

// Several summary ops: every Summary is written at the step.
TEST_F(SummarySaverHookTest, WritesEverySummaryOpGiven) {
  SummarySaverHookOptions options;
  options.save_steps = 2;
  options.output_dir = dir_;
  options.summary_op = {loss_, lr_};
  auto hook = std::make_shared<SummarySaverHook>(options);
  harness_.Start({hook});
  harness_.Step();
  EXPECT_THAT(Events(dir_), ElementsAre("1 START", "1 loss=1.5", "1 lr=0.25"));
}

// With a Scaffold, its summary op is used (here given explicitly; Finalize would merge all).
TEST_F(SummarySaverHookTest, UsesTheScaffoldsSummaryOp) {
  ScaffoldOptions options;
  options.summary_op = lr_;
  SummarySaverHookOptions summaries;
  summaries.save_steps = 2;
  summaries.output_dir = dir_;
  summaries.scaffold = std::make_shared<Scaffold>(options);
  auto hook = std::make_shared<SummarySaverHook>(summaries);
  harness_.Start({hook});
  harness_.Step();
  EXPECT_THAT(Events(dir_), ElementsAre("1 START", "1 lr=0.25"));
}

// A writer given to the hook is used; End flushes it, so no Flush is needed to read it.
TEST_F(SummarySaverHookTest, UsesTheGivenWriterAndEndFlushesIt) {
  const std::string given = JoinPath(dir_, "given");
  auto writer = std::make_shared<FileWriter>(given);
  SummarySaverHookOptions options;
  options.save_steps = 1;
  options.summary_writer = writer;
  options.summary_op = {loss_};
  auto hook = std::make_shared<SummarySaverHook>(options);
  harness_.Start({hook});
  harness_.Step();
  harness_.Step();
  harness_.End();
  EXPECT_THAT(Describe(ReadEventDirectory(given)),
              ElementsAre("1 START", "1 loss=1.5", "2 loss=1.5"));
}

// Without a writer or output_dir nothing is written and training goes on.
TEST_F(SummarySaverHookTest, WithoutAWriterWritesNothing) {
  SummarySaverHookOptions options;
  options.save_steps = 1;
  options.summary_op = {loss_};
  auto hook = std::make_shared<SummarySaverHook>(options);
  harness_.Start({hook});
  harness_.Step();
  harness_.End();
  EXPECT_FALSE(DefaultFileSystem()->Exists(dir_));
}

}  // namespace
}  // namespace mts
