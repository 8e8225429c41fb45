#include "tools/tracing/call_tracer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
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

// The drawing, read top to bottom: each participant is a column, a header box over its
// dashed lifeline, and the r-th event is a horizontal arrow in row r, its numbered label
// just above it. Every node is pinned where this code puts it (graphviz's neato layout with
// `pos="x,y!"`), so that the picture fits the book's text column (kWidth) whatever the
// number of columns, and no label can land on an arrow or on another label: each row is a
// band of its own, the label above the line. A label wider than its arrow spills sideways
// within its band, over the lifelines, which its white background hides.
constexpr double kWidth = 630;      // Points: the book's 876 px column, less a margin.
constexpr double kMaxColumn = 150;  // Points between two lifelines at most.
constexpr double kRow = 24;         // Points from one arrow to the next.
constexpr double kTop = 16;         // Points from the header boxes' middle to row 0.
constexpr double kTier = 34;        // Points between the two tiers of staggered headers.
constexpr double kLabelRise = 8.5;  // Points from an arrow up to its label's middle.
constexpr double kCharWidth = 6.2;  // Points a character of a 10 pt label takes, at most.

// The node of column `p`'s header box.
std::string Header(size_t p) { return "h" + std::to_string(p); }
// The node of column `p` at row `r` (an arrow's end).
std::string Cell(size_t p, size_t r) { return "p" + std::to_string(p) + "_" + std::to_string(r); }

// A position pinned in points (neato reads inches).
std::string Pos(double x, double y) {
  std::ostringstream pos;
  pos << "pos=\"" << x / 72 << "," << y / 72 << "!\"";
  return pos.str();
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

// How wide `text` is drawn, in points, at 10 pt: its longest line.
double TextWidth(const std::string& text) {
  size_t longest = 0, line = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text.compare(i, 2, "\\n") == 0) {
      longest = std::max(longest, line);
      line = 0;
      if (i < text.size()) ++i;
    } else {
      ++line;
    }
  }
  return longest * kCharWidth;
}

// A header's text in lines that fit `width` points: a long name breaks before a capital
// letter or at a space ("Recoverable" / "Session"), as near its middle as it can.
std::string HeaderLabel(const std::string& name, double width) {
  if (TextWidth(name) + 8 <= width) return name;
  size_t best = std::string::npos;
  for (size_t i = 1; i < name.size(); ++i) {
    const bool cut = std::isupper(static_cast<unsigned char>(name[i])) || name[i - 1] == ' ';
    if (cut && (best == std::string::npos ||
                std::abs(2.0 * i - name.size()) < std::abs(2.0 * best - name.size()))) {
      best = i;
    }
  }
  if (best == std::string::npos) return name;
  const size_t rest = name[best - 1] == ' ' ? best - 1 : best;
  return name.substr(0, rest) + "\\n" + name.substr(best);
}

// Where the columns go. When a name does not fit one column, the header boxes stand in two
// tiers, odd columns lower, so that each box may be almost two columns wide; the first and
// last boxes then reach past their columns, and `left` leaves room for them.
struct Layout {
  double spacing = 0;  // Points between two lifelines.
  double left = 0;     // Points left of the first column's share.
  double top = kTop;   // Points from the top tier's middle down to row 0.
  bool staggered = false;
  std::vector<double> boxes;  // Each header box's width.
  double X(size_t p) const { return left + spacing * (p + 0.5); }
};

// The columns of `names` within kWidth, as wide as kMaxColumn at most.
Layout LayOut(const std::vector<std::string>& names) {
  Layout layout;
  const size_t n = std::max<size_t>(1, names.size());
  layout.spacing = std::min(kMaxColumn, kWidth / n);
  for (const std::string& name : names) {
    layout.staggered |= HeaderLabel(name, layout.spacing - 6).find("\\n") != std::string::npos;
  }
  if (!layout.staggered) {
    layout.boxes.assign(names.size(), layout.spacing - 6);
    return layout;
  }
  layout.top = kTop + kTier;
  for (int pass = 0; pass < 2; ++pass) {  // The second pass fits the reach of the ends.
    layout.boxes.clear();
    for (const std::string& name : names) {
      const double fit = TextWidth(HeaderLabel(name, 2 * layout.spacing - 8)) + 10;
      layout.boxes.push_back(std::max(layout.spacing - 6, std::min(2 * layout.spacing - 8, fit)));
    }
    const double reach_left = std::max(0.0, (layout.boxes.front() - layout.spacing) / 2 + 3);
    const double reach_right = std::max(0.0, (layout.boxes.back() - layout.spacing) / 2 + 3);
    layout.left = reach_left;
    layout.spacing = std::min(kMaxColumn, (kWidth - reach_left - reach_right) / n);
  }
  return layout;
}

