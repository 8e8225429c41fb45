// TensorFlow's monitored_session_test.py, case by case: each TEST is named
// <TF test class>.<TF test method>. Python's `with session:` block is WithMonitoredSession;
// what TensorFlow's tests reach through private members (the coordinator, the raw session)
// a hook receives in AfterCreateSession here.
#include "src/06_monitored/monitored_session.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph_keys.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooked_session.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/03_hooked/wrapped_session.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/04_coordinated/coordinator.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/06_monitored/step_context.h"
#include "src/platform/errors.h"
#include "tests/conformance/conformance_support.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using ::testing::UnorderedElementsAre;

// TensorFlow's FakeHook: counts its calls, returns `request`, stops when told, and keeps
// what the last run showed it. It also keeps the raw session and the coordinator that
// TensorFlow's tests reach through private members.
class FakeHook : public SessionRunHook {
 public:
  void Begin() override { ++counts["begin"]; }
  void AfterCreateSession(SessionInterface& session, Coordinator* c) override {
    ++counts["after_create_session"];
    raw = &session;
    coord = c;
  }
  SessionRunArgs BeforeRun(SessionRunContext& context) override {
    ++counts["before_run"];
    const auto& fetches = context.original_args().fetches;
    last_fetches.assign(fetches.begin(), fetches.end());
    last_session = &context.session();
    return request;
  }
  void AfterRun(SessionRunContext& context, const SessionRunValues& values) override {
    ++counts["after_run"];
    last_results = values.results;
    last_options = values.options;
    last_step_stats = values.run_metadata.step_stats.size();
    if (should_stop) context.RequestStop();
  }
  void End(SessionInterface&) override { ++counts["end"]; }

  std::map<std::string, int> counts;
  SessionRunArgs request;
  bool should_stop = false;
  std::vector<Output> last_fetches;
  SessionInterface* last_session = nullptr;
  std::vector<Tensor> last_results;
  RunOptions last_options;
  size_t last_step_stats = 0;
  SessionInterface* raw = nullptr;
  Coordinator* coord = nullptr;
};

// TensorFlow's RaiseOnceAtCountN: raises in BeforeRun at its n-th call, once.
class RaiseOnceAtCountN : public SessionRunHook {
 public:
  RaiseOnceAtCountN(int n, std::function<void()> raise) : n_(n), raise_(std::move(raise)) {}
  SessionRunArgs BeforeRun(SessionRunContext&) override {
    if (--n_ == 0 && !raised) {
      raised = true;
      raise_();
    }
    return {};
  }
  bool raised = false;

 private:
  int n_;
  std::function<void()> raise_;
};

