// The crash-safety promise of saver.h, tested by crashing: a child process saves in a loop
// (saver_crash_child) and is killed with SIGKILL at random moments, again and again, each
// new child resuming from the latest checkpoint. After every kill:
//   - once any save has completed, LatestCheckpoint finds a checkpoint;
//   - it restores into a fresh session, every tensor passing its checksum;
//   - its values are exactly one step's values, and that step is the last save the child
//     reported or the one it was in the middle of (never older, never torn);
//   - every checkpoint the state file lists is whole too.

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/session.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "tests/02_chief_worker/saver_crash_model.h"
#include "tests/testing/child_process.h"

namespace mts {
namespace {

constexpr int kKills = 60;
constexpr uint32_t kSeed = 20200913;

// The step of a "saved N" line, or -1 for any other line.
int64_t SavedStep(const std::string& line) {
  return line.rfind("saved ", 0) == 0 ? std::stoll(line.substr(6)) : -1;
}

// A checkpoint killed at random moments always restores, whole, to a step that had been
// saved or was being saved.
TEST(SaverCrashTest, LatestCheckpointSurvivesSigkillAtRandomMoments) {
  const std::string binary = RunfilePath("tests/02_chief_worker/saver_crash_child");
  const std::string dir = JoinPath(std::getenv("TEST_TMPDIR"), "saver_crash");
  DefaultFileSystem()->CreateDirectories(dir);

  // The verifier: the same model in this process, restored into a fresh session each time.
  Graph graph;
  DefaultGraphScope as_default(graph);
  CrashModel model;
  Saver saver;

  std::mt19937 rng(kSeed);
  int64_t last_reported = 0;  // The newest step a child reported saved.
  int landed_after_report = 0;
  int landed_mid_save = 0;
  for (int kill = 0; kill < kKills; ++kill) {
    SCOPED_TRACE("kill " + std::to_string(kill) + ", seed " + std::to_string(kSeed));
    {
      ChildProcess child(binary, {dir});
      const std::string start = child.ReadLine();
      ASSERT_EQ(start.rfind("start ", 0), 0u) << "child said: " << start;
      ASSERT_EQ(std::stoll(start.substr(6)) >= last_reported, true) << start;
      // Let it complete 0-3 saves, then kill it somewhere in the next one. The pause is
      // the random moment itself, not a wait for something to happen.
      const int saves = std::uniform_int_distribution<int>(0, 3)(rng);
      for (int i = 0; i < saves; ++i) {
        const int64_t step = SavedStep(child.ReadLine());
        ASSERT_GT(step, 0) << "the child died before it was killed";
        last_reported = step;
      }
      std::this_thread::sleep_for(
          std::chrono::microseconds(std::uniform_int_distribution<int>(0, 3000)(rng)));
      ASSERT_TRUE(child.Kill()) << "the child exited on its own";
      // Lines written before the kill are saves that completed.
      for (std::string line = child.ReadLine(); !line.empty(); line = child.ReadLine()) {
        last_reported = std::max(last_reported, SavedStep(line));
      }
    }

    const std::optional<std::string> latest = LatestCheckpoint(dir);
    if (last_reported == 0 && !latest) continue;  // Killed before its first save completed.
    ASSERT_TRUE(latest) << "no checkpoint after step " << last_reported << " was saved";
    Session session;
    saver.Restore(session, *latest);
    const int64_t step = model.CheckedStep(session);
    // The newest checkpoint is the last one reported, or the one being saved when the kill
    // came after its state file was replaced but before the child could report it.
    ASSERT_TRUE(step == last_reported || step == last_reported + 1)
        << "restored step " << step << ", last reported " << last_reported;
    (step == last_reported ? landed_after_report : landed_mid_save)++;
    last_reported = step;
    // Everything the state file lists is whole: rotation deletes only after it is rewritten.
    const std::optional<CheckpointState> state = GetCheckpointState(dir);
    ASSERT_TRUE(state);
    for (const std::string& path : state->all_model_checkpoint_paths) {
      CheckpointReader reader(*DefaultFileSystem(), path);
      for (const CheckpointTensorInfo& info : reader.tensors()) reader.Read(info.name);
    }
  }
  EXPECT_GT(last_reported, 0) << "no child ever completed a save";
  // A temporary file left behind is a kill that landed inside an atomic write.
  int torn_writes = 0;
  for (const std::string& name : DefaultFileSystem()->ListDirectory(dir)) {
    torn_writes += name.find(".tmp.") != std::string::npos;
  }
  std::printf("%d kills: %d inside an atomic write; the newest checkpoint was the last one "
              "reported %d times, the one about to be reported %d times; %lld steps saved\n",
              kKills, torn_writes, landed_after_report, landed_mid_save,
              static_cast<long long>(last_reported));
}

}  // namespace
}  // namespace mts
