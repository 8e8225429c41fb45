// stale_gradients: prints the loss of the spirals model trained by one worker, and by one
// worker joined at update 300 by two more (every gradient two updates late), for chapter 07:
//
//   bazel run //tests/07_distributed:stale_gradients
//
// The numbers are those staleness_test asserts on, from the same TrainWithStaleGradients.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "tests/07_distributed/stale_training.h"

int main() {
  constexpr double kLearningRate = 0.02;  // distributed_spirals's Adam.
  constexpr int kJoin = 300, kUpdates = 800;
  const std::vector<float> alone =
      mts::testing::TrainWithStaleGradients(kLearningRate, kUpdates, kUpdates, 0);
  const std::vector<float> joined =
      mts::testing::TrainWithStaleGradients(kLearningRate, kJoin, kUpdates, 2);
  std::printf("Adam %g, full batch: the loss after k updates\n", kLearningRate);
  std::printf("%8s  %12s  %26s\n", "k", "one worker", "two more join at 300");
  for (int k = 0; k <= kUpdates; ++k) {
    if (k % 100 != 0 && !(k >= kJoin - 20 && k <= kJoin + 120 && k % 10 == 0)) continue;
    std::printf("%8d  %12.4f  %26.4f\n", k, alone[k], joined[k]);
  }
  const auto peak = std::max_element(joined.begin() + kJoin + 1, joined.end());
  std::printf("after the join: highest %.4f at update %d; %.4f at update 400; %.4f at %d\n", *peak,
              static_cast<int>(peak - joined.begin()), joined[400], joined[kUpdates], kUpdates);
  return 0;
}
