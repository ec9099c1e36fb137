#pragma once
/**
 * @brief HostCsr: a plain std::vector CSR used as the interchange between I/O, generators,
 * serial reference twins and tests. Convert to/from KokkosSparse::CrsMatrix with
 * kkperm/core/crs_utils.hpp.
 *
 * Invariants after any kkperm producer: row_map.size() == num_rows + 1, row_map[0] == 0,
 * row_map monotone, entries.size() == values.size() == row_map.back(), columns in range,
 * sorted and unique within each row.
 */
#include <cstdint>
#include <vector>

namespace kkperm {

template <class ValueType = double, class OrdinalType = int, class OffsetType = int>
struct HostCsr {
  using value_type = ValueType;
  using ordinal_type = OrdinalType;
  using offset_type = OffsetType;

  OrdinalType num_rows = 0;
  OrdinalType num_cols = 0;
  std::vector<OffsetType> row_map{OffsetType(0)};
  std::vector<OrdinalType> entries;
  std::vector<ValueType> values;

  OffsetType nnz() const { return row_map.empty() ? OffsetType(0) : row_map.back(); }
};

}  // namespace kkperm