// Each column's header box, and its dashed lifeline down to the last row.
void WriteLifelines(std::ostream& dot, const std::vector<std::string>& participants,
                    const Layout& layout, size_t rows) {
  for (size_t p = 0; p < participants.size(); ++p) {
    const double x = layout.X(p), y = layout.staggered && p % 2 == 1 ? -kTier : 0;
    dot << "  " << Header(p) << " [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", "
        << "color=\"#5577aa\", fontsize=10, width=" << layout.boxes[p] / 72 << ", height=0.4, "
        << "fixedsize=true, " << Pos(x, y) << ", label=\""
        << HeaderLabel(participants[p], layout.boxes[p]) << "\"];\n";
    dot << "  " << Header(p) << " -> " << Cell(p, rows) << " [arrowhead=none, style=dashed, "
        << "color=\"#bbbbbb\"];\n";
    dot << "  " << Cell(p, rows) << " [" << Pos(x, -layout.top - kRow * (rows - 0.5)) << "];\n";
  }
}

// The r-th event as an arrow in row r + 1, a call solid from caller to callee, a return
// dashed, back, with its outcome; its numbered label above it, centred on it but kept
// inside the picture.
void WriteArrow(std::ostream& dot, const CallTracer::Event& e, size_t r, const Layout& layout,
                const std::map<std::string, size_t>& column) {
  const size_t from = column.at(e.from), to = column.at(e.to);
  const size_t tail = e.is_return ? to : from, head = e.is_return ? from : to;
  const double y = -layout.top - kRow * (r + 1);
  const double x_tail = layout.X(tail);
  double x_head = layout.X(head);
  if (tail == head) x_head += layout.spacing / 3;  // A call on itself: a stub to the right.
  const std::string ending = e.outcome.empty() ? " returns" : " " + e.outcome;
  const std::string label = std::to_string(r + 1) + ". " + e.method + (e.is_return ? ending : "");
  const double half = TextWidth(label) / 2 + 2;
  const double right = layout.X(column.size() - 1) + layout.spacing / 2;
  const double middle = std::max(half, std::min(right - half, (x_tail + x_head) / 2));
  const std::string a = Cell(tail, r + 1) + "a", b = Cell(head, r + 1) + "b";
  dot << "  " << a << " [" << Pos(x_tail, y) << "];\n"
      << "  " << b << " [" << Pos(x_head, y) << "];\n"
      << "  " << a << " -> " << b
      << (e.is_return ? " [style=dashed, color=\"#777777\"];\n" : " [color=\"#2255aa\"];\n")
      << "  l" << r + 1 << " [shape=plaintext, style=filled, fillcolor=white, fontsize=10, "
      << "width=0, height=0, margin=\"0.02,0\", " << Pos(middle, y + kLabelRise) << ", label=\""
      << label << "\"];\n";
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
  const Layout layout = LayOut(participants);
  std::ostringstream dot;
  dot << "digraph sequence {\n"
      << "  graph [layout=neato, splines=false, outputorder=edgesfirst, pad=0.05, "
      << "fontname=\"Helvetica\"];\n"
      << "  node [shape=point, width=0.01, height=0.01, color=\"#999999\", "
      << "fontname=\"Helvetica\"];\n"
      << "  edge [fontname=\"Helvetica\", arrowsize=0.7];\n";
  WriteLifelines(dot, participants, layout, all.size() + 1);
  for (size_t r = 0; r < all.size(); ++r) WriteArrow(dot, all[r], r, layout, column);
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
    tracer_->Return(caller_, name_, "Run", "threw");  // Drawn "Run threw", printed "Run (threw)".
    throw;
  }
}

}  // namespace mts
