// stale_training.h: the spirals model trained with stale gradients, in one Session, without
// threads or processes, so that every number repeats.
//
//   tests/07_distributed/staleness_test     asserts what stale gradients do to the loss
//   tests/07_distributed:stale_gradients    prints it for chapter 07
//     TrainWithStaleGradients               <-- this: Adam, full batch, gradients held back
//       Session                             stage 01 only
//
// N workers of between-graph replication that take turns each read the variables, compute
// a gradient and send it; by the time the ps applies it, the other N-1 workers have updated
// the variables. So each update uses a gradient computed from the variables as they were
// N-1 updates earlier. This trains distributed_spirals's model (SpiralsLogits on the same
// data, with the same graph seed and Adam) and applies every gradient `delay` updates late:
// delay 0 is one worker, delay 2 the three workers of multi_process_test in lockstep.
//
// Full-batch training tends to carry a model to where its learning rate is only just stable
// (the loss surface sharpens as the loss falls). A delay lowers that limit: a step that one
// worker takes safely overshoots when it arrives twice more, late. Workers that join a
// model the chief trained alone for a few hundred steps therefore set off a spike of the
// loss that takes a hundred or more steps to train away. multi_process_test met exactly
// this about one run in five, whenever the workers' readiness poll (every 0.5 s) found the
// model ready only around step 300 of 400; chapter 07 tells the story.
#ifndef MTS_TESTS_07_DISTRIBUTED_STALE_TRAINING_H_
#define MTS_TESTS_07_DISTRIBUTED_STALE_TRAINING_H_

#include <cstddef>
#include <vector>

namespace mts {
namespace testing {

/// Trains `total_updates` updates with Adam at `learning_rate`: the first `alone_updates`
/// with fresh gradients, the rest with gradients `delay` updates old. Returns the
/// full-batch loss after each number of updates: element k is the loss after k updates,
/// from 0 to `total_updates`.
std::vector<float> TrainWithStaleGradients(double learning_rate, int alone_updates,
                                           int total_updates, size_t delay);

}  // namespace testing
}  // namespace mts

#endif  // MTS_TESTS_07_DISTRIBUTED_STALE_TRAINING_H_