// A graph with a global step and do_step, the default graph of the case.
class GraphTest : public ::testing::Test {
 protected:
  ~GraphTest() override { SummaryWriterCache::Clear(); }
  int64_t Run(SessionInterface& session, const Output& tensor) {
    return session.Run(tensor).scalar<int64_t>();
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Variable gstep_ = GetOrCreateGlobalStep();
  Output do_step_ = gstep_.AssignAdd(Constant(int64_t{1}));
};

// ---- ScaffoldTest ---------------------------------------------------------------------------

class ScaffoldTest : public ::testing::Test {
 protected:
  Graph graph_;
  DefaultGraphScope as_default_{graph_};
};

TEST_F(ScaffoldTest, test_nothing_created_before_finalize) {
  Scaffold scaffold;
  EXPECT_EQ(scaffold.init_op(), nullptr);
  EXPECT_TRUE(scaffold.init_feed_dict().empty());
  EXPECT_FALSE(scaffold.init_fn());
  EXPECT_FALSE(scaffold.ready_op());
  EXPECT_FALSE(scaffold.ready_for_local_init_op());
  EXPECT_EQ(scaffold.local_init_op(), nullptr);
  EXPECT_EQ(scaffold.saver(), nullptr);
}

TEST_F(ScaffoldTest, test_defaults_empty_graph) {
  Scaffold scaffold;
  Variable my_var(Tensor::Scalar<int32_t>(1), "my_var");
  LocalVariable(Tensor::Scalar<int32_t>(2), "my_local_var");
  scaffold.Finalize();
  ASSERT_NE(scaffold.init_op(), nullptr);
  EXPECT_TRUE(scaffold.init_feed_dict().empty());
  EXPECT_FALSE(scaffold.init_fn());
  ASSERT_TRUE(scaffold.ready_op());
  ASSERT_TRUE(scaffold.ready_for_local_init_op());
  ASSERT_NE(scaffold.local_init_op(), nullptr);
  EXPECT_NE(scaffold.saver(), nullptr);
  Session session(&graph_);
  EXPECT_THAT(session.Run(*scaffold.ready_op()).ToVector<std::string>(),
              UnorderedElementsAre("my_var", "my_local_var"));
  EXPECT_THAT(session.Run(*scaffold.ready_for_local_init_op()).ToVector<std::string>(),
              UnorderedElementsAre("my_var"));
  session.Run(scaffold.init_op());
  EXPECT_TRUE(session.Run(*scaffold.ready_for_local_init_op()).ToVector<std::string>().empty());
  session.Run(scaffold.local_init_op());
  EXPECT_TRUE(session.Run(*scaffold.ready_op()).ToVector<std::string>().empty());
}

TEST_F(ScaffoldTest, test_defaults_no_variables) {
  Scaffold scaffold;
  Constant(1, "my_const");
  scaffold.Finalize();
  EXPECT_NE(scaffold.init_op(), nullptr);
  EXPECT_TRUE(scaffold.init_feed_dict().empty());
  EXPECT_FALSE(scaffold.init_fn());
  EXPECT_TRUE(scaffold.ready_op());
  EXPECT_TRUE(scaffold.ready_for_local_init_op());
  EXPECT_NE(scaffold.local_init_op(), nullptr);
  EXPECT_NE(scaffold.saver(), nullptr);
}

TEST_F(ScaffoldTest, test_caches_values) {
  Variable v(Tensor::Vector<int32_t>({1}), "Variable");
  Scaffold scaffold1;
  scaffold1.Finalize();
  Scaffold scaffold2;
  scaffold2.Finalize();
  EXPECT_EQ(scaffold1.init_op(), scaffold2.init_op());
  EXPECT_EQ(scaffold1.ready_op()->name(), scaffold2.ready_op()->name());
  EXPECT_EQ(scaffold1.ready_for_local_init_op()->name(),
            scaffold2.ready_for_local_init_op()->name());
  EXPECT_EQ(scaffold1.local_init_op(), scaffold2.local_init_op());
  EXPECT_EQ(scaffold1.saver(), scaffold2.saver());
}

TEST_F(ScaffoldTest, test_raise_error_if_more_than_one_cached_item) {
  Variable v(Tensor::Vector<int32_t>({1}), "Variable");
  graph_.AddToCollection(GraphKeys::kSavers, std::make_shared<Saver>());
  graph_.AddToCollection(GraphKeys::kSavers, std::make_shared<Saver>());
  EXPECT_THAT([&] { Scaffold().Finalize(); },
              ThrowsMessage<RuntimeError>(HasSubstr("More than one item")));
}

TEST_F(ScaffoldTest, test_uses_passed_values) {
  Variable v(Tensor::Vector<int32_t>({1}), "Variable");
  auto saver = std::make_shared<Saver>();
  Output fed = Placeholder(DataType::kFloat);
  ScaffoldOptions options;
  options.init_op = NoOp("init_2");
  options.init_feed_dict = {{fed, Tensor::Scalar(3.0f)}};
  options.init_fn = [](const Scaffold&, SessionInterface&) {};
  options.ready_op = Constant(Tensor::Vector<std::string>({}), "ready_5");
  options.ready_for_local_init_op = Constant(Tensor::Vector<std::string>({}), "ready_6");
  options.local_init_op = NoOp("local_init_7");
  options.saver = saver;
  Scaffold scaffold(options);
  scaffold.Finalize();
  EXPECT_EQ(scaffold.init_op(), options.init_op);
  EXPECT_EQ(scaffold.init_feed_dict().size(), 1u);
  EXPECT_TRUE(scaffold.init_fn());
  EXPECT_EQ(scaffold.ready_op()->name(), "ready_5:0");
  EXPECT_EQ(scaffold.ready_for_local_init_op()->name(), "ready_6:0");
  EXPECT_EQ(scaffold.local_init_op(), options.local_init_op);
  EXPECT_EQ(scaffold.saver(), saver);
}

TEST_F(ScaffoldTest, test_graph_is_finalized) {
  Variable v(Tensor::Vector<int32_t>({1}), "Variable");
  Scaffold().Finalize();
  EXPECT_THAT([&] { Constant(0); },
              ThrowsMessage<RuntimeError>(HasSubstr("Graph is finalized and cannot be modified")));
}

// ---- MonitoredTrainingSessionTest -----------------------------------------------------------

class MonitoredTrainingSessionTest : public GraphTest {};

TEST_F(MonitoredTrainingSessionTest, test_saving_restoring_checkpoint) {
  const std::string logdir = NewDir();
  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = logdir;
  options.stop_on_signals = false;
  {
    auto session = MonitoredTrainingSession(options);
    WithMonitoredSession(*session, [&](MonitoredSession& s) {
      EXPECT_EQ(Run(s, gstep_.value()), 0);
      EXPECT_EQ(Run(s, do_step_), 1);
      EXPECT_EQ(Run(s, do_step_), 2);
    });
  }
  auto session = MonitoredTrainingSession(options);  // Finds the checkpoint.
  WithMonitoredSession(*session,
                       [&](MonitoredSession& s) { EXPECT_EQ(Run(s, gstep_.value()), 2); });
}

TEST_F(MonitoredTrainingSessionTest, test_summaries_steps) {
  const std::string logdir = NewDir();
  Output new_gstep = do_step_;
  ScalarSummary("my_summary_tag", Mul(Cast(new_gstep, DataType::kFloat), Constant(2.0f)));
  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = logdir;
  options.save_summaries_steps = 100;
  options.log_step_count_steps = 10;
  options.stop_on_signals = false;
  auto session = MonitoredTrainingSession(options);
  WithMonitoredSession(*session, [&](MonitoredSession& s) {
    for (int i = 0; i < 101; ++i) s.Run(new_gstep);
  });
  SummaryWriterCache::Clear();  // Flushes and closes the writer.
  std::vector<std::string> tags;
  for (const auto& [step, values] : ScalarsIn(logdir)) {
    for (const auto& [tag, value] : values) tags.push_back(tag);
  }
  EXPECT_THAT(tags, Contains("my_summary_tag"));
  EXPECT_THAT(tags, Contains("global_step/sec"));
}

TEST_F(MonitoredTrainingSessionTest, test_summaries_secs) {
  const std::string logdir = NewDir();
  Output new_gstep = do_step_;
  ScalarSummary("my_summary_tag", Mul(Cast(new_gstep, DataType::kFloat), Constant(2.0f)));
  FakeClock clock;
  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = logdir;
  options.save_summaries_secs = 0.1;
  options.log_step_count_steps = 10;
  options.stop_on_signals = false;
  options.clock = &clock;
  auto session = MonitoredTrainingSession(options);
  WithMonitoredSession(*session, [&](MonitoredSession& s) {
    s.Run(new_gstep);
    clock.Advance(200000);  // TensorFlow sleeps 0.2 s.
    for (int i = 0; i < 101; ++i) s.Run(new_gstep);
  });
  SummaryWriterCache::Clear();
  std::vector<std::string> tags;
  for (const auto& [step, values] : ScalarsIn(logdir)) {
    for (const auto& [tag, value] : values) tags.push_back(tag);
  }
  EXPECT_THAT(tags, Contains("my_summary_tag"));
  EXPECT_THAT(tags, Contains("global_step/sec"));
}

TEST_F(MonitoredTrainingSessionTest, test_custom_saving) {
  const std::string logdir = NewDir();
  auto fake_hook = std::make_shared<FakeHook>();
  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = logdir;
  options.chief_only_hooks = {fake_hook};
  options.save_checkpoint_secs = 0;
  options.stop_on_signals = false;
  {
    auto session = MonitoredTrainingSession(options);
    WithMonitoredSession(*session, [&](MonitoredSession& s) {
      EXPECT_EQ(Run(s, gstep_.value()), 0);
      EXPECT_EQ(Run(s, do_step_), 1);
      EXPECT_EQ(Run(s, do_step_), 2);
    });
  }
  EXPECT_EQ(fake_hook->counts["begin"], 1);
  MonitoredTrainingSessionOptions restart;
  restart.checkpoint_dir = logdir;
  restart.stop_on_signals = false;
  auto session = MonitoredTrainingSession(restart);  // Nothing was saved.
  WithMonitoredSession(*session,
                       [&](MonitoredSession& s) { EXPECT_EQ(Run(s, gstep_.value()), 0); });
}

// ---- WrappedSessionTest ---------------------------------------------------------------------

// Stops at the n-th call of CheckStop (TensorFlow's StopAtNSession).
class StopAtNSession : public WrappedSession {
 public:
  StopAtNSession(std::unique_ptr<SessionInterface> inner, int n)
      : WrappedSession(std::move(inner)), count_(n) {}

