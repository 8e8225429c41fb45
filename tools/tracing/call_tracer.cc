#include "tools/tracing/call_tracer.h"

#include <map>
#include <ostream>
#include <sstream>

namespace mts {

void CallTracer::Call(const std::string& from, const std::string& to, const std::string& method) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back({from, to, method, false, ""});
}

void CallTracer::Return(const std::string& from, const std::string& to, const std::string& method,
                        const std::string& outcome) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back({from, to, method, true, outcome});
}

void CallTracer::AddParticipant(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& p : participants_) {
    if (p == name) return;
  }
  participants_.push_back(name);
}

std::vector<CallTracer::Event> CallTracer::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

void CallTracer::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  events_.clear();
  participants_.clear();
}

std::string CallTracer::ToText() const {
  std::ostringstream out;
  for (const Event& e : events()) {
    out << e.from << (e.is_return ? " <- " : " -> ") << e.to << ": " << e.method;
    if (!e.outcome.empty()) out << " (" << e.outcome << ")";
    out << "\n";
  }
  return out.str();
}

// [mts:trace-to-graphviz]
namespace {

// The drawing, read top to bottom: each participant is a column, a header box over one
// invisible point per event row, joined top to bottom by its dashed lifeline. Row r holds
// every column's r-th point at one height (rank=same), and the r-th event is a horizontal
// arrow within that row. Arrows are straight (splines=false) and their labels are xlabels,
// placed after layout: an ordinary label is a node of its own, which bends an arrow that
// passes other columns.

// The node of column `p` in row `r`: its header box in row 0, else its point.
std::string Cell(size_t p, size_t r) {
  if (r == 0) return "h" + std::to_string(p);
  return "p" + std::to_string(p) + "_" + std::to_string(r);
}

// The participants, one column each: those added first, then the others in order of first
// appearance; `column` maps each name to its column.
std::vector<std::string> Columns(const std::vector<std::string>& added,
                                 const std::vector<CallTracer::Event>& events,
                                 std::map<std::string, size_t>& column) {
  std::vector<std::string> participants;
  for (const std::string& p : added) {
    column.emplace(p, participants.size());
    participants.push_back(p);
  }
  for (const CallTracer::Event& e : events) {
    for (const std::string& p : {e.from, e.to}) {
      if (column.emplace(p, participants.size()).second) participants.push_back(p);
    }
  }
  return participants;
}

// Each column's header box and its dashed lifeline through rows 1 to rows - 1.
void WriteLifelines(std::ostream& dot, const std::vector<std::string>& participants, size_t rows) {
  for (size_t p = 0; p < participants.size(); ++p) {
    dot << "  " << Cell(p, 0) << " [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", "
        << "color=\"#5577aa\", fontsize=11, width=1.4, height=0.35, label=\"" << participants[p]
        << "\"];\n";
    dot << "  " << Cell(p, 0);
    for (size_t r = 1; r < rows; ++r) dot << " -> " << Cell(p, r);
    dot << " [arrowhead=none, style=dashed, color=\"#bbbbbb\", weight=100];\n";
  }
}

// Every row at one height, and invisible edges that keep the columns in order, left to
// right, in the header row and in every event row.
void WriteRows(std::ostream& dot, size_t columns, size_t rows) {
  for (size_t r = 0; r < rows; ++r) {
    dot << "  { rank=same; ";
    for (size_t p = 0; p < columns; ++p) dot << Cell(p, r) << "; ";
    dot << "}\n";
  }
  for (size_t r = 0; r < rows; ++r) {
    for (size_t p = 0; p + 1 < columns; ++p) {
      dot << "  " << Cell(p, r) << " -> " << Cell(p + 1, r) << " [style=invis];\n";
    }
  }
}

// The r-th event as an arrow in row r + 1, numbered: a call solid, from caller to callee; a
// return dashed, back, with its outcome.
void WriteArrows(std::ostream& dot, const std::vector<CallTracer::Event>& events,
                 const std::map<std::string, size_t>& column) {
  for (size_t r = 0; r < events.size(); ++r) {
    const CallTracer::Event& e = events[r];
    const size_t from = column.at(e.from), to = column.at(e.to);
    const size_t tail = e.is_return ? to : from, head = e.is_return ? from : to;
    const std::string ending = e.outcome.empty() ? " returns" : " " + e.outcome;
    dot << "  " << Cell(tail, r + 1) << " -> " << Cell(head, r + 1) << " [xlabel=\"" << r + 1
        << ". " << e.method << (e.is_return ? ending : "") << "\""
        << (e.is_return ? ", style=dashed, color=\"#777777\"" : ", color=\"#2255aa\"") << "];\n";
  }
}

}  // namespace

std::string CallTracer::ToGraphviz() const {
  std::vector<Event> all;
  std::vector<std::string> added;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all = events_;
    added = participants_;
  }
  std::map<std::string, size_t> column;
  const std::vector<std::string> participants = Columns(added, all, column);
  const size_t rows = all.size() + 1;  // The header row, then one per event.
  std::ostringstream dot;
  dot << "digraph sequence {\n"
      << "  graph [rankdir=TB, nodesep=1.2, ranksep=0.3, splines=false, forcelabels=true, "
      << "fontname=\"Helvetica\"];\n"
      << "  node [shape=point, width=0.01, height=0.01, color=\"#999999\"];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=10, arrowsize=0.7];\n";
  WriteLifelines(dot, participants, rows);
  WriteRows(dot, participants.size(), rows);
  WriteArrows(dot, all, column);
  dot << "}\n";
  return dot.str();
}
// [mts:trace-to-graphviz-end]

TracingHook::TracingHook(std::shared_ptr<CallTracer> tracer, std::string name, std::string caller)
    : tracer_(std::move(tracer)), name_(std::move(name)), caller_(std::move(caller)) {}

void TracingHook::Record(const std::string& method) { tracer_->Call(caller_, name_, method); }
void TracingHook::Begin() { Record("Begin"); }
void TracingHook::AfterCreateSession(SessionInterface&, Coordinator*) {
  Record("AfterCreateSession");
}
SessionRunArgs TracingHook::BeforeRun(SessionRunContext&) {
  Record("BeforeRun");
  return {};
}
void TracingHook::AfterRun(SessionRunContext&, const SessionRunValues&) { Record("AfterRun"); }
void TracingHook::End(SessionInterface&) { Record("End"); }

TracingSession::TracingSession(std::unique_ptr<SessionInterface> inner,
                               std::shared_ptr<CallTracer> tracer, std::string name,
                               std::string caller)
    : WrappedSession(std::move(inner)),
      tracer_(std::move(tracer)),
      name_(std::move(name)),
      caller_(std::move(caller)) {}

std::vector<Tensor> TracingSession::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                        const std::vector<Operation*>& targets,
                                        const RunOptions& options, RunMetadata* run_metadata) {
  tracer_->Call(caller_, name_, "Run");
  try {
    std::vector<Tensor> out = WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
    tracer_->Return(caller_, name_, "Run");
    return out;
  } catch (...) {
    tracer_->Return(caller_, name_, "Run (threw)");
    throw;
  }
}

}  // namespace mts
