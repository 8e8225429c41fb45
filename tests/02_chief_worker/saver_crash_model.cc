// saver_crash_model.cc: each variable's value is a function of the step.
#include "tests/02_chief_worker/saver_crash_model.h"

#include <stdexcept>
#include <string>

#include "src/01_session/array_ops.h"

namespace mts {
namespace {

constexpr int64_t kWeights = 4096;  // 16 KB of floats: a save takes a moment to write.

std::vector<Tensor> ValuesFor(int64_t step) {
  std::vector<float> weights(kWeights);
  for (int64_t i = 0; i < kWeights; ++i) weights[i] = static_cast<float>(step) * 0.5f + i;
  std::vector<double> doubles = {step / 3.0, step / 3.0 + 1, -static_cast<double>(step)};
  std::vector<int32_t> ints = {static_cast<int32_t>(step * 7), static_cast<int32_t>(-step)};
  std::vector<bool> flags = {step % 2 == 0, step % 3 == 0, true};
  std::vector<std::string> names = {"step-" + std::to_string(step),
                                    std::string(static_cast<size_t>(step % 17), 'x')};
  return {Tensor::Scalar<int64_t>(step), Tensor::Vector<float>(weights),
          Tensor::Vector<double>(doubles), Tensor::Vector<int32_t>(ints),
          Tensor::Vector<bool>(flags),    Tensor::Vector<std::string>(names)};
}

}  // namespace

CrashModel::CrashModel() {
  const std::vector<Tensor> initial = ValuesFor(0);
  const char* names_of[] = {"global_step", "weights", "doubles", "ints", "flags", "names"};
  Variable* variables[] = {&step, &weights, &doubles, &ints, &flags, &names};
  std::vector<Operation*> assigns;
  for (int i = 0; i < 6; ++i) {
    *variables[i] = Variable(initial[i], names_of[i]);
    placeholders.push_back(Placeholder(initial[i].dtype(), initial[i].shape()));
    assigns.push_back(variables[i]->Assign(placeholders.back()).op());
  }
  set_all = Group(assigns, "set_all");
}

FeedDict CrashModel::FeedsFor(int64_t s) const {
  const std::vector<Tensor> values = ValuesFor(s);
  FeedDict feeds;
  for (size_t i = 0; i < values.size(); ++i) feeds.emplace(placeholders[i], values[i]);
  return feeds;
}

int64_t CrashModel::CheckedStep(Session& session) const {
  const std::vector<Tensor> actual =
      session.Run({step.value(), weights.value(), doubles.value(), ints.value(),
                   flags.value(), names.value()});
  const int64_t s = actual[0].scalar<int64_t>();
  const std::vector<Tensor> expected = ValuesFor(s);
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!TensorEqual(actual[i], expected[i])) {
      throw std::runtime_error("variable " + std::to_string(i) + " does not hold step " +
                               std::to_string(s) + "'s value: " + actual[i].DebugString());
    }
  }
  return s;
}

}  // namespace mts
