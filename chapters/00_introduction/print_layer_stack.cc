// print_layer_stack.cc: chapter 00's example. Builds the three kinds of monitored session a
// training program uses and prints the layers a run() call really passes through, walking
// the stack from its top layer down through each WrappedSession's inner session. Nothing
// is described by hand: the names are the C++ types of the objects the stack is made of.
#include <cxxabi.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <typeinfo>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/worker_session_creator.h"
#include "src/03_hooked/wrapped_session.h"
#include "src/06_monitored/monitored_session.h"

namespace {

// The class name of the object behind `session`, without the namespace ("HookedSession").
std::string TypeName(const mts::SessionInterface& session) {
  const char* mangled = typeid(session).name();
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 ? demangled : mangled;
  std::free(demangled);
  const std::string prefix = "mts::";
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

// [mts:walk-the-stack]
// Prints each layer, outermost first, one indent deeper per layer: a layer that wraps
// another is a WrappedSession, and the walk ends at the raw session, which wraps nothing.
void PrintStack(const std::string& title, const mts::MonitoredSession& session,
                const std::string& creator) {
  std::cout << title << ":\n";
  std::string indent = "  ";
  const mts::SessionInterface* layer = session.top_layer();
  while (layer != nullptr) {
    const auto* wrapped = dynamic_cast<const mts::WrappedSession*>(layer);
    std::cout << indent << TypeName(*layer);
    if (wrapped == nullptr) std::cout << "  (the raw session, made by " << creator << ")";
    std::cout << "\n";
    layer = wrapped != nullptr ? wrapped->inner() : nullptr;
    indent += "  ";
  }
}
// [mts:walk-the-stack-end]

}  // namespace

int main() {
  // The session manager's INFO lines would bury the three stacks; warnings still show.
  setenv("MTS_MIN_LOG_LEVEL", "1", /*overwrite=*/0);
  // A graph with nothing to initialise, so that a worker is ready at once: in one process
  // there is no chief to wait for.
  mts::Graph graph;
  mts::DefaultGraphScope as_default(graph);
  mts::Constant(1.0f, "one");

  {
    mts::MonitoredSession chief(std::make_shared<mts::ChiefSessionCreator>());
    PrintStack("MonitoredSession, chief", chief, "ChiefSessionCreator");
    chief.Close();
  }
  {
    mts::MonitoredSession worker(std::make_shared<mts::WorkerSessionCreator>());
    PrintStack("MonitoredSession, worker", worker, "WorkerSessionCreator");
    worker.Close();
  }
  {
    mts::SingularMonitoredSession singular;
    PrintStack("SingularMonitoredSession (always the chief)", singular, "ChiefSessionCreator");
    singular.Close();
  }
  return 0;
}
