// Tests of saver.h: round trips of every dtype, restoring into fresh sessions and graphs,
// the errors of a checkpoint that does not fit the graph (all or nothing), rotation by
// max_to_keep and keep_checkpoint_every_n_hours on a FakeClock, the state file, and the
// argument errors TensorFlow raises.
#include "src/02_chief_worker/saver.h"

#include <errno.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/tensor_types.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"
#include "tests/testing/counting_session.h"
#include "tests/testing/failing_file_system.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

// A variable of every dtype (and an empty one), plus an op that overwrites them all, so a
// test can tell restored values from current ones.
struct Model {
  Model()
      : f32(Tensor::Matrix<float>({{1.5f, -2}, {3, 4}}), "dense/w"),
        f64(Tensor::Vector<double>({0.1, 1e300}), "f64"),
        i32(Tensor::Scalar<int32_t>(-7), "i32"),
        step(Tensor::Scalar<int64_t>(100), "global_step"),
        flags(Tensor::Vector<bool>({true, false, true}), "flags"),
        words(Tensor::Vector<std::string>({"", "checkpoint", std::string("\0x", 2)}), "words"),
        empty(Tensor::Zeros(DataType::kFloat, {0, 3}), "empty") {
    std::vector<Operation*> writes = {
        f32.Assign(Constant(Tensor::Zeros(DataType::kFloat, {2, 2}))).op(),
        f64.Assign(Constant(Tensor::Vector<double>({9, 9}))).op(),
        i32.Assign(Constant(Tensor::Scalar<int32_t>(9))).op(),
        step.Assign(Constant(Tensor::Scalar<int64_t>(9))).op(),
        flags.Assign(Constant(Tensor::Vector<bool>({false, false, false}))).op(),
        words.Assign(Constant(Tensor::Vector<std::string>({"x", "y", "z"}))).op(),
    };
    overwrite = Group(writes, "overwrite");
    init = GlobalVariablesInitializer();
  }
  std::vector<Variable> all() const { return {f32, f64, i32, step, flags, words, empty}; }
  std::vector<Tensor> Values(Session& session) const {
    std::vector<Output> reads;
    for (const Variable& v : all()) reads.push_back(v.value());
    return session.Run(reads);
  }

  Variable f32, f64, i32, step, flags, words, empty;
  Operation* overwrite;
  Operation* init;
};

void ExpectSameValues(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(TensorEqual(a[i], b[i])) << i;
}

class SaverTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = NewDir(); }
  std::string Path(const std::string& name) const { return JoinPath(dir_, name); }
  std::string State() { return fs_->ReadFile(Path("checkpoint")); }

  // Writes Path("model.ckpt-<step>") as another program would, and returns that path: in a
  // graph of its own, `build` makes the variables and gives them their values in the
  // session it is handed (runs the initializer, perhaps more); a Saver of all of them then
  // saves. The test's graph is untouched: a restore into it shares only the names.
  std::string SaveCheckpointFrom(const std::function<void(Session&)>& build, int64_t step = 1) {
    Graph graph;
    DefaultGraphScope as_default(graph);
    Session session;
    build(session);
    Saver saver;
    return *saver.Save(session, Path("model.ckpt"), step);
  }

  FileSystem* fs_ = DefaultFileSystem();
  std::string dir_;
  Graph g_;
  DefaultGraphScope as_default_{g_};
};

// ---- Round trips ------------------------------------------------------------------------------

// Every dtype (strings with NULs, an empty tensor) comes back exactly as saved.
TEST_F(SaverTest, SaveThenRestoreRoundTripsEveryDtype) {
  Model model;
  Saver saver;
  Session session;
  session.Run(model.init);
  const std::vector<Tensor> saved = model.Values(session);
  EXPECT_EQ(saver.Save(session, Path("model.ckpt"), 100), Path("model.ckpt-100"));
  session.Run(model.overwrite);
  saver.Restore(session, Path("model.ckpt-100"));
  ExpectSameValues(model.Values(session), saved);
}

// A fresh session needs no initializer: restoring sets every variable.
TEST_F(SaverTest, RestoreIntoAFreshSessionSetsEveryVariable) {
  Model model;
  Saver saver;
  std::vector<Tensor> saved;
  {
    Session session;
    session.Run(model.init);
    saved = model.Values(session);
    saver.Save(session, Path("model.ckpt"), 1);
  }
  Session fresh;
  saver.Restore(fresh, Path("model.ckpt-1"));
  ExpectSameValues(model.Values(fresh), saved);
}

