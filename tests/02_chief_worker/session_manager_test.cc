// Tests of session_manager.h: the chief's PrepareSession (restore, or init op and init fn;
// then local init; then the ready check, with TensorFlow's failure messages), RecoverSession,
// and a worker's WaitForSession polling on a fake clock.
#include "src/02_chief_worker/session_manager.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph_keys.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/saver.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using ::testing::StrEq;
using ::testing::Throws;
using ::testing::ThrowsMessage;

constexpr int64_t kSec = 1000000;

// ---- Test ops ---------------------------------------------------------------------------
//
// In stage 07 the variables live on a parameter server that every worker's session reads, so
// the chief initialising them makes every worker ready. In one process each Session holds
// its own values, and nothing the chief does to its session can change a worker's. These
// two ops stand in for the shared store: an init op that sets a process-wide flag, and a
// ready op that every session reads it through.
std::atomic<bool> shared_store_initialized{false};

void NoOutputs(ShapeContext&) {}
void SharedStoreInitKernel(OpKernelContext&) { shared_store_initialized = true; }
const OpRegistration shared_store_init([] {
  OpDef def{"TestSharedStoreInit", NoOutputs, SharedStoreInitKernel};
  def.stateful = true;
  return def;
}());

void StringVectorOutput(ShapeContext& ctx) {
  ctx.AddOutput(DataType::kString, TensorShape{TensorShape::kUnknownDim});
}
void SharedStoreReportKernel(OpKernelContext& ctx) {
  ctx.set_output(0, shared_store_initialized ? Tensor::Vector<std::string>({})
                                             : Tensor::Vector<std::string>({"ps/w"}));
}
const OpRegistration shared_store_report([] {
  OpDef def{"TestSharedStoreReport", StringVectorOutput, SharedStoreReportKernel};
  def.stateful = true;
  return def;
}());

// A ready op failing with a FailedPrecondition that is not about initialisation.
void OtherFailedPreconditionKernel(OpKernelContext&) {
  throw FailedPreconditionError("the input queue is closed");
}
const OpRegistration other_failed_precondition([] {
  OpDef def{"TestOtherFailedPrecondition", StringVectorOutput, OtherFailedPreconditionKernel};
  def.stateful = true;
  return def;
}());

// ---- Fixture ----------------------------------------------------------------------------

// A model with a global variable w (3, or 7 in the checkpoints) and a local variable l (5),
// with the ops a Scaffold would make for it.
class SessionManagerTest : public ::testing::Test {
 protected:
  SessionManagerOptions Options() {
    SessionManagerOptions options;
    options.local_init_op = local_init_op_;
    options.ready_op = ready_op_;
    options.ready_for_local_init_op = ready_for_local_init_op_;
    options.graph = &graph_;
    options.clock = &clock_;
    return options;
  }

  // Saves w = `value` as <dir>/model.ckpt-<step> from a session of its own; returns the path.
  std::string SaveW(Saver& saver, const std::string& dir, float value, int64_t step) {
    Session session(&graph_);
    session.Run(init_op_);
    session.Run(w_.Assign(Constant(value)).op());
    return *saver.Save(session, JoinPath(dir, "model.ckpt"), step);
  }