 protected:
  bool CheckStop() override {
    if (count_ == 0) return true;
    --count_;
    return false;
  }

 private:
  int count_;
};

class WrappedSessionTest : public ::testing::Test {
 protected:
  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Output c_ = Constant(0, "c");
  Output v_ = Identity(c_);
  Session sess_{&graph_};
};

TEST_F(WrappedSessionTest, test_properties) {
  WrappedSession wrapped(Borrow(sess_));
  EXPECT_EQ(wrapped.graph(), sess_.graph());
}

TEST_F(WrappedSessionTest, test_should_stop_on_close) {
  WrappedSession wrapped(Borrow(sess_));
  EXPECT_FALSE(wrapped.ShouldStop());
  wrapped.Close();
  EXPECT_TRUE(wrapped.ShouldStop());
}

TEST_F(WrappedSessionTest, test_should_stop_uses_check_stop) {
  StopAtNSession wrapped(Borrow(sess_), 3);
  EXPECT_FALSE(wrapped.ShouldStop());
  EXPECT_FALSE(wrapped.ShouldStop());
  EXPECT_FALSE(wrapped.ShouldStop());
  EXPECT_TRUE(wrapped.ShouldStop());
}

TEST_F(WrappedSessionTest, test_should_stop_delegates_to_wrapped_session) {
  WrappedSession wrapped1(std::make_unique<StopAtNSession>(Borrow(sess_), 4));
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(wrapped1.ShouldStop());
  EXPECT_TRUE(wrapped1.ShouldStop());
}

TEST_F(WrappedSessionTest, test_close_twice) {
  WrappedSession wrapped(Borrow(sess_));
  wrapped.Close();
  EXPECT_TRUE(wrapped.ShouldStop());
  wrapped.Close();
  EXPECT_TRUE(wrapped.ShouldStop());
}

TEST_F(WrappedSessionTest, test_run) {
  EXPECT_EQ(sess_.Run(v_, {{c_, Tensor::Scalar(42)}}).scalar<int32_t>(), 42);
  WrappedSession wrapped(Borrow(sess_));
  EXPECT_EQ(wrapped.Run(v_, {{c_, Tensor::Scalar(51)}}).scalar<int32_t>(), 51);
}

// ---- CoordinatedSessionTest -----------------------------------------------------------------

class CoordinatedSessionTest : public WrappedSessionTest {
 protected:
  // Three registered threads that wait for the coordinator to stop.
  std::vector<std::shared_ptr<CoordinatedThread>> StartWaiters(Coordinator& coord) {
    std::vector<std::shared_ptr<CoordinatedThread>> threads;
    for (int i = 0; i < 3; ++i) {
      auto t = std::make_shared<CoordinatedThread>("waiter", [&coord] { coord.WaitForStop(); });
      coord.RegisterThread(t);
      t->Start();
      threads.push_back(t);
    }
    return threads;
  }
  std::shared_ptr<Coordinator> coord_ = std::make_shared<Coordinator>();
};

TEST_F(CoordinatedSessionTest, test_properties) {
  CoordinatedSession coord_sess(Borrow(sess_), coord_);
  EXPECT_EQ(coord_sess.graph(), sess_.graph());
}

TEST_F(CoordinatedSessionTest, test_run) {
  CoordinatedSession coord_sess(Borrow(sess_), coord_);
  EXPECT_EQ(coord_sess.Run(v_, {{c_, Tensor::Scalar(42)}}).scalar<int32_t>(), 42);
}

TEST_F(CoordinatedSessionTest, test_should_stop_on_close) {
  CoordinatedSession coord_sess(Borrow(sess_), coord_);
  EXPECT_FALSE(coord_sess.ShouldStop());
  coord_sess.Close();
  EXPECT_TRUE(coord_sess.ShouldStop());
}

TEST_F(CoordinatedSessionTest, test_should_stop_on_coord_stop) {
  CoordinatedSession coord_sess(Borrow(sess_), coord_);
  EXPECT_FALSE(coord_sess.ShouldStop());
  coord_->RequestStop();
  EXPECT_TRUE(coord_sess.ShouldStop());
}

// TensorFlow's failing run fetches None (a TypeError); an unfed placeholder fails here.
TEST_F(CoordinatedSessionTest, test_dont_request_stop_on_exception_in_main_thread) {
  Output unfed = Placeholder(DataType::kInt32);
  CoordinatedSession coord_sess(Borrow(sess_), coord_);
  EXPECT_FALSE(coord_sess.ShouldStop());
  EXPECT_EQ(coord_sess.Run(c_).scalar<int32_t>(), 0);
  EXPECT_EQ(coord_sess.Run(v_, {{c_, Tensor::Scalar(1)}}).scalar<int32_t>(), 1);
  EXPECT_THROW(coord_sess.Run(unfed, {{c_, Tensor::Scalar(2)}}), InvalidArgumentError);
  EXPECT_FALSE(coord_->ShouldStop());
  EXPECT_FALSE(coord_sess.ShouldStop());
}

TEST_F(CoordinatedSessionTest, test_stop_threads_on_close_after_exception) {
  Output unfed = Placeholder(DataType::kInt32);
  auto threads = StartWaiters(*coord_);
  CoordinatedSession coord_sess(Borrow(sess_), coord_);
  EXPECT_FALSE(coord_sess.ShouldStop());
  for (const auto& t : threads) EXPECT_TRUE(t->IsAlive());
  EXPECT_EQ(coord_sess.Run(c_).scalar<int32_t>(), 0);
  for (const auto& t : threads) EXPECT_TRUE(t->IsAlive());
  EXPECT_THROW(coord_sess.Run(unfed), InvalidArgumentError);
  coord_sess.Close();
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive());
  EXPECT_TRUE(coord_->ShouldStop());
  EXPECT_TRUE(coord_sess.ShouldStop());
}

