//===- Npy.h - read and write NumPy .npy files ------------------*- C++ -*-===//
//
// A small, dependency-free reader and writer for the NumPy .npy format
// (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
// format versions 1.0, 2.0 and 3.0 headers, little-endian data in C order.
// Fortran order (where it differs from C order: two or more dimensions
// above 1), big-endian data, object and other unsupported dtypes and
// truncated files are rejected with a message; nothing here aborts.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_TOOLSUPPORT_NPY_H
#define FUSE_TOOLSUPPORT_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace fuse {
namespace npy {

/// The element types fuse-run moves through .npy files (numpy's names).
/// BFloat16 is written and read as the 2-byte void type "<V2": NumPy has
/// no bfloat16, and that is what it saves ml_dtypes.bfloat16 arrays as
/// (np.load gives raw "V2" items; `.view(ml_dtypes.bfloat16)` the values).
enum class DType {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64
};

/// Bytes per element of `t`.
unsigned byteWidth(DType t);
/// numpy's name of `t` ("float32", "bool", ...).
const char *dtypeName(DType t);
/// The .npy descr string of `t` ("<f4", "|b1", ...).
const char *dtypeDescr(DType t);

/// numpy's spelling of a shape: "()", "(5,)", "(3, 4)".
std::string shapeString(const std::vector<int64_t> &shape);

/// Number of elements of `shape` (1 for rank 0).
int64_t numElements(const std::vector<int64_t> &shape);

/// An array in memory: C-order, little-endian element bytes.
struct Array {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// Reads `path` into `out`. On failure returns false and sets `error` to a
/// message without the path (the caller adds it).
bool readFile(const std::string &path, Array &out, std::string &error);

/// Parses the bytes of a whole .npy file.
bool parse(const std::vector<uint8_t> &bytes, Array &out, std::string &error);

/// Writes `array` to `path` (version 1.0 header unless it does not fit).
bool writeFile(const std::string &path, const Array &array, std::string &error);

/// The bytes of a .npy file holding `array`.
std::vector<uint8_t> serialize(const Array &array);

} // namespace npy
} // namespace fuse

#endif // FUSE_TOOLSUPPORT_NPY_H
