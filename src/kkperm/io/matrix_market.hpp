#pragma once
/**
 * @brief Matrix Market (.mtx / .mtx.gz) reader and writer.
 *
 * Usage: `auto h = kkperm::io::read_matrix_market("A.mtx.gz");`
 *        `auto A = kkperm::io::read_crs<kkperm::DefaultCrs>("A.mtx.gz");`
 *
 * What the reader accepts (every other input throws ParseError, whose message always reads
 * "kkperm::io: <file>:<line>: <what is wrong>", or "kkperm::io: <file>: ..." for problems that
 * have no line, such as a file that cannot be opened or a truncated gzip stream):
 *  - Banner `%%MatrixMarket matrix <format> <field> <symmetry>` on the first non-blank line
 *    (blank lines before it are skipped; the keywords are case-insensitive).
 *  - format `coordinate` or `array`. `array` (dense, column-major) IS read into CSR and every
 *    stored element becomes an entry, zeros included (a dense array is a valid matrix); for
 *    symmetric arrays the stored lower triangle is mirrored, for skew-symmetric arrays the
 *    diagonal is absent (it is zero by definition). `array pattern` is invalid and rejected.
 *  - field `real`, `integer` (the token must be an integer: "1.5", "inf" or "nan" in an integer
 *    file are errors; converted to double, so integers beyond 2^53 round) or `pattern` (every entry
 * has value 1.0). `complex` is rejected: "complex matrices are not supported".
 *  - symmetry `general`, `symmetric`, `skew-symmetric` (off-diagonal mirrored negated; a
 *    diagonal entry is an error), `hermitian` (for real/integer/pattern data it equals
 *    `symmetric`). `pattern skew-symmetric` is rejected (its values cannot be negated).
 *    Non-general matrices must be square.
 *  - Symmetric files: each off-diagonal entry (i,j) also yields (j,i), the diagonal is not
 *    duplicated. A file may store either triangle (SuiteSparse uses the lower one, some tools
 *    the upper one), but a file with entries in BOTH strict triangles is rejected: it almost
 *    always means full storage, which mirroring would silently double.
 *  - Size line `rows cols nnz` (coordinate) or `rows cols` (array) after the comments;
 *    0 x 0, 0 x n and n x 0 with no entries are valid. Negative sizes, rows/cols > INT_MAX
 *    (32-bit ordinals) and a nonzero nnz with a zero dimension are errors.
 *  - Exactly nnz entry lines (too few or too many is an error); blank lines and `%` comment
 *    lines between entries are skipped. Indices are 1-based: 0 or > dimension is an error.
 *    Non-numeric tokens, missing tokens and anything after the last expected token on a line
 *    are errors (so a `pattern` file whose lines carry a value is rejected). Real values may be
 *    nan/inf (kept as such).
 *  - Duplicate entries are SUMMED (real/integer) in file order; for `pattern` files a repeated
 *    coordinate stays 1.0 (the pattern is a set). Columns are sorted within every row.
 *
 * The whole file is decompressed into memory first (zlib gzopen/gzread, which also reads
 * uncompressed files), so a truncated or corrupt gzip stream is reported as such before any
 * parsing. Parsing is a hand-written tokenizer over the buffer (std::from_chars).
 */
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/host_csr.hpp"

namespace kkperm::io {

/// A malformed input file; the message names the file and (where there is one) the line.
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using HostMatrix = HostCsr<double, int, std::int64_t>;

/**
 * @brief Reads a Matrix Market file (.mtx, or gzip-compressed whatever the name) into a sorted,
 * duplicate-free HostCsr. Throws ParseError for malformed input (see the header comment).
 */
HostMatrix read_matrix_market(const std::string& path);

/**
 * @brief Writes `A` as `%%MatrixMarket matrix coordinate real general` with full precision
 * (%.17g, so doubles round-trip exactly); gzip-compressed when `path` ends in ".gz".
 * Throws std::invalid_argument for an inconsistent HostCsr, std::runtime_error on I/O failure.
 */
void write_matrix_market(const std::string& path, const HostMatrix& A);

/// True when `path` ends with `suffix`.
bool ends_with(const std::string& path, const std::string& suffix);

}  // namespace kkperm::io

#include "kkperm/io/binary_csr.hpp"

namespace kkperm::io {

/**
 * @brief Reads a matrix file into a KokkosSparse::CrsMatrix of type `Matrix` on its memory
 * space: `.kkcsr` files through read_binary_csr, everything else through read_matrix_market.
 * Throws ParseError for malformed files and std::invalid_argument when the matrix does not fit
 * Matrix's ordinal/offset types (e.g. nnz > INT_MAX with int offsets).
 */
template <class Matrix>
Matrix read_crs(const std::string& path) {
  const HostMatrix h = ends_with(path, ".kkcsr") ? read_binary_csr(path) : read_matrix_market(path);
  return kkperm::to_device<Matrix>(h, path);
}

}  // namespace kkperm::io
