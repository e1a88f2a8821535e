//===- Json.cpp - a small JSON reader for fuse-run-aot's manifests --------===//

#include "Json.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace fuse {
namespace json {

const Value *Value::get(const std::string &key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (const auto &member : object)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

namespace {

struct Parser {
  const std::string &text;
  size_t pos = 0;
  std::string &error;
  unsigned depth = 0;

  bool failAt(const std::string &message) {
    unsigned line = 1, col = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    error = "line " + std::to_string(line) + ", column " + std::to_string(col) +
            ": " + message;
    return false;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool literal(const char *word) {
    size_t n = std::strlen(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xc0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += char(0xe0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    } else {
      out += char(0xf0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3f));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    }
  }

  bool hex4(uint32_t &out) {
    if (pos + 4 > text.size())
      return failAt("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= c - '0';
      else if (c >= 'a' && c <= 'f')
        out |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        out |= c - 'A' + 10;
      else
        return failAt("bad \\u escape");
    }
    return true;
  }

  bool parseString(std::string &out) {
    if (pos >= text.size() || text[pos] != '"')
      return failAt("expected a string");
    ++pos;
    out.clear();
    while (true) {
      if (pos >= text.size())
        return failAt("unterminated string");
      char c = text[pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return failAt("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        return failAt("unterminated string");
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!hex4(cp))
          return false;
        if (cp >= 0xd800 && cp < 0xdc00 && text.compare(pos, 2, "\\u") == 0) {
          pos += 2;
          uint32_t lo = 0;
          if (!hex4(lo))
            return false;
          if (lo >= 0xdc00 && lo < 0xe000)
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return failAt(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  bool parseNumber(Value &v) {
    size_t start = pos;
    if (pos < text.size() && text[pos] == '-')
      ++pos;
    bool integral = true;
    size_t digits = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
      ++pos;
    if (pos == digits)
      return failAt("expected a value");
    if (pos < text.size() && text[pos] == '.') {
      integral = false;
      ++pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      integral = false;
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
    }
    std::string s = text.substr(start, pos - start);
    v.kind = Value::Kind::Number;
    v.number = std::strtod(s.c_str(), nullptr);
    if (integral) {
      errno = 0;
      long long i = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == 0) {
        v.isInteger = true;
        v.integer = i;
      }
    }
    return true;
  }

  bool parseValue(Value &v) {
    if (++depth > 64)
      return failAt("nested too deeply");
    skipSpace();
    if (pos >= text.size())
      return failAt("unexpected end of input");
    char c = text[pos];
    bool ok;
    if (c == '{') {
      ++pos;
      v.kind = Value::Kind::Object;
      skipSpace();
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        ok = true;
      } else {
        ok = false;
        while (true) {
          skipSpace();
          std::string key;
          if (!parseString(key))
            break;
          skipSpace();
          if (pos >= text.size() || text[pos] != ':') {
            failAt("expected ':'");
            break;
          }
          ++pos;
          Value member;
          if (!parseValue(member))
            break;
          v.object.emplace_back(std::move(key), std::move(member));
          skipSpace();
          if (pos < text.size() && text[pos] == ',') {
            ++pos;
            continue;
          }
          if (pos < text.size() && text[pos] == '}') {
            ++pos;
            ok = true;
          } else {
            failAt("expected ',' or '}'");
          }
          break;
        }
      }
    } else if (c == '[') {
      ++pos;
      v.kind = Value::Kind::Array;
      skipSpace();
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        ok = true;
      } else {
        ok = false;
        while (true) {
          Value element;
          if (!parseValue(element))
            break;
          v.array.push_back(std::move(element));
          skipSpace();
          if (pos < text.size() && text[pos] == ',') {
            ++pos;
            continue;
          }
          if (pos < text.size() && text[pos] == ']') {
            ++pos;
            ok = true;
          } else {
            failAt("expected ',' or ']'");
          }
          break;
        }
      }
    } else if (c == '"') {
      v.kind = Value::Kind::String;
      ok = parseString(v.string);
    } else if (literal("true")) {
      v.kind = Value::Kind::Bool;
      v.boolean = true;
      ok = true;
    } else if (literal("false")) {
      v.kind = Value::Kind::Bool;
      ok = true;
    } else if (literal("null")) {
      v.kind = Value::Kind::Null;
      ok = true;
    } else {
      ok = parseNumber(v);
    }
    --depth;
    return ok;
  }
};

} // namespace

bool parse(const std::string &text, Value &out, std::string &error) {
  Parser p{text, 0, error};
  out = Value();
  if (!p.parseValue(out))
    return false;
  p.skipSpace();
  if (p.pos != text.size())
    return p.failAt("trailing characters after the value");
  return true;
}

} // namespace json
} // namespace fuse
