// graph_drawing.cc: see graph_drawing.h.
#include "chapters/01_session/graph_drawing.h"

#include <map>

namespace mts {
namespace {

// An op's name as a box shows it: a long one (the gradient and update ops' are) breaks after
// each '/', so the box is a third as wide and the picture fits the page's column.
std::string BoxName(const std::string& name) {
  if (name.size() <= 20) return name;
  std::string box;
  for (char c : name) {
    box += c;
    if (c == '/') box += "\\n";
  }
  return box;
}

}  // namespace

std::string ToGraphviz(const Graph& graph, const GraphDrawing& drawing) {
  std::string dot =
      "digraph model {\n"
      // At most 8.7 inches wide: the book's column, 876 px. A wider layout is scaled down to
      // it (its 11 pt text to no less than 10 pt in the graphs the book draws).
      "  graph [newrank=true, rankdir=TB, nodesep=0.25, ranksep=0.35, size=\"8.7,100\", "
      "fontname=\"Helvetica\"];\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
      "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.7];\n";
  auto id = [](const Operation* op) { return "op" + std::to_string(op->id()); };
  std::map<const Operation*, int> step;  // 1-based position in the plan.
  for (size_t i = 0; i < drawing.plan.size(); ++i) step[drawing.plan[i]] = static_cast<int>(i) + 1;
  std::unordered_set<const Operation*> feeds_from;  // Their producers are drawn, grey.
  for (const Output& fed : drawing.fed) feeds_from.insert(fed.op());
  auto drawn = [&](const Operation* op) {
    return !drawing.only_planned || step.count(op) > 0 || feeds_from.count(op) > 0;
  };

  // Each op's box, written into its group's cluster (or at top level without groups).
  std::vector<std::string> clusters(drawing.groups.size());
  for (const Operation* op : graph.operations()) {
    if (!drawn(op)) continue;
    std::string box = "  " + id(op) + " [label=\"" + BoxName(op->name()) + "\\n" + op->type();
    const auto planned = step.find(op);
    const OpGroup* group =
        drawing.groups.empty() ? nullptr : &drawing.groups.at(drawing.group_of(*op));
    if (planned != step.end()) {
      box += "\\nruns " + std::to_string(planned->second) + " of " +
             std::to_string(drawing.plan.size()) + "\", fillcolor=\"" +
             (group ? group->fill : "#eef3fb") + "\", color=\"" +
             (group ? group->border : "#5577aa") + "\"];\n";
    } else {
      box += "\", fillcolor=\"#f4f4f4\", color=\"#bbbbbb\", fontcolor=\"#888888\"];\n";
    }
    if (group == nullptr) {
      dot += box;
    } else {
      clusters[drawing.group_of(*op)] += "  " + box;
    }
  }
  for (size_t g = 0; g < clusters.size(); ++g) {
    if (clusters[g].empty()) continue;
    const OpGroup& group = drawing.groups[g];
    dot += "  subgraph cluster_" + std::to_string(g) + " {\n    label=\"" + group.label +
           "\"; labeljust=l; fontsize=12; style=\"rounded,dashed\"; color=\"" + group.border +
           "\"; fontcolor=\"" + group.border + "\";\n" + clusters[g] + "  }\n";
  }

  for (const Operation* op : graph.operations()) {
    if (!drawn(op)) continue;
    for (const Output& input : op->inputs()) {
      if (!drawn(input.op())) continue;
      const bool cut = drawing.fed.count(input) > 0;
      dot += "  " + id(input.op()) + " -> " + id(op) + " [label=\" " + (cut ? "fed " : "") +
             input.shape().ToString() + "\"" +
             (cut ? ", color=\"#cc3333\", fontcolor=\"#cc3333\", penwidth=1.6" : "") + "];\n";
    }
    for (const Operation* control : op->control_inputs()) {
      if (!drawn(control)) continue;
      dot += "  " + id(control) + " -> " + id(op) +
             " [style=dashed, color=\"#999999\", label=\" control\"];\n";
    }
  }
  return dot + "}\n";
}

}  // namespace mts