// A new process rebuilds the same graph and restores into it: only names must match.
TEST_F(SaverTest, RestoreIntoAnotherGraphBuiltTheSameWay) {
  std::vector<Tensor> saved;
  SaveCheckpointFrom(
      [&](Session& session) {
        Model model;
        session.Run(model.init);
        session.Run(model.overwrite);
        saved = model.Values(session);
      },
      7);
  Model model;
  Saver saver;
  Session session;
  saver.Restore(session, Path("model.ckpt-7"));
  ExpectSameValues(model.Values(session), saved);
}

// Save reads all variables in one Run; Restore assigns them all in one Run.
TEST_F(SaverTest, SaveAndRestoreEachUseOneRun) {
  Model model;
  Saver saver;
  auto session = std::make_unique<Session>();
  session->Run(model.init);
  CountingSession counting(std::move(session));
  saver.Save(counting, Path("model.ckpt"), 1);
  EXPECT_EQ(counting.runs(), 1);
  saver.Restore(counting, Path("model.ckpt-1"));
  EXPECT_EQ(counting.runs(), 2);
}

// The prefix is "<save_path>-<step>", zero-padded with pad_step_number, or the path itself.
TEST_F(SaverTest, SaveReturnsThePrefixItWrote) {
  Model model;
  Session session;
  session.Run(model.init);
  Saver saver;
  EXPECT_EQ(saver.Save(session, Path("model.ckpt"), 42), Path("model.ckpt-42"));
  EXPECT_EQ(saver.Save(session, Path("model.ckpt")), Path("model.ckpt"));
  SaverOptions padded;
  padded.pad_step_number = true;
  Saver padded_saver({}, padded);
  EXPECT_EQ(padded_saver.Save(session, Path("model.ckpt"), 42), Path("model.ckpt-00000042"));
  for (const std::string name : {"model.ckpt-42", "model.ckpt", "model.ckpt-00000042"}) {
    EXPECT_TRUE(fs_->Exists(Path(name))) << name;
  }
}

// ---- Restore errors: all or nothing -----------------------------------------------------------

// No file at the path: ValueError with TensorFlow's text.
TEST_F(SaverTest, RestoreFromAMissingPathIsValueError) {
  Model model;
  Saver saver;
  Session session;
  EXPECT_THAT(
      [&] { saver.Restore(session, Path("model.ckpt-404")); },
      ThrowsMessage<ValueError>(StartsWith(
          "The passed save_path is not a valid checkpoint: " + Path("model.ckpt-404") + ". ")));
}

// A checkpoint lacking some of the graph's variables names every missing one, and changes
// none of the variables it does hold.
TEST_F(SaverTest, RestoreWithMissingVariablesIsNotFoundListingThemAndAssignsNothing) {
  SaveCheckpointFrom([](Session& session) {
    Variable a(Tensor::Scalar<float>(1), "a");
    session.Run(GlobalVariablesInitializer());
  });
  Variable a(Tensor::Scalar<float>(5), "a");
  Variable b(Tensor::Scalar<float>(5), "b");
  Variable c(Tensor::Scalar<float>(5), "scope/c");
  Saver saver;
  Session session;
  session.Run(GlobalVariablesInitializer());
  EXPECT_THAT([&] { saver.Restore(session, Path("model.ckpt-1")); },
              ThrowsMessage<NotFoundError>(
                  AllOf(HasSubstr("b, scope/c"), HasSubstr(Path("model.ckpt-1")))));
  EXPECT_EQ(session.Run(a.value()).scalar<float>(), 5);
}

// A stored shape that differs names the variable and both shapes; nothing is assigned.
TEST_F(SaverTest, RestoreWithAShapeMismatchNamesTheVariableAndBothShapes) {
  SaveCheckpointFrom([](Session& session) {
    Variable a(Tensor::Scalar<float>(1), "a");
    Variable w(Tensor::Zeros(DataType::kFloat, {2, 2}), "w");
    session.Run(GlobalVariablesInitializer());
  });
  Variable a(Tensor::Scalar<float>(5), "a");
  Variable w(Tensor::Zeros(DataType::kFloat, {3}), "w");
  Saver saver;
  Session session;
  session.Run(GlobalVariablesInitializer());
  EXPECT_THAT([&] { saver.Restore(session, Path("model.ckpt-1")); },
              ThrowsMessage<InvalidArgumentError>(
                  AllOf(HasSubstr("'w'"), HasSubstr("[3]"), HasSubstr("[2,2]"))));
  EXPECT_EQ(session.Run(a.value()).scalar<float>(), 5);
}

