#include "src/04_coordinated/exception_description.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

namespace mts {
namespace {

// Demangles a type name with the Itanium C++ ABI (g++ and clang on Linux); falls back to the
// mangled name if demangling fails.
std::string Demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(mangled);
}

}  // namespace

std::string ExceptionTypeName(const std::exception_ptr& error) {
  if (!error) return "";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return Demangle(typeid(e).name());  // typeid of a reference: the dynamic type.
  } catch (...) {
    // Not a std::exception (a thrown int, say): the ABI still knows the type being handled.
    const std::type_info* type = abi::__cxa_current_exception_type();
    return type != nullptr ? Demangle(type->name()) : "unknown exception";
  }
}

std::string ExceptionMessage(const std::exception_ptr& error) {
  if (!error) return "";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    // Nothing to read from a non-std::exception; ExceptionTypeName still names it.
    return "";
  }
}

std::string DescribeException(const std::exception_ptr& error) {
  const std::string message = ExceptionMessage(error);
  return message.empty() ? ExceptionTypeName(error) : ExceptionTypeName(error) + ", " + message;
}

}  // namespace mts
