// Tests of latest_sound_checkpoint.h: the rules that choose the checkpoint a directory
// restores, one table row per state a directory can be found in (state file present,
// absent, stale, unusable; the newest checkpoint sound, damaged, missing, not a file), then
// a copied and a moved directory, the tensors a restore reads, and what the answer says.
#include "src/02_chief_worker/checkpoint/latest_sound_checkpoint.h"

#include <sys/stat.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

FileSystem& Fs() { return *DefaultFileSystem(); }

std::string Path(const std::string& dir, int step) {
  return JoinPath(dir, "model.ckpt-" + std::to_string(step));
}

// Saves checkpoint `step` of `dir` as a Saver would: "b" and "w" (two float scalars, 4 data
// bytes each, "b" first in the file), then the state file naming it and `listed` before it.
void Save(const std::string& dir, int step, std::vector<std::string>* listed) {
  WriteCheckpoint(Fs(), Path(dir, step),
                  {{"b", Tensor::Scalar(10.0f * step)}, {"w", Tensor::Scalar(1.0f * step)}});
  listed->push_back(Path(dir, step));
  UpdateCheckpointStateFile(dir, Path(dir, step), *listed);
}

// A directory as three saves leave it: model.ckpt-1, -2 and -3, all listed, -3 the newest.
std::string ThreeSaves() {
  const std::string dir = NewDir("run");
  std::vector<std::string> listed;
  for (int step = 1; step <= 3; ++step) Save(dir, step, &listed);
  return dir;
}

// ---- What can happen to a checkpoint or a state file ------------------------------------

// One byte flipped `from_end` bytes before the end: a failing disk. The last 4 bytes are
// "w"'s data, the 4 before them "b"'s.
void Flip(const std::string& path, size_t from_end = 1) {
  std::string bytes = Fs().ReadFile(path);
  bytes[bytes.size() - from_end] ^= 0x40;
  Fs().WriteFileAtomically(path, bytes);
}

// Cut short: an interrupted copy.
void Truncate(const std::string& path) {
  const std::string bytes = Fs().ReadFile(path);
  Fs().WriteFileAtomically(path, bytes.substr(0, bytes.size() / 2));
}

void WriteState(const std::string& dir, const std::string& text) {
  Fs().WriteFileAtomically(JoinPath(dir, "checkpoint"), text);
}

// ---- The rules, one row per directory ---------------------------------------------------

struct Row {
  std::string what;  // What happened to ThreeSaves().
  std::function<void(const std::string& dir)> do_it;
  std::optional<int> chosen;                         // The step chosen, if any.
  std::vector<std::pair<int, std::string>> skipped;  // Step skipped, part of the reason.
  std::vector<int> tracked;                          // Steps the saver tracks afterwards.
  CheckpointSource source;
};

std::vector<Row> Rows() {
  const CheckpointSource state = CheckpointSource::kStateFile;
  const CheckpointSource files = CheckpointSource::kCheckpointFiles;
  const CheckpointSource none = CheckpointSource::kNone;
  return {
      {"nothing happened: the newest", [](const std::string&) {}, 3, {}, {1, 2, 3}, state},
      {"no state file: nothing, though checkpoint files are there",
       [](const std::string& d) { Fs().DeleteFile(JoinPath(d, "checkpoint")); },
       std::nullopt,
       {},
       {},
       none},
      {"stale state file (a save's state never written): the state file's newest",
       [](const std::string& d) {
         WriteCheckpoint(Fs(), Path(d, 4), {{"w", Tensor::Scalar(4.0f)}});
       },
       3,
       {},
       {1, 2, 3},
       state},
      {"newest damaged: the one before",
       [](const std::string& d) { Flip(Path(d, 3)); },
       2,
       {{3, "fails its checksum"}},
       {1, 2},
       state},
      {"newest missing: the one before",
       [](const std::string& d) { Fs().DeleteFile(Path(d, 3)); },
       2,
       {{3, "missing"}},
       {1, 2},
       state},
      {"newest a FIFO: the one before",
       [](const std::string& d) {
         Fs().DeleteFile(Path(d, 3));
         ASSERT_EQ(::mkfifo(Path(d, 3).c_str(), 0644), 0);
       },
       2,
       {{3, "not a regular file"}},
       {1, 2},
       state},
      {"newest cut short, the next damaged: the oldest",
       [](const std::string& d) {
         Truncate(Path(d, 3));
         Flip(Path(d, 2));
       },
       1,
       {{3, "corrupt or truncated"}, {2, "fails its checksum"}},
       {1},
       state},
      {"every one damaged or missing: none, each skipped",
       [](const std::string& d) {
         Flip(Path(d, 3));
         Fs().DeleteFile(Path(d, 2));
         Truncate(Path(d, 1));
       },
       std::nullopt,
       {{3, "fails its checksum"}, {2, "missing"}, {1, "truncated"}},
       {},
       state},
      {"newest not in the state's list: it alone tracked",
       [](const std::string& d) {
         WriteState(d, "model_checkpoint_path: \"" + Path(d, 3) +
                           "\"\nall_model_checkpoint_paths: \"" + Path(d, 1) + "\"\n");
       },
       3,
       {},
       {3},
       state},
      {"state file garbage: the highest step of the files, alone tracked",
       [](const std::string& d) { WriteState(d, "garbage ]]] not a state"); },
       3,
       {},
       {3},
       files},
      {"state file empty: the same",
       [](const std::string& d) { WriteState(d, ""); },
       3,
       {},
       {3},
       files},
      {"state file naming no checkpoint: the same",
       [](const std::string& d) { WriteState(d, "all_model_checkpoint_paths: \"x\""); },
       3,
       {},
       {3},
       files},
      {"state file garbage, newest file damaged: the one before, alone tracked",
       [](const std::string& d) {
         WriteState(d, "garbage");
         Flip(Path(d, 3));
       },
       2,
       {{3, "fails its checksum"}},
       {2},
       files},
      {"state file garbage and no checkpoint file: nothing",
       [](const std::string& d) {
         WriteState(d, "garbage");
         for (int step = 1; step <= 3; ++step) Fs().DeleteFile(Path(d, step));
       },
       std::nullopt,
       {},
       {},
       none},
  };
}

