#include "src/01_session/learning/example_data.h"

#include <cmath>
#include <random>
#include <string>

namespace mts {

namespace {

// [mts:portable-random]
// Uniform and normal numbers from std::mt19937_64's raw words. The engine's sequence is fixed
// by the C++ standard; these transforms are fixed by this file, so every library agrees.
class PortableRandom {
 public:
  explicit PortableRandom(uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1): the top 53 bits of a word, scaled by 2^-53 (exact in a double).
  double Uniform() { return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0); }

  // Standard normal by Marsaglia's polar method, which makes two values per accepted pair;
  // the second is kept for the next call.
  double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * Uniform() - 1.0;
      v = 2.0 * Uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double scale = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * scale;
    has_spare_ = true;
    return u * scale;
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};
// [mts:portable-random-end]

void CheckPositive(const char* what, int64_t value, const char* function) {
  if (value <= 0) {
    throw ValueError(std::string(function) + ": " + what + " must be positive, got " +
                     std::to_string(value));
  }
}

void CheckNonNegative(const char* what, float value, const char* function) {
  if (!(value >= 0.0f)) {
    throw ValueError(std::string(function) + ": " + what + " must be >= 0, got " +
                     std::to_string(value));
  }
}

}  // namespace

LinearRegressionData MakeLinearRegressionData(int64_t num_examples, int64_t num_features,
                                              uint64_t seed, float noise_stddev) {
  const char* fn = "MakeLinearRegressionData";
  CheckPositive("num_examples", num_examples, fn);
  CheckPositive("num_features", num_features, fn);
  CheckNonNegative("noise_stddev", noise_stddev, fn);
  PortableRandom random(seed);
  LinearRegressionData data;
  data.weights = Tensor(DataType::kFloat, {num_features, 1});
  data.bias = Tensor(DataType::kFloat, {1});
  data.x = Tensor(DataType::kFloat, {num_examples, num_features});
  data.y = Tensor(DataType::kFloat, {num_examples, 1});
  float* w = data.weights.data<float>();
  for (int64_t j = 0; j < num_features; ++j) w[j] = static_cast<float>(random.Normal());
  const float b = static_cast<float>(random.Normal());
  data.bias.data<float>()[0] = b;
  float* x = data.x.data<float>();
  float* y = data.y.data<float>();
  for (int64_t i = 0; i < num_examples; ++i) {
    // The target is computed from the stored (float) features and weights, so the truth
    // holds exactly on the data a model sees, up to the noise.
    double target = b;
    for (int64_t j = 0; j < num_features; ++j) {
      x[i * num_features + j] = static_cast<float>(random.Normal());
      target += static_cast<double>(x[i * num_features + j]) * w[j];
    }
    // Drawn even when the noise is zero, so x does not depend on noise_stddev.
    target += noise_stddev * random.Normal();
    y[i] = static_cast<float>(target);
  }
  return data;
}

SpiralsData MakeSpirals(int64_t num_examples_per_class, int num_classes, uint64_t seed,
                        float noise) {
  const char* fn = "MakeSpirals";
  CheckPositive("num_examples_per_class", num_examples_per_class, fn);
  CheckPositive("num_classes", num_classes, fn);
  CheckNonNegative("noise", noise, fn);
  const double kPi = 3.14159265358979323846;
  const int64_t n = num_examples_per_class * num_classes;
  PortableRandom random(seed);
  SpiralsData data;
  data.x = Tensor(DataType::kFloat, {n, 2});
  data.labels = Tensor(DataType::kInt64, {n});
  data.one_hot = Tensor::Zeros(DataType::kFloat, {n, num_classes});
  float* x = data.x.data<float>();
  int64_t* labels = data.labels.data<int64_t>();
  float* one_hot = data.one_hot.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = i % num_classes;  // Interleaved rows: classes take turns.
    const int64_t j = i / num_classes;
    const double r = static_cast<double>(j + 1) / static_cast<double>(num_examples_per_class);
    const double angle = 2.0 * kPi * static_cast<double>(k) / num_classes + 4.0 * r +
                         noise * random.Normal();
    x[2 * i] = static_cast<float>(r * std::sin(angle));
    x[2 * i + 1] = static_cast<float>(r * std::cos(angle));
    labels[i] = k;
    one_hot[i * num_classes + k] = 1.0f;
  }
  return data;
}

}  // namespace mts
