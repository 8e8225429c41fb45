// checkpoint_state_text.cc: CheckpointState in protobuf text format. Protobuf's TextFormat
// does the reading and the printing, over TensorFlow's message (checkpoint_state.proto);
// what is written here is only what TextFormat does not do as TensorFlow's Python does: the
// error message naming line and column, and doubles printed as Python's repr(float).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.pb.h"
#include "src/platform/errors.h"

namespace mts {

bool CheckpointState::operator==(const CheckpointState& other) const {
  // Doubles compare by bits so that two NaN timestamps read from one file are equal.
  auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  if (all_model_checkpoint_timestamps.size() != other.all_model_checkpoint_timestamps.size()) {
    return false;
  }
  for (size_t i = 0; i < all_model_checkpoint_timestamps.size(); ++i) {
    if (!same(all_model_checkpoint_timestamps[i], other.all_model_checkpoint_timestamps[i])) {
      return false;
    }
  }
  return model_checkpoint_path == other.model_checkpoint_path &&
         all_model_checkpoint_paths == other.all_model_checkpoint_paths &&
         same(last_preserved_timestamp, other.last_preserved_timestamp);
}

namespace {

// Keeps the first error TextFormat reports; its line and column are zero-based.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!error_.empty()) return;
    error_ = "checkpoint state text, line " + std::to_string(line + 1) + " column " +
             std::to_string(column + 1) + ": " + message;
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

// Python's repr(float): the fewest significant digits that read back as the same double,
// in positional form for exponents -4..15 (always with a ".0" at least), else as 1.5e+16.
std::string PythonFloatRepr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*e", precision - 1, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  // buffer is "-d.ddde+XX": split it into sign, digits and decimal exponent.
  const std::string s = buffer;
  const bool negative = s[0] == '-';
  const size_t e = s.find('e');
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (s[i] != '.') digits.push_back(s[i]);
  }
  const int exponent = std::atoi(s.c_str() + e + 1);
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof(exp), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + exp;
  }
  if (exponent < 0) return out + "0." + std::string(-exponent - 1, '0') + digits;
  const size_t integer_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) {
    return out + digits + std::string(integer_digits - digits.size(), '0') + ".0";
  }
  return out + digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
}

// C++'s TextFormat prints doubles with "%.17g" trimmed ("1577797234.6144359"); Python's
// protobuf, which wrote the state files TensorFlow users have, prints repr(float)
// ("1577797234.614436"). Everything else (field order, one line per value, C escapes with
// octal for other bytes) the two already print alike.
class PythonDoublePrinter : public google::protobuf::TextFormat::FastFieldValuePrinter {
 public:
  void PrintDouble(double value,
                   google::protobuf::TextFormat::BaseTextGenerator* generator) const override {
    generator->PrintString(PythonFloatRepr(value));
  }
};

CheckpointState FromProto(const tensorflow::CheckpointState& proto) {
  CheckpointState state;
  state.model_checkpoint_path = proto.model_checkpoint_path();
  state.all_model_checkpoint_paths.assign(proto.all_model_checkpoint_paths().begin(),
                                          proto.all_model_checkpoint_paths().end());
  state.all_model_checkpoint_timestamps.assign(proto.all_model_checkpoint_timestamps().begin(),
                                               proto.all_model_checkpoint_timestamps().end());
  state.last_preserved_timestamp = proto.last_preserved_timestamp();
  return state;
}

tensorflow::CheckpointState ToProto(const CheckpointState& state) {
  tensorflow::CheckpointState proto;
  proto.set_model_checkpoint_path(state.model_checkpoint_path);
  for (const std::string& path : state.all_model_checkpoint_paths) {
    proto.add_all_model_checkpoint_paths(path);
  }
  for (double t : state.all_model_checkpoint_timestamps) {
    proto.add_all_model_checkpoint_timestamps(t);
  }
  // Python's proto3 drops a double that compares equal to 0, -0.0 included; C++ keeps -0.0.
  if (state.last_preserved_timestamp != 0) {
    proto.set_last_preserved_timestamp(state.last_preserved_timestamp);
  }
  return proto;
}

}  // namespace

// [mts:parse-checkpoint-state]
CheckpointState ParseCheckpointState(std::string_view text) {
  tensorflow::CheckpointState proto;
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  // Merge, as TensorFlow's text_format.Merge: a singular field given twice keeps its last value.
  if (!parser.MergeFromString(std::string(text), &proto)) {
    throw ValueError(errors.error().empty() ? "checkpoint state text: unparsable"
                                            : errors.error());
  }
  return FromProto(proto);
}
// [mts:parse-checkpoint-state-end]

std::string CheckpointStateToText(const CheckpointState& state) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetDefaultFieldValuePrinter(new PythonDoublePrinter());  // The printer owns it.
  std::string text;
  printer.PrintToString(ToProto(state), &text);
  return text;
}

}  // namespace mts
