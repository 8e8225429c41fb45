// spirals_model.h: the model the main example trains (a small MLP that learns three
// interleaved spirals), and its mini-batches, chosen as a pure function of the global step.
//
//   examples/train_spirals   MonitoredTrainingSession runs the train op built here
//   tests/06_monitored/...   the exact-resume and golden-output tests build the same model
//   distributed_spirals      builds the same layers (SpiralsLogits), placed on the ps
//     Session                <-- the graph: placeholders, three dense layers, Adam
//
// Why the batches depend on the global step only: a checkpoint holds the variables, the
// optimizer's slots and the global step, and nothing else. If the position in the data
// lived in a loop variable, a run resumed from a checkpoint would start the data over
// (or at a guessed place) and train on other batches than an uninterrupted run. Here the
// batch of step s is fixed by s alone (epoch s / batches_per_epoch, shuffled by a
// permutation seeded by the epoch), so the step in the checkpoint *is* the data position,
// and a resumed run computes, bit for bit, what an uninterrupted one does.
//
// Thread safety: BuildSpiralsModel writes the default graph (one thread); a SpiralsBatches
// is immutable after construction, so Feed may be called from any thread.
//
// Example:
//   SpiralsModel model = BuildSpiralsModel(/*learning_rate=*/0.02);
//   SpiralsBatches batches(MakeSpirals(100, 3, 42), /*batch_size=*/32, /*seed=*/7);
//   session.Run({}, batches.Feed(model, step), {model.train_op});
//
// TensorFlow: what a TF1 input pipeline does with tf.data's shuffle(seed) and a restored
// iterator; here plain C++ over the global step, since the data fits in memory.
#ifndef MTS_EXAMPLES_SPIRALS_MODEL_H_
#define MTS_EXAMPLES_SPIRALS_MODEL_H_

#include <cstdint>
#include <vector>

#include "src/01_session/learning/example_data.h"
#include "src/01_session/session_interface.h"
#include "src/01_session/variables.h"

namespace mts {

/// The tensors and ops of the spirals classifier, built into the default graph.
struct SpiralsModel {
  Output x;              ///< Placeholder [batch, 2] float32: the points.
  Output labels;         ///< Placeholder [batch] int64: their classes.
  Output logits;         ///< [batch, 3] float32: the network's scores of the three classes.
  Output loss;           ///< Mean softmax cross-entropy over the batch.
  Output accuracy;       ///< Fraction of the batch classified right.
  Variable global_step;  ///< The step every checkpoint records; the train op increments it.
  Operation* train_op;   ///< One Adam step on the batch fed to x and labels.
};

/// The classifier's layers on `x` ([batch, 2] float32), made in the default graph: dense
/// 2-32 and 32-32, each followed by tanh, then dense 32-3, in the name scopes hidden1,
/// hidden2 and logits. Weights are normal with stddev 1/sqrt(fan_in), seeded from the
/// graph's seed; biases are zero. Returns the logits [batch, 3]. Its six variables are
/// ordinary global variables, so a ReplicaDeviceSetter scope around the call places them
/// (examples/distributed_spirals.cc).
Output SpiralsLogits(const Output& x);

/// Builds the MLP 2-32-32-3 (tanh) with Adam at `learning_rate` into the default graph,
/// with the graph seed set, scalar summaries of loss and accuracy (for TensorBoard), and
/// the global step. Deterministic: the same graph and initial values on every run.
/// \throws ValueError if the default graph already has a global step.
SpiralsModel BuildSpiralsModel(double learning_rate);

/// A picture of what a SpiralsModel has learnt, for TensorBoard's Images tab.
struct SpiralsPicture {
  /// ImageSummary "decision_regions" (tag "decision_regions/image"), in no collection: run
  /// it with `feed` whenever a picture is wanted.
  Output summary;
  /// A grid of size x size points over the square [-1.25, 1.25]^2 fed to model.x, one per
  /// pixel, the top row at the largest second coordinate; and the data's dots.
  FeedDict feed;
};

/// Builds, into the default graph, the picture of `model`'s decision regions over the square
/// the spirals lie in: each pixel a light tint of red, green and blue mixed by the softmax
/// probabilities of the three classes at that point, and each point of `data` a dark 2x2 dot
/// in the colour of its true class. Only ops that read the variables are added (no random
/// op), so the model trains exactly as it does without the picture.
/// \throws ValueError if `size` is below 8.
SpiralsPicture BuildSpiralsPicture(const SpiralsModel& model, const SpiralsData& data,
                                   int64_t size = 64);

/// The spirals data set the example trains on: 3 arms of 100 points, seed 42.
SpiralsData SpiralsTrainingData();

/// Mini-batches as a pure function of the global step.
class SpiralsBatches {
 public:
  /// Batches of `batch_size` rows of `data`, in an order shuffled per epoch from `seed`.
  /// \throws ValueError if `batch_size` is not positive.
  SpiralsBatches(SpiralsData data, int64_t batch_size, uint64_t seed);

  /// Batches in one epoch: every row once, the last batch smaller if the size does not
  /// divide the number of rows.
  int64_t batches_per_epoch() const { return batches_per_epoch_; }

  /// The feed of step `step` (>= 0): rows of epoch step / batches_per_epoch(), batch
  /// step % batches_per_epoch(), fed to model.x and model.labels.
  FeedDict Feed(const SpiralsModel& model, int64_t step) const;

  /// The whole data set fed to model.x and model.labels (to measure loss and accuracy).
  FeedDict FullFeed(const SpiralsModel& model) const;

 private:
  // The order of the rows in `epoch`: a Fisher-Yates shuffle driven by raw mt19937_64
  // words (whose sequence the standard fixes, unlike std::shuffle's use of them).
  std::vector<int64_t> Permutation(int64_t epoch) const;

  SpiralsData data_;
  int64_t num_rows_;
  int64_t batch_size_;
  int64_t batches_per_epoch_;
  uint64_t seed_;
};

}  // namespace mts

#endif  // MTS_EXAMPLES_SPIRALS_MODEL_H_
