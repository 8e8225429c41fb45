// mini_json.h: a small, strict JSON parser for tests that check files mts writes as JSON
// (ProfilerHook's Chrome traces), with no dependency beyond the standard library.
//
//   tests/03_hooked/hooks  ProfilerHook and Timeline tests parse what was written
//     MiniJson             <-- this file: text -> a tree of JsonValue, or a ParseError
//
// It accepts exactly RFC 8259 JSON: one value, optional whitespace around it, strings with
// the standard escapes (\uXXXX kept as '?' unless ASCII), numbers as doubles, and nothing
// else (no trailing commas, no comments, no NaN). It is a checker, not a library: it favours
// clarity over speed.
//
// Example:
//   JsonValue trace = ParseJson(text);                  // throws JsonParseError if invalid
//   const JsonValue& events = trace.at("traceEvents");
//   EXPECT_EQ(events.at(1).at("ph").string, "X");
#ifndef MTS_TESTS_03_HOOKED_HOOKS_MINI_JSON_H_
#define MTS_TESTS_03_HOOKED_HOOKS_MINI_JSON_H_

#include <cctype>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mts {

/// Raised by ParseJson with the offset of the first character it could not accept.
class JsonParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One parsed JSON value; only the member matching `kind` is meaningful.
struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;

  /// The member `key` of an object. \throws std::out_of_range if absent or not an object.
  const JsonValue& at(const std::string& key) const {
    if (kind != Kind::kObject) throw std::out_of_range("not an object: " + key);
    return object.at(key);
  }
  /// Element `i` of an array. \throws std::out_of_range if absent or not an array.
  const JsonValue& at(size_t i) const {
    if (kind != Kind::kArray) throw std::out_of_range("not an array");
    return array.at(i);
  }
  /// Whether this is an object with member `key`.
  bool has(const std::string& key) const {
    return kind == Kind::kObject && object.count(key) > 0;
  }
};

namespace mini_json_internal {

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  JsonValue ParseDocument() {
    JsonValue value = ParseValue();
    SkipSpace();
    if (pos_ != text_.size()) Fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    throw JsonParseError("JSON error at offset " + std::to_string(pos_) + ": " + what);
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
            text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  char Peek() {
    if (pos_ >= text_.size()) Fail("unexpected end");
    return text_[pos_];
  }
  void Expect(char c) {
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void ExpectWord(const std::string& word) {
    if (text_.compare(pos_, word.size(), word) != 0) Fail("expected " + word);
    pos_ += word.size();
  }

  JsonValue ParseValue() {
    SkipSpace();
    JsonValue value;
    const char c = Peek();
    if (c == '{') {
      value.kind = JsonValue::Kind::kObject;
      ++pos_;
      SkipSpace();
      if (Peek() == '}') {
        ++pos_;
        return value;
      }
      while (true) {
        SkipSpace();
        std::string key = ParseString();
        SkipSpace();
        Expect(':');
        if (value.object.count(key) > 0) Fail("duplicate key " + key);
        value.object[key] = ParseValue();
        SkipSpace();
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        Expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.kind = JsonValue::Kind::kArray;
      ++pos_;
      SkipSpace();
      if (Peek() == ']') {
        ++pos_;
        return value;
      }
      while (true) {
        value.array.push_back(ParseValue());
        SkipSpace();
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        Expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.kind = JsonValue::Kind::kString;
      value.string = ParseString();
      return value;
    }
    if (c == 't' || c == 'f') {
      value.kind = JsonValue::Kind::kBool;
      value.boolean = c == 't';
      ExpectWord(value.boolean ? "true" : "false");
      return value;
    }
    if (c == 'n') {
      ExpectWord("null");
      return value;
    }
    value.kind = JsonValue::Kind::kNumber;
    value.number = ParseNumber();
    return value;
  }

  std::string ParseString() {
    Expect('"');
    std::string out;
    while (true) {
      const char c = Peek();
      ++pos_;
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) Fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = Peek();
      ++pos_;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > text_.size()) Fail("short \\u escape");
          int code = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = text_[pos_++];
            if (!std::isxdigit(static_cast<unsigned char>(h))) Fail("bad \\u escape");
            code = code * 16 + (std::isdigit(static_cast<unsigned char>(h))
                                    ? h - '0'
                                    : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
          }
          out += code < 0x80 ? static_cast<char>(code) : '?';
          break;
        }
        default:
          Fail("bad escape");
      }
    }
  }

  double ParseNumber() {
    const size_t start = pos_;
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') {
      ++pos_;
    } else {
      Digits();
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      Digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      Digits();
    }
    return std::strtod(text_.substr(start, pos_ - start).c_str(), nullptr);
  }
  void Digits() {
    if (!std::isdigit(static_cast<unsigned char>(Peek()))) Fail("expected a digit");
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace mini_json_internal

/// Parses `text` as one JSON document. \throws JsonParseError naming the offset.
inline JsonValue ParseJson(const std::string& text) {
  return mini_json_internal::Parser(text).ParseDocument();
}

}  // namespace mts

#endif  // MTS_TESTS_03_HOOKED_HOOKS_MINI_JSON_H_