// A stored dtype that differs is InvalidArgumentError naming both dtypes.
TEST_F(SaverTest, RestoreWithADtypeMismatchIsInvalidArgument) {
  SaveCheckpointFrom([](Session& session) {
    Variable v(Tensor::Scalar<int32_t>(1), "v");
    session.Run(GlobalVariablesInitializer());
  });
  Variable v(Tensor::Scalar<float>(5), "v");
  Saver saver;
  Session session;
  EXPECT_THAT([&] { saver.Restore(session, Path("model.ckpt-1")); },
              ThrowsMessage<InvalidArgumentError>(AllOf(HasSubstr("float32"), HasSubstr("int32"))));
}

// A corrupt checkpoint is DataLossError naming file and tensor, and no variable changes,
// even those whose data is intact.
TEST_F(SaverTest, RestoreFromACorruptFileIsDataLossAndAssignsNothing) {
  Model model;
  Saver saver;
  Session session;
  session.Run(model.init);
  saver.Save(session, Path("model.ckpt"), 1);
  std::string bytes = fs_->ReadFile(Path("model.ckpt-1"));
  bytes.back() ^= 1;  // The last byte is data of "words", the last name in sorted order.
  fs_->WriteFileAtomically(Path("model.ckpt-1"), bytes);
  session.Run(model.overwrite);
  const std::vector<Tensor> before = model.Values(session);
  EXPECT_THAT(
      [&] { saver.Restore(session, Path("model.ckpt-1")); },
      ThrowsMessage<DataLossError>(AllOf(HasSubstr(Path("model.ckpt-1")), HasSubstr("'words'"))));
  ExpectSameValues(model.Values(session), before);
}

// A large checkpoint is read on two threads (ReadAll in saver.cc): the values are the ones
// saved, and when several tensors are damaged the error names the first in the Saver's
// order, every time, whichever thread reaches its tensor first.
TEST_F(SaverTest, ALargeRestoreIsExactAndNamesTheFirstDamagedTensor) {
  constexpr int64_t kElements = int64_t{1} << 20;  // 4 MiB each, 20 MiB in all.
  std::vector<Variable> vars;
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    Tensor value(DataType::kFloat, {kElements});
    for (int64_t i = 0; i < kElements; ++i) value.flat<float>()(i) = name[0] * 1e6f + i;
    vars.emplace_back(value, name);
  }
  Saver saver;
  Session session;
  session.Run(GlobalVariablesInitializer());
  std::vector<Tensor> saved;
  for (const Variable& v : vars) saved.push_back(session.Run(v.value()).Copy());
  saver.Save(session, Path("model.ckpt"), 1);
  for (const Variable& v : vars) {
    session.Run(v.Assign(Constant(Tensor::Zeros(DataType::kFloat, {kElements}))));
  }
  saver.Restore(session, Path("model.ckpt-1"));
  for (size_t i = 0; i < vars.size(); ++i) {
    EXPECT_TRUE(TensorEqual(session.Run(vars[i].value()), saved[i])) << vars[i].name();
  }

  // The data section holds a..e in name order and ends the file: damage the last byte of
  // each of b, c, d and e.
  std::string bytes = fs_->ReadFile(Path("model.ckpt-1"));
  for (int k = 0; k < 4; ++k) bytes[bytes.size() - 1 - k * kElements * sizeof(float)] ^= 1;
  fs_->WriteFileAtomically(Path("model.ckpt-1"), bytes);
  for (int attempt = 0; attempt < 5; ++attempt) {
    EXPECT_THAT([&] { saver.Restore(session, Path("model.ckpt-1")); },
                ThrowsMessage<DataLossError>(AllOf(HasSubstr("'b'"), Not(HasSubstr("'c'")))));
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    EXPECT_TRUE(TensorEqual(session.Run(vars[i].value()), saved[i])) << vars[i].name();
  }
}

// ---- Save errors ------------------------------------------------------------------------------

// Saving an uninitialised variable fails in the Run, before any file is written.
TEST_F(SaverTest, SaveWithAnUninitializedVariableIsFailedPreconditionAndWritesNothing) {
  Variable v(Tensor::Scalar<float>(1), "v");
  Saver saver;
  Session session;
  EXPECT_THAT([&] { saver.Save(session, Path("model.ckpt"), 1); },
              ThrowsMessage<FailedPreconditionError>(HasSubstr("v")));
  EXPECT_THAT(fs_->ListDirectory(dir_), IsEmpty());
}

