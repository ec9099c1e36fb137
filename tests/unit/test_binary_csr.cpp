// Binary CSR (.kkcsr): round trips and every rejected kind of damage.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "common/test_utils.hpp"
#include "kkperm/io/binary_csr.hpp"
#include "kkperm/io/matrix_market.hpp"
#include "unit/io_test_helpers.hpp"

namespace {
using kkperm::io::HostMatrix;
using kkperm::io::ParseError;
using kkperm::test::TempDir;

void expect_same(const HostMatrix& a, const HostMatrix& b) {
  EXPECT_EQ(a.num_rows, b.num_rows);
  EXPECT_EQ(a.num_cols, b.num_cols);
  EXPECT_EQ(a.row_map, b.row_map);
  EXPECT_EQ(a.entries, b.entries);
  ASSERT_EQ(a.values.size(), b.values.size());
  EXPECT_EQ(0, std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)));
}

/// Random rectangular CSR with empty rows and arbitrary (unsorted, repeated) columns: the
/// format stores whatever it is given.
HostMatrix random_csr(std::uint64_t seed, int rows, int cols, int max_per_row) {
  std::mt19937_64 rng(seed);
  HostMatrix h;
  h.num_rows = rows;
  h.num_cols = cols;
  h.row_map.assign(1, 0);
  for (int i = 0; i < rows; ++i) {
    const int k = (rng() % 4 == 0) ? 0 : static_cast<int>(rng() % (max_per_row + 1));
    for (int t = 0; t < k && cols > 0; ++t) {
      h.entries.push_back(static_cast<int>(rng() % cols));
      h.values.push_back(std::uniform_real_distribution<double>(-1e3, 1e3)(rng));
    }
    h.row_map.push_back(static_cast<std::int64_t>(h.entries.size()));
  }
  return h;
}

std::string error_of(const std::string& path) {
  try {
    kkperm::io::read_binary_csr(path);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& path, const std::string& what) {
  const std::string msg = error_of(path);
  ASSERT_FALSE(msg.empty()) << "accepted; expected '" << what << "'";
  EXPECT_EQ(msg.rfind("kkperm::io: " + path + ": ", 0), 0u) << msg;
  EXPECT_NE(msg.find(what), std::string::npos) << "expected '" << what << "' in: " << msg;
}

TEST(BinaryCsr, RoundTripRandomAndEmpty) {
  TempDir d;
  const auto seed = kkperm::test::fresh_seed();
  RecordProperty("seed", std::to_string(seed));
  for (auto [r, c, m] : {std::tuple<int, int, int>{0, 0, 0},
                         {0, 5, 0},
                         {5, 0, 0},
                         {1, 1, 1},
                         {100, 37, 9},
                         {1000, 2000, 40}}) {
    SCOPED_TRACE(std::to_string(r) + "x" + std::to_string(c) + " seed " + std::to_string(seed));
    const auto h = random_csr(seed + r, r, c, m);
    kkperm::io::write_binary_csr(d.path("r.kkcsr"), h);
    const auto bytes = kkperm::test::read_bytes(d.path("r.kkcsr"));
    EXPECT_EQ(bytes.size(), 40 + (r + 1) * 8 + h.entries.size() * 12);
    expect_same(kkperm::io::read_binary_csr(d.path("r.kkcsr")), h);
  }
}

TEST(BinaryCsr, RoundTripRealMatrices) {
  TempDir d;
  const std::string dir = kkperm::test::matrices_dir() + "/real/";
  for (const char* f :
       {"1138_bus.mtx.gz", "NotreDame_www.mtx.gz", "lp_e226.mtx.gz", "empty.mtx.gz"}) {
    SCOPED_TRACE(f);
    const auto h = kkperm::io::read_matrix_market(dir + f);
    kkperm::io::write_binary_csr(d.path("m.kkcsr"), h);
    expect_same(kkperm::io::read_binary_csr(d.path("m.kkcsr")), h);
  }
}

TEST(BinaryCsr, RejectsDamagedFiles) {
  TempDir d;
  HostMatrix h;
  h.num_rows = 3;
  h.num_cols = 4;
  h.row_map = {0, 2, 2, 3};
  h.entries = {3, 0, 1};
  h.values = {1.5, -2, 3};
  kkperm::io::write_binary_csr(d.path("good.kkcsr"), h);
  const std::string good = kkperm::test::read_bytes(d.path("good.kkcsr"));
  ASSERT_EQ(good.size(), 40u + 4 * 8 + 3 * 4 + 3 * 8);
  auto put = [&](const std::string& name, const std::string& bytes) {
    return d.write(name, bytes, /*raw=*/true);
  };
  auto patched = [&](std::size_t off, const void* p, std::size_t n) {
    std::string b = good;
    std::memcpy(&b[off], p, n);
    return b;
  };
  expect_error(put("mtx.kkcsr", "%%MatrixMarket matrix coordinate real general\n"), "bad magic");
  expect_error(put("empty.kkcsr", ""), "bad magic");
  expect_error(put("head.kkcsr", good.substr(0, 20)), "truncated header");
  expect_error(put("cut.kkcsr", good.substr(0, good.size() - 1)),
               "truncated file: header implies 108 bytes, file has 107");
  expect_error(put("cut2.kkcsr", good.substr(0, 48)), "truncated file");
  expect_error(put("long.kkcsr", good + "x"),
               "size mismatch: header implies 108 bytes, file has 109");
  const std::uint32_t v2 = 2;
  expect_error(put("ver.kkcsr", patched(8, &v2, 4)), "unsupported version 2");
  const unsigned char bad = 7;
  expect_error(put("vt.kkcsr", patched(12, &bad, 1)), "unknown value type code 7");
  expect_error(put("ot.kkcsr", patched(13, &bad, 1)), "unknown ordinal type code 7");
  expect_error(put("ft.kkcsr", patched(14, &bad, 1)), "unknown offset type code 7");
  const std::int64_t neg = -1, huge = std::int64_t(1) << 40;
  expect_error(put("neg.kkcsr", patched(16, &neg, 8)), "negative size");
  expect_error(put("ovf.kkcsr", patched(24, &huge, 8)), "overflows 32-bit ordinals");
  expect_error(put("nnz.kkcsr", patched(32, &huge, 8)), "truncated file");
  const int col = 4;
  expect_error(put("col.kkcsr", patched(40 + 32, &col, 4)), "entry 0 has column 4 outside [0, 4)");
  const std::int64_t one = 1, three = 3;
  expect_error(put("rm0.kkcsr", patched(40, &one, 8)), "row_map(0) is 1");
  expect_error(put("mono.kkcsr", patched(40 + 8, &three, 8)), "not monotone at row 1");
  expect_error(d.path("missing.kkcsr"), "cannot open");
  // An int32-ordinal/int32-offset file written by hand is accepted and converted.
  std::string small = good.substr(0, 40);
  small[14] = 1;  // offsets int32
  for (std::int32_t v : {0, 2, 2, 3}) small.append(reinterpret_cast<const char*>(&v), 4);
  small += good.substr(40 + 32, 3 * 4 + 3 * 8);
  const auto s = kkperm::io::read_binary_csr(put("i32.kkcsr", small));
  expect_same(s, h);
}

}  // namespace