TEST_F(CoordinatedSessionTest, test_stop_threads_on_close) {
  auto threads = StartWaiters(*coord_);
  CoordinatedSession coord_sess(Borrow(sess_), coord_);
  coord_sess.Close();
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive());
  EXPECT_TRUE(coord_->ShouldStop());
  EXPECT_TRUE(coord_sess.ShouldStop());
}

// ---- RecoverableSessionTest -----------------------------------------------------------------

// A session that raises AbortedError at its n-th run (TensorFlow's AbortAtNSession).
class AbortAtNSession : public SessionInterface {
 public:
  AbortAtNSession(SessionInterface& session, int n) : session_(session), count_(n) {}
  using SessionInterface::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    if (count_ == 0) throw AbortedError("Aborted at N");
    --count_;
    return session_.Run(fetches, feeds, targets, options, run_metadata);
  }
  Graph* graph() const override { return session_.graph(); }
  void Close() override {}

 private:
  SessionInterface& session_;
  int count_;
};

// Hands out the sessions it was given, in order; runs out as Python's pop does.
class StackSessionCreator : public SessionCreator {
 public:
  std::unique_ptr<SessionInterface> CreateSession() override {
    if (sessions.empty()) throw RuntimeError("pop from empty list");
    std::unique_ptr<SessionInterface> next = std::move(sessions.front());
    sessions.erase(sessions.begin());
    return next;
  }
  std::vector<std::unique_ptr<SessionInterface>> sessions;
};

class RecoverableSessionTest : public WrappedSessionTest {};

TEST_F(RecoverableSessionTest, test_properties) {
  auto creator = std::make_shared<StackSessionCreator>();
  creator->sessions.push_back(Borrow(sess_));
  RecoverableSession recoverable(creator);
  EXPECT_EQ(recoverable.graph(), sess_.graph());
}

TEST_F(RecoverableSessionTest, test_run) {
  auto creator = std::make_shared<StackSessionCreator>();
  creator->sessions.push_back(Borrow(sess_));
  RecoverableSession recoverable(creator);
  EXPECT_EQ(recoverable.Run(v_, {{c_, Tensor::Scalar(51)}}).scalar<int32_t>(), 51);
}

TEST_F(RecoverableSessionTest, test_recovery) {
  auto creator = std::make_shared<StackSessionCreator>();
  for (int n = 1; n <= 3; ++n)
    creator->sessions.push_back(std::make_unique<AbortAtNSession>(sess_, n));
  RecoverableSession recoverable(creator);
  auto run = [&](int value) {
    return recoverable.Run(v_, {{c_, Tensor::Scalar(value)}}).scalar<int32_t>();
  };
  EXPECT_EQ(creator->sessions.size(), 2u);  // One session taken.
  EXPECT_EQ(run(51), 51);
  EXPECT_EQ(creator->sessions.size(), 2u);
  EXPECT_EQ(run(42), 42);  // Aborts and recovers with the second session.
  EXPECT_EQ(creator->sessions.size(), 1u);
  EXPECT_EQ(run(33), 33);
  EXPECT_EQ(creator->sessions.size(), 1u);
  EXPECT_EQ(run(24), 24);  // Aborts and recovers with the last one.
  EXPECT_EQ(creator->sessions.size(), 0u);
  EXPECT_EQ(run(11), 11);
  EXPECT_EQ(run(0), 0);
  EXPECT_THAT([&] { run(-12); }, ThrowsMessage<RuntimeError>(HasSubstr("pop from empty list")));
}

// ---- HookedSessionTest ----------------------------------------------------------------------

// Records the arguments of the run that reaches it (TensorFlow's FakeSession).
class RecordingSession : public SessionInterface {
 public:
  explicit RecordingSession(SessionInterface& session) : session_(session) {}
  using SessionInterface::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    feeds_seen = feeds;
    options_seen = options;
    metadata_seen = run_metadata;
    return session_.Run(fetches, feeds, targets, options, run_metadata);
  }
  Graph* graph() const override { return session_.graph(); }
  void Close() override {}

  FeedDict feeds_seen;
  RunOptions options_seen;
  RunMetadata* metadata_seen = nullptr;

 private:
  SessionInterface& session_;
};

class HookedSessionTest : public ::testing::Test {
 protected:
  std::unique_ptr<HookedSession> Hooked() {
    return std::make_unique<HookedSession>(
        Borrow(sess_), std::vector<std::shared_ptr<SessionRunHook>>{hook_, hook2_});
  }
  std::vector<int32_t> Ints(const Tensor& t) { return t.ToVector<int32_t>(); }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Output a_tensor_ = Constant(Tensor::Vector<int32_t>({0}), "a_tensor");
  Output b_tensor_ = Constant(Tensor::Vector<int32_t>({0}), "b_tensor");
  Session sess_{&graph_};
  std::shared_ptr<FakeHook> hook_ = std::make_shared<FakeHook>();
  std::shared_ptr<FakeHook> hook2_ = std::make_shared<FakeHook>();
};

TEST_F(HookedSessionTest, testRunPassesAllArguments) {
  Output fed = Placeholder(DataType::kInt32, TensorShape{}, "a_feed");
  auto recording = std::make_unique<RecordingSession>(sess_);
  RecordingSession* seen = recording.get();
  HookedSession mon_sess(std::move(recording), {});
  RunOptions options;
  options.trace_level = RunOptions::TraceLevel::kFullTrace;
  RunMetadata metadata;
  std::vector<Tensor> output =
      mon_sess.Run({a_tensor_}, {{fed, Tensor::Scalar(1)}}, {}, options, &metadata);
  EXPECT_EQ(Ints(output[0]), (std::vector<int32_t>{0}));
  EXPECT_EQ(seen->feeds_seen.size(), 1u);
  EXPECT_EQ(seen->feeds_seen.count(fed), 1u);
  EXPECT_EQ(seen->options_seen.trace_level, RunOptions::TraceLevel::kFullTrace);
  EXPECT_EQ(seen->metadata_seen, &metadata);
}