// Every row: the checkpoint chosen, those skipped (newest first) and why, what the saver
// tracks, and where the candidates came from.
TEST(LatestSoundCheckpointTest, ChoosesByTheRulesInOrder) {
  for (const Row& row : Rows()) {
    SCOPED_TRACE(row.what);
    const std::string dir = ThreeSaves();
    row.do_it(dir);
    const CheckpointToRestore checkpoint = LatestSoundCheckpoint(dir);

    if (row.chosen) {
      EXPECT_EQ(checkpoint.path, Path(dir, *row.chosen));
    } else {
      EXPECT_EQ(checkpoint.path, std::nullopt);
    }
    ASSERT_EQ(checkpoint.skipped.size(), row.skipped.size());
    for (size_t i = 0; i < row.skipped.size(); ++i) {
      EXPECT_EQ(checkpoint.skipped[i].path, Path(dir, row.skipped[i].first));
      EXPECT_THAT(checkpoint.skipped[i].reason, HasSubstr(row.skipped[i].second));
    }
    std::vector<std::string> tracked;
    for (int step : row.tracked) tracked.push_back(Path(dir, step));
    EXPECT_THAT(checkpoint.tracked, ElementsAreArray(tracked));
    EXPECT_EQ(checkpoint.source, row.source);
    EXPECT_EQ(checkpoint.found(), row.source != CheckpointSource::kNone);
  }
}

// An empty directory, or none at all, has nothing to restore: not an error.
TEST(LatestSoundCheckpointTest, AnEmptyOrMissingDirectoryHasNothingToRestore) {
  for (const std::string& dir : {NewDir("empty"), JoinPath(NewDir("parent"), "absent")}) {
    const CheckpointToRestore checkpoint = LatestSoundCheckpoint(dir);
    EXPECT_FALSE(checkpoint.found()) << dir;
    EXPECT_EQ(checkpoint.path, std::nullopt) << dir;
    EXPECT_THAT(checkpoint.skipped, IsEmpty()) << dir;
  }
}

// ---- Copied and moved directories ----------------------------------------------------------

// Copies every file of `from` into a new directory; returns it.
std::string CopyDirectory(const std::string& from) {
  const std::string to = NewDir("copy");
  for (const std::string& name : Fs().ListDirectory(from)) {
    Fs().WriteFileAtomically(JoinPath(to, name), Fs().ReadFile(JoinPath(from, name)));
  }
  return to;
}

// A state file written with absolute paths still names the original's files in a copy: the
// copy restores its own, though the original's are there too, and tracks its own.
TEST(LatestSoundCheckpointTest, ACopiedDirectoryRestoresItsOwnFiles) {
  const std::string original = ThreeSaves();
  const std::string copy = CopyDirectory(original);
  ScopedLogCapture capture;
  const CheckpointToRestore checkpoint = LatestSoundCheckpoint(copy);
  EXPECT_EQ(checkpoint.path, Path(copy, 3));
  EXPECT_THAT(checkpoint.tracked, ElementsAreArray({Path(copy, 1), Path(copy, 2), Path(copy, 3)}));
  EXPECT_TRUE(capture.Contains("(the directory was copied or moved)"));
}

