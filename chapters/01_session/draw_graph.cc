// draw_graph: builds a small model and draws it as the Graph holds it, with the ops one Run
// would execute, for chapter 01.
//
//   bazel run //chapters/01_session:draw_graph > graph.dot && dot -Tsvg graph.dot
//
// Nothing in the picture is typed by hand (the drawer is graph_drawing.h, which the learning
// page's draw_gradients shares). The boxes are Graph::operations() in creation
// order, the solid arrows each op's inputs(), the dashed arrows its control_inputs(), and
// the ops drawn filled and numbered are what NeededOps (the pruning Session::Run plans
// with) returns for one signature: fetch `y`, feed `x`. The output is graphviz source, the
// same on every run: it holds only names, types and shapes.
#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>

#include "chapters/01_session/graph_drawing.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/execution_plan.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

int Main() {
  // [mts:draw-graph-model]
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Variable w(Tensor::Matrix<float>({{0.5f}, {-1.0f}}), "w");
  Variable b(Tensor::Scalar(0.25f), "b");
  Output y = Add(MatMul(x, w), b, "y");
  Operation* init = GlobalVariablesInitializer();  // A NoOp with control inputs.

  // What Session::Run({y}, {{x, batch}}) executes: the ops y needs, cut at the fed x.
  const std::unordered_set<Output> fed = {x};
  const std::vector<const Operation*> plan = NeededOps(fed, {y}, {});
  // [mts:draw-graph-model-end]
  (void)init;
  GraphDrawing drawing;
  drawing.plan = plan;
  drawing.fed = fed;
  std::printf("%s", ToGraphviz(graph, drawing).c_str());
  return 0;
}

}  // namespace
}  // namespace mts

int main() { return mts::Main(); }