// A missing parent directory gets TensorFlow's message; nothing changes.
TEST_F(SaverTest, SaveIntoAMissingDirectoryIsValueError) {
  Model model;
  Saver saver;
  Session session;
  session.Run(model.init);
  const std::string path = Path("no/such/dir/model.ckpt");
  EXPECT_THAT([&] { saver.Save(session, path, 1); },
              ThrowsMessage<ValueError>(
                  StartsWith("Parent directory of " + path + " doesn't exist, can't save. ")));
  EXPECT_THAT(saver.last_checkpoints(), IsEmpty());
  EXPECT_THAT(fs_->ListDirectory(dir_), IsEmpty());
}

// latest_filename may not contain a directory, nor be the checkpoint's own name.
TEST_F(SaverTest, LatestFilenameErrors) {
  Model model;
  Saver saver;
  Session session;
  session.Run(model.init);
  EXPECT_THROW(saver.Save(session, Path("model.ckpt"), 1, "sub/checkpoint"), ValueError);
  EXPECT_THROW(saver.Save(session, Path("checkpoint")), ValueError);
  EXPECT_THROW(saver.Save(session, Path("state"), std::nullopt, "state"), ValueError);
  EXPECT_THAT(fs_->ListDirectory(dir_), IsEmpty());
  // With a step the names differ, and any latest_filename works.
  saver.Save(session, Path("checkpoint"), 1, "state");
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("checkpoint-1", "state"));
  EXPECT_EQ(LatestCheckpoint(dir_, "state"), Path("checkpoint-1"));
}

// ---- The state file and rotation --------------------------------------------------------------

// After several saves the state file lists the kept checkpoints, oldest first, as TF writes.
TEST_F(SaverTest, StateFileAfterSeveralSavesListsTheKeptOnesOldestFirst) {
  Model model;
  Saver saver;
  Session session;
  session.Run(model.init);
  for (int step : {10, 20, 30}) saver.Save(session, Path("model.ckpt"), step);
  EXPECT_EQ(State(), "model_checkpoint_path: \"" + Path("model.ckpt-30") + "\"\n" +
                         "all_model_checkpoint_paths: \"" + Path("model.ckpt-10") + "\"\n" +
                         "all_model_checkpoint_paths: \"" + Path("model.ckpt-20") + "\"\n" +
                         "all_model_checkpoint_paths: \"" + Path("model.ckpt-30") + "\"\n");
  EXPECT_EQ(LatestCheckpoint(dir_), Path("model.ckpt-30"));
}

// In a relative directory the state file holds relative paths; save_relative_paths does
// the same for an absolute one.
TEST_F(SaverTest, StateFileHoldsRelativePathsForARelativeDirectoryOrWhenAsked) {
  Model model;
  Session session;
  session.Run(model.init);
  const std::string expected =
      "model_checkpoint_path: \"model.ckpt-2\"\n"
      "all_model_checkpoint_paths: \"model.ckpt-1\"\n"
      "all_model_checkpoint_paths: \"model.ckpt-2\"\n";
  SaverOptions relative;
  relative.save_relative_paths = true;
  Saver saver({}, relative);
  saver.Save(session, Path("model.ckpt"), 1);
  saver.Save(session, Path("model.ckpt"), 2);
  EXPECT_EQ(State(), expected);
  EXPECT_EQ(LatestCheckpoint(dir_), Path("model.ckpt-2"));

  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(::chdir(dir_.c_str()), 0);
  fs_->CreateDirectories("logs");
  Saver plain;
  plain.Save(session, "logs/model.ckpt", 1);
  plain.Save(session, "logs/model.ckpt", 2);
  const std::string state = fs_->ReadFile("logs/checkpoint");
  const std::optional<std::string> latest = LatestCheckpoint("logs");
  // A save path with no directory at all saves into the working directory. (TensorFlow
  // raises here, from os.path.relpath(p, ""); mts treats "" as ".".)
  Saver bare;
  bare.Save(session, "model.ckpt", 1);
  bare.Save(session, "model.ckpt", 2);
  const std::string bare_state = fs_->ReadFile("checkpoint");
  const std::optional<std::string> bare_latest = LatestCheckpoint("");
  ASSERT_EQ(::chdir(cwd), 0);
  EXPECT_EQ(state, expected);
  EXPECT_EQ(latest, "logs/model.ckpt-2");
  EXPECT_EQ(bare_state, expected);
  EXPECT_EQ(bare_latest, "model.ckpt-2");
}

