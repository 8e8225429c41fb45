#include "tests/benchmarks/training_stack.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/step_counter_hook.h"
#include "src/03_hooked/hooks/summary_saver_hook.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/file_system.h"

namespace mts {
namespace bench {

// [mts:bench-training-stack]
std::unique_ptr<SessionInterface> MakeTrainingStack(const std::string& checkpoint_dir) {
  auto scaffold = std::make_shared<Scaffold>();
  StepCounterHookOptions counting;  // Every 100 steps.
  counting.output_dir = checkpoint_dir;
  SummarySaverHookOptions summaries;
  summaries.save_steps = 100;
  summaries.output_dir = checkpoint_dir;
  summaries.scaffold = scaffold;
  CheckpointSaverHookOptions saving;
  saving.save_secs = 600;
  saving.scaffold = scaffold;
  std::vector<std::shared_ptr<SessionRunHook>> hooks = {
      std::make_shared<StepCounterHook>(counting),
      std::make_shared<SummarySaverHook>(summaries),
      std::make_shared<CheckpointSaverHook>(checkpoint_dir, saving),
  };
  for (auto& hook : hooks) hook->Begin();
  ChiefSessionCreatorOptions chief_options;
  chief_options.checkpoint_dir = checkpoint_dir;
  auto chief = std::make_shared<ChiefSessionCreator>(scaffold, chief_options);
  return std::make_unique<RecoverableSession>(
      std::make_shared<CoordinatedSessionCreator>(chief, hooks));
}
// [mts:bench-training-stack-end]

std::string MakeTempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir =
      JoinPath(tmp != nullptr ? tmp : "/tmp", "mts_bench_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  DefaultFileSystem()->CreateDirectories(dir);
  return dir;
}

void RemoveTempDir(const std::string& dir) {
  SummaryWriterCache::Clear();
  std::filesystem::remove_all(dir);
}

}  // namespace bench
}  // namespace mts