TEST_F(HookedSessionTest, testCallsHooksBeginEnd) {
  auto mon_sess = Hooked();
  mon_sess->Run(a_tensor_);
  for (const auto& hook : {hook_, hook2_}) {
    EXPECT_TRUE(hook->last_results.empty());
    EXPECT_EQ(hook->last_options.trace_level, RunOptions::TraceLevel::kNoTrace);
    ASSERT_EQ(hook->last_fetches.size(), 1u);
    EXPECT_EQ(hook->last_fetches[0], a_tensor_);
    EXPECT_EQ(hook->last_session, mon_sess->inner());
    EXPECT_EQ(hook->counts["begin"], 0);
    EXPECT_EQ(hook->counts["after_create_session"], 0);
    EXPECT_EQ(hook->counts["before_run"], 1);
    EXPECT_EQ(hook->counts["after_run"], 1);
  }
}

TEST_F(HookedSessionTest, testShouldStop) {
  auto mon_sess = Hooked();
  mon_sess->Run(a_tensor_);
  EXPECT_FALSE(mon_sess->ShouldStop());
  hook_->should_stop = true;
  mon_sess->Run(a_tensor_);
  EXPECT_TRUE(mon_sess->ShouldStop());
}

TEST_F(HookedSessionTest, testFetchesHookRequests) {
  Output another_tensor = Constant(Tensor::Vector<int32_t>({5}), "another_tensor");
  Output third_tensor = Constant(Tensor::Vector<int32_t>({10}), "third_tensor");
  hook_->request.fetches = {another_tensor};
  hook2_->request.fetches = {third_tensor};
  auto mon_sess = Hooked();
  EXPECT_EQ(Ints(mon_sess->Run(a_tensor_)), (std::vector<int32_t>{0}));
  EXPECT_EQ(Ints(hook_->last_results.at(0)), (std::vector<int32_t>{5}));
  EXPECT_EQ(Ints(hook2_->last_results.at(0)), (std::vector<int32_t>{10}));
}

TEST_F(HookedSessionTest, testOnlyHooksHaveFeeds) {
  Output add_tensor = Add(a_tensor_, b_tensor_);
  hook_->request.feeds = {{a_tensor_, Tensor::Vector<int32_t>({5})}};
  hook2_->request.feeds = {{b_tensor_, Tensor::Vector<int32_t>({10})}};
  auto mon_sess = Hooked();
  EXPECT_EQ(Ints(mon_sess->Run(add_tensor)), (std::vector<int32_t>{15}));
}

TEST_F(HookedSessionTest, testBothHooksAndUserHaveFeeds) {
  Output c_tensor = Constant(Tensor::Vector<int32_t>({0}), "c_tensor");
  Output add_tensor = Add(Add(a_tensor_, b_tensor_), c_tensor);
  hook_->request.feeds = {{a_tensor_, Tensor::Vector<int32_t>({5})}};
  hook2_->request.feeds = {{b_tensor_, Tensor::Vector<int32_t>({10})}};
  auto mon_sess = Hooked();
  const FeedDict feed_dict = {{c_tensor, Tensor::Vector<int32_t>({20})}};
  EXPECT_EQ(Ints(mon_sess->Run(add_tensor, feed_dict)), (std::vector<int32_t>{35}));
  EXPECT_EQ(feed_dict.size(), 1u);  // The user's feeds are not changed.
}

TEST_F(HookedSessionTest, testHooksFeedConflicts) {
  Output add_tensor = Add(a_tensor_, b_tensor_);
  hook_->request.feeds = {{a_tensor_, Tensor::Vector<int32_t>({5})}};
  hook2_->request.feeds = {{a_tensor_, Tensor::Vector<int32_t>({10})}};
  auto mon_sess = Hooked();
  EXPECT_THAT([&] { mon_sess->Run(add_tensor); },
              ThrowsMessage<RuntimeError>(HasSubstr("Same tensor is fed")));
}

TEST_F(HookedSessionTest, testHooksAndUserFeedConflicts) {
  Output add_tensor = Add(a_tensor_, b_tensor_);
  hook_->request.feeds = {{a_tensor_, Tensor::Vector<int32_t>({5})}};
  hook2_->request.feeds = {{b_tensor_, Tensor::Vector<int32_t>({10})}};
  auto mon_sess = Hooked();
  EXPECT_THAT(
      [&] {
        mon_sess->Run(add_tensor, {{b_tensor_, Tensor::Vector<int32_t>({10})}});
      },
      ThrowsMessage<RuntimeError>(HasSubstr("Same tensor is fed")));
}

// ---- MonitoredSessionTest -------------------------------------------------------------------

class MonitoredSessionTest : public GraphTest {};

TEST_F(MonitoredSessionTest, test_defaults) {
  Variable a_var(Tensor::Scalar<int32_t>(0), "a_var");
  MonitoredSession session;
  WithMonitoredSession(
      session, [&](MonitoredSession& s) { EXPECT_EQ(s.Run(a_var.value()).scalar<int32_t>(), 0); });
}

// Runs to `first_stop` with `first_hook`, saves through the raw session, then restores in
// a session whose scaffold's init_fn loads that checkpoint and runs under `second_hook`.
TEST_F(MonitoredSessionTest, test_last_step) {
  const std::string logdir = NewDir();
  // TensorFlow's first version of this case finalized a Scaffold here for its saver; its
  // later ones (and this port) make the saver before the session instead, since a hook's
  // Begin may still add the step read to the graph.
  auto saver = std::make_shared<Saver>();
  auto raw = std::make_shared<FakeHook>();
  std::string save_path;
  {
    MonitoredSession session(nullptr, {StopAtStepHook::AtLastStep(3), raw});
    WithMonitoredSession(session, [&](MonitoredSession& s) {
      EXPECT_EQ(Run(s, gstep_.value()), 0);
      EXPECT_FALSE(s.ShouldStop());
      EXPECT_EQ(Run(s, do_step_), 1);
      EXPECT_FALSE(s.ShouldStop());
      EXPECT_EQ(Run(s, do_step_), 2);
      EXPECT_FALSE(s.ShouldStop());
      EXPECT_EQ(Run(s, do_step_), 3);
      EXPECT_TRUE(s.ShouldStop());
      save_path = *saver->Save(*raw->raw, JoinPath(logdir, "step-3"));
    });
  }
  ScaffoldOptions load;
  load.init_fn = [&](const Scaffold& s, SessionInterface& sess) {
    s.saver()->Restore(sess, save_path);
  };
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(std::make_shared<Scaffold>(load)),
                           {StopAtStepHook::AtLastStep(5)});
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(Run(s, gstep_.value()), 3);
    EXPECT_FALSE(s.ShouldStop());
    EXPECT_EQ(Run(s, do_step_), 4);
    EXPECT_FALSE(s.ShouldStop());
    EXPECT_EQ(Run(s, do_step_), 5);
    EXPECT_TRUE(s.ShouldStop());
  });
}

