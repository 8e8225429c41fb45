#include "tests/07_distributed/stale_training.h"

#include <deque>
#include <utility>

#include "examples/spirals_model.h"
#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/loss_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"

namespace mts {
namespace testing {

std::vector<float> TrainWithStaleGradients(double learning_rate, int alone_updates,
                                           int total_updates, size_t delay) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  graph.set_seed(1);  // As distributed_spirals sets it.
  const SpiralsData data = SpiralsTrainingData();
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output labels = Placeholder(DataType::kInt64, {TensorShape::kUnknownDim}, "labels");
  Output loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(labels, SpiralsLogits(x)));
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
  std::vector<Output> fetches = gradients;
  fetches.push_back(loss);
  std::vector<float> losses;
  // [mts:stale-updates]
  std::deque<std::vector<Tensor>> in_flight;
  while (static_cast<int>(losses.size()) < total_updates) {
    std::vector<Tensor> computed = session.Run(fetches, data_feeds);
    const float now = computed.back().scalar<float>();
    computed.pop_back();
    in_flight.push_back(std::move(computed));
    const int update = static_cast<int>(losses.size());
    if (in_flight.size() <= (update < alone_updates ? 0 : delay)) continue;  // Travelling.
    FeedDict feeds;
    for (size_t i = 0; i < sent.size(); ++i) feeds[sent[i].first] = in_flight.front()[i];
    in_flight.pop_front();
    losses.push_back(now);  // The loss of the variables this update is applied to.
    session.Run({}, feeds, {apply});
  }
  // [mts:stale-updates-end]
  losses.push_back(session.Run(loss, data_feeds).scalar<float>());
  return losses;
}

}  // namespace testing
}  // namespace mts
