#pragma once
/**
 * @brief Pieces shared by every candidate registry (SpMV, SpMM, SpGEMM): the "not applicable"
 * exception a plan's prepare() throws when its format cannot hold a matrix within its limits,
 * and the byte floors used for GB/s.
 */
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kkperm {

/**
 * @brief Thrown by a plan's prepare() when the candidate cannot run this matrix within its
 * documented limits (e.g. ELL padding above the fill limit). The message starts with the
 * candidate's label and states the limit. perf_test records it as "skipped"; the selector never
 * picks such a candidate for that matrix.
 */
class CandidateNotApplicable : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Bytes of one CSR matrix: row offsets (rows + 1), column indices and values.
inline double crs_bytes(std::int64_t num_rows, std::int64_t nnz, std::size_t value_bytes,
                        std::size_t ordinal_bytes, std::size_t offset_bytes) {
  return static_cast<double>(num_rows + 1) * static_cast<double>(offset_bytes) +
         static_cast<double>(nnz) * static_cast<double>(value_bytes + ordinal_bytes);
}

/**
 * @brief Minimum bytes one SpMV y = alpha*A*x + beta*y must move in CSR: values + column
 * indices + row_map, every x entry read once, y read (only when beta != 0) and y written.
 * Used as the denominator-free "byte floor" so GB/s is comparable across candidates (formats
 * that pad or permute move more than this; that is their cost, not a different floor).
 */
inline double spmv_byte_floor(std::int64_t num_rows, std::int64_t num_cols, std::int64_t nnz,
                              std::size_t value_bytes, std::size_t ordinal_bytes,
                              std::size_t offset_bytes, bool beta_nonzero) {
  const double n = static_cast<double>(num_rows), m = static_cast<double>(num_cols);
  double bytes = crs_bytes(num_rows, nnz, value_bytes, ordinal_bytes, offset_bytes) + m * value_bytes +
                 n * value_bytes;  // y written
  if (beta_nonzero) bytes += n * value_bytes;
  return bytes;
}

/// Flops of one SpMV: 2 per nonzero (multiply + add); the alpha/beta scaling is not counted.
inline double spmv_flops(std::int64_t nnz) { return 2.0 * static_cast<double>(nnz); }

/**
 * @brief Minimum bytes one SpGEMM C = A*B must move: A and B read once, C written once (row
 * offsets, columns, values). The same count bounds a numeric-only recomputation, which reads A,
 * B and C's structure and writes C's values. Re-reading B's rows once per product, the
 * expansion's intermediate products and any scratch are the algorithm's cost, not the floor's.
 */
inline double spgemm_byte_floor(std::int64_t rows_a, std::int64_t nnz_a, std::int64_t rows_b,
                                std::int64_t nnz_b, std::int64_t nnz_c, std::size_t value_bytes,
                                std::size_t ordinal_bytes, std::size_t offset_bytes) {
  return crs_bytes(rows_a, nnz_a, value_bytes, ordinal_bytes, offset_bytes) +
         crs_bytes(rows_b, nnz_b, value_bytes, ordinal_bytes, offset_bytes) +
         crs_bytes(rows_a, nnz_c, value_bytes, ordinal_bytes, offset_bytes);
}

/// spgemm_byte_floor of C = A*B for KokkosSparse::CrsMatrix-like A, B and C (value, ordinal and
/// offset widths from A's types).
template <class Matrix>
double spgemm_byte_floor(const Matrix& A, const Matrix& B, const Matrix& C) {
  return spgemm_byte_floor(A.numRows(), A.nnz(), B.numRows(), B.nnz(), C.nnz(),
                           sizeof(typename Matrix::value_type), sizeof(typename Matrix::ordinal_type),
                           sizeof(typename Matrix::size_type));
}

}  // namespace kkperm
