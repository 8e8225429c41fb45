// Stale gradients, simulated in one Session without threads or processes, so that every
// number repeats: why workers that join a model the chief has trained alone can throw it off.
//
// N workers of between-graph replication that take turns each read the variables, compute
// a gradient and send it; by the time the ps applies it, the other N-1 workers have updated
// the variables. Each update therefore uses a gradient computed from the variables as they
// were N-1 updates earlier. This test trains distributed_spirals's model (the same data,
// layers, seed and Adam) and applies every gradient `delay` updates late: delay 0 is one
// worker, delay 2 is the three workers of multi_process_test stepping in lockstep.
//
// Full-batch training tends to carry a model to where its learning rate is only just stable
// (the loss surface sharpens as the loss falls). A delay lowers that limit: a step that one
// worker takes safely overshoots when it arrives twice more, late. Workers that join a
// model the chief trained alone for a few hundred steps therefore set off a spike of the
// loss that takes a hundred or more steps to train away. multi_process_test met exactly
// this about one run in five, whenever the workers' readiness poll (every 0.5 s) found the
// model ready only around step 300 of 400; chapter 07 tells the story.
#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/adam_optimizer.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/example_data.h"
#include "src/01_session/loss_ops.h"
#include "src/01_session/math_ops.h"
#include "src/01_session/nn_ops.h"
#include "src/01_session/random_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

Output Dense(const Output& in, int64_t fan_in, int64_t fan_out, const std::string& name) {
  NameScope scope(name);
  Variable w(RandomNormal({fan_in, fan_out}, 0.0, 1.0 / std::sqrt(static_cast<double>(fan_in))),
             "w");
  Variable b(Tensor::Zeros(DataType::kFloat, {fan_out}), "b");
  return Add(MatMul(in, w), b);
}

struct Losses {
  float at_switch = 0;  // When the delay starts (the workers join).
  float highest_after = 0;
  float final = 0;
};

// Trains `total_steps` updates with Adam at `learning_rate`: the first `alone_steps` with
// fresh gradients, the rest with gradients `delay` updates old.
Losses Train(double learning_rate, int alone_steps, int total_steps, size_t delay) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  graph.set_seed(1);
  const SpiralsData data = MakeSpirals(/*num_examples_per_class=*/100, /*num_classes=*/3, 42);
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output labels = Placeholder(DataType::kInt64, {TensorShape::kUnknownDim}, "labels");
  Output hidden1 = Tanh(Dense(x, 2, 32, "hidden1"));
  Output hidden2 = Tanh(Dense(hidden1, 32, 32, "hidden2"));
  Output logits = Dense(hidden2, 32, 3, "logits");
  Output loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(labels, logits));
  AdamOptimizer adam(learning_rate);
  // Gradients are fetched, kept, and fed back later: the ps's view of a worker's message.
  std::vector<Output> gradients;
  std::vector<GradAndVar> sent;
  for (const auto& [gradient, variable] : adam.ComputeGradients(loss)) {
    gradients.push_back(gradient);
    sent.emplace_back(Placeholder(gradient.dtype(), gradient.shape()), variable);
  }
  Operation* apply = adam.ApplyGradients(sent);

  Session session;
  session.Run(GlobalVariablesInitializer());
  const FeedDict data_feeds = {{x, data.x}, {labels, data.labels}};
  // [mts:stale-updates]
  std::deque<std::vector<Tensor>> in_flight;
  Losses losses;
  for (int update = 0; update < total_steps;) {
    std::vector<Output> fetches = gradients;
    fetches.push_back(loss);
    std::vector<Tensor> computed = session.Run(fetches, data_feeds);
    const float now = computed.back().scalar<float>();
    computed.pop_back();
    if (update == alone_steps) losses.at_switch = now;
    if (update > alone_steps) losses.highest_after = std::max(losses.highest_after, now);
    in_flight.push_back(std::move(computed));
    if (in_flight.size() <= (update < alone_steps ? 0 : delay)) continue;  // Still travelling.
    FeedDict feeds;
    for (size_t i = 0; i < sent.size(); ++i) feeds[sent[i].first] = in_flight.front()[i];
    in_flight.pop_front();
    session.Run({}, feeds, {apply});
    ++update;
  }
  // [mts:stale-updates-end]
  losses.final = session.Run(loss, data_feeds).scalar<float>();
  return losses;
}

// The control: one worker, fresh gradients, the example's learning rate. 400 steps take the
// loss from ln 3 = 1.10 to about 0.002, and steps 300 to 400 only ever lower it.
TEST(StalenessTest, OneWorkerTrainsSmoothlyAtTheExamplesRate) {
  const Losses alone = Train(/*learning_rate=*/0.02, /*alone_steps=*/300, /*total_steps=*/400,
                             /*delay=*/0);
  EXPECT_LT(alone.at_switch, 0.01);
  EXPECT_LE(alone.highest_after, alone.at_switch);
  EXPECT_LT(alone.final, alone.at_switch);
}

// [mts:stale-join]
// The same 300 steps alone, then the same 100 steps with gradients two updates late, as
// when two workers join the chief at step 300: within a few dozen updates the model is
// worse than a guess (loss above ln 3), and by step 400 it has not recovered.
TEST(StalenessTest, WorkersJoiningAModelTrainedAloneThrowItOff) {
  const Losses late = Train(/*learning_rate=*/0.02, /*alone_steps=*/300, /*total_steps=*/400,
                            /*delay=*/2);
  EXPECT_LT(late.at_switch, 0.01);
  EXPECT_GT(late.highest_after, std::log(3.0));
  EXPECT_GT(late.final, 0.1);  // multi_process_test's bound.
}
// [mts:stale-join-end]

// Nothing is lost for good: with 500 updates after the join the model trains back down.
TEST(StalenessTest, GivenTimeTheModelRecoversFromTheJoin) {
  const Losses late = Train(/*learning_rate=*/0.02, /*alone_steps=*/300, /*total_steps=*/800,
                            /*delay=*/2);
  EXPECT_GT(late.highest_after, std::log(3.0));
  EXPECT_LT(late.final, 0.05);
}

}  // namespace
}  // namespace mts