// max_to_keep keeps the newest N; each save beyond deletes the oldest file.
TEST_F(SaverTest, MaxToKeepDeletesTheOldest) {
  Model model;
  SaverOptions options;
  options.max_to_keep = 2;
  Saver saver({}, options);
  Session session;
  session.Run(model.init);
  for (int step = 1; step <= 4; ++step) saver.Save(session, Path("model.ckpt"), step);
  EXPECT_THAT(saver.last_checkpoints(), ElementsAre(Path("model.ckpt-3"), Path("model.ckpt-4")));
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("checkpoint", "model.ckpt-3", "model.ckpt-4"));
  EXPECT_EQ(GetCheckpointState(dir_)->all_model_checkpoint_paths, saver.last_checkpoints());
}

// max_to_keep 0 keeps every file, tracks none, and the state file names only the newest.
TEST_F(SaverTest, MaxToKeepZeroKeepsEveryFileAndListsOnlyTheNewest) {
  Model model;
  SaverOptions options;
  options.max_to_keep = 0;
  Saver saver({}, options);
  Session session;
  session.Run(model.init);
  for (int step = 1; step <= 3; ++step) saver.Save(session, Path("model.ckpt"), step);
  EXPECT_THAT(saver.last_checkpoints(), IsEmpty());
  EXPECT_THAT(fs_->ListDirectory(dir_),
              ElementsAre("checkpoint", "model.ckpt-1", "model.ckpt-2", "model.ckpt-3"));
  EXPECT_THAT(GetCheckpointState(dir_)->all_model_checkpoint_paths,
              ElementsAre(Path("model.ckpt-3")));
}

// Saving to a tracked path again moves it to the newest place instead of listing it twice.
TEST_F(SaverTest, SavingATrackedPathAgainMovesItToTheNewestPlace) {
  Model model;
  Saver saver;
  Session session;
  session.Run(model.init);
  for (int step : {1, 2, 1}) saver.Save(session, Path("model.ckpt"), step);
  EXPECT_THAT(saver.last_checkpoints(), ElementsAre(Path("model.ckpt-2"), Path("model.ckpt-1")));
}

// keep_checkpoint_every_n_hours: of the checkpoints rotated out, one per N hours of the
// fake clock is kept forever and drops out of the state file.
TEST_F(SaverTest, KeepCheckpointEveryNHoursKeepsOnePerPeriodForever) {
  Model model;
  FakeClock clock;
  SaverOptions options;
  options.max_to_keep = 2;
  options.keep_checkpoint_every_n_hours = 1;  // The first is due after 60 minutes.
  options.clock = &clock;
  Saver saver({}, options);
  Session session;
  session.Run(model.init);
  // Step s is saved at minute 20 * (s - 1). A rotated-out checkpoint younger than the due
  // time is deleted; the first one older is kept and the due time moves on an hour.
  for (int step = 1; step <= 10; ++step) {
    saver.Save(session, Path("model.ckpt"), step);
    clock.Advance(int64_t{20} * 60 * 1000000);
  }
  // Rotated out: 1 (0 min), 2 (20), 3 (40), 4 (60, not past the 60 due), deleted;
  // 5 (80) kept, due 120; 6 (100), 7 (120) deleted; 8 (140) kept, due 180.
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("checkpoint", "model.ckpt-10", "model.ckpt-5",
                                                    "model.ckpt-8", "model.ckpt-9"));
  EXPECT_THAT(GetCheckpointState(dir_)->all_model_checkpoint_paths,
              ElementsAre(Path("model.ckpt-9"), Path("model.ckpt-10")));
}

// With write_state false nothing is tracked or rotated and no state file appears.
TEST_F(SaverTest, SaveWithoutWriteStateOnlyWritesTheCheckpoint) {
  Model model;
  Saver saver;
  Session session;
  session.Run(model.init);
  saver.Save(session, Path("model.ckpt"), 1, "checkpoint", /*write_state=*/false);
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("model.ckpt-1"));
  EXPECT_THAT(saver.last_checkpoints(), IsEmpty());
}

