// campaign_training.h: what both campaigns train, and how they judge the checkpoints left
// behind: the main example's model and loop, a checkpoint read back under its checksums, and
// two checkpoints compared bit for bit.
//
//   crash_campaign, fault_campaign   kill or fault a run, then judge what it left on disk
//     MonitoredSession               <-- TrainSpirals: the example's loop, batch = f(step)
//       RecoverableSession ... Session
//   CheckpointReader (02)            <-- VerifyCheckpoint, CheckpointDifferences
//
// Why the main example's loop (examples/train_spirals.cc): its batch is a pure function of
// the global step (examples/spirals_model.h), so a run resumed or recovered from a checkpoint
// trains on the same batches as one that never stopped, and its final model must be the same
// bits. The campaigns check exactly that, so they need no tolerance and no golden values.
//
// Thread safety: each function is used by one thread at a time on its own objects.
#ifndef MTS_TESTS_CAMPAIGNS_CAMPAIGN_TRAINING_H_
#define MTS_TESTS_CAMPAIGNS_CAMPAIGN_TRAINING_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "examples/spirals_model.h"
#include "src/06_monitored/monitored_session.h"

namespace mts {

/// The main example's batch size and data order, which both campaigns train with.
inline constexpr int64_t kCampaignBatchSize = 32;
/// Seeds the order of the mini-batches, as in examples/train_spirals.cc.
inline constexpr uint64_t kCampaignBatchSeed = 7;
/// Adam's learning rate, as in examples/train_spirals.cc.
inline constexpr double kCampaignLearningRate = 0.02;

/// The main example's loop: until the session says stop, one step on the batch of the
/// global step read from the raw session. `before_step(step)`, if given, is called with that
/// step first (a retried step function calls it again). \returns the steps that completed
/// (the train op ran and every hook's AfterRun returned), repeated steps included.
/// \throws whatever the session throws that it does not recover from.
int64_t TrainSpirals(MonitoredSession& session, const SpiralsModel& model,
                     const SpiralsBatches& batches,
                     const std::function<void(int64_t step)>& before_step = nullptr);

/// Empties `dir` (creating it if missing) and returns it.
/// \throws OpError from the file system.
std::string FreshDirectory(const std::string& dir);

/// Reads every tensor of the checkpoint at `path`, each under its checksum, and returns its
/// global step. \throws NotFoundError if there is no file; DataLossError naming the file
/// (and tensor) if any byte is not what was written.
int64_t VerifyCheckpoint(const std::string& path);

/// The names of the tensors whose dtype, shape or bytes differ between the checkpoints at
/// `a` and `b`, or present in one only; empty when the two hold the same bits (the files
/// are then equal byte for byte: the format is a function of the tensors).
/// \throws as VerifyCheckpoint.
std::vector<std::string> CheckpointDifferences(const std::string& a, const std::string& b);

}  // namespace mts

#endif  // MTS_TESTS_CAMPAIGNS_CAMPAIGN_TRAINING_H_
