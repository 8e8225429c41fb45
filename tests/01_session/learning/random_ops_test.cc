// Tests of random_ops.h: TensorFlow's two-level seed rule, per-session generators (new
// samples each run, the same sequence in each new session), the distributions' moments,
// and the build-time errors.
#include "src/01_session/learning/random_ops.h"

#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/session.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The values of `op` in `runs` successive runs of one new session.
std::vector<std::vector<float>> RunsOf(const Output& op, int runs) {
  Session session;
  std::vector<std::vector<float>> values;
  for (int i = 0; i < runs; ++i) values.push_back(session.Run(op).ToVector<float>());
  return values;
}

// The sample mean and standard deviation of a tensor's elements.
template <typename T>
std::pair<double, double> Moments(const Tensor& t) {
  double sum = 0, sum_sq = 0;
  for (T v : t.ToVector<T>()) {
    sum += v;
    sum_sq += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(t.num_elements());
  const double mean = sum / n;
  return {mean, std::sqrt(sum_sq / n - mean * mean)};
}

// An op seed makes the sequence reproducible: each new session replays it from the start.
TEST(RandomOpsTest, SameSeedGivesSameValuesAcrossSessions) {
  Graph g;
  DefaultGraphScope scope(g);
  Output normal = RandomNormal({4}, 0.0, 1.0, DataType::kFloat, /*seed=*/7);
  Output uniform = RandomUniform({4}, 0.0, 1.0, DataType::kFloat, /*seed=*/7);
  EXPECT_EQ(RunsOf(normal, 3), RunsOf(normal, 3));
  EXPECT_EQ(RunsOf(uniform, 3), RunsOf(uniform, 3));
}

// Within one session each run draws new samples.
TEST(RandomOpsTest, SuccessiveRunsDiffer) {
  Graph g;
  DefaultGraphScope scope(g);
  for (const Output& op : {RandomNormal({8}, 0.0, 1.0, DataType::kFloat, 3),
                           RandomUniform({8}, 0.0, 1.0, DataType::kFloat, 3)}) {
    std::vector<std::vector<float>> runs = RunsOf(op, 2);
    EXPECT_NE(runs[0], runs[1]);
  }
}

// A graph with the same graph seed, built the same way, repeats every random op; the ops
// differ from each other because each derives its op seed from its id.
TEST(RandomOpsTest, GraphSeedAloneMakesAGraphDeterministic) {
  auto build_and_run = [](int64_t graph_seed) {
    Graph g;
    DefaultGraphScope scope(g);
    g.set_seed(graph_seed);
    Output a = RandomNormal({5});
    Output b = RandomNormal({5});
    Session session;
    std::vector<Tensor> values = session.Run({a, b});
    return std::make_pair(values[0].ToVector<float>(), values[1].ToVector<float>());
  };
  const auto first = build_and_run(42);
  EXPECT_EQ(first, build_and_run(42));
  EXPECT_NE(first.first, first.second);
  EXPECT_NE(first, build_and_run(43));
}

// An op seed without a graph seed pairs with the fixed default graph seed, so it gives the
// same values as the same op seed with the graph seed set to that default.
TEST(RandomOpsTest, OpSeedAloneUsesTheDefaultGraphSeed) {
  auto run = [](int64_t graph_seed) {
    Graph g;
    DefaultGraphScope scope(g);
    g.set_seed(graph_seed);
    return RunsOf(RandomUniform({6}, 0.0, 1.0, DataType::kFloat, 11), 1);
  };
  EXPECT_EQ(run(0), run(kDefaultGraphSeed));
  EXPECT_NE(run(0), run(1));
}

// Without any seed, two sessions draw different values (seeded from std::random_device).
TEST(RandomOpsTest, NoSeedIsNondeterministic) {
  Graph g;
  DefaultGraphScope scope(g);
  Output normal = RandomNormal({16});
  EXPECT_NE(RunsOf(normal, 1), RunsOf(normal, 1));
}

// 10000 normal samples have close to the requested mean and standard deviation, in both
// float types.
TEST(RandomOpsTest, NormalSamplesHaveTheRequestedMoments) {
  Graph g;
  DefaultGraphScope scope(g);
  Session session;
  Tensor f = session.Run(RandomNormal({100, 100}, 2.0, 3.0, DataType::kFloat, 1));
  Tensor d = session.Run(RandomNormal({10000}, -1.0, 0.5, DataType::kDouble, 1));
  const auto [f_mean, f_std] = Moments<float>(f);
  EXPECT_NEAR(f_mean, 2.0, 0.1);
  EXPECT_NEAR(f_std, 3.0, 0.1);
  const auto [d_mean, d_std] = Moments<double>(d);
  EXPECT_NEAR(d_mean, -1.0, 0.02);
  EXPECT_NEAR(d_std, 0.5, 0.02);
}

// 10000 uniform samples lie in [minval, maxval), with the mean and standard deviation of
// the uniform distribution ((a+b)/2 and (b-a)/sqrt(12)).
TEST(RandomOpsTest, UniformSamplesStayInRangeWithTheRightMoments) {
  Graph g;
  DefaultGraphScope scope(g);
  Tensor u = Session().Run(RandomUniform({10000}, -2.0, 6.0, DataType::kFloat, 5));
  for (float v : u.ToVector<float>()) {
    ASSERT_GE(v, -2.0f);
    ASSERT_LT(v, 6.0f);
  }
  const auto [mean, stddev] = Moments<float>(u);
  EXPECT_NEAR(mean, 2.0, 0.1);
  EXPECT_NEAR(stddev, 8.0 / std::sqrt(12.0), 0.1);
}

// Concurrent runs share the generator safely, and together draw distinct samples.
TEST(RandomOpsTest, ConcurrentRunsDrawDistinctSamples) {
  Graph g;
  DefaultGraphScope scope(g);
  Output op = RandomUniform({4}, 0.0, 1.0, DataType::kDouble, 9);
  Session session;
  std::vector<Tensor> results(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { results[i] = session.Run(op); });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) EXPECT_FALSE(TensorEqual(results[i], results[j]));
  }
}

