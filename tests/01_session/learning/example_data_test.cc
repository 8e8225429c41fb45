// Tests of example_data.h: shapes, determinism across runs and machines, and that each set
// holds what it promises (the regression truth, balanced spiral arms).
#include "src/01_session/learning/example_data.h"

#include <cmath>

#include "gtest/gtest.h"
#include "src/01_session/tensor_types.h"

namespace mts {
namespace {

// ---- MakeLinearRegressionData -----------------------------------------------------------------

// x is [n, f], y [n, 1], the weights [f, 1] and the bias [1], all float32.
TEST(LinearRegressionDataTest, HasTheDocumentedShapes) {
  LinearRegressionData d = MakeLinearRegressionData(5, 3, 1);
  EXPECT_EQ(d.x.shape(), (TensorShape{5, 3}));
  EXPECT_EQ(d.y.shape(), (TensorShape{5, 1}));
  EXPECT_EQ(d.weights.shape(), (TensorShape{3, 1}));
  EXPECT_EQ(d.bias.shape(), TensorShape{1});
  for (const Tensor* t : {&d.x, &d.y, &d.weights, &d.bias}) {
    EXPECT_EQ(t->dtype(), DataType::kFloat);
  }
}

// The same seed gives identical tensors; another seed gives other ones.
TEST(LinearRegressionDataTest, IsDeterministicPerSeed) {
  LinearRegressionData a = MakeLinearRegressionData(50, 4, 7, 0.3f);
  LinearRegressionData b = MakeLinearRegressionData(50, 4, 7, 0.3f);
  LinearRegressionData c = MakeLinearRegressionData(50, 4, 8, 0.3f);
  EXPECT_TRUE(TensorEqual(a.x, b.x));
  EXPECT_TRUE(TensorEqual(a.y, b.y));
  EXPECT_TRUE(TensorEqual(a.weights, b.weights));
  EXPECT_TRUE(TensorEqual(a.bias, b.bias));
  EXPECT_FALSE(TensorEqual(a.x, c.x));
  EXPECT_FALSE(TensorEqual(a.y, c.y));
  EXPECT_FALSE(TensorEqual(a.weights, c.weights));
}

// Golden values: the generators' output is pinned, so a change of platform or of the code
// that alters the data fails here rather than in a convergence test far away.
TEST(LinearRegressionDataTest, MatchesGoldenValues) {
  LinearRegressionData d = MakeLinearRegressionData(3, 2, 42, 0.1f);
  EXPECT_EQ(d.x.ToVector<float>(),
            (std::vector<float>{-0x1.25efc2p-1f, 0x1.1e59ap+0f, -0x1.7e03e6p+0f,
                                -0x1.72c03ep-1f, 0x1.ebf05ap-7f, 0x1.69d268p+0f}));
  EXPECT_EQ(d.y.ToVector<float>(),
            (std::vector<float>{0x1.032d04p-2f, -0x1.097c26p+1f, 0x1.84c18ep+0f}));
  EXPECT_EQ(d.weights.ToVector<float>(), (std::vector<float>{0x1.4b37dp+0f, 0x1.68f438p-1f}));
  EXPECT_EQ(d.bias.ToVector<float>(), (std::vector<float>{0x1.978762p-2f}));
}

// Without noise, y is x * weights + bias up to float rounding.
TEST(LinearRegressionDataTest, WithoutNoiseYIsTheLinearFunction) {
  LinearRegressionData d = MakeLinearRegressionData(100, 3, 5, 0.0f);
  auto x = d.x.matrix<float>();
  auto w = d.weights.flat<float>();
  const float b = d.bias.flat<float>()(0);
  for (int i = 0; i < 100; ++i) {
    double expected = b;
    for (int j = 0; j < 3; ++j) expected += static_cast<double>(x(i, j)) * w(j);
    EXPECT_FLOAT_EQ(d.y.flat<float>()(i), static_cast<float>(expected)) << "row " << i;
  }
}

// The noise level changes y only: x and the truth come from the same draws.
TEST(LinearRegressionDataTest, NoiseLevelDoesNotChangeXOrTheTruth) {
  LinearRegressionData quiet = MakeLinearRegressionData(20, 2, 3, 0.0f);
  LinearRegressionData loud = MakeLinearRegressionData(20, 2, 3, 1.0f);
  EXPECT_TRUE(TensorEqual(quiet.x, loud.x));
  EXPECT_TRUE(TensorEqual(quiet.weights, loud.weights));
  EXPECT_TRUE(TensorEqual(quiet.bias, loud.bias));
  EXPECT_FALSE(TensorEqual(quiet.y, loud.y));
}

// Features are standard normal and residuals have the requested spread (10,000 draws).
TEST(LinearRegressionDataTest, FeaturesAndNoiseHaveTheStatedDistributions) {
  const int n = 10000;
  const float noise = 0.5f;
  LinearRegressionData d = MakeLinearRegressionData(n, 2, 11, noise);
  auto x = d.x.flat<float>().cast<double>();
  const double mean = x.mean();
  const double var = (x - mean).square().mean();
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(var, 1.0, 0.05);
  auto xm = d.x.matrix<float>();
  auto w = d.weights.flat<float>();
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double r =
        d.y.flat<float>()(i) - (xm(i, 0) * w(0) + xm(i, 1) * w(1) + d.bias.flat<float>()(0));
    sum += r;
    sum_sq += r * r;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_NEAR(std::sqrt(sum_sq / n - (sum / n) * (sum / n)), noise, 0.02);
}

// Counts must be positive and the noise non-negative.
TEST(LinearRegressionDataTest, RejectsBadArguments) {
  EXPECT_THROW(MakeLinearRegressionData(0, 1, 1), ValueError);
  EXPECT_THROW(MakeLinearRegressionData(1, 0, 1), ValueError);
  EXPECT_THROW(MakeLinearRegressionData(1, 1, 1, -0.1f), ValueError);
  EXPECT_THROW(MakeLinearRegressionData(1, 1, 1, std::nanf("")), ValueError);
}

// ---- MakeSpirals ------------------------------------------------------------------------------

// x is [n, 2] float32, labels [n] int64, one_hot [n, K] float32.
TEST(SpiralsTest, HasTheDocumentedShapesAndDtypes) {
  SpiralsData d = MakeSpirals(10, 4, 1);
  EXPECT_EQ(d.x.shape(), (TensorShape{40, 2}));
  EXPECT_EQ(d.x.dtype(), DataType::kFloat);
  EXPECT_EQ(d.labels.shape(), TensorShape{40});
  EXPECT_EQ(d.labels.dtype(), DataType::kInt64);
  EXPECT_EQ(d.one_hot.shape(), (TensorShape{40, 4}));
  EXPECT_EQ(d.one_hot.dtype(), DataType::kFloat);
}

// The same seed gives identical tensors; another seed moves the points, not the labels.
TEST(SpiralsTest, IsDeterministicPerSeed) {
  SpiralsData a = MakeSpirals(30, 3, 9);
  SpiralsData b = MakeSpirals(30, 3, 9);
  SpiralsData c = MakeSpirals(30, 3, 10);
  EXPECT_TRUE(TensorEqual(a.x, b.x));
  EXPECT_TRUE(TensorEqual(a.labels, b.labels));
  EXPECT_TRUE(TensorEqual(a.one_hot, b.one_hot));
  EXPECT_FALSE(TensorEqual(a.x, c.x));
  EXPECT_TRUE(TensorEqual(a.labels, c.labels));
}

// Golden values, as for the regression set.
TEST(SpiralsTest, MatchesGoldenValues) {
  SpiralsData d = MakeSpirals(2, 3, 7, 0.2f);
  EXPECT_EQ(d.x.ToVector<float>(),
            (std::vector<float>{0x1.f1f6d2p-2f, -0x1.dc3f46p-4f, -0x1.ce7a06p-2f,
                                -0x1.b75c36p-3f, 0x1.902124p-4f, 0x1.f6220ap-2f,
                                -0x1.a5b94ep-1f, -0x1.225524p-1f, -0x1.69eab2p-2f,
                                0x1.def486p-1f, 0x1.fff532p-1f, -0x1.a4c9b8p-7f}));
  EXPECT_EQ(d.labels.ToVector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
}

// Classes take turns row by row, so the set and every block of K rows are balanced, and the
// one-hot rows agree with the labels.
TEST(SpiralsTest, ClassesAreInterleavedAndBalanced) {
  const int k = 5, per_class = 40;
  SpiralsData d = MakeSpirals(per_class, k, 3);
  std::vector<int> counts(k, 0);
  auto one_hot = d.one_hot.matrix<float>();
  for (int i = 0; i < per_class * k; ++i) {
    const int64_t label = d.labels.flat<int64_t>()(i);
    EXPECT_EQ(label, i % k);
    ++counts[label];
    for (int c = 0; c < k; ++c) EXPECT_EQ(one_hot(i, c), c == label ? 1.0f : 0.0f);
  }
  EXPECT_EQ(counts, std::vector<int>(k, per_class));
}

// Point j of an arm sits at radius (j + 1) / N whatever the noise; without noise, at the
// documented angle.
TEST(SpiralsTest, PointsLieOnTheDocumentedSpiral) {
  const int k = 3, per_class = 50;
  SpiralsData noisy = MakeSpirals(per_class, k, 4, 0.5f);
  SpiralsData exact = MakeSpirals(per_class, k, 4, 0.0f);
  auto xn = noisy.x.matrix<float>();
  auto xe = exact.x.matrix<float>();
  for (int i = 0; i < per_class * k; ++i) {
    const double r = static_cast<double>(i / k + 1) / per_class;
    EXPECT_NEAR(std::hypot(xn(i, 0), xn(i, 1)), r, 1e-6);
    const double angle = 2 * M_PI * (i % k) / k + 4 * r;
    EXPECT_NEAR(xe(i, 0), r * std::sin(angle), 1e-6);
    EXPECT_NEAR(xe(i, 1), r * std::cos(angle), 1e-6);
  }
}

// Counts must be positive and the noise non-negative.
TEST(SpiralsTest, RejectsBadArguments) {
  EXPECT_THROW(MakeSpirals(0, 3, 1), ValueError);
  EXPECT_THROW(MakeSpirals(3, 0, 1), ValueError);
  EXPECT_THROW(MakeSpirals(3, 3, 1, -1.0f), ValueError);
}

}  // namespace
}  // namespace mts