  float ValueOf(Session& session, const Variable& v) {
    return session.Run(v.value()).scalar<float>();
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Variable w_{Tensor::Scalar(3.0f), "w"};
  Variable l_ = LocalVariable(Tensor::Scalar(5.0f), "l");
  Operation* init_op_ = GlobalVariablesInitializer();       // "init"
  Operation* local_init_op_ = LocalVariablesInitializer();  // "init_1"
  Output ready_op_ = ReportUninitializedVariables();
  Output ready_for_local_init_op_ = ReportUninitializedVariables(GlobalVariables());
  FakeClock clock_{FakeClock::Mode::kAutoAdvance};
};

// ---- Construction -------------------------------------------------------------------------

// A ready_for_local_init_op gates a local_init_op; alone it makes no sense.
TEST_F(SessionManagerTest, ReadyForLocalInitWithoutLocalInitIsAValueError) {
  SessionManagerOptions options = Options();
  options.local_init_op = nullptr;
  EXPECT_THROW(SessionManager{options}, ValueError);
}

// ---- The chief: initialise ----------------------------------------------------------------

// With nothing to restore: init_op, then init_fn (which sees w set but l not yet), then the
// local init op; the session comes back ready.
TEST_F(SessionManagerTest, InitPathRunsInitOpThenInitFnThenLocalInit) {
  SessionManager manager(Options());
  std::vector<std::string> unset_during_init_fn;
  PrepareSessionOptions init;
  init.init_op = init_op_;
  init.init_fn = [&](SessionInterface& s) {
    unset_during_init_fn = s.Run(ready_op_).ToVector<std::string>();
  };
  auto session = manager.PrepareSession("", init);
  EXPECT_THAT(unset_during_init_fn, ElementsAre("l"));
  EXPECT_EQ(ValueOf(*session, w_), 3.0f);
  EXPECT_EQ(ValueOf(*session, l_), 5.0f);
  EXPECT_EQ(session->graph(), &graph_);
}

// init_feed_dict is fed to init_op.
TEST_F(SessionManagerTest, InitFeedDictIsFedToInitOp) {
  Output start = Placeholder(DataType::kFloat, TensorShape{}, "start");
  Variable fed(start, "fed");
  Operation* init = Group({init_op_, fed.initializer()}, "init_all");
  SessionManager manager(Options());
  PrepareSessionOptions fed_init;
  fed_init.init_op = init;
  fed_init.init_feed_dict = {{start, Tensor::Scalar(11.0f)}};
  auto session = manager.PrepareSession("", fed_init);
  EXPECT_EQ(ValueOf(*session, fed), 11.0f);
}

// local_init_feed_dict is fed to local_init_op; several local init ops are one Group.
TEST_F(SessionManagerTest, LocalInitFeedDictIsFedToAGroupedLocalInitOp) {
  Output start = Placeholder(DataType::kFloat, TensorShape{}, "local_start");
  Variable fed = [&] {
    VariableOptions options;
    options.name = "fed_local";
    options.trainable = false;
    options.collections = {GraphKeys::kLocalVariables};
    return Variable(start, options);
  }();
  SessionManagerOptions options = Options();
  options.local_init_op = Group({local_init_op_, fed.initializer()}, "local_init_all");
  options.local_init_feed_dict = {{start, Tensor::Scalar(13.0f)}};
  SessionManager manager(options);
  PrepareSessionOptions init;
  init.init_op = init_op_;
  auto session = manager.PrepareSession("", init);
  EXPECT_EQ(ValueOf(*session, fed), 13.0f);
  EXPECT_EQ(ValueOf(*session, l_), 5.0f);
}

// Without its feed, a local init op that needs one fails as its run does.
TEST_F(SessionManagerTest, LocalInitOpMissingItsFeedFails) {
  Output start = Placeholder(DataType::kFloat, TensorShape{}, "local_start");
  Variable fed(start, "fed_global");
  SessionManagerOptions options = Options();
  options.local_init_op = fed.initializer();
  SessionManager manager(options);
  PrepareSessionOptions init;
  init.init_op = init_op_;
  EXPECT_THROW(manager.PrepareSession("", init), InvalidArgumentError);
}

// An init_fn alone may initialise the model.
TEST_F(SessionManagerTest, InitFnAloneIsEnough) {
  SessionManager manager(Options());
  PrepareSessionOptions init;
  init.init_fn = [&](SessionInterface& s) { s.Run(init_op_); };
  auto session = manager.PrepareSession("", init);
  EXPECT_EQ(ValueOf(*session, w_), 3.0f);
}

// Nothing restored and nothing to initialise with.
TEST_F(SessionManagerTest, NoWayToInitializeRaises) {
  SessionManagerOptions options = Options();
  options.local_init_op = nullptr;
  options.ready_for_local_init_op = std::nullopt;
  SessionManager manager(options);
  EXPECT_THAT(
      [&] { manager.PrepareSession(""); },
      ThrowsMessage<RuntimeError>(
          StrEq("Model is not initialized and no init_op or init_fn or local_init_op was given")));
}

// An init op that leaves w unset blocks the local init op, which needs w.
TEST_F(SessionManagerTest, NotReadyForLocalInitRaises) {
  SessionManager manager(Options());
  PrepareSessionOptions init;
  init.init_op = NoOp("do_nothing");
  EXPECT_THAT([&] { manager.PrepareSession("", init); },
              ThrowsMessage<RuntimeError>(
                  StrEq("Init operations did not make model ready for local_init.  Init op: "
                        "do_nothing, init fn: None, error: Variables not initialized: w")));
}

// Without a local init op nothing sets l, so the ready check fails.
TEST_F(SessionManagerTest, NotReadyRaises) {
  SessionManagerOptions options = Options();
  options.local_init_op = nullptr;
  options.ready_for_local_init_op = std::nullopt;
  SessionManager manager(options);
  PrepareSessionOptions init;
  init.init_op = init_op_;
  init.init_fn = [](SessionInterface&) {};
  EXPECT_THAT([&] { manager.PrepareSession("", init); },
              ThrowsMessage<RuntimeError>(StrEq(
                  "Init operations did not make model ready.  Init op: init, init fn: <init_fn>, "
                  "local_init_op: None, error: Variables not initialized: l")));
}

// Both a directory and a file is a mistake, reported before any session is made.
TEST_F(SessionManagerTest, BothCheckpointDirAndFileRaise) {
  SessionManager manager(Options());
  PrepareSessionOptions both;
  both.init_op = init_op_;
  both.checkpoint_dir = "/tmp/a";
  both.checkpoint_filename_with_path = "/tmp/a/model.ckpt-1";
  // TensorFlow's words first, then what to do.
  EXPECT_THAT(
      [&] { manager.PrepareSession("", both); },
      ThrowsMessage<ValueError>(StartsWith(
          "Can not provide both checkpoint_dir and checkpoint_filename_with_path. Pass only one")));
}

// ---- Readiness ------------------------------------------------------------------------------

// An int32 result is the legacy ready op: ready, whatever it holds.
TEST_F(SessionManagerTest, AnInt32ReadyOpMeansReady) {
  SessionManagerOptions options;
  options.graph = &graph_;
  options.ready_op = Constant(Tensor::Vector<int32_t>({1, 2}));
  SessionManager manager(options);
  PrepareSessionOptions init;
  init.init_op = NoOp();
  EXPECT_NO_THROW(manager.PrepareSession("", init));
}

// A ready op that reads an unset variable fails with an "uninitialized" FailedPrecondition:
// that means "not ready", and the error text becomes the reason.
TEST_F(SessionManagerTest, UninitializedFailedPreconditionMeansNotReady) {
  SessionManagerOptions options;
  options.graph = &graph_;
  options.ready_op = Identity(w_.value());
  SessionManager manager(options);
  PrepareSessionOptions init;
  init.init_op = NoOp("do_nothing");
  EXPECT_THAT(
      [&] { manager.PrepareSession("", init); },
      ThrowsMessage<RuntimeError>(AllOf(HasSubstr("Init operations did not make model ready."),
                                        HasSubstr("uninitialized"))));
}

// Any other FailedPrecondition is logged and propagates.
TEST_F(SessionManagerTest, OtherFailedPreconditionPropagates) {
  SessionManagerOptions options;
  options.graph = &graph_;
  options.ready_op = graph_.AddOperation("TestOtherFailedPrecondition", "broken", {})->output(0);
  SessionManager manager(options);
  ScopedLogCapture capture;
  PrepareSessionOptions init;
  init.init_op = NoOp();
  EXPECT_THROW(manager.PrepareSession("", init), FailedPreconditionError);
  EXPECT_TRUE(capture.Contains("Model not ready raised: "));
  EXPECT_TRUE(capture.Contains("the input queue is closed"));
}

// ---- The chief: restore ---------------------------------------------------------------------

// A checkpoint file is restored; then neither init_op nor init_fn runs, but local init does.
TEST_F(SessionManagerTest, RestoresFromAFileAndSkipsInit) {
  Saver saver;
  const std::string path = SaveW(saver, NewDir(), 7.0f, 1);
  SessionManager manager(Options());
  int init_fn_calls = 0;
  PrepareSessionOptions restore;
  restore.saver = &saver;
  restore.checkpoint_filename_with_path = path;
  restore.init_op = init_op_;
  restore.init_fn = [&](SessionInterface&) { ++init_fn_calls; };
  auto session = manager.PrepareSession("", restore);
  EXPECT_EQ(ValueOf(*session, w_), 7.0f);
  EXPECT_EQ(ValueOf(*session, l_), 5.0f);
  EXPECT_EQ(init_fn_calls, 0);
}

// A directory's latest checkpoint is restored, and the saver takes over the list of older
// ones so it goes on deleting them.
TEST_F(SessionManagerTest, RestoresTheLatestFromADirectoryAndSkipsInit) {
  Saver saver;
  const std::string dir = NewDir();
  const std::string first = SaveW(saver, dir, 7.0f, 1);
  const std::string second = SaveW(saver, dir, 8.0f, 2);
  Saver restorer;
  SessionManager manager(Options());
  int init_fn_calls = 0;
  PrepareSessionOptions restore;
  restore.saver = &restorer;
  restore.checkpoint_dir = dir;
  restore.init_op = init_op_;
  restore.init_fn = [&](SessionInterface&) { ++init_fn_calls; };
  auto session = manager.PrepareSession("", restore);
  EXPECT_EQ(ValueOf(*session, w_), 8.0f);
  EXPECT_EQ(init_fn_calls, 0);
  EXPECT_THAT(restorer.last_checkpoints(), ElementsAre(first, second));
}

// ---- Damaged checkpoints (beyond TensorFlow) -------------------------------------------------

// Flips one byte of a checkpoint's data section, as a failing disk would: the file is whole
// and the right size, but its last tensor fails its checksum.
void DamageData(const std::string& path) {
  FileSystem& fs = *DefaultFileSystem();
  std::string bytes = fs.ReadFile(path);
  bytes.back() ^= 0x40;
  fs.WriteFileAtomically(path, bytes);
}

// Cuts a checkpoint short, as an interrupted copy would.
void Truncate(const std::string& path) {
  FileSystem& fs = *DefaultFileSystem();
  const std::string bytes = fs.ReadFile(path);
  fs.WriteFileAtomically(path, bytes.substr(0, bytes.size() / 2));
}

// The latest checkpoint fails its checksums: the newest earlier one that passes is restored,
// a warning names both, and the damaged file is left where it was.
TEST_F(SessionManagerTest, ADamagedLatestCheckpointFallsBackToTheNewestSoundOne) {
  Saver saver;
  const std::string dir = NewDir();
  const std::string first = SaveW(saver, dir, 7.0f, 1);
  const std::string second = SaveW(saver, dir, 8.0f, 2);
  const std::string third = SaveW(saver, dir, 9.0f, 3);
  DamageData(third);
  Saver restorer;
  SessionManager manager(Options());
  ScopedLogCapture capture;
  PrepareSessionOptions restore;
  restore.saver = &restorer;
  restore.checkpoint_dir = dir;
  restore.init_op = init_op_;
  auto session = manager.PrepareSession("", restore);
  EXPECT_EQ(ValueOf(*session, w_), 8.0f);
  EXPECT_TRUE(capture.Contains("The latest checkpoint " + third +
                               " is missing or failed its checksums; restored the newest "
                               "earlier checkpoint that passes, " +
                               second));
  EXPECT_TRUE(capture.Contains("fails its checksum"));  // The reader's own diagnosis, kept.
  // Rotation continues from the checkpoint restored; the damaged one is not tracked.
  EXPECT_THAT(restorer.last_checkpoints(), ElementsAre(first, second));
  EXPECT_TRUE(DefaultFileSystem()->Exists(third));
}

// Several damaged checkpoints in a row, one cut short: the search goes on to the oldest.
TEST_F(SessionManagerTest, FallbackSkipsEveryDamagedCheckpoint) {
  Saver saver;
  const std::string dir = NewDir();
  const std::string first = SaveW(saver, dir, 7.0f, 1);
  const std::string second = SaveW(saver, dir, 8.0f, 2);
  const std::string third = SaveW(saver, dir, 9.0f, 3);
  Truncate(third);
  DamageData(second);
  Saver restorer;
  SessionManager manager(Options());
  ScopedLogCapture capture;
  RecoverSessionOptions restore;
  restore.saver = &restorer;
  restore.checkpoint_dir = dir;
  auto [session, restored] = manager.RecoverSession("", restore);
  EXPECT_TRUE(restored);
  EXPECT_EQ(ValueOf(*session, w_), 7.0f);
  EXPECT_TRUE(capture.Contains("restored the newest earlier checkpoint that passes, " + first));
  EXPECT_TRUE(capture.Contains(second + " (Checkpoint file " + second + " is corrupt"));
  EXPECT_THAT(restorer.last_checkpoints(), ElementsAre(first));
}

// When every listed checkpoint is damaged, nothing is restored and nothing is initialised
// over them: DataLossError names each file and says what to do.
TEST_F(SessionManagerTest, EveryCheckpointDamagedIsADataLossErrorNamingEach) {
  Saver saver;
  const std::string dir = NewDir();
  const std::string first = SaveW(saver, dir, 7.0f, 1);
  const std::string second = SaveW(saver, dir, 8.0f, 2);
  DamageData(first);
  DamageData(second);
  Saver restorer;
  SessionManager manager(Options());
  PrepareSessionOptions restore;
  restore.saver = &restorer;
  restore.checkpoint_dir = dir;
  restore.init_op = init_op_;
  EXPECT_THAT(
      [&] { manager.PrepareSession("", restore); },
      ThrowsMessage<DataLossError>(AllOf(
          HasSubstr("Every checkpoint listed in the state file of " + dir + " is missing or fails"),
          HasSubstr(first), HasSubstr(second), HasSubstr("Restore from a backup copy"))));
}

// The newest checkpoint is gone (deleted, or the state file was copied without it): the
// newest earlier one that exists is restored, and the warning says which was missing.
TEST_F(SessionManagerTest, AMissingLatestCheckpointFallsBackToTheNewestThatExists) {
  Saver saver;
  const std::string dir = NewDir();
  const std::string first = SaveW(saver, dir, 7.0f, 1);
  const std::string second = SaveW(saver, dir, 8.0f, 2);
  DefaultFileSystem()->DeleteFile(second);
  Saver restorer;
  SessionManager manager(Options());
  ScopedLogCapture capture;
  PrepareSessionOptions restore;
  restore.saver = &restorer;
  restore.checkpoint_dir = dir;
  restore.init_op = init_op_;
  auto session = manager.PrepareSession("", restore);
  EXPECT_EQ(ValueOf(*session, w_), 7.0f);
  EXPECT_TRUE(capture.Contains("restored the newest earlier checkpoint that passes, " + first));
  EXPECT_TRUE(capture.Contains(second + " (missing)"));
  EXPECT_THAT(restorer.last_checkpoints(), ElementsAre(first));
}

// A newest "checkpoint" that is a FIFO or a link to /dev/zero would block or fill memory:
// it is refused before it is read, and the chief falls back to the one before.
TEST_F(SessionManagerTest, ANewestCheckpointThatIsAFifoOrADeviceFallsBack) {
  for (const std::string kind : {"fifo", "dev_zero"}) {
    Saver saver;
    const std::string dir = NewDir();
    const std::string first = SaveW(saver, dir, 7.0f, 1);
    const std::string second = SaveW(saver, dir, 8.0f, 2);
    DefaultFileSystem()->DeleteFile(second);
    if (kind == "fifo") {
      ASSERT_EQ(::mkfifo(second.c_str(), 0644), 0);
    } else {
      ASSERT_EQ(::symlink("/dev/zero", second.c_str()), 0);
    }
    Saver restorer;
    SessionManager manager(Options());
    ScopedLogCapture capture;
    PrepareSessionOptions restore;
    restore.saver = &restorer;
    restore.checkpoint_dir = dir;
    restore.init_op = init_op_;
    auto session = manager.PrepareSession("", restore);
    EXPECT_EQ(ValueOf(*session, w_), 7.0f) << kind;
    EXPECT_TRUE(capture.Contains("not a regular file")) << kind;
  }
}

// A huge file of zeros named like the newest checkpoint (a sparse file, a disk image) is
// refused after its first bytes, without reading it whole.
TEST_F(SessionManagerTest, AHugeSparseFileIsRefusedByItsHeader) {
  Saver saver;
  const std::string dir = NewDir();
  const std::string first = SaveW(saver, dir, 7.0f, 1);
  const std::string second = SaveW(saver, dir, 8.0f, 2);
  DefaultFileSystem()->WriteFileAtomically(second, "");
  ASSERT_EQ(::truncate(second.c_str(), off_t{1} << 36), 0);  // 64 GiB of zeros, none written.
  Saver restorer;
  SessionManager manager(Options());
  ScopedLogCapture capture;
  PrepareSessionOptions restore;
  restore.saver = &restorer;
  restore.checkpoint_dir = dir;
  restore.init_op = init_op_;
  auto session = manager.PrepareSession("", restore);
  EXPECT_EQ(ValueOf(*session, w_), 7.0f);
  EXPECT_TRUE(capture.Contains("does not start with the mts checkpoint magic"));
}

// An empty or garbage state file is unusable (TensorFlow raises for an empty one and starts
// from scratch after a garbage one, its first saves then overwriting the old checkpoints):
// the newest sound checkpoint file of the directory is restored instead, and it alone is
// tracked, so rotation never deletes files no state file vouched for.
TEST_F(SessionManagerTest, AnUnusableStateFileRestoresTheNewestCheckpointFile) {
  for (const std::string contents :
       {"", "garbage ]]] not a state", "all_model_checkpoint_paths: \"x\""}) {
    Saver saver;
    const std::string dir = NewDir();
    const std::string first = SaveW(saver, dir, 7.0f, 1);
    const std::string tenth = SaveW(saver, dir, 8.0f, 10);
    const std::string second = SaveW(saver, dir, 9.0f, 2);  // Saved last, older step.
    DefaultFileSystem()->WriteFileAtomically(JoinPath(dir, "checkpoint"), contents);
    Saver restorer;
    SessionManager manager(Options());
    ScopedLogCapture capture;
    PrepareSessionOptions restore;
    restore.saver = &restorer;
    restore.checkpoint_dir = dir;
    restore.init_op = init_op_;
    auto session = manager.PrepareSession("", restore);
    EXPECT_EQ(ValueOf(*session, w_), 8.0f) << "the highest step: " << contents;
    EXPECT_TRUE(capture.Contains("is unusable; restoring from the 3 checkpoint file(s)"));
    EXPECT_THAT(restorer.last_checkpoints(), ElementsAre(tenth));
  }
}

// With an unusable state file and no checkpoint file, training starts from scratch, as in
// TensorFlow, and the warning says so.
TEST_F(SessionManagerTest, AnUnusableStateFileAndNoCheckpointStartsFromScratch) {
  const std::string dir = NewDir();
  DefaultFileSystem()->WriteFileAtomically(JoinPath(dir, "checkpoint"), "");
  Saver restorer;
  SessionManager manager(Options());
  ScopedLogCapture capture;
  PrepareSessionOptions restore;
  restore.saver = &restorer;
  restore.checkpoint_dir = dir;
  restore.init_op = init_op_;
  auto session = manager.PrepareSession("", restore);
  EXPECT_EQ(ValueOf(*session, w_), 3.0f);
  EXPECT_TRUE(capture.Contains("no checkpoint file is in " + dir + ": starting from scratch"));
}

// A checkpoint named explicitly is the caller's choice: no other is tried in its place.
TEST_F(SessionManagerTest, ADamagedExplicitCheckpointIsNotReplaced) {
  Saver saver;
  const std::string dir = NewDir();
  SaveW(saver, dir, 7.0f, 1);
  const std::string second = SaveW(saver, dir, 8.0f, 2);
  DamageData(second);
  SessionManager manager(Options());
  PrepareSessionOptions restore;
  restore.saver = &saver;
  restore.checkpoint_filename_with_path = second;
  restore.init_op = init_op_;
  EXPECT_THROW(manager.PrepareSession("", restore), DataLossError);
}

// A checkpoint from another model is not damage: the error is raised, not papered over
// with an older checkpoint of the same wrong model.
TEST_F(SessionManagerTest, AMismatchedModelIsNotTreatedAsDamage) {
  const std::string dir = NewDir();
  {
    Graph other;
    DefaultGraphScope scope(other);
    Variable x(Tensor::Scalar(1.0f), "x");
    Saver other_saver;
    Session session(&other);
    session.Run(GlobalVariablesInitializer());
    other_saver.Save(session, JoinPath(dir, "model.ckpt"), 1);
  }
  Saver restorer;
  SessionManager manager(Options());
  PrepareSessionOptions restore;
  restore.saver = &restorer;
  restore.checkpoint_dir = dir;
  restore.init_op = init_op_;
  EXPECT_THROW(manager.PrepareSession("", restore), NotFoundError);
}

// An empty directory means "start from scratch": the init path.
TEST_F(SessionManagerTest, AnEmptyDirectoryFallsBackToInit) {
  Saver saver;
  SessionManager manager(Options());
  PrepareSessionOptions restore;
  restore.saver = &saver;
  restore.checkpoint_dir = NewDir();
  restore.init_op = init_op_;
  auto session = manager.PrepareSession("", restore);
  EXPECT_EQ(ValueOf(*session, w_), 3.0f);
}

// Waiting for a checkpoint polls every recovery_wait_secs until max_wait_secs have been
// slept, then initialises.
TEST_F(SessionManagerTest, WaitForCheckpointGivesUpAfterMaxWait) {
  Saver saver;
  SessionManager manager(Options());
  ScopedLogCapture capture;
  PrepareSessionOptions restore;
  restore.saver = &saver;
  restore.checkpoint_dir = NewDir();
  restore.wait_for_checkpoint = true;
  restore.max_wait_secs = 100;
  restore.init_op = init_op_;
  auto session = manager.PrepareSession("", restore);
  EXPECT_EQ(ValueOf(*session, w_), 3.0f);
  // Sleeps after 0, 30, 60 and 90 waited secs: 90 < 100 still earns one more.
  EXPECT_EQ(clock_.NowMicros(), 120 * kSec);
  int waits = 0;
  for (const std::string& line : capture.lines()) {
    if (line.find("Waiting for checkpoint to be available.") != std::string::npos) ++waits;
  }
  EXPECT_EQ(waits, 4);
}

// A checkpoint written while the chief waits is restored at the next poll.
TEST_F(SessionManagerTest, WaitForCheckpointRestoresOneThatAppears) {
  FakeClock clock;  // Blocking: time moves only when this test says.
  SessionManagerOptions options = Options();
  options.clock = &clock;
  SessionManager manager(options);
  Saver saver;
  const std::string dir = NewDir();

  // max_wait_secs 30: the chief polls once more after one sleep, whatever happens, so the
  // thread always ends after the one Advance below.
  std::unique_ptr<Session> session;
  PrepareSessionOptions restore;
  restore.saver = &saver;
  restore.checkpoint_dir = dir;
  restore.wait_for_checkpoint = true;
  restore.max_wait_secs = 30;
  restore.init_op = init_op_;
  std::thread chief([&] { session = manager.PrepareSession("", restore); });
  clock.BlockUntilThreadsAsleep(1);  // The chief found no checkpoint and sleeps.
  try {
    SaveW(saver, dir, 7.0f, 1);
  } catch (...) {
    clock.Advance(30 * kSec);
    chief.join();
    throw;
  }
  clock.Advance(30 * kSec);
  chief.join();
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(ValueOf(*session, w_), 7.0f);
}

// RecoverSession never initialises: without a checkpoint it reports false.
TEST_F(SessionManagerTest, RecoverSessionWithoutCheckpointIsNotRecovered) {
  Saver saver;
  SessionManager manager(Options());
  RecoverSessionOptions restore;
  restore.saver = &saver;
  restore.checkpoint_dir = NewDir();
  auto [session, recovered] = manager.RecoverSession("", restore);
  EXPECT_FALSE(recovered);
  EXPECT_THAT(session->Run(ready_op_).ToVector<std::string>(), ElementsAre("w", "l"));
}

// RecoverSession tries the local init op even when there is nothing to restore, as
// TensorFlow's recover_session does: a model whose local variables need no global one gets
// them set, though the session is not recovered.
TEST_F(SessionManagerTest, RecoverSessionRunsLocalInitEvenWithoutACheckpoint) {
  Saver saver;
  SessionManagerOptions options = Options();
  options.ready_for_local_init_op = std::nullopt;
  SessionManager manager(options);
  RecoverSessionOptions restore;
  restore.saver = &saver;
  restore.checkpoint_dir = NewDir();
  auto [session, recovered] = manager.RecoverSession("", restore);
  EXPECT_FALSE(recovered);
  EXPECT_EQ(ValueOf(*session, l_), 5.0f);
}

// With a checkpoint RecoverSession restores, runs local init and reports true.
TEST_F(SessionManagerTest, RecoverSessionRestoresAndRunsLocalInit) {
  Saver saver;
  const std::string dir = NewDir();
  SaveW(saver, dir, 7.0f, 1);
  SessionManager manager(Options());
  ScopedLogCapture capture;
  RecoverSessionOptions restore;
  restore.saver = &saver;
  restore.checkpoint_dir = dir;
  auto [session, recovered] = manager.RecoverSession("", restore);
  EXPECT_TRUE(recovered);
  EXPECT_EQ(ValueOf(*session, w_), 7.0f);
  EXPECT_EQ(ValueOf(*session, l_), 5.0f);
  EXPECT_TRUE(capture.Contains("Restored model from " + dir));
}

// ---- A worker: wait -------------------------------------------------------------------------

// A worker whose model needs only its own local variables is ready after its local init,
// on the first attempt, without sleeping.
TEST_F(SessionManagerTest, WorkerIsReadyAtOnceWhenOnlyLocalInitIsNeeded) {
  SessionManagerOptions options = Options();
  options.ready_op = ReportUninitializedVariables({l_});
  options.ready_for_local_init_op = std::nullopt;
  SessionManager manager(options);
  auto session = manager.WaitForSession("", 100);
  EXPECT_EQ(ValueOf(*session, l_), 5.0f);
  EXPECT_EQ(clock_.NowMicros(), 0);
}

// The worker polls while the chief, on another thread, initialises the shared store; at the
// next poll the worker is ready. Time is the test's: no thread sleeps for real.
TEST_F(SessionManagerTest, WorkerBecomesReadyWhenTheChiefInitializesOnAnotherThread) {
  shared_store_initialized = false;
  Operation* store_init = graph_.AddOperation("TestSharedStoreInit", "store_init", {});
  Output store_ready = graph_.AddOperation("TestSharedStoreReport", "store_ready", {})->output(0);
  FakeClock clock;  // Blocking.
  SessionManagerOptions options;
  options.ready_op = store_ready;
  options.graph = &graph_;
  options.clock = &clock;
  SessionManager chief_manager(options);
  SessionManager worker_manager(options);
  ScopedLogCapture capture;

  std::unique_ptr<Session> worker_session;
  std::thread worker([&] { worker_session = worker_manager.WaitForSession("", 600); });
  clock.BlockUntilThreadsAsleep(1);  // First poll: not ready; the worker sleeps 30 secs.
  EXPECT_TRUE(capture.Contains("Worker still waiting for 1 uninitialized variable: ps/w"));

  std::unique_ptr<Session> chief_session;
  PrepareSessionOptions init;
  init.init_op = store_init;
  std::thread chief([&] { chief_session = chief_manager.PrepareSession("", init); });
  chief.join();
  ASSERT_NE(chief_session, nullptr);

  clock.Advance(30 * kSec);
  worker.join();
  ASSERT_NE(worker_session, nullptr);
  EXPECT_THAT(worker_session->Run(store_ready).ToVector<std::string>(), IsEmpty());
  EXPECT_EQ(clock.NowMicros(), 30 * kSec);
}

// A worker whose chief never comes gives up once the next sleep would pass max_wait_secs.
TEST_F(SessionManagerTest, WorkerTimesOutWithDeadlineExceeded) {
  SessionManager manager(Options());
  EXPECT_THAT([&] { manager.WaitForSession("", 100); },
              Throws<DeadlineExceededError>(
                  HasMessage(StartsWith("Session was not ready after waiting 100 secs. "))));
  // Attempts at 0, 30, 60 and 90 secs; at 90 only 10 secs remain, less than one wait.
  EXPECT_EQ(clock_.NowMicros(), 90 * kSec);
}

// A last wait that ends exactly at the deadline is still waited: with 90 secs, attempts at
// 0, 30, 60 and 90 (TensorFlow gives up only when the time left is less than one wait).
TEST_F(SessionManagerTest, WorkerWaitsALastIntervalThatEndsAtTheDeadline) {
  SessionManager manager(Options());
  EXPECT_THROW(manager.WaitForSession("", 90), DeadlineExceededError);
  EXPECT_EQ(clock_.NowMicros(), 90 * kSec);
}

// At least one attempt is made, even with no time to wait.
TEST_F(SessionManagerTest, WorkerWithNoTimeTriesOnce) {
  SessionManager manager(Options());
  EXPECT_THROW(manager.WaitForSession("", 0), DeadlineExceededError);
  EXPECT_EQ(clock_.NowMicros(), 0);
}

// Each poll logs TensorFlow's line and mts's: which variables are missing and how long
// remains.
TEST_F(SessionManagerTest, WorkerLogsWhatItWaitsForAtEachPoll) {
  SessionManager manager(Options());
  ScopedLogCapture capture;
  EXPECT_THROW(manager.WaitForSession("", 100), DeadlineExceededError);
  EXPECT_TRUE(capture.Contains(
      "Waiting for model to be ready.  Ready_for_local_init_op:  Variables not initialized: w, "
      "ready: None"));
  EXPECT_TRUE(
      capture.Contains("Worker still waiting for 1 uninitialized variable: w; next "
                       "check in 30 secs, giving up in 100 secs."));
  EXPECT_TRUE(capture.Contains("giving up in 70 secs."));
  EXPECT_TRUE(capture.Contains("giving up in 40 secs."));
  EXPECT_FALSE(capture.Contains("giving up in 10 secs."));  // That attempt raised instead.
}

// Without a local init op the ready op is what blocks, and the log names all it reports.
TEST_F(SessionManagerTest, WorkerLogNamesEveryMissingVariable) {
  SessionManagerOptions options = Options();
  options.local_init_op = nullptr;
  options.ready_for_local_init_op = std::nullopt;
  SessionManager manager(options);
  ScopedLogCapture capture;
  EXPECT_THROW(manager.WaitForSession("", 30), DeadlineExceededError);
  EXPECT_TRUE(capture.Contains(
      "Waiting for model to be ready.  Ready_for_local_init_op:  None, ready: Variables not "
      "initialized: w, l"));
  EXPECT_TRUE(
      capture.Contains("Worker still waiting for 2 uninitialized variables: w, l; "
                       "next check in 30 secs, giving up in 30 secs."));
}

}  // namespace
}  // namespace mts
