// exception_description.h: a readable name and message for an exception held as a
// std::exception_ptr, for the log lines of the coordinated layer.
//
// Stage 04: errors cross threads as std::exception_ptr, which says nothing about itself
// until rethrown; these functions give its demangled dynamic type ("mts::AbortedError") and
// what() ("" for an exception that is not a std::exception).
//
// Thread safety: every function here is safe to call from any thread; rethrowing an
// exception_ptr does not change the exception it points to.
//
// Example:
//   MTS_LOG(INFO) << "Error reported to Coordinator: " << DescribeException(error);
//
// TensorFlow: the class and text of a Python exception, as its Coordinator logs them.
#ifndef MTS_SRC_04_COORDINATED_EXCEPTION_DESCRIPTION_H_
#define MTS_SRC_04_COORDINATED_EXCEPTION_DESCRIPTION_H_

#include <exception>
#include <string>

namespace mts {

/// The dynamic type of the exception `error` points to, demangled ("mts::AbortedError",
/// "std::runtime_error", "int"); "" when `error` is null.
std::string ExceptionTypeName(const std::exception_ptr& error);

/// what() of the exception `error` points to; "" when `error` is null or the exception is
/// not a std::exception.
std::string ExceptionMessage(const std::exception_ptr& error);

/// Both, as the coordinated layer logs an error: "<type>, <message>" ("mts::AbortedError,
/// lost the parameter server"), or just the type when there is no message.
std::string DescribeException(const std::exception_ptr& error);

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_EXCEPTION_DESCRIPTION_H_