// The steps of a save in their order, seen through a disk that fails at one of them: a
// checkpoint that cannot be written is never named by the state file (the state file is
// replaced only after the checkpoint is whole), and when the state file cannot be replaced,
// the checkpoint it still names is still there (the oldest is deleted only after).
TEST_F(SaverTest, ASaveThatFailsPartWayLeavesTheNamedCheckpointWhole) {
  Model model;
  Session session;
  session.Run(model.init);
  SaverOptions options;
  options.max_to_keep = 1;

  FailingWritesFileSystem no_checkpoint(Path("model.ckpt-2"), ENOSPC);
  no_checkpoint.set_failing(false);
  options.file_system = &no_checkpoint;
  Saver first({}, options);
  first.Save(session, Path("model.ckpt"), 1);
  no_checkpoint.set_failing(true);
  EXPECT_THROW(first.Save(session, Path("model.ckpt"), 2), OpError);
  EXPECT_EQ(LatestCheckpoint(dir_), Path("model.ckpt-1"));

  FailingWritesFileSystem no_state(Path("checkpoint"), ENOSPC);
  no_state.set_failing(false);
  options.file_system = &no_state;
  Saver second({}, options);
  second.Save(session, Path("model.ckpt"), 3);
  no_state.set_failing(true);
  EXPECT_THROW(second.Save(session, Path("model.ckpt"), 4), OpError);
  EXPECT_EQ(LatestCheckpoint(dir_), Path("model.ckpt-3"));
  EXPECT_TRUE(fs_->Exists(Path("model.ckpt-3")));
  Session fresh;
  second.Restore(fresh, Path("model.ckpt-3"));
  ExpectSameValues(model.Values(fresh), model.Values(session));
}

// A checkpoint that cannot be deleted is logged and skipped; the save succeeds.
TEST_F(SaverTest, DeletionErrorsAreLoggedAndIgnored) {
  Model model;
  SaverOptions options;
  options.max_to_keep = 1;
  Saver saver({}, options);
  Session session;
  session.Run(model.init);
  saver.Save(session, Path("model.ckpt"), 1);
  fs_->DeleteFile(Path("model.ckpt-1"));  // Someone else removed it first.
  ScopedLogCapture capture;
  EXPECT_EQ(saver.Save(session, Path("model.ckpt"), 2), Path("model.ckpt-2"));
  EXPECT_TRUE(capture.Contains("Ignoring: "));
  EXPECT_EQ(LatestCheckpoint(dir_), Path("model.ckpt-2"));
}

// RecoverLastCheckpoints tracks the files that exist, so rotation goes on after a restart.
TEST_F(SaverTest, RecoverLastCheckpointsContinuesRotationAcrossRestarts) {
  Model model;
  Session session;
  session.Run(model.init);
  {
    Saver first_run;
    for (int step = 1; step <= 3; ++step) first_run.Save(session, Path("model.ckpt"), step);
  }
  fs_->DeleteFile(Path("model.ckpt-2"));
  SaverOptions options;
  options.max_to_keep = 2;
  Saver saver({}, options);
  saver.RecoverLastCheckpoints(GetCheckpointState(dir_)->all_model_checkpoint_paths);
  EXPECT_THAT(saver.last_checkpoints(), ElementsAre(Path("model.ckpt-1"), Path("model.ckpt-3")));
  saver.Save(session, Path("model.ckpt"), 4);  // Rotates model.ckpt-1 out and deletes it.
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("checkpoint", "model.ckpt-3", "model.ckpt-4"));
}

// A model whose one variable w can be set to any float, NaN included.
struct OneFloat {
  Variable w{Tensor::Scalar(1.0f), "w"};
  Output value = Placeholder(DataType::kFloat, {}, "w_value");
  Operation* set = w.Assign(value).op();
  void Set(Session& session, float v) { session.Run({}, {{value, Tensor::Scalar(v)}}, {set}); }
};

// Training diverged: every save after step 1 holds NaN. Rotation would have deleted the
// last finite checkpoint after two more saves; it is kept (the list exceeds max_to_keep by
// one) until a finite save comes, and a warning names it.
TEST_F(SaverTest, RotationNeverDeletesTheNewestFiniteCheckpoint) {
  OneFloat model;
  SaverOptions options;
  options.max_to_keep = 2;
  Saver saver({}, options);
  Session session;
  session.Run(GlobalVariablesInitializer());
  saver.Save(session, Path("model.ckpt"), 1);
  model.Set(session, std::numeric_limits<float>::quiet_NaN());
  ScopedLogCapture capture;
  for (int step = 2; step <= 4; ++step) saver.Save(session, Path("model.ckpt"), step);
  EXPECT_THAT(saver.last_checkpoints(), ElementsAre(Path("model.ckpt-1"), Path("model.ckpt-4")));
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("checkpoint", "model.ckpt-1", "model.ckpt-4"));
  EXPECT_TRUE(capture.Contains("Keeping " + Path("model.ckpt-1") +
                               ": it is the newest checkpoint whose values are all finite"));
  model.Set(session, std::numeric_limits<float>::infinity());
  saver.Save(session, Path("model.ckpt"), 5);  // Inf is no better than NaN.
  EXPECT_TRUE(fs_->Exists(Path("model.ckpt-1")));
  model.Set(session, 2.0f);
  saver.Save(session, Path("model.ckpt"), 6);  // Finite again: ordinary rotation resumes.
  saver.Save(session, Path("model.ckpt"), 7);
  EXPECT_THAT(saver.last_checkpoints(), ElementsAre(Path("model.ckpt-6"), Path("model.ckpt-7")));
}