TEST_F(MonitoredSessionTest, test_num_steps) {
  const std::string logdir = NewDir();
  // TensorFlow's first version of this case finalized a Scaffold here for its saver; its
  // later ones (and this port) make the saver before the session instead, since a hook's
  // Begin may still add the step read to the graph.
  auto saver = std::make_shared<Saver>();
  auto raw = std::make_shared<FakeHook>();
  std::string save_path;
  {
    MonitoredSession session(nullptr, {StopAtStepHook::ForNumSteps(3), raw});
    WithMonitoredSession(session, [&](MonitoredSession& s) {
      s.Run(do_step_);
      EXPECT_FALSE(s.ShouldStop());
      s.Run(do_step_);
      EXPECT_FALSE(s.ShouldStop());
      s.Run(do_step_);
      EXPECT_TRUE(s.ShouldStop());
      save_path = *saver->Save(*raw->raw, JoinPath(logdir, "step-3"));
    });
  }
  ScaffoldOptions load;
  load.init_fn = [&](const Scaffold& s, SessionInterface& sess) {
    s.saver()->Restore(sess, save_path);
  };
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(std::make_shared<Scaffold>(load)),
                           {StopAtStepHook::ForNumSteps(4)});
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(Run(s, do_step_), 4);
    EXPECT_FALSE(s.ShouldStop());
    s.Run(do_step_);
    EXPECT_FALSE(s.ShouldStop());
    s.Run(do_step_);
    EXPECT_FALSE(s.ShouldStop());
    s.Run(do_step_);
    EXPECT_TRUE(s.ShouldStop());
  });
}

TEST_F(MonitoredSessionTest, test_recovery) {
  const std::string logdir = NewDir();
  auto scaffold = std::make_shared<Scaffold>();
  CheckpointSaverHookOptions save;
  save.save_steps = 1;
  save.scaffold = scaffold;
  ChiefSessionCreatorOptions in_logdir;
  in_logdir.checkpoint_dir = logdir;
  {
    MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold, in_logdir),
                             {std::make_shared<CheckpointSaverHook>(logdir, save)});
    WithMonitoredSession(session, [&](MonitoredSession& s) {
      EXPECT_EQ(Run(s, gstep_.value()), 0);
      EXPECT_EQ(Run(s, do_step_), 1);
      EXPECT_EQ(Run(s, do_step_), 2);
    });
  }
  {
    MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold, in_logdir));
    WithMonitoredSession(session,
                         [&](MonitoredSession& s) { EXPECT_EQ(Run(s, gstep_.value()), 2); });
  }
  ChiefSessionCreatorOptions from_file;
  from_file.checkpoint_filename_with_path = *LatestCheckpoint(logdir);
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold, from_file));
  WithMonitoredSession(session, [&](MonitoredSession& s) { EXPECT_EQ(Run(s, gstep_.value()), 2); });
}

TEST_F(MonitoredSessionTest, test_retry_initialization_on_aborted_error) {
  bool init_raised_aborted_error = false;
  ScaffoldOptions options;
  options.init_fn = [&](const Scaffold&, SessionInterface&) {
    if (!init_raised_aborted_error) {
      init_raised_aborted_error = true;
      throw AbortedError("Abort");
    }
  };
  MonitoredSession session(
      std::make_shared<ChiefSessionCreator>(std::make_shared<Scaffold>(options)));
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_FALSE(s.ShouldStop());
    EXPECT_EQ(Run(s, gstep_.value()), 0);
  });
  EXPECT_TRUE(init_raised_aborted_error);
}

void RetryTest(GraphTest& t, const Output& gstep, const Output& do_step,
               std::function<void()> raise) {
  auto hook = std::make_shared<RaiseOnceAtCountN>(4, std::move(raise));
  MonitoredSession session(nullptr, {hook});
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(s.Run(gstep).scalar<int64_t>(), 0);
    EXPECT_EQ(s.Run(do_step).scalar<int64_t>(), 1);
    EXPECT_EQ(s.Run(do_step).scalar<int64_t>(), 2);
    EXPECT_FALSE(s.ShouldStop());
    // The hook raises at the 4th run; a fresh session is initialised and the run retried.
    EXPECT_EQ(s.Run(do_step).scalar<int64_t>(), 1);
    EXPECT_FALSE(s.ShouldStop());
    EXPECT_TRUE(hook->raised);
    EXPECT_EQ(s.Run(do_step).scalar<int64_t>(), 2);
    EXPECT_FALSE(s.ShouldStop());
  });
}

TEST_F(MonitoredSessionTest, test_retry_on_aborted_error) {
  RetryTest(*this, gstep_.value(), do_step_, [] { throw AbortedError("Abort"); });
}

TEST_F(MonitoredSessionTest, test_retry_on_unavailable_error) {
  RetryTest(*this, gstep_.value(), do_step_, [] { throw UnavailableError("Unavailable"); });
}

