// checkpoint_state_text.cc: CheckpointState in protobuf text format, read by a small
// hand-written parser and printed exactly as TensorFlow's Python protobuf prints it.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "src/platform/errors.h"
#include "src/02_chief_worker/checkpoint_state.h"

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

// ---- Protobuf text format, just enough for CheckpointState --------------------------------

// Reads the text left to right; every Fail names where the reader stands.
class TextParser {
 public:
  explicit TextParser(std::string_view text) : text_(text) {}

  CheckpointState Parse() {
    CheckpointState state;
    for (SkipSpace(); pos_ < text_.size(); SkipSpace()) {
      const size_t field_start = pos_;
      const std::string field = Identifier();
      SkipSpace();
      Expect(':', "after field name '" + field + "'");
      SkipSpace();
      if (field == "model_checkpoint_path") {
        state.model_checkpoint_path = String();
      } else if (field == "all_model_checkpoint_paths") {
        Repeated([&] { state.all_model_checkpoint_paths.push_back(String()); });
      } else if (field == "all_model_checkpoint_timestamps") {
        Repeated([&] { state.all_model_checkpoint_timestamps.push_back(Double()); });
      } else if (field == "last_preserved_timestamp") {
        state.last_preserved_timestamp = Double();
      } else {
        pos_ = field_start;
        Fail("CheckpointState has no field named '" + field + "'");
      }
      SkipSpace();
      if (pos_ < text_.size() && (text_[pos_] == ',' || text_[pos_] == ';')) ++pos_;
    }
    return state;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    int line = 1;
    int column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw ValueError("checkpoint state text, line " + std::to_string(line) + " column " +
                     std::to_string(column) + ": " + what);
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  // Whitespace and '#' comments to the end of the line.
  void SkipSpace() {
    while (!AtEnd()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '#') {
        while (!AtEnd() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  void Expect(char c, const std::string& where) {
    if (Peek() != c) Fail(std::string("expected '") + c + "' " + where);
    ++pos_;
  }

  static bool IsIdentifierChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
  }

  std::string Identifier() {
    const size_t start = pos_;
    if (AtEnd() || !IsIdentifierChar(Peek()) || (Peek() >= '0' && Peek() <= '9')) {
      Fail("expected a field name");
    }
    while (!AtEnd() && IsIdentifierChar(Peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  // A repeated field's value: one value, or a list "[v, v, ...]".
  template <typename ParseOne>
  void Repeated(ParseOne parse_one) {
    if (Peek() != '[') {
      parse_one();
      return;
    }
    ++pos_;
    SkipSpace();
    if (Peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      parse_one();
      SkipSpace();
      if (Peek() == ']') {
        ++pos_;
        return;
      }
      Expect(',', "or ']' in a list");
      SkipSpace();
    }
  }

  // One or more adjacent quoted strings, concatenated (as C does).
  std::string String() {
    if (Peek() != '"' && Peek() != '\'') Fail("expected a quoted string");
    std::string value;
    while (Peek() == '"' || Peek() == '\'') {
      QuotedString(&value);
      SkipSpace();
    }
    return value;
  }

  static int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  static void AppendUtf8(uint32_t code, std::string* out) {
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (code >> 18)));
      out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  void QuotedString(std::string* out) {
    const char quote = text_[pos_++];
    for (;;) {
      if (AtEnd() || Peek() == '\n') Fail("unterminated string");
      const char c = text_[pos_++];
      if (c == quote) return;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (AtEnd()) Fail("unterminated string");
      const char e = text_[pos_++];
      switch (e) {
        case 'a': out->push_back('\a'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'v': out->push_back('\v'); break;
        case '\\': case '\'': case '"': case '?': out->push_back(e); break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
          int value = e - '0';  // Up to three octal digits.
          for (int i = 0; i < 2 && Peek() >= '0' && Peek() <= '7'; ++i) {
            value = value * 8 + (text_[pos_++] - '0');
          }
          if (value > 0xFF) Fail("octal escape out of range");
          out->push_back(static_cast<char>(value));
          break;
        }
        case 'x': case 'X': {
          int value = 0;
          int digits = 0;
          for (; digits < 2 && HexValue(Peek()) >= 0; ++digits) {
            value = value * 16 + HexValue(text_[pos_++]);
          }
          if (digits == 0) Fail("\\x escape without hex digits");
          out->push_back(static_cast<char>(value));
          break;
        }
        case 'u': case 'U': {
          const int want = e == 'u' ? 4 : 8;
          uint32_t code = 0;
          for (int i = 0; i < want; ++i) {
            if (HexValue(Peek()) < 0) Fail(std::string("\\") + e + " escape needs " +
                                           std::to_string(want) + " hex digits");
            code = code * 16 + HexValue(text_[pos_++]);
          }
          if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
            Fail("\\u escape is not a Unicode scalar value");
          }
          AppendUtf8(code, out);
          break;
        }
        default:
          --pos_;
          Fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  // A double: decimal or exponent form, an integer, inf/infinity/nan, optional f suffix.
  double Double() {
    const size_t start = pos_;
    std::string token;
    if (Peek() == '-' || Peek() == '+') token.push_back(text_[pos_++]);
    while (!AtEnd() && (IsIdentifierChar(Peek()) || Peek() == '.' ||
                        ((Peek() == '-' || Peek() == '+') && pos_ > start &&
                         (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      token.push_back(text_[pos_++]);
    }
    const size_t sign = (!token.empty() && (token[0] == '-' || token[0] == '+')) ? 1 : 0;
    std::string body = token.substr(sign);
    std::string lower;
    for (char c : body) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    const bool negative = sign == 1 && token[0] == '-';
    if (lower == "inf" || lower == "inff" || lower == "infinity" || lower == "infinityf") {
      return negative ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    }
    if (lower == "nan" || lower == "nanf") return std::numeric_limits<double>::quiet_NaN();
    // A decimal literal: digits with at most one '.', an optional exponent, an optional f.
    if (!lower.empty() && lower.back() == 'f') lower.pop_back();
    size_t i = 0;
    auto skip_digits = [&] {
      const size_t first = i;
      while (i < lower.size() && lower[i] >= '0' && lower[i] <= '9') ++i;
      return i - first;
    };
    size_t mantissa_digits = skip_digits();
    if (i < lower.size() && lower[i] == '.') {
      ++i;
      mantissa_digits += skip_digits();
    }
    bool ok = mantissa_digits > 0;
    if (ok && i < lower.size() && lower[i] == 'e') {
      ++i;
      if (i < lower.size() && (lower[i] == '-' || lower[i] == '+')) ++i;
      ok = skip_digits() > 0;
    }
    if (!ok || i != lower.size()) {
      pos_ = start;
      Fail("expected a number, found '" + token + "'");
    }
    const std::string literal = (negative ? "-" : "") + lower;
    // Out-of-range literals become +-inf or 0, as Python's float() makes them.
    return std::strtod(literal.c_str(), nullptr);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// ---- Printing as Python's protobuf does --------------------------------------------------

// Python's text_encoding.CEscape(s, as_utf8=False).
std::string CEscape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c >= 0x7F) {
          char octal[5];
          std::snprintf(octal, sizeof(octal), "\\%03o", c);
          out += octal;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out;
}

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

}  // namespace

CheckpointState ParseCheckpointState(std::string_view text) {
  return TextParser(text).Parse();
}

std::string CheckpointStateToText(const CheckpointState& state) {
  std::string out;
  if (!state.model_checkpoint_path.empty()) {
    out += "model_checkpoint_path: \"" + CEscape(state.model_checkpoint_path) + "\"\n";
  }
  for (const std::string& path : state.all_model_checkpoint_paths) {
    out += "all_model_checkpoint_paths: \"" + CEscape(path) + "\"\n";
  }
  for (double t : state.all_model_checkpoint_timestamps) {
    out += "all_model_checkpoint_timestamps: " + PythonFloatRepr(t) + "\n";
  }
  if (state.last_preserved_timestamp != 0) {
    out += "last_preserved_timestamp: " + PythonFloatRepr(state.last_preserved_timestamp) + "\n";
  }
  return out;
}

}  // namespace mts
