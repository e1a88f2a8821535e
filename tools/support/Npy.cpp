//===- Npy.cpp - read and write NumPy .npy files --------------------------===//
//
// File layout: the magic "\x93NUMPY", a major and a minor version byte, the
// header length (2 bytes little-endian in version 1, 4 bytes in versions 2
// and 3), then the header: a Python dict literal with the keys 'descr',
// 'fortran_order' and 'shape', padded with spaces and ended by '\n' so that
// the data starts at a multiple of 64 bytes. The data follows in C order.
//
//===----------------------------------------------------------------------===//

#include "fuse/ToolSupport/Npy.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

namespace fuse {
namespace npy {

unsigned byteWidth(DType t) {
  switch (t) {
  case DType::Bool:
  case DType::Int8:
    return 1;
  case DType::Int16:
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  case DType::Int32:
  case DType::Float32:
    return 4;
  case DType::Int64:
  case DType::Float64:
    return 8;
  }
  return 1;
}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::Bool:
    return "bool";
  case DType::Int8:
    return "int8";
  case DType::Int16:
    return "int16";
  case DType::Int32:
    return "int32";
  case DType::Int64:
    return "int64";
  case DType::Float16:
    return "float16";
  case DType::BFloat16:
    return "bfloat16";
  case DType::Float32:
    return "float32";
  case DType::Float64:
    return "float64";
  }
  return "?";
}

const char *dtypeDescr(DType t) {
  switch (t) {
  case DType::Bool:
    return "|b1";
  case DType::Int8:
    return "|i1";
  case DType::Int16:
    return "<i2";
  case DType::Int32:
    return "<i4";
  case DType::Int64:
    return "<i8";
  case DType::Float16:
    return "<f2";
  case DType::BFloat16:
    return "<V2";
  case DType::Float32:
    return "<f4";
  case DType::Float64:
    return "<f8";
  }
  return "?";
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

/// A cursor over the header dict literal.
struct HeaderParser {
  const std::string &text;
  size_t pos = 0;
  std::string &error;

  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool expect(char c) {
    if (consume(c))
      return true;
    error = std::string("malformed header: expected '") + c + "' at offset " +
            std::to_string(pos);
    return false;
  }
  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"')) {
      error = "malformed header: expected a string at offset " +
              std::to_string(pos);
      return false;
    }
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos) {
      error = "malformed header: unterminated string";
      return false;
    }
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseBool(bool &out) {
    skipSpace();
    if (text.compare(pos, 4, "True") == 0) {
      out = true;
      pos += 4;
      return true;
    }
    if (text.compare(pos, 5, "False") == 0) {
      out = false;
      pos += 5;
      return true;
    }
    error = "malformed header: expected True or False at offset " +
            std::to_string(pos);
    return false;
  }
  bool parseShape(std::vector<int64_t> &out) {
    if (!expect('('))
      return false;
    out.clear();
    while (true) {
      if (consume(')'))
        return true;
      skipSpace();
      if (pos >= text.size() || !std::isdigit((unsigned char)text[pos])) {
        error = "malformed header: bad shape at offset " + std::to_string(pos);
        return false;
      }
      int64_t v = 0;
      while (pos < text.size() && std::isdigit((unsigned char)text[pos])) {
        int digit = text[pos++] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) {
          error = "shape dimension too large";
          return false;
        }
        v = v * 10 + digit;
      }
      // numpy may write Python 2 longs ("3L").
      if (pos < text.size() && text[pos] == 'L')
        ++pos;
      out.push_back(v);
      if (!consume(',')) {
        if (!expect(')'))
          return false;
        return true;
      }
    }
  }
  /// Skips a value of an unknown key (strings, names, tuples).
  bool skipValue() {
    skipSpace();
    int depth = 0;
    while (pos < text.size()) {
      char c = text[pos];
      if (c == '\'' || c == '"') {
        std::string ignored;
        if (!parseString(ignored))
          return false;
        continue;
      }
      if (c == '(' || c == '[' || c == '{')
        ++depth;
      else if (c == ')' || c == ']' || c == '}') {
        if (depth == 0)
          return true;
        --depth;
      } else if (c == ',' && depth == 0)
        return true;
      ++pos;
    }
    error = "malformed header: unterminated value";
    return false;
  }
};

bool parseDescr(const std::string &descr, DType &out, std::string &error) {
  if (descr.size() < 2) {
    error = "unsupported dtype '" + descr + "'";
    return false;
  }
  char order = descr[0];
  std::string kind = descr.substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    // No byte-order character: "f4", "O", ...
    order = '|';
    kind = descr;
  }
  if (kind == "O" || kind.rfind("O", 0) == 0) {
    error = "object arrays (dtype 'O') are not supported";
    return false;
  }
  struct Entry {
    const char *kind;
    DType type;
  } table[] = {{"b1", DType::Bool},    {"?", DType::Bool},
               {"i1", DType::Int8},    {"i2", DType::Int16},
               {"i4", DType::Int32},   {"i8", DType::Int64},
               {"f2", DType::Float16}, {"f4", DType::Float32},
               {"f8", DType::Float64}, {"V2", DType::BFloat16}};
  for (const Entry &e : table) {
    if (kind != e.kind)
      continue;
    if (order == '>' && byteWidth(e.type) > 1) {
      error = "big-endian data ('" + descr + "') is not supported";
      return false;
    }
    out = e.type;
    return true;
  }
  error = "unsupported dtype '" + descr +
          "' (supported: bool, int8, int16, int32, int64, float16, float32, "
          "float64, and V2 as bfloat16)";
  return false;
}

} // namespace