// Moved: the original is gone, and the copy's damaged newest falls back within the copy,
// never to a path of the directory that was.
TEST(LatestSoundCheckpointTest, AMovedDirectoryFallsBackWithinItself) {
  const std::string original = ThreeSaves();
  const std::string moved = CopyDirectory(original);
  for (const std::string& name : Fs().ListDirectory(original)) {
    Fs().DeleteFile(JoinPath(original, name));
  }
  Flip(Path(moved, 3));
  const CheckpointToRestore checkpoint = LatestSoundCheckpoint(moved);
  EXPECT_EQ(checkpoint.path, Path(moved, 2));
  ASSERT_EQ(checkpoint.skipped.size(), 1u);
  EXPECT_EQ(checkpoint.skipped[0].path, Path(moved, 3));
}

// ---- The tensors a restore reads -----------------------------------------------------------

// Damage in a tensor the restore does not read does not make a checkpoint unsound for it;
// asked about every tensor, the same checkpoint is skipped.
TEST(LatestSoundCheckpointTest, OnlyTheTensorsGivenMustBeIntact) {
  const std::string dir = ThreeSaves();
  Flip(Path(dir, 3), /*from_end=*/8);  // "b"'s data.
  EXPECT_EQ(LatestSoundCheckpoint(dir, std::vector<std::string>{"w"}).path, Path(dir, 3));
  const CheckpointToRestore every = LatestSoundCheckpoint(dir);
  EXPECT_EQ(every.path, Path(dir, 2));
  ASSERT_EQ(every.skipped.size(), 1u);
  EXPECT_THAT(every.skipped[0].reason, HasSubstr("the data of tensor 'b' fails its checksum"));
}

// A tensor the checkpoint does not hold is no damage: the restore names it (another model's
// checkpoint is a mistake to report, not to fall back from).
TEST(LatestSoundCheckpointTest, AnAbsentTensorIsNotDamage) {
  const std::string dir = ThreeSaves();
  const CheckpointToRestore checkpoint =
      LatestSoundCheckpoint(dir, std::vector<std::string>{"w", "not_in_the_checkpoint"});
  EXPECT_EQ(checkpoint.path, Path(dir, 3));
  EXPECT_THAT(checkpoint.skipped, IsEmpty());
}

// ---- What the answer says ------------------------------------------------------------------

// The fall-back warning names the newest, the one restored instead, and each reason.
TEST(LatestSoundCheckpointTest, FallbackWarningNamesTheNewestTheChosenAndWhy) {
  const std::string dir = ThreeSaves();
  Flip(Path(dir, 3));
  const std::string warning = LatestSoundCheckpoint(dir).FallbackWarning();
  EXPECT_THAT(warning,
              AllOf(HasSubstr("The latest checkpoint " + Path(dir, 3) +
                              " is missing or failed its checksums; restored the "
                              "newest earlier checkpoint that passes, " +
                              Path(dir, 2)),
                    HasSubstr(Path(dir, 3) + " (Checkpoint file " + Path(dir, 3) + " is corrupt"),
                    HasSubstr("Damaged files are left in place for inspection.")));
  EXPECT_EQ(LatestSoundCheckpoint(ThreeSaves()).FallbackWarning(), "");
}

// With none sound, the error names the directory, every checkpoint and what to do.
TEST(LatestSoundCheckpointTest, NoneSoundErrorNamesEachAndWhatToDo) {
  const std::string dir = ThreeSaves();
  for (int step = 1; step <= 3; ++step) Flip(Path(dir, step));
  const DataLossError error = LatestSoundCheckpoint(dir).NoneSoundError();
  EXPECT_THAT(error.what(),
              AllOf(HasSubstr("Every checkpoint listed in the state file of " + dir +
                              " is missing or fails its checksums"),
                    HasSubstr(Path(dir, 1)), HasSubstr(Path(dir, 2)), HasSubstr(Path(dir, 3)),
                    HasSubstr("Restore from a backup copy")));
}

// An unusable state file is reported, with what is done instead.
TEST(LatestSoundCheckpointTest, AnUnusableStateFileIsLoggedWithWhatIsDoneInstead) {
  const std::string dir = ThreeSaves();
  WriteState(dir, "");
  ScopedLogCapture capture;
  LatestSoundCheckpoint(dir);
  EXPECT_TRUE(capture.Contains("The state file " + JoinPath(dir, "checkpoint") +
                               " is unusable; restoring from the 3 checkpoint file(s) in " + dir +
                               " instead, newest first."));
}

}  // namespace
}  // namespace mts