TEST_F(MonitoredSessionTest, test_recover_and_retry_on_aborted_error) {
  const std::string logdir = NewDir();
  auto scaffold = std::make_shared<Scaffold>();
  auto abort_hook = std::make_shared<RaiseOnceAtCountN>(4, [] { throw AbortedError("Abort"); });
  CheckpointSaverHookOptions save;
  save.save_steps = 1;
  save.scaffold = scaffold;
  ChiefSessionCreatorOptions in_logdir;
  in_logdir.checkpoint_dir = logdir;
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(scaffold, in_logdir),
                           {abort_hook, std::make_shared<CheckpointSaverHook>(logdir, save)});
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(Run(s, gstep_.value()), 0);
    EXPECT_EQ(Run(s, do_step_), 1);
    EXPECT_EQ(Run(s, do_step_), 2);
    EXPECT_FALSE(s.ShouldStop());
    EXPECT_EQ(Run(s, do_step_), 3);  // Aborted, restored from step 2, retried.
    EXPECT_TRUE(abort_hook->raised);
    EXPECT_FALSE(s.ShouldStop());
    EXPECT_EQ(Run(s, do_step_), 4);
    EXPECT_FALSE(s.ShouldStop());
  });
}

// A body that meets `raise` at its second run ends the block cleanly.
void CheckCleanExit(MonitoredSession& session, const Output& gstep, const Output& do_step) {
  bool after_raise = false;
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(s.Run(gstep).scalar<int64_t>(), 0);
    EXPECT_FALSE(s.ShouldStop());
    s.Run(do_step);
    after_raise = true;
  });
  EXPECT_FALSE(after_raise);
  EXPECT_TRUE(session.ShouldStop());
}

TEST_F(MonitoredSessionTest, test_exit_cleanly_on_out_of_range_exception) {
  auto hook = std::make_shared<RaiseOnceAtCountN>(2, [] { throw OutOfRangeError("EOI"); });
  MonitoredSession session(nullptr, {hook});
  CheckCleanExit(session, gstep_.value(), do_step_);
}

TEST_F(MonitoredSessionTest, test_exit_cleanly_on_stop_iteration_exception) {
  auto hook = std::make_shared<RaiseOnceAtCountN>(2, [] { throw StopIteration("StopIteration"); });
  MonitoredSession session(nullptr, {hook});
  CheckCleanExit(session, gstep_.value(), do_step_);
}

TEST_F(MonitoredSessionTest, test_regular_exception_pass_through_run) {
  auto hook =
      std::make_shared<RaiseOnceAtCountN>(4, [] { throw RuntimeError("regular exception"); });
  MonitoredSession session(nullptr, {hook});
  bool after_raise = false;
  EXPECT_THAT(
      [&] {
        WithMonitoredSession(session, [&](MonitoredSession& s) {
          EXPECT_EQ(Run(s, gstep_.value()), 0);
          EXPECT_EQ(Run(s, do_step_), 1);
          EXPECT_EQ(Run(s, do_step_), 2);
          EXPECT_FALSE(s.ShouldStop());
          s.Run(do_step_);
          after_raise = true;
        });
      },
      ThrowsMessage<RuntimeError>(HasSubstr("regular exception")));
  EXPECT_FALSE(after_raise);
  EXPECT_TRUE(hook->raised);
  EXPECT_TRUE(session.ShouldStop());
}

TEST_F(MonitoredSessionTest, test_regular_exception_reported_to_coord_pass_through_run) {
  auto hook = std::make_shared<FakeHook>();
  MonitoredSession session(nullptr, {hook});
  bool run_performed_without_error = false;
  EXPECT_THAT(
      [&] {
        WithMonitoredSession(session, [&](MonitoredSession& s) {
          EXPECT_EQ(Run(s, gstep_.value()), 0);
          hook->coord->RequestStop(std::make_exception_ptr(RuntimeError("a thread wants to stop")));
          EXPECT_EQ(Run(s, gstep_.value()), 0);  // Runs normally.
          run_performed_without_error = true;
        });
      },
      ThrowsMessage<RuntimeError>(HasSubstr("a thread wants to stop")));
  EXPECT_TRUE(run_performed_without_error);
}

TEST_F(MonitoredSessionTest, test_regular_exception_reported_to_coord_pass_through_return) {
  auto hook = std::make_shared<FakeHook>();
  MonitoredSession session(nullptr, {hook});
  EXPECT_THAT(
      [&] {
        WithMonitoredSession(session, [&](MonitoredSession& s) {
          EXPECT_EQ(Run(s, gstep_.value()), 0);
          hook->coord->RequestStop(std::make_exception_ptr(RuntimeError("a thread wants to stop")));
          EXPECT_TRUE(s.ShouldStop());
        });
      },
      ThrowsMessage<RuntimeError>(HasSubstr("a thread wants to stop")));
}

TEST_F(MonitoredSessionTest, test_stop_cleanly_when_no_exception_in_with_body) {
  MonitoredSession session;
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(Run(s, do_step_), 1);
    EXPECT_EQ(Run(s, do_step_), 2);
    EXPECT_FALSE(s.ShouldStop());
  });
  EXPECT_TRUE(session.ShouldStop());
  EXPECT_EQ(session.graph(), nullptr);  // Closed.
}

TEST_F(MonitoredSessionTest, test_raises_regular_exceptions_in_with_body) {
  MonitoredSession session;
  EXPECT_THAT(
      [&] {
        WithMonitoredSession(session, [&](MonitoredSession& s) {
          EXPECT_EQ(Run(s, do_step_), 1);
          EXPECT_EQ(Run(s, do_step_), 2);
          EXPECT_FALSE(s.ShouldStop());
          throw RuntimeError("regular exception");
        });
      },
      ThrowsMessage<RuntimeError>(HasSubstr("regular exception")));
  EXPECT_TRUE(session.ShouldStop());
  EXPECT_EQ(session.graph(), nullptr);
}

TEST_F(MonitoredSessionTest, test_graph) {
  MonitoredSession session;
  WithMonitoredSession(session, [&](MonitoredSession& s) { EXPECT_EQ(s.graph(), &graph_); });
}

TEST_F(MonitoredSessionTest, test_graph_finalized_during_run_unfinalized_after_exit) {
  Variable a_var(Tensor::Scalar<int32_t>(0), "a_var");
  MonitoredSession session;
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(s.Run(a_var.value()).scalar<int32_t>(), 0);
    EXPECT_TRUE(graph_.finalized());
  });
  EXPECT_FALSE(graph_.finalized());
}