// The op keeps its dtype and shape, and is stateful with a per-session resource.
TEST(RandomOpsTest, OutputHasTheRequestedDtypeAndShape) {
  Graph g;
  DefaultGraphScope scope(g);
  Output r = RandomUniform({2, 3}, 0.0, 1.0, DataType::kDouble);
  EXPECT_EQ(r.dtype(), DataType::kDouble);
  EXPECT_EQ(r.shape(), TensorShape({2, 3}));
  EXPECT_EQ(r.op()->type(), "RandomUniform");
  EXPECT_TRUE(r.op()->def().stateful);
  EXPECT_EQ(Session().Run(r).shape(), TensorShape({2, 3}));
}

// Non-float dtypes are a TypeError, partly known shapes and bad parameters a ValueError,
// each naming the op.
TEST(RandomOpsTest, BadArgumentsAreBuildTimeErrorsNamingTheOp) {
  Graph g;
  DefaultGraphScope scope(g);
  EXPECT_THROW(RandomNormal({2}, 0.0, 1.0, DataType::kInt32, 0, "noise"), TypeError);
  EXPECT_THAT([] { RandomUniform({2}, 0, 1, DataType::kBool, 0, "u"); },
              ThrowsMessage<TypeError>(HasSubstr("'u'")));
  EXPECT_THAT(
      [] { RandomNormal({TensorShape::kUnknownDim}, 0.0, 1.0, DataType::kFloat, 0, "noise"); },
      ThrowsMessage<ValueError>(HasSubstr("'noise'")));
  EXPECT_THAT([] { RandomNormal({2}, 0.0, -1.0); }, ThrowsMessage<ValueError>(HasSubstr("stddev")));
  EXPECT_THAT([] { RandomUniform({2}, 1.0, 0.0); }, ThrowsMessage<ValueError>(HasSubstr("maxval")));
}

}  // namespace
}  // namespace mts
