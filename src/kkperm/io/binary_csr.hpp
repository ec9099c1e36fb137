#pragma once
/**
 * @brief Compact binary CSR (".kkcsr") for fast loading, e.g. on the GPU machine.
 *
 * Usage: `kkperm::io::write_binary_csr("A.kkcsr", h); auto h2 =
 * kkperm::io::read_binary_csr("A.kkcsr");`
 *
 * Layout (all little-endian, no padding between arrays):
 *   offset  0: char[8]  magic "KKPCSR\r\n" (the CR/LF catch text-mode/line-ending mangling)
 *   offset  8: uint32   version (1)
 *   offset 12: uint8    value type code    (1 = float64)
 *   offset 13: uint8    ordinal type code  (1 = int32, 2 = int64)
 *   offset 14: uint8    offset type code   (1 = int32, 2 = int64)
 *   offset 15: uint8    reserved (0)
 *   offset 16: int64    num_rows, int64 num_cols, int64 nnz
 *   offset 40: offset_t row_map[num_rows + 1], ordinal_t entries[nnz], float64 values[nnz]
 * The writer stores HostCsr<double, int, int64> as codes (1, 1, 2). The reader accepts any of
 * the listed codes and converts to HostCsr<double, int, int64>, checking ranges.
 * read_binary_csr throws ParseError ("kkperm::io: <file>: ...") for a bad magic, an unknown
 * version or type code, negative sizes, a file size that differs from what the header implies
 * (truncated or trailing bytes), and a structurally invalid CSR (row_map not starting at 0,
 * not monotone, not ending at nnz; columns out of range). Columns need not be sorted.
 */
#include <cstdint>
#include <string>

#include "kkperm/core/host_csr.hpp"

namespace kkperm::io {

void write_binary_csr(const std::string& path, const HostCsr<double, int, std::int64_t>& A);
HostCsr<double, int, std::int64_t> read_binary_csr(const std::string& path);

}  // namespace kkperm::io
