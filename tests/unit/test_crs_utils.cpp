#include <gtest/gtest.h>

#include "kkperm/core/crs_utils.hpp"

namespace {
using Matrix = kkperm::DefaultCrs;

kkperm::HostCsr<double, int, int> small() {
  // 3 x 4: row 0 {0, 2}, row 1 {}, row 2 {1, 3}
  kkperm::HostCsr<double, int, int> h;
  h.num_rows = 3;
  h.num_cols = 4;
  h.row_map = {0, 2, 2, 4};
  h.entries = {0, 2, 1, 3};
  h.values = {1.0, 2.0, 3.0, 4.0};
  return h;
}
}  // namespace

TEST(CrsUtils, RoundTripHostDeviceHost) {
  const auto h = small();
  const auto A = kkperm::to_device<Matrix>(h);
  EXPECT_EQ(A.numRows(), 3);
  EXPECT_EQ(A.numCols(), 4);
  EXPECT_EQ(A.nnz(), 4);
  const auto back = kkperm::to_host(A);
  EXPECT_EQ(back.row_map, h.row_map);
  EXPECT_EQ(back.entries, h.entries);
  EXPECT_EQ(back.values, h.values);
  EXPECT_TRUE(kkperm::check_crs(A).ok());
}

TEST(CrsUtils, ValidateNamesUnsortedDuplicateAndOutOfRangeRows) {
  auto h = small();
  h.entries = {2, 0, 1, 3};
  auto c = kkperm::check_crs(kkperm::to_device<Matrix>(h));
  EXPECT_EQ(c.first_bad_row, 0);
  EXPECT_NE(c.problem.find("unsorted"), std::string::npos) << c.problem;
  EXPECT_TRUE(kkperm::check_crs(kkperm::to_device<Matrix>(h), /*require_sorted=*/false).ok());

  h = small();
  h.entries = {0, 2, 3, 3};
  c = kkperm::check_crs(kkperm::to_device<Matrix>(h));
  EXPECT_EQ(c.first_bad_row, 2);
  EXPECT_NE(c.problem.find("duplicate"), std::string::npos) << c.problem;

  h = small();
  h.entries = {0, 2, 1, 4};
  c = kkperm::check_crs(kkperm::to_device<Matrix>(h));
  EXPECT_EQ(c.first_bad_row, 2);
  EXPECT_NE(c.problem.find("outside"), std::string::npos) << c.problem;
  EXPECT_THROW(kkperm::validate(kkperm::to_device<Matrix>(h), "kkperm::test"),
               std::invalid_argument);
}

TEST(CrsUtils, ToDeviceRejectsOffsetOverflowAndBadSizes) {
  auto h = small();
  h.row_map.pop_back();
  EXPECT_THROW(kkperm::to_device<Matrix>(h), std::invalid_argument);
  h = small();
  h.values.pop_back();
  EXPECT_THROW(kkperm::to_device<Matrix>(h), std::invalid_argument);
  kkperm::HostCsr<double, std::int64_t, std::int64_t> big;
  big.num_rows = std::int64_t(1) << 32;  // does not fit an int ordinal
  big.num_cols = 1;
  big.row_map.assign(1, 0);
  EXPECT_THROW(kkperm::to_device<Matrix>(big), std::invalid_argument);
}
