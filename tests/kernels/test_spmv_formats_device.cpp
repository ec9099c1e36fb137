// Device format builders (formats/spmv_formats.hpp device_*) against their host twins: every
// array must be identical bit for bit (they copy values and indices, no arithmetic), on fresh
// seeded random matrices, corner cases and the real matrices.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "common/test_utils.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/formats/spmv_formats.hpp"
#include "kkperm/gen/generators.hpp"
#include "kkperm/io/matrix_market.hpp"

namespace {

using GenCsr = kkperm::HostCsr<double, int, std::int64_t>;
using Exec = kkperm::DefaultExecSpace;
using Dev = kkperm::DefaultDevice;

/// Exact comparison (bitwise, so NaN payloads and -0.0 count) of a host vector and a view.
template <class T, class ViewT>
void expect_same(const std::vector<T>& host, const ViewT& dev, const std::string& what) {
  ASSERT_EQ(host.size(), dev.extent(0)) << what << ": sizes differ";
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dev);
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    const T d = static_cast<T>(h(i));
    if (std::memcmp(&host[i], &d, sizeof(T)) != 0 && bad++ == 0) first = i;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << host.size()
                     << " entries differ, first at " << first << " (host " << host[first]
                     << ", device " << static_cast<T>(h(first)) << ")";
}

std::vector<std::pair<std::string, GenCsr>> generated(std::uint64_t seed) {
  auto out = kkperm::test::tiny_corner_matrices();
  out.push_back({"empty_rows_hypersparse", kkperm::gen::hypersparse(3000, 0.05, 7, seed)});
  out.push_back({"one_dense_row_arrow", kkperm::gen::arrow(2500, 1, 0, seed + 1)});
  out.push_back({"wide_20x5000", kkperm::gen::random_uniform(20, 5000, 1, 900, seed + 2)});
  out.push_back({"tall_6000x9", kkperm::gen::random_uniform(6000, 9, 0, 9, seed + 3)});
  out.push_back({"power_law", kkperm::gen::power_law(6000, 12.0, 2.1, seed + 4)});
  out.push_back({"random_varied", kkperm::gen::random_uniform(9000, 9000, 2, 40, seed + 5)});
  out.push_back({"random_const", kkperm::gen::random_uniform(777, 1500, 6, seed + 6)});
  out.push_back({"block_diag_varied", kkperm::gen::block_diagonal(40, 1, 90, seed + 7)});
  out.push_back({"laplace2d", kkperm::gen::laplace2d_5pt(70, 60)});
  // Random columns over 300000: most entries of SELL16 take escape slots.
  out.push_back({"sell16_escapes", kkperm::gen::random_uniform(300, 300000, 1, 12, seed + 9)});
  // Rows long enough that HYB's histogram has > 8192 bins (global-atomic path).
  out.push_back({"few_long_rows", kkperm::gen::random_uniform(12, 20000, 2000, 12000, seed + 8)});
  return out;
}

/**
 * Compares every device build with its host twin on g, in value type T: max row length, HYB's k
 * (two rule settings, so small matrices also get k > 0), HYB for k in {0, 1, mean, histogram,
 * max} (ELL is HYB with k = max; skipped where n*k exceeds the ELL padding limit used by the
 * candidates, to keep memory bounded), SELL-C-sigma and SELL16 for several (C, sigma)
 * including sigma not a multiple of C and C = 1.
 */
