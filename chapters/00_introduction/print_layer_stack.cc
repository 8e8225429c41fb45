// print_layer_stack.cc: chapter 00's example. Prints the layers a run() call passes
// through for each kind of monitored session; the chapter shows its real output.
#include <iostream>
#include <string>

#include "chapters/00_introduction/exercises/layer_stack/layer_stack.h"

namespace {

void Print(const std::string& title, const mts::StackOptions& options) {
  std::cout << title << ":\n";
  std::string indent = "  ";
  for (mts::Layer layer : mts::LayerStack(options)) {
    std::cout << indent << mts::LayerName(layer) << "\n";
    indent += "  ";
  }
}

}  // namespace

int main() {
  Print("MonitoredSession, chief", {/*is_chief=*/true, /*recoverable=*/true});
  Print("MonitoredSession, worker", {/*is_chief=*/false, /*recoverable=*/true});
  Print("SingularMonitoredSession, chief", {/*is_chief=*/true, /*recoverable=*/false});
  return 0;
}
