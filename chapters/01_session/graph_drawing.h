// graph_drawing.h: chapter 01's drawer of a Graph as graphviz source, shared by the two
// programs that draw one (draw_graph for the session page, draw_gradients for the learning
// page), so both pictures are drawn by the same code.
//
// Nothing in a picture is typed by hand: the boxes are Graph::operations() in creation
// order, the solid arrows each op's inputs() labelled with their static shapes, the dashed
// arrows its control_inputs(), and the ops drawn filled and numbered are the plan a caller
// passes in, as NeededOps (the pruning Session::Run plans with) returned it.
#ifndef MTS_CHAPTERS_01_SESSION_GRAPH_DRAWING_H_
#define MTS_CHAPTERS_01_SESSION_GRAPH_DRAWING_H_

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "src/01_session/graph.h"

namespace mts {

/// A group of ops drawn together in a labelled box of one colour (a graphviz cluster).
struct OpGroup {
  std::string label;   ///< The box's title ("forward", "backward: Gradients", ...).
  std::string fill;    ///< The fill colour of its planned ops ("#eef3fb").
  std::string border;  ///< Their border colour, and the box's.
};

/// What to draw, beyond the graph itself.
struct GraphDrawing {
  /// The ops one Run executes, in order: drawn filled and numbered "runs k of N".
  std::vector<const Operation*> plan;
  /// The fed tensors: their arrows are red, as their producers do not run.
  std::unordered_set<Output> fed;
  /// Leave out the ops the plan does not run (the initializers of a training graph).
  bool only_planned = false;
  /// The groups; empty: no boxes, every planned op in the first style below.
  std::vector<OpGroup> groups;
  /// Which group an op belongs to (an index into `groups`); needed when groups are given.
  std::function<size_t(const Operation&)> group_of;
};

/// The graph as graphviz source: one box per op (numbered in execution order if the plan
/// runs it, grey if not), an arrow per data input labelled with its static shape, a dashed
/// arrow per control input, a red arrow for each fed tensor. The same on every run: it holds
/// only names, types and shapes.
std::string ToGraphviz(const Graph& graph, const GraphDrawing& drawing);

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_GRAPH_DRAWING_H_