// The finiteness check reads every element, in the fixed-length blocks its vector loop takes
// and in the odd elements after them: one NaN or Inf anywhere in a large tensor of either
// width makes the save non-finite, so the finite checkpoint before it is kept.
TEST_F(SaverTest, OneNonFiniteElementAnywhereInALargeTensorCounts) {
  constexpr int64_t kSize = 1001;  // 62 blocks of 16 floats (125 of 8 doubles) and a tail.
  for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
    for (int64_t position : {0, 15, 16, 500, 991, 1000}) {
      for (double bad :
           {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
        Graph graph;
        DefaultGraphScope as_default(graph);
        Variable w(Tensor::Zeros(dtype, {kSize}), "w");
        Output value = Placeholder(dtype, {kSize}, "w_value");
        Operation* set = w.Assign(value).op();
        SaverOptions options;
        options.max_to_keep = 1;
        Saver saver({}, options);
        Session session(&graph);
        session.Run(GlobalVariablesInitializer());
        const std::string prefix =
            Path(std::string(DataTypeName(dtype)) + "_" + std::to_string(position) + "_" +
                 (std::isnan(bad) ? "nan" : "inf") + ".ckpt");
        saver.Save(session, prefix, 1);
        Tensor diverged = Tensor::Zeros(dtype, {kSize});
        if (dtype == DataType::kFloat) {
          diverged.flat<float>()(position) = static_cast<float>(bad);
        } else {
          diverged.flat<double>()(position) = bad;
        }
        session.Run({}, {{value, diverged}}, {set});
        ScopedLogCapture capture;
        saver.Save(session, prefix, 2);
        EXPECT_THAT(saver.last_checkpoints(), ElementsAre(prefix + "-1", prefix + "-2"))
            << DataTypeName(dtype) << " " << bad << " at " << position;
      }
    }
  }
}

// After a restart the saver knows nothing of the checkpoints it recovers: on a NaN save it
// reads them (only then) to find the newest finite one, and keeps it.
TEST_F(SaverTest, TheNewestFiniteCheckpointIsFoundOnDiskAfterARestart) {
  OneFloat model;
  Session session;
  session.Run(GlobalVariablesInitializer());
  {
    Saver first_run;
    first_run.Save(session, Path("model.ckpt"), 1);
    model.Set(session, std::numeric_limits<float>::quiet_NaN());
    first_run.Save(session, Path("model.ckpt"), 2);
  }
  SaverOptions options;
  options.max_to_keep = 2;
  Saver saver({}, options);
  saver.RecoverLastCheckpoints(GetCheckpointState(dir_)->all_model_checkpoint_paths);
  saver.Save(session, Path("model.ckpt"), 3);
  EXPECT_THAT(saver.last_checkpoints(), ElementsAre(Path("model.ckpt-1"), Path("model.ckpt-3")));
  EXPECT_FALSE(fs_->Exists(Path("model.ckpt-2")));
}

// Rotation never deletes a file outside the checkpoint directory, whatever the tracked list
// says (a state file from another directory): it logs and leaves it.
TEST_F(SaverTest, RotationNeverDeletesAFileOutsideTheCheckpointDirectory) {
  Model model;
  Session session;
  session.Run(model.init);
  const std::string other = Path("other");
  fs_->CreateDirectories(other);
  Saver elsewhere;
  const std::string foreign = *elsewhere.Save(session, JoinPath(other, "model.ckpt"), 1);
  SaverOptions options;
  options.max_to_keep = 1;
  Saver saver({}, options);
  saver.SetLastCheckpointsWithTime({{foreign, 0.0}});
  ScopedLogCapture capture;
  saver.Save(session, Path("model.ckpt"), 2);
  EXPECT_TRUE(fs_->Exists(foreign));
  EXPECT_TRUE(capture.Contains("Not deleting " + foreign +
                               ": it is outside the checkpoint "
                               "directory " +
                               dir_));
}

