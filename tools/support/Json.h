//===- Json.h - a small JSON reader for fuse-run-aot's manifests -*- C++ -*-===//
//
// Enough JSON (RFC 8259) for the manifests fuse-compile writes: objects,
// arrays, strings (with \uXXXX escapes, encoded as UTF-8), numbers, true,
// false and null. Private to FuseAOTRunner. No LLVM: fuse-run-aot builds
// with the runtime alone.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_TOOLSUPPORT_JSON_H
#define FUSE_TOOLSUPPORT_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fuse {
namespace json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  bool isInteger = false; // a number written without fraction or exponent
  int64_t integer = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;

  bool isNull() const { return kind == Kind::Null; }
  /// The member `key` of an object, or null when absent (or not an object).
  const Value *get(const std::string &key) const;
};

/// Parses `text` into `out`; on failure returns false and sets `error`
/// (with the line and column).
bool parse(const std::string &text, Value &out, std::string &error);

} // namespace json
} // namespace fuse

#endif // FUSE_TOOLSUPPORT_JSON_H
