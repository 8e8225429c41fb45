#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

TEST(SmokeTest, VariableLifecycle) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<float>({1, 2}), "w");
  Output inc = w.AssignAdd(Constant(Tensor::Vector<float>({10, 10})));
  Output report = ReportUninitializedVariables();
  Operation* init = GlobalVariablesInitializer();
  Session s;
  EXPECT_EQ(s.Run(report).ToVector<std::string>(), std::vector<std::string>{"w"});
  EXPECT_THROW(s.Run(w.value()), FailedPreconditionError);
  s.Run(init);
  Tensor before = s.Run(w.value());
  s.Run(inc);
  EXPECT_EQ(s.Run(w.value()).ToVector<float>(), (std::vector<float>{11, 12}));
  EXPECT_EQ(before.ToVector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(w.name(), "w");
  EXPECT_EQ(w.value().name(), "w/read:0");
  EXPECT_EQ(w.initializer()->name(), "w/Assign");
  EXPECT_EQ(s.Run(report).num_elements(), 0);
  Output p = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  EXPECT_THROW(s.Run(p), InvalidArgumentError);
  EXPECT_EQ(s.Run(Identity(p), {{p, Tensor::Matrix<float>({{1, 2}})}}).ToVector<float>(),
            (std::vector<float>{1, 2}));
  EXPECT_THROW(s.Run(Identity(p), {{p, Tensor::Vector<float>({1, 2})}}), ValueError);
  s.Close();
  EXPECT_THROW(s.Run(p), RuntimeError);
  std::cout << Tensor::Matrix<float>({{1, 2}, {3, 4}}) << "\n" << before.DebugString() << "\n";
}

}  // namespace
}  // namespace mts