bool parse(const std::vector<uint8_t> &bytes, Array &out, std::string &error) {
  static const char magic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), magic, 6) != 0) {
    error = "not a .npy file (bad magic)";
    return false;
  }
  unsigned major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = bytes[8] | (size_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = "truncated file: incomplete header";
      return false;
    }
    headerLen = bytes[8] | (size_t(bytes[9]) << 8) | (size_t(bytes[10]) << 16) |
                (size_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    error = "unsupported .npy format version " + std::to_string(major) + "." +
            std::to_string(bytes[7]);
    return false;
  }
  if (bytes.size() - headerStart < headerLen) {
    error = "truncated file: header needs " + std::to_string(headerLen) +
            " bytes, file has " + std::to_string(bytes.size() - headerStart);
    return false;
  }
  std::string header(bytes.begin() + headerStart,
                     bytes.begin() + headerStart + headerLen);

  HeaderParser p{header, 0, error};
  bool haveDescr = false, haveOrder = false, haveShape = false;
  bool fortran = false;
  std::string descr;
  std::vector<int64_t> shape;
  if (!p.expect('{'))
    return false;
  while (!p.consume('}')) {
    std::string key;
    if (!p.parseString(key) || !p.expect(':'))
      return false;
    if (key == "descr") {
      p.skipSpace();
      if (p.pos < header.size() && header[p.pos] == '[') {
        error = "structured dtypes are not supported";
        return false;
      }
      if (!p.parseString(descr))
        return false;
      haveDescr = true;
    } else if (key == "fortran_order") {
      if (!p.parseBool(fortran))
        return false;
      haveOrder = true;
    } else if (key == "shape") {
      if (!p.parseShape(shape))
        return false;
      haveShape = true;
    } else if (!p.skipValue()) {
      return false;
    }
    if (!p.consume(',')) {
      if (!p.expect('}'))
        return false;
      break;
    }
  }
  if (!haveDescr || !haveOrder || !haveShape) {
    error = "malformed header: needs 'descr', 'fortran_order' and 'shape'";
    return false;
  }
  DType dtype;
  if (!parseDescr(descr, dtype, error))
    return false;
  if (fortran && shape.size() > 1) {
    int64_t nontrivial = 0;
    for (int64_t d : shape)
      nontrivial += d > 1;
    if (nontrivial > 1) {
      error = "Fortran-order arrays are not supported (write the array with "
              "numpy.ascontiguousarray)";
      return false;
    }
  }
  // Byte count, guarding against overflow.
  uint64_t count = 1;
  bool zero = false;
  for (int64_t d : shape)
    zero |= d == 0;
  if (!zero) {
    for (int64_t d : shape) {
      if (count > std::numeric_limits<uint64_t>::max() / 8 / uint64_t(d)) {
        error = "array too large";
        return false;
      }
      count *= uint64_t(d);
    }
  } else {
    count = 0;
  }
  uint64_t need = count * byteWidth(dtype);
  size_t dataStart = headerStart + headerLen;
  uint64_t have = bytes.size() - dataStart;
  if (have < need) {
    error = "truncated file: " + std::string(dtypeName(dtype)) +
            " array of shape " + shapeString(shape) + " needs " +
            std::to_string(need) + " data bytes, file has " +
            std::to_string(have);
    return false;
  }
  if (have > need) {
    error = "file has " + std::to_string(have - need) +
            " bytes after the array data";
    return false;
  }
  out.dtype = dtype;
  out.shape = shape;
  out.data.assign(bytes.begin() + dataStart, bytes.end());
  return true;
}

bool readFile(const std::string &path, Array &out, std::string &error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes.insert(bytes.end(), buf, buf + n);
  bool readError = std::ferror(f);
  std::fclose(f);
  if (readError) {
    error = "read error";
    return false;
  }
  return parse(bytes, out, error);
}

std::vector<uint8_t> serialize(const Array &array) {
  std::string dict =
      std::string("{'descr': '") + dtypeDescr(array.dtype) +
      "', 'fortran_order': False, 'shape': " + shapeString(array.shape) + ", }";
  // Pad with spaces so that magic + version + length + header ends with
  // '\n' at a multiple of 64 bytes.
  size_t prefix = 10;
  size_t total = prefix + dict.size() + 1;
  bool v2 = false;
  if (((total + 63) / 64) * 64 - prefix > 65535) {
    v2 = true;
    prefix = 12;
    total = prefix + dict.size() + 1;
  }
  size_t padded = ((total + 63) / 64) * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  size_t headerLen = dict.size();

  std::string prefixBytes("\x93NUMPY", 6);
  prefixBytes += char(v2 ? 2 : 1);
  prefixBytes += char(0);
  prefixBytes += char(headerLen & 0xff);
  prefixBytes += char((headerLen >> 8) & 0xff);
  if (v2) {
    prefixBytes += char((headerLen >> 16) & 0xff);
    prefixBytes += char((headerLen >> 24) & 0xff);
  }
  std::string head = prefixBytes + dict;
  std::vector<uint8_t> out(head.size() + array.data.size());
  std::memcpy(out.data(), head.data(), head.size());
  if (!array.data.empty())
    std::memcpy(out.data() + head.size(), array.data.data(), array.data.size());
  return out;
}

bool writeFile(const std::string &path, const Array &array,
               std::string &error) {
  std::vector<uint8_t> bytes = serialize(array);
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = std::string("cannot create: ") + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok &= std::fclose(f) == 0;
  if (!ok)
    error = "write error";
  return ok;
}

} // namespace npy
} // namespace fuse