// Issue 32, item 5. A state file names run/sub/../victim.txt, run/sub being a symbolic link
// to another directory: the kernel resolves that to the file beside the link's target, so
// rotation must not take it for a file of run/ (as text, "run/victim.txt"); it logs and
// leaves the user's file alone.
TEST_F(SaverTest, RotationNeverDeletesThroughDotDotAfterASymbolicLink) {
  Model model;
  Session session;
  session.Run(model.init);
  const std::string run = Path("run");
  fs_->CreateDirectories(run);
  fs_->CreateDirectories(Path("elsewhere/deep"));
  ASSERT_EQ(::symlink(Path("elsewhere/deep").c_str(), JoinPath(run, "sub").c_str()), 0);
  const std::string victim = Path("elsewhere/victim.txt");
  fs_->WriteFileAtomically(victim, "the user's file");
  const std::string entry = JoinPath(run, "sub/../victim.txt");
  Saver first;
  const std::string saved = *first.Save(session, JoinPath(run, "model.ckpt"), 1);
  UpdateCheckpointStateFile(run, saved, {entry, saved});

  SaverOptions options;
  options.max_to_keep = 1;
  Saver saver({}, options);
  saver.RecoverLastCheckpoints(GetCheckpointState(run)->all_model_checkpoint_paths);
  ScopedLogCapture capture;
  saver.Save(session, JoinPath(run, "model.ckpt"), 2);
  EXPECT_EQ(fs_->ReadFile(victim), "the user's file");
  EXPECT_TRUE(capture.Contains("Not deleting " + entry + ": it is outside the checkpoint"));
}

// SetLastCheckpointsWithTime replaces the tracked list.
TEST_F(SaverTest, SetLastCheckpointsWithTimeReplacesTheList) {
  Model model;
  Saver saver;
  saver.SetLastCheckpointsWithTime({{"/a", 1.0}, {"/b", 2.0}});
  EXPECT_THAT(saver.last_checkpoints(), ElementsAre("/a", "/b"));
}

// ---- Construction -----------------------------------------------------------------------------

// No variables: ValueError, unless allow_empty, which makes a saver that does nothing.
TEST_F(SaverTest, EmptySaverSavesAndRestoresNothing) {
  EXPECT_THAT([&] { Saver saver; },
              ThrowsMessage<ValueError>(StartsWith("No variables to save. ")));
  SaverOptions options;
  options.allow_empty = true;
  Saver saver({}, options);
  EXPECT_TRUE(saver.empty());
  Session session;
  EXPECT_EQ(saver.Save(session, Path("model.ckpt"), 1), std::nullopt);
  EXPECT_NO_THROW(saver.Restore(session, Path("no-such-checkpoint")));
  EXPECT_THAT(fs_->ListDirectory(dir_), IsEmpty());
}

// A saver covers the given variables only; the default is every global variable.
TEST_F(SaverTest, CoversTheGivenVariablesOrAllGlobalOnes) {
  Variable a(Tensor::Scalar<float>(1), "a");
  Variable b(Tensor::Scalar<float>(2), "b");
  LocalVariable(Tensor::Scalar<float>(3), "local");
  EXPECT_EQ(Saver().variables(), (std::vector<Variable>{a, b}));
  EXPECT_EQ(Saver(std::vector<Variable>{b}).variables(), (std::vector<Variable>{b}));
  EXPECT_THROW(Saver(std::vector<Variable>{a, a}), ValueError);
}

// A saver adds ops, so it must be made before the graph is finalized.
TEST_F(SaverTest, ConstructingOnAFinalizedGraphIsRuntimeError) {
  Variable a(Tensor::Scalar<float>(1), "a");
  g_.Finalize();
  EXPECT_THROW(Saver{}, RuntimeError);
}

// GetSaverOrDefault makes one saver, registers it in "savers", and returns it thereafter.
TEST_F(SaverTest, GetSaverOrDefaultMakesOneAndReusesIt) {
  Variable a(Tensor::Scalar<float>(1), "a");
  std::shared_ptr<Saver> saver = GetSaverOrDefault();
  ASSERT_NE(saver, nullptr);
  EXPECT_EQ(saver->variables(), (std::vector<Variable>{a}));
  EXPECT_EQ(GetSaverOrDefault(&g_), saver);
  EXPECT_EQ(g_.CollectionSize(GraphKeys::kSavers), 1);
  g_.AddToCollection(GraphKeys::kSavers, std::make_shared<Saver>());
  EXPECT_THROW(GetSaverOrDefault(), RuntimeError);
}

// With no variables the default saver is empty rather than an error.
TEST_F(SaverTest, GetSaverOrDefaultOnAGraphWithoutVariablesIsEmpty) {
  Graph other;
  EXPECT_TRUE(GetSaverOrDefault(&other)->empty());
}

}  // namespace
}  // namespace mts
