// draw_graph: builds a small model and draws it as the Graph holds it, with the ops one Run
// would execute, for chapter 01.
//
//   bazel run //chapters/01_session:draw_graph > graph.dot && dot -Tsvg graph.dot
//
// Nothing in the picture is typed by hand. The boxes are Graph::operations() in creation
// order, the solid arrows each op's inputs(), the dashed arrows its control_inputs(), and
// the ops drawn filled and numbered are what NeededOps (the pruning Session::Run plans
// with) returns for one signature: fetch `y`, feed `x`. The output is graphviz source, the
// same on every run: it holds only names, types and shapes.
#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/execution_plan.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

// The graph as graphviz source: one box per op (numbered in execution order if `plan` runs
// it, grey if not), an arrow per data input labelled with its static shape, a dashed arrow
// per control input, and a red arrow for each fed tensor, whose producer does not run.
std::string ToGraphviz(const Graph& graph, const std::vector<const Operation*>& plan,
                       const std::unordered_set<Output>& fed) {
  std::string dot =
      "digraph model {\n"
      "  graph [rankdir=TB, nodesep=0.25, ranksep=0.35, fontname=\"Helvetica\"];\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
      "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.7];\n";
  auto id = [](const Operation* op) { return "op" + std::to_string(op->id()); };
  for (const Operation* op : graph.operations()) {
    int step = 0;
    for (size_t i = 0; i < plan.size(); ++i) {
      if (plan[i] == op) step = static_cast<int>(i) + 1;
    }
    dot += "  " + id(op) + " [label=\"" + op->name() + "\\n" + op->type();
    if (step > 0) {
      dot += "\\nruns " + std::to_string(step) + " of " + std::to_string(plan.size()) +
             "\", fillcolor=\"#eef3fb\", color=\"#5577aa\"];\n";
    } else {
      dot += "\", fillcolor=\"#f4f4f4\", color=\"#bbbbbb\", fontcolor=\"#888888\"];\n";
    }
  }
  for (const Operation* op : graph.operations()) {
    for (const Output& input : op->inputs()) {
      const bool cut = fed.count(input) > 0;
      dot += "  " + id(input.op()) + " -> " + id(op) + " [label=\" " + (cut ? "fed " : "") +
             input.shape().ToString() + "\"" +
             (cut ? ", color=\"#cc3333\", fontcolor=\"#cc3333\", penwidth=1.6" : "") + "];\n";
    }
    for (const Operation* control : op->control_inputs()) {
      dot += "  " + id(control) + " -> " + id(op) +
             " [style=dashed, color=\"#999999\", label=\" control\"];\n";
    }
  }
  return dot + "}\n";
}

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
  std::printf("%s", ToGraphviz(graph, plan, fed).c_str());
  return 0;
}

}  // namespace
}  // namespace mts

int main() { return mts::Main(); }
