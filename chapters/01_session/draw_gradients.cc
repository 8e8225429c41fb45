// draw_gradients: builds a one-weight linear model, asks an optimizer for its train op in the two
// calls Minimize makes, and draws the ops one training step runs, for chapter 01's page on
// learning.
//
//   bazel run //chapters/01_session:draw_gradients > gradients.dot && dot -Tsvg gradients.dot
//
// The picture is drawn by graph_drawing.h, the drawer of draw_graph, from the graph as it
// stands. Which box an op goes in is read off the graph too: ops are numbered in creation
// order, so the ops made by ComputeGradients (which calls Gradients) are those between
// the graph's size before and after that call, and the ops made by ApplyGradients are those
// after. Only the ops NeededOps plans for one run of the train op are drawn (the
// initializers are left out), and the program fails if that plan does not hold ops of all
// three kinds in the order forward, backward, update: one run, one step.
#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>

#include "chapters/01_session/graph_drawing.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/execution_plan.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

int Main() {
  // [mts:draw-gradients-model]
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output target = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 1}, "target");
  Variable w(Tensor::Matrix<float>({{0.5f}, {-1.0f}}), "w");
  Output y = MatMul(x, w, false, false, "y");
  Output loss = ReduceSum(Square(Sub(y, target)), std::nullopt, false, "loss");

  GradientDescentOptimizer optimizer(0.1);
  const int forward_end = static_cast<int>(graph.operations().size());  // ids: 0, 1, ...
  std::vector<GradAndVar> grads = optimizer.ComputeGradients(loss);     // Calls Gradients.
  const int backward_end = static_cast<int>(graph.operations().size());
  Operation* train_op = optimizer.ApplyGradients(grads);  // The updates.

  // What Session::Run({}, {{x, batch}, {target, labels}}, {train_op}) executes.
  const std::unordered_set<Output> fed = {x, target};
  const std::vector<const Operation*> plan = NeededOps(fed, {}, {train_op});
  // [mts:draw-gradients-model-end]

  // [mts:draw-gradients-groups]
  GraphDrawing drawing;
  drawing.plan = plan;
  drawing.fed = fed;
  drawing.only_planned = true;
  drawing.groups = {{"forward: the model and its loss", "#eef3fb", "#5577aa"},
                    {"backward: made by Gradients", "#fdf3e1", "#b08030"},
                    {"update: made by ApplyGradients", "#e8f5e9", "#3c8c4a"}};
  drawing.group_of = [&](const Operation& op) -> size_t {
    return op.id() < forward_end ? 0 : op.id() < backward_end ? 1 : 2;
  };
  // [mts:draw-gradients-groups-end]

  // The plan must run every forward op before any backward op, and every backward op
  // before any update: the order the picture's numbers show, checked rather than assumed.
  size_t last_group = 0;
  std::vector<int> planned_in(drawing.groups.size(), 0);
  for (const Operation* op : plan) {
    const size_t group = drawing.group_of(*op);
    if (group < last_group) {
      std::fprintf(stderr, "draw_gradients: %s (%s) runs after an op of a later kind\n",
                   op->name().c_str(), drawing.groups[group].label.c_str());
      return 1;
    }
    last_group = group;
    ++planned_in[group];
  }
  for (size_t g = 0; g < planned_in.size(); ++g) {
    if (planned_in[g] == 0) {
      std::fprintf(stderr, "draw_gradients: one step runs no op of '%s'\n",
                   drawing.groups[g].label.c_str());
      return 1;
    }
  }
  std::printf("%s", ToGraphviz(graph, drawing).c_str());
  return 0;
}

}  // namespace
}  // namespace mts

int main() { return mts::Main(); }