template <class T>
void check_builders(const std::string& name, const GenCsr& g) {
  using Matrix = kkperm::Crs<T, int, Dev, int>;
  SCOPED_TRACE("matrix " + name + " (" + std::to_string(g.num_rows) + " x " +
               std::to_string(g.num_cols) + ", nnz " + std::to_string(g.nnz()) + ")");
  const Matrix A = kkperm::to_device<Matrix>(g);
  const auto h = kkperm::to_host(A);
  const auto& rm = A.graph.row_map;
  const std::int64_t n = h.num_rows, nnz = static_cast<std::int64_t>(h.nnz());

  const std::int64_t maxlen = kkperm::formats::max_row_length(h);
  EXPECT_EQ(kkperm::formats::device_max_row_length<Exec>(rm), maxlen);
  const std::int64_t k_hist = kkperm::formats::hyb_k_histogram(h, 3.0, 4096);
  EXPECT_EQ(kkperm::formats::device_hyb_k_histogram<Exec>(rm, 3.0, 4096), k_hist);
  const std::int64_t k_hist1 = kkperm::formats::hyb_k_histogram(h, 1.5, 1);
  EXPECT_EQ(kkperm::formats::device_hyb_k_histogram<Exec>(rm, 1.5, 1), k_hist1);

  for (std::int64_t k : {std::int64_t(0), std::int64_t(1), kkperm::formats::hyb_k_mean(h), k_hist,
                         k_hist1, maxlen}) {
    if (n * k > std::max<std::int64_t>(4 * nnz, 1 << 16)) continue;
    SCOPED_TRACE("hyb k=" + std::to_string(k));
    const auto hy = kkperm::formats::build_hyb(h, k);
    const auto d = kkperm::formats::device_build_hyb<Exec, Dev>(rm, A.graph.entries, A.values,
                                                                h.num_cols, k);
    EXPECT_EQ(d.num_rows, hy.ell.num_rows);
    EXPECT_EQ(d.num_cols, hy.ell.num_cols);
    EXPECT_EQ(d.k, hy.ell.k);
    expect_same(hy.ell.cols, d.ell_cols, "ell cols");
    expect_same(hy.ell.vals, d.ell_vals, "ell vals");
    expect_same(hy.coo.rows, d.coo_rows, "coo rows");
    expect_same(hy.coo.cols, d.coo_cols, "coo cols");
    expect_same(hy.coo.vals, d.coo_vals, "coo vals");
  }

  const std::pair<std::int64_t, std::int64_t> shapes[] = {{32, 256}, {32, 2048}, {4, 8}, {8, 12},
                                                          {1, 1},    {3, 7},     {32, 1}};
  for (const auto& [C, sigma] : shapes) {
    SCOPED_TRACE("sell C=" + std::to_string(C) + " sigma=" + std::to_string(sigma));
    const std::int64_t slots = kkperm::formats::sell_slots(h, C, sigma);
    auto d = kkperm::formats::device_sell_layout<Exec, Dev, T, int>(rm, h.num_cols, C, sigma);
    EXPECT_EQ(d.slots, slots);
    if (slots > std::max<std::int64_t>(8 * nnz, 1 << 16)) continue;
    kkperm::formats::device_sell_fill<Exec>(d, rm, A.graph.entries, A.values);
    const auto s = kkperm::formats::build_sell(h, C, sigma);
    EXPECT_EQ(d.num_slices, s.num_slices);
    EXPECT_EQ(d.num_rows, s.num_rows);
    expect_same(s.slice_ptr, d.slice_ptr, "sell slice_ptr");
    expect_same(s.perm, d.perm, "sell perm");
    expect_same(s.cols, d.cols, "sell cols");
    expect_same(s.vals, d.vals, "sell vals");

    // SELL16 on the same window sort: bases, lane lengths, slice_ptr, offsets and values.
    auto d16 = kkperm::formats::device_sell16_layout<Exec, Dev, T>(rm, A.graph.entries,
                                                                   h.num_cols, C, sigma);
    const auto l16 = kkperm::formats::build_sell16(h, C, sigma, true);
    EXPECT_EQ(d16.escapes, l16.escapes);
    EXPECT_EQ(d16.max_lane, l16.max_lane);
    EXPECT_EQ(d16.slots, static_cast<std::int64_t>(l16.slice_ptr.back()));
    if (l16.max_lane > kkperm::formats::sell16_max_lane ||
        d16.slots > std::max<std::int64_t>(8 * nnz, 1 << 16))
      continue;
    kkperm::formats::device_sell16_fill<Exec>(d16, rm, A.graph.entries, A.values);
    const auto s16 = kkperm::formats::build_sell16(h, C, sigma);
    expect_same(s16.slice_ptr, d16.slice_ptr, "sell16 slice_ptr");
    expect_same(s16.perm, d16.perm, "sell16 perm");
    expect_same(s16.slice_base, d16.slice_base, "sell16 slice_base");
    expect_same(s16.lane_len, d16.lane_len, "sell16 lane_len");
    expect_same(s16.offs, d16.offs, "sell16 offs");
    expect_same(s16.vals, d16.vals, "sell16 vals");
  }
}

template <class T>
class SpmvFormatsDevice : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpmvFormatsDevice, ValueTypes);

TYPED_TEST(SpmvFormatsDevice, DeviceBuildsEqualHostTwinsOnGeneratedMatrices) {
  const auto seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& [name, g] : generated(seed)) check_builders<TypeParam>(name, g);
}

TYPED_TEST(SpmvFormatsDevice, DeviceBuildsEqualHostTwinsOnRealMatrices) {
  int checked = 0;
  for (const auto& f : kkperm::test::list_files("real", ".mtx.gz")) {
    GenCsr g;
    try {
      g = kkperm::io::read_matrix_market(kkperm::test::matrices_dir() + "/real/" + f);
    } catch (const kkperm::io::ParseError&) {
      continue;  // complex fields and deliberately broken inputs of their sources
    }
    check_builders<TypeParam>(f, g);
    ++checked;
  }
  std::cout << "[formats device] real matrices checked: " << checked << "\n";
  EXPECT_GT(checked, 100);
}

}  // namespace
