#include "src/01_session/op_def.h"

namespace mts {

OpRegistry& OpRegistry::Global() {
  // Leaked on purpose: registrations run during static initialisation of many files, and
  // lookups may happen during static destruction; a function-local never-destroyed object
  // is safe in both.
  static OpRegistry* registry = new OpRegistry;
  return *registry;
}

void OpRegistry::Register(OpDef def) {
  for (const auto& d : defs_) {
    if (d->type == def.type) throw AlreadyExistsError("Op type '" + def.type + "' is registered twice");
  }
  defs_.push_back(std::make_unique<OpDef>(std::move(def)));
}

const OpDef& OpRegistry::Lookup(const std::string& type) const {
  for (const auto& d : defs_) {
    if (d->type == type) return *d;
  }
  throw NotFoundError("Op type not registered: '" + type +
                      "' (is the library that defines it linked with alwayslink = 1?)");
}

}  // namespace mts
