// The CSV reader exercise of chapter 04: MakeCsvReader()'s thread body, so that
// csv_runner_test passes. The parts to write lie between the `[mts:lab csv_runner]`
// markers (the helpers, and the body); the comment outside them says what to decide.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <utility>

#include "chapters/04_coordinated/exercises/csv_runner/csv_runner.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
// [mts:lab csv_runner]
namespace {

std::vector<std::string> Split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, separator)) fields.push_back(field);
  if (!line.empty() && line.back() == separator) fields.emplace_back();  // A last, empty field.
  return fields;
}

// `field` as a scalar of `dtype`; the whole field must parse. \throws InvalidArgumentError.
Tensor ParseField(const std::string& field, DataType dtype, const std::string& where) {
  auto bad = [&](const std::string& what) {
    return InvalidArgumentError(where + "field '" + field + "' is not " + what);
  };
  if (dtype == DataType::kString) return Tensor::Scalar(field);
  if (field.empty()) throw bad("a number");
  const char* begin = field.c_str();
  char* end = nullptr;
  errno = 0;
  switch (dtype) {
    case DataType::kInt32:
    case DataType::kInt64: {
      const long long value = std::strtoll(begin, &end, 10);
      if (*end != '\0') throw bad("an integer");
      if (dtype == DataType::kInt64) {
        if (errno == ERANGE) throw bad("an int64");
        return Tensor::Scalar<int64_t>(value);
      }
      if (errno == ERANGE || value < std::numeric_limits<int32_t>::min() ||
          value > std::numeric_limits<int32_t>::max()) {
        throw bad("an int32");
      }
      return Tensor::Scalar<int32_t>(static_cast<int32_t>(value));
    }
    case DataType::kFloat: {
      const float value = std::strtof(begin, &end);
      if (*end != '\0' || errno == ERANGE) throw bad("a float");
      return Tensor::Scalar(value);
    }
    case DataType::kDouble: {
      const double value = std::strtod(begin, &end);
      if (*end != '\0' || errno == ERANGE) throw bad("a double");
      return Tensor::Scalar(value);
    }
    default:
      throw InvalidArgumentError(where + "columns of this dtype cannot be parsed");
  }
}

void ReadRows(const std::string& path, const CsvEnqueueOps& ops, SessionInterface* session,
              Coordinator* coord, FileSystem* fs) {
  std::istringstream lines(fs->ReadFile(path));
  std::string line;
  for (int line_number = 1; std::getline(lines, line); ++line_number) {
    if (coord->ShouldStop()) return;
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_number) + ": ";
    const std::vector<std::string> fields = Split(line, ',');
    if (fields.size() != ops.columns.size()) {
      throw InvalidArgumentError(where + std::to_string(fields.size()) + " fields, expected " +
                                 std::to_string(ops.columns.size()));
    }
    FeedDict feeds;
    for (size_t i = 0; i < fields.size(); ++i) {
      feeds[ops.columns[i]] = ParseField(fields[i], ops.columns[i].dtype(), where);
    }
    session->Run(ops.enqueue, feeds);  // Waits while the queue is full.
  }
}

}  // namespace
// [mts:lab-end]

std::function<void()> MakeCsvReader(std::string path, CsvEnqueueOps ops, SessionInterface* session,
                                    Coordinator* coord, FileSystem* fs) {
  return [path = std::move(path), ops = std::move(ops), session, coord, fs] {
    // TODO(student): the contract is in the header (csv_runner.h): rows in order, one Run of
    // ops.enqueue per row fed through ops.columns, every error to the coordinator with
    // "<path>:<line>: ", and the queue closed however the reading ends. Decide what a row
    // is (a blank line? a trailing comma?), what "parses as int32" excludes (overflow,
    // "12abc", an empty field), when to look at coord->ShouldStop(), and the order of
    // "record the error" and "close the queue", so that a consumer woken by the close
    // already finds the error. Which errors of the close itself may you ignore, and why?
    // [mts:lab csv_runner]
    // The error, if any, is recorded before the queue closes: a consumer woken by the close
    // already finds the stop (and the error) in the coordinator.
    coord->StopOnException([&] { ReadRows(path, ops, session, coord, fs); });
    try {
      session->Run(ops.close);
    } catch (...) {
      // Ignored on purpose: the queue may be closed already (CancelledError after a cancel
      // at a stop), or the session too (RuntimeError); a closed queue is all we wanted.
    }
    // [mts:lab-end]
  };
}
// [mts:exercise-todo-end]

}  // namespace mts