TEST_F(MonitoredSessionTest, test_keep_finalized_graph_as_finalized) {
  Variable a_var(Tensor::Scalar<int32_t>(0), "a_var");
  Scaffold().Finalize();
  MonitoredSession session;
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(s.Run(a_var.value()).scalar<int32_t>(), 0);
    EXPECT_TRUE(graph_.finalized());
  });
  EXPECT_TRUE(graph_.finalized());
}

// A hook asking for run options (TensorFlow's RunOptionsMetadataHook); mts's RunOptions
// has the trace level and the timeout, TensorFlow's also partition graphs and debug watches.
std::shared_ptr<FakeHook> OptionsHook(RunOptions::TraceLevel trace_level, int64_t timeout_in_ms) {
  auto hook = std::make_shared<FakeHook>();
  hook->request.options.trace_level = trace_level;
  hook->request.options.timeout_in_ms = timeout_in_ms;
  return hook;
}

TEST_F(MonitoredSessionTest, test_merge_run_options_from_hooks) {
  Output my_const = Constant(42, "my_const");
  auto hook_a = OptionsHook(RunOptions::TraceLevel::kNoTrace, 30000);
  auto hook_b = OptionsHook(RunOptions::TraceLevel::kFullTrace, 60000);
  MonitoredSession session(nullptr, {hook_a, hook_b});
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(s.Run(my_const).scalar<int32_t>(), 42);
    // The most detailed trace and the longest timeout win.
    EXPECT_EQ(hook_b->last_options.trace_level, RunOptions::TraceLevel::kFullTrace);
    EXPECT_EQ(hook_b->last_options.timeout_in_ms, 60000);
    EXPECT_EQ(hook_b->counts["after_run"], 1);
    EXPECT_GT(hook_b->last_step_stats, 0u);  // The traced run's metadata reached the hook.
  });
}

TEST_F(MonitoredSessionTest, test_merge_caller_and_hook_run_options) {
  Output my_const = Constant(42, "my_const");
  auto hook = OptionsHook(RunOptions::TraceLevel::kNoTrace, 60000);
  MonitoredSession session(nullptr, {hook});
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    RunOptions caller_options;
    caller_options.trace_level = RunOptions::TraceLevel::kFullTrace;
    caller_options.timeout_in_ms = 30000;
    EXPECT_EQ(s.Run({my_const}, {}, {}, caller_options)[0].scalar<int32_t>(), 42);
    EXPECT_EQ(hook->last_options.trace_level, RunOptions::TraceLevel::kFullTrace);  // Caller's.
    EXPECT_EQ(hook->last_options.timeout_in_ms, 60000);                             // Hook's.
    EXPECT_GT(hook->last_step_stats, 0u);
  });
}

// ---- SingularMonitoredSessionTest -----------------------------------------------------------

class SingularMonitoredSessionTest : public GraphTest {};

TEST_F(SingularMonitoredSessionTest, test_handles_initialization) {
  Variable a_var(Tensor::Scalar<int32_t>(0), "a_var");
  SingularMonitoredSession session;
  WithMonitoredSession(
      session, [&](MonitoredSession& s) { EXPECT_EQ(s.Run(a_var.value()).scalar<int32_t>(), 0); });
}

class RaiseAbortedHook : public SessionRunHook {
 public:
  SessionRunArgs BeforeRun(SessionRunContext&) override { throw AbortedError("Abort"); }
};

TEST_F(SingularMonitoredSessionTest, test_do_not_handle_aborted_error) {
  {
    SingularMonitoredSessionOptions session_options;
    session_options.hooks = {std::make_shared<RaiseAbortedHook>()};
    SingularMonitoredSession session(session_options);
    EXPECT_THROW(session.Run(gstep_.value()), AbortedError);
    session.CloseAfterError();
  }
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {std::make_shared<RaiseAbortedHook>()};
  SingularMonitoredSession session(session_options);
  EXPECT_THROW(WithMonitoredSession(session, [&](MonitoredSession& s) { s.Run(gstep_.value()); }),
               AbortedError);
}

TEST_F(SingularMonitoredSessionTest, test_exit_cleanly_on_out_of_range_exception) {
  auto hook = std::make_shared<RaiseOnceAtCountN>(2, [] { throw OutOfRangeError("EOI"); });
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {hook};
  SingularMonitoredSession session(session_options);
  CheckCleanExit(session, gstep_.value(), do_step_);
}

TEST_F(SingularMonitoredSessionTest, test_regular_exception_reported_to_coord_pass_through_run) {
  auto hook = std::make_shared<FakeHook>();
  SingularMonitoredSessionOptions session_options;
  session_options.hooks = {hook};
  SingularMonitoredSession session(session_options);
  bool run_performed_without_error = false;
  EXPECT_THAT(
      [&] {
        WithMonitoredSession(session, [&](MonitoredSession& s) {
          EXPECT_EQ(Run(s, gstep_.value()), 0);
          hook->coord->RequestStop(std::make_exception_ptr(RuntimeError("a thread wants to stop")));
          EXPECT_EQ(Run(s, gstep_.value()), 0);
          run_performed_without_error = true;
        });
      },
      ThrowsMessage<RuntimeError>(HasSubstr("a thread wants to stop")));
  EXPECT_TRUE(run_performed_without_error);
}

TEST_F(SingularMonitoredSessionTest, test_stop_cleanly_when_no_exception_in_with_body) {
  SingularMonitoredSession session;
  WithMonitoredSession(session, [&](MonitoredSession& s) {
    EXPECT_EQ(Run(s, do_step_), 1);
    EXPECT_EQ(Run(s, do_step_), 2);
    EXPECT_FALSE(s.ShouldStop());
  });
  EXPECT_TRUE(session.ShouldStop());
  EXPECT_EQ(session.raw_session(), nullptr);
}

TEST_F(SingularMonitoredSessionTest, test_graph) {
  SingularMonitoredSession session;
  WithMonitoredSession(session, [&](MonitoredSession& s) { EXPECT_EQ(s.graph(), &graph_); });
}

TEST_F(SingularMonitoredSessionTest, test_raw_session) {
  SingularMonitoredSession session;
  WithMonitoredSession(session, [&](MonitoredSession&) {
    EXPECT_NE(dynamic_cast<Session*>(session.raw_session()), nullptr);
  });
}

}  // namespace
}  // namespace mts
