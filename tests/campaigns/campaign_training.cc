#include "tests/campaigns/campaign_training.h"

#include <filesystem>
#include <set>

#include "src/01_session/training_util.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/platform/file_system.h"

namespace mts {

int64_t TrainSpirals(MonitoredSession& session, const SpiralsModel& model,
                     const SpiralsBatches& batches,
                     const std::function<void(int64_t step)>& before_step) {
  int64_t completed = 0;
  while (!session.ShouldStop()) {
    session.RunStepFn([&](StepContext& context) {
      const int64_t step = GlobalStepValue(context.session(), model.global_step);
      if (before_step) before_step(step);
      context.RunWithHooks({}, batches.Feed(model, step), {model.train_op});
      ++completed;
    });
  }
  return completed;
}

std::string FreshDirectory(const std::string& dir) {
  std::error_code ignored;  // A directory that is not there is already empty.
  std::filesystem::remove_all(dir, ignored);
  DefaultFileSystem()->CreateDirectories(dir);
  return dir;
}

int64_t VerifyCheckpoint(const std::string& path) {
  CheckpointReader reader(*DefaultFileSystem(), path);
  for (const CheckpointTensorInfo& info : reader.tensors()) reader.Read(info.name);
  return reader.Read("global_step").scalar<int64_t>();
}

std::vector<std::string> CheckpointDifferences(const std::string& a, const std::string& b) {
  FileSystem& fs = *DefaultFileSystem();
  VerifyCheckpoint(a);
  VerifyCheckpoint(b);
  if (fs.ReadFile(a) == fs.ReadFile(b)) return {};
  // The files differ: name the tensors. Each is compared in its serialized form, which
  // holds its dtype, shape and bytes (so -0.0 differs from 0.0, and a NaN equals itself).
  CheckpointReader ra(fs, a), rb(fs, b);
  std::set<std::string> names;
  for (const auto& info : ra.tensors()) names.insert(info.name);
  for (const auto& info : rb.tensors()) names.insert(info.name);
  std::vector<std::string> differences;
  for (const std::string& name : names) {
    if (!ra.Has(name) || !rb.Has(name) ||
        SerializeCheckpoint({{name, ra.Read(name)}}) !=
            SerializeCheckpoint({{name, rb.Read(name)}})) {
      differences.push_back(name);
    }
  }
  return differences;
}

}  // namespace mts
