// The SpMM kernels (C-stationary / column-major B, row-major B, row-major B staged per tile of
// rows) against their serial twins
// and against a double reference on the unpermuted matrix, on every row-set shape they accept:
// plain, permuted with results in the caller's order, permuted space, DCSR, DCSR of a permuted
// matrix. The permutations here are random bijections built by the test itself, so the kernels'
// row-set handling is checked independently of kkperm::permute.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include "common/test_utils.hpp"
#include "kernels/spmm_test_helpers.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/formats/spmv_formats.hpp"
#include "kkperm/kernels/spmm/c_stationary.hpp"
#include "kkperm/kernels/spmm/layout_copy.hpp"
#include "kkperm/kernels/spmm/reference.hpp"
#include "kkperm/kernels/spmm/row_major.hpp"
#include "kkperm/kernels/spmm/row_tiled.hpp"
#include "kkperm/select/spmm_own_plan.hpp"

namespace {
namespace ks = kkperm::kernels::spmm;
namespace ts = kkperm::test::spmm;
using Device = kkperm::DefaultDevice;
using Exec = kkperm::DefaultExecSpace;

enum class RowSet { plain, permuted_writeback, permuted_space, dcsr, dcsr_permuted };
const char* name(RowSet r) {
  switch (r) {
    case RowSet::plain: return "plain";
    case RowSet::permuted_writeback: return "permuted_writeback";
    case RowSet::permuted_space: return "permuted_space";
    case RowSet::dcsr: return "dcsr";
    case RowSet::dcsr_permuted: return "dcsr_permuted";
  }
  return "?";
}

// split_len > 0 (row-major only): rows longer than that go through build_row_split's segments,
// of seg_len entries (0: split_len). LayoutLeft runs c_stationary, or with rm_on_left the
// row-major kernel on the column-major views (row_major_left's path for small row sets).
template <class T, class Layout>
void run_case(const ts::NamedMatrix& M, RowSet rs, int K, double alpha, double beta,
              std::uint64_t seed, std::int64_t split_len = 0, int slab_cols = 0, int walk_rows = 1,
              std::int64_t seg_len = 0, bool rm_on_left = false) {
  SCOPED_TRACE(M.name + " rowset=" + name(rs) + " K=" + std::to_string(K) +
               " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
               " seed=" + std::to_string(seed) + " split_len=" + std::to_string(split_len) +
               " seg_len=" + std::to_string(seg_len) + " slab_cols=" + std::to_string(slab_cols) +
               " walk_rows=" + std::to_string(walk_rows) + " rm_on_left=" + std::to_string(rm_on_left));
  const auto& A = M.A;
  const int n = A.num_rows, m = A.num_cols;
  std::mt19937_64 rng(seed);
  // perm[p] = original row stored at position p.
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  const bool permuted = rs == RowSet::permuted_writeback || rs == RowSet::permuted_space ||
                        rs == RowSet::dcsr_permuted;
  if (permuted) std::shuffle(perm.begin(), perm.end(), rng);
  const bool dcsr = rs == RowSet::dcsr || rs == RowSet::dcsr_permuted;
  const bool out_permuted = rs == RowSet::permuted_space;
  // Output row of stored position p (in the Y the caller holds).
  auto out_row = [&](int p) { return out_permuted ? p : perm[p]; };

  kkperm::HostCsr<T, int, int> S;  // stored rows
  S.num_cols = m;
  S.row_map.assign(1, 0);
  std::vector<int> ids, empties;
  for (int p = 0; p < n; ++p) {
    const int i = perm[p];
    const auto b = A.row_map[i], e = A.row_map[i + 1];
    if (dcsr && b == e) {
      empties.push_back(out_row(p));
      continue;
    }
    for (auto k = b; k < e; ++k) {
      S.entries.push_back(A.entries[k]);
      S.values.push_back(static_cast<T>(A.values[k]));
    }
    S.row_map.push_back(static_cast<int>(S.entries.size()));
    ids.push_back(out_row(p));
  }
  S.num_rows = static_cast<int>(S.row_map.size()) - 1;
  const bool need_ids = dcsr || rs == RowSet::permuted_writeback;
  if (!need_ids) ids.clear();

  using Matrix = kkperm::Crs<T, int, Device, int>;
  const auto Ad = kkperm::to_device<Matrix>(S);
  Kokkos::View<int*, Device> ids_d("ids", ids.size()), empties_d("empties", empties.size());
  Kokkos::deep_copy(ids_d, Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                               ids.data(), ids.size()));
  Kokkos::deep_copy(empties_d, Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                   empties.data(), empties.size()));

  const auto Bv = ts::random_dense(m, K, seed + 11);
  auto Y0 = ts::random_dense(n, K, seed + 12);  // in the caller's order
  const auto ref = ts::reference_spmm<T>(A, alpha, Bv, beta, Y0, K);

  Kokkos::View<T**, Layout, Device> B("B", m, K), Y("Y", n, K);
  auto Bh = Kokkos::create_mirror_view(B);
  auto Yh = Kokkos::create_mirror_view(Y);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < K; ++c) Bh(r, c) = static_cast<T>(Bv[std::size_t(r) * K + c]);
  // Y's row for original row i: i itself, or its permuted position.
  std::vector<int> pos(n);
  for (int p = 0; p < n; ++p) pos[perm[p]] = out_permuted ? p : perm[p];
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < K; ++c)
      Yh(pos[i], c) = beta == 0.0 ? kkperm::test::poison<T>()
                                  : static_cast<T>(Y0[std::size_t(i) * K + c]);
  Kokkos::deep_copy(B, Bh);
  Kokkos::deep_copy(Y, Yh);

  // Serial twin on host copies of the same inputs.
  auto Yt = Kokkos::create_mirror(Y);
  Kokkos::deep_copy(Yt, Yh);
  auto rm_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Ad.graph.row_map);
  auto en_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Ad.graph.entries);
  auto va_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Ad.values);
  auto ids_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ids_d);
  auto emp_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), empties_d);
  constexpr bool left = std::is_same<Layout, Kokkos::LayoutLeft>::value;
  if (left && !rm_on_left) {
    ks::c_stationary(Exec(), T(alpha), Ad.graph.row_map, Ad.graph.entries, Ad.values, ids_d, B,
                     T(beta), Y);
    ks::c_stationary_reference(T(alpha), rm_h, en_h, va_h, ids_h, Bh, T(beta), Yt);
  } else if (split_len > 0) {
    const std::int64_t sl = seg_len > 0 ? seg_len : split_len;
    const auto split = seg_len > 0 ? ks::build_row_split(Exec(), Ad.graph.row_map, ids_d, split_len, sl)
                                   : ks::build_row_split(Exec(), Ad.graph.row_map, ids_d, split_len);
    // (slab_cols: column slabs on device backends; host backends take all columns at once)
    // every stored row longer than split_len is split, into ceil(len / sl) segments
    std::int64_t want_rows = 0, want_segs = 0;
    for (int p = 0; p < S.num_rows; ++p) {
      const std::int64_t len = S.row_map[p + 1] - S.row_map[p];
      if (len > split_len) {
        ++want_rows;
        want_segs += (len + sl - 1) / sl;
      }
    }
    EXPECT_EQ(split.split_from, split_len);
    EXPECT_EQ(split.seg_len, sl);
    EXPECT_EQ(static_cast<std::int64_t>(split.long_rows.extent(0)), want_rows);
    EXPECT_EQ(split.segments(), want_segs);
    ks::row_major(Exec(), T(alpha), Ad.graph.row_map, Ad.graph.entries, Ad.values, ids_d, B,
                  T(beta), Y, split, slab_cols, walk_rows);
    ks::row_major_reference(T(alpha), rm_h, en_h, va_h, ids_h, Bh, T(beta), Yt);
  } else {
    ks::row_major(Exec(), T(alpha), Ad.graph.row_map, Ad.graph.entries, Ad.values, ids_d, B,
                  T(beta), Y);
    ks::row_major_reference(T(alpha), rm_h, en_h, va_h, ids_h, Bh, T(beta), Yt);
  }
  if (dcsr) {
    ks::scale_rows(Exec(), T(beta), empties_d, Y);
    ks::scale_rows_reference(T(beta), emp_h, Yt);
  }
  Kokkos::fence();
  Kokkos::deep_copy(Yh, Y);
  int bad = 0;
  for (int i = 0; i < n && bad < 5; ++i) {
    for (int c = 0; c < K && bad < 5; ++c) {
      const std::size_t idx = std::size_t(i) * K + c;
      const double got = static_cast<double>(Yh(pos[i], c));
      const double twin = static_cast<double>(Yt(pos[i], c));
      const double tol = ref.bound[idx];
      // Kernel and twin each lie within the bound of the exact value, hence 2*bound apart.
      if (!(std::abs(got - ref.y[idx]) <= tol) || !(std::abs(got - twin) <= 2 * tol)) {
        ++bad;
        ADD_FAILURE() << "row " << i << " col " << c << ": kernel " << got << " twin " << twin
                      << " reference " << ref.y[idx] << " bound " << tol;
      }
    }
  }
}

template <class T>
class SpmmKernels : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpmmKernels, Scalars);

// f(M, rs) for every corner-case matrix (seeded by `seed`) and every row-set shape.
template <class F>
void for_each_matrix_and_row_set(std::uint64_t seed, const F& f) {
  for (const auto& M : ts::corner_cases(seed))
    for (RowSet rs : {RowSet::plain, RowSet::permuted_writeback, RowSet::permuted_space,
                      RowSet::dcsr, RowSet::dcsr_permuted})
      f(M, rs);
}

TYPED_TEST(SpmmKernels, EveryRowSetMatchesReferenceAndTwin) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::uint64_t s = seed;
  for_each_matrix_and_row_set(seed, [&](const ts::NamedMatrix& M, RowSet rs) {
      for (int K : {1, 3, 8, 16, 32, 33, 64, 128, 200}) {
        run_case<T, Kokkos::LayoutLeft>(M, rs, K, 1.5, 0.0, ++s);
        run_case<T, Kokkos::LayoutRight>(M, rs, K, 1.5, 0.0, ++s);
        run_case<T, Kokkos::LayoutLeft>(M, rs, K, -0.5, 2.0, ++s);
        run_case<T, Kokkos::LayoutRight>(M, rs, K, -0.5, 2.0, ++s);
      }
  });
}

// Long rows split into segments (summed into Y atomically after a beta scale): split lengths from
// one entry up, every row-set shape, K across the lane-group / accumulator variants.
TYPED_TEST(SpmmKernels, RowMajorSplitRowsMatchReference) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::uint64_t s = seed;
  for_each_matrix_and_row_set(seed, [&](const ts::NamedMatrix& M, RowSet rs) {
      for (std::int64_t len : {1, 3, 40})
        for (int K : {5, 32, 100}) {
          run_case<T, Kokkos::LayoutRight>(M, rs, K, 1.5, 0.0, ++s, len);
          run_case<T, Kokkos::LayoutRight>(M, rs, K, -0.5, 2.0, ++s, len);
          // column slabs of 32 (K = 100: four launches, the last 4 columns wide) and of 8
          run_case<T, Kokkos::LayoutRight>(M, rs, K, -0.5, 2.0, ++s, len, 32);
          run_case<T, Kokkos::LayoutRight>(M, rs, K, 1.5, 0.0, ++s, len, 8);
        }
  });
}

// Rows split above split_from into shorter segments (wave_segment_length's case): rows between
// the segment length and split_from stay whole on the row kernel, longer ones are cut into
// segments of seg_len entries (the last shorter), on every row-set shape and on a matrix whose
// rows fall on both sides of split_from.
TYPED_TEST(SpmmKernels, RowMajorShortSegmentsOfSplitRowsMatchReference) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::uint64_t s = seed;
  for_each_matrix_and_row_set(seed, [&](const ts::NamedMatrix& M, RowSet rs) {
    for (auto ls : {std::pair<std::int64_t, std::int64_t>{8, 1}, {8, 3}, {40, 7}})
      for (int K : {5, 32, 100}) {
        run_case<T, Kokkos::LayoutRight>(M, rs, K, 1.5, 0.0, ++s, ls.first, 0, 1, ls.second);
        run_case<T, Kokkos::LayoutRight>(M, rs, K, -0.5, 2.0, ++s, ls.first, 0, 1, ls.second);
      }
  });
  // rows of 2-30 entries and every 97th of 300-700: split from 64 in segments of 64 down to 5
  const ts::NamedMatrix mixed{"rows_2_30_hubs_x3001", ts::random_rows(3001, 2000, seed + 7, [](auto& r, int i) {
                                return i % 97 == 3 ? std::uniform_int_distribution<int>(300, 700)(r)
                                                   : std::uniform_int_distribution<int>(2, 30)(r);
                              })};
  for (RowSet rs : {RowSet::plain, RowSet::permuted_writeback, RowSet::dcsr_permuted})
    for (std::int64_t seg : {64, 17, 5})
      for (int K : {32, 128}) {
        run_case<T, Kokkos::LayoutRight>(mixed, rs, K, 1.5, 0.0, ++s, 64, 0, 1, seg);
        run_case<T, Kokkos::LayoutRight>(mixed, rs, K, -0.5, 2.0, ++s, 64, 0, 4, seg);
      }
}

// The segment length for split rows whose segments would not fill a wave: about one wave of
// segments, at least min_split_small (64) entries, at most max_row_segments (1024) segments for
// the longest row, never above split_from.
TEST(SpmmKernelsSplit, WaveSegmentLengthFillsOneWave) {
  EXPECT_EQ(ks::wave_segment_length(91, 512, 8448, 46500), 64);      // one row of 46 500 entries
  EXPECT_EQ(ks::wave_segment_length(91, 512, 8448, 0), 64);
  EXPECT_EQ(ks::wave_segment_length(3906, 512, 8448, 0), 237);       // two rows of ~10^6 ...
  EXPECT_EQ(ks::wave_segment_length(3906, 512, 8448, 1000000), 512); // ... capped at 1024 segments
  EXPECT_EQ(ks::wave_segment_length(1000, 512, 8448, 200000), 196);  // ceil(200000 / 1024)
  EXPECT_EQ(ks::wave_segment_length(8448, 512, 8448, 600), 512);     // the segments fill the wave
  EXPECT_EQ(ks::wave_segment_length(20000, 512, 8448, 600), 512);
  EXPECT_EQ(ks::wave_segment_length(0, 512, 8448, 0), 512);          // nothing split
  EXPECT_EQ(ks::wave_segment_length(10, 512, 0, 600), 512);          // host spaces: no waves
  EXPECT_EQ(ks::wave_segment_length(10, 64, 8448, 600), 64);         // already at the floor
  EXPECT_EQ(ks::wave_segment_length(8000, 4000, 8448, 9000), 3788);  // long mean: ceil(8000*4000/8448)
  for (std::int64_t segs : {1, 50, 1000, 8447})
    for (std::int64_t longest : {0, 513, 100000, 10000000}) {
      const auto len = ks::wave_segment_length(segs, 512, 8448, longest);
      EXPECT_GE(len, 64);
      EXPECT_LE(len, 512);
      if (len < 512) EXPECT_LE((longest + len - 1) / len, ks::RowMajorConfig::max_row_segments);
    }
}

// The row-major kernel on column-major B and Y (row_major_left runs it so on row sets under one
// wave): every row-set shape, the batch and per-row walks, split rows and the chunked walk.
TYPED_TEST(SpmmKernels, RowMajorOnColumnMajorViewsMatchesReference) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::uint64_t s = seed;
  for_each_matrix_and_row_set(seed, [&](const ts::NamedMatrix& M, RowSet rs) {
    for (int K : {1, 8, 32, 33, 128}) {
      run_case<T, Kokkos::LayoutLeft>(M, rs, K, 1.5, 0.0, ++s, 0, 0, 1, 0, true);
      run_case<T, Kokkos::LayoutLeft>(M, rs, K, -0.5, 2.0, ++s, 0, 0, 1, 0, true);
      run_case<T, Kokkos::LayoutLeft>(M, rs, K, 1.5, 0.0, ++s, 40, 0, 1, 7, true);
      run_case<T, Kokkos::LayoutLeft>(M, rs, K, -0.5, 2.0, ++s, 3, 0, 4, 0, true);
    }
  });
}

TEST(SpmmKernelsSlab, SlabWidthFitsTheCache) {
  // all of B fits: no slabs; else the widest multiple of 32 that fits, at least 32, below K
  EXPECT_EQ(ks::slab_columns(1000, 128, 8, std::size_t(1) << 20), 0);
  EXPECT_EQ(ks::slab_columns(1000000, 128, 8, std::size_t(24) << 20), 32);
  EXPECT_EQ(ks::slab_columns(20000, 256, 8, std::size_t(24) << 20), 128);
  EXPECT_EQ(ks::slab_columns(4000000, 128, 8, std::size_t(24) << 20), 32);
  EXPECT_EQ(ks::slab_columns(100000000, 64, 8, std::size_t(24) << 20), 32);
  EXPECT_EQ(ks::slab_columns(1000000, 32, 8, std::size_t(24) << 20), 0);
}

// layout_copy (row_major_left's conversions): both directions, extents that are and are not
// multiples of the 32 x 32 tile, empty views; the destination is poisoned first and compared
// exactly (a copy does no arithmetic); differing extents are an internal error (logic_error).
TYPED_TEST(SpmmKernels, LayoutCopyBothDirectionsExact) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  using left_t = Kokkos::View<T**, Kokkos::LayoutLeft, Device>;
  using right_t = Kokkos::View<T**, Kokkos::LayoutRight, Device>;
  for (const auto& [n, m] : std::vector<std::pair<int, int>>{{1, 1}, {31, 33}, {64, 32}, {100, 7}, {5, 200}, {0, 4}, {3, 0}, {257, 129}}) {
    left_t L("L", n, m), L2("L2", n, m);
    right_t Rt("R", n, m);
    auto hL = Kokkos::create_mirror_view(L);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < m; ++k) hL(i, k) = static_cast<T>(dist(rng));
    Kokkos::deep_copy(L, hL);
    Kokkos::deep_copy(Rt, kkperm::test::poison<T>());
    Kokkos::deep_copy(L2, kkperm::test::poison<T>());
    ks::layout_copy(Exec(), L, Rt);   // left -> right
    ks::layout_copy(Exec(), Rt, L2);  // right -> left
    auto hR = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Rt);
    auto hL2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), L2);
    int bad = 0;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < m; ++k)
        if (!(hR(i, k) == hL(i, k)) || !(hL2(i, k) == hL(i, k))) ++bad;
    EXPECT_EQ(bad, 0) << n << " x " << m;
  }
  left_t a("a", 4, 5);
  right_t b("b", 5, 4);
  EXPECT_THROW(ks::layout_copy(Exec(), a, b), std::logic_error);
}

// The corner cases are small enough that on a GPU both kernels shorten their serial work to fill
// one wave (c_stationary: fewer rows a warp; row_major: batches of one row, the walk). Rows
// enough for a full wave of teams at the longest settings (H100: 1056 c_stationary teams of 32
// rows = 33792 rows; row_major batches of several rows from 2 x 8448 rows) keep the large-matrix
// paths under test as well: 60000 short rows of 0..8 entries and seven of 1200 (with the default
// split length, 512 at this size, these go to segments).
TYPED_TEST(SpmmKernels, RowSetsLargerThanOneWaveMatchReference) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  const ts::NamedMatrix M{"short_rows_60000", ts::random_rows(60000, 5000, seed, [](auto& r, int i) {
                            return i % 9973 == 17 ? 1200 : std::uniform_int_distribution<int>(0, 8)(r);
                          })};
  std::uint64_t s = seed;
  for (RowSet rs : {RowSet::plain, RowSet::dcsr_permuted})
    for (int K : {32, 128}) {
      run_case<T, Kokkos::LayoutLeft>(M, rs, K, -0.5, 2.0, ++s);
      run_case<T, Kokkos::LayoutRight>(M, rs, K, -0.5, 2.0, ++s);
      run_case<T, Kokkos::LayoutRight>(M, rs, K, 1.5, 0.0, ++s,
                                       ks::default_split_length(static_cast<std::int64_t>(M.A.entries.size()),
                                                                M.A.num_rows, ks::wave_rows<Exec>()));
    }
}

// The chunked per-row walk (row_major_chunked: lane groups take turns over a team's chunk of
// consecutive rows): on the GPU a group gets at most (stored rows / one wave of groups) rows
// (8448 rows a wave on the H100) and the walk needs rows long enough (mean >= 16 entries at
// K <= 32, >= 4 at K > 64), so 40003 rows of 10..40 entries and 50001 of 2..8, a few of 1500
// entries split into segments (the walk skips them and goes on with its next row); plain,
// permuted-space and permuted-DCSR row sets, K on both sides of the walk rule, 2, 4 and 7 rows a group asked (on the
// H100: 2, 4 and 4 or 5 rows), row counts that leave the last team a partial chunk. Host backends
// take a row a thread whatever walk_rows is.
TYPED_TEST(SpmmKernels, RowMajorChunkedWalkMatchesReference) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  const ts::NamedMatrix mid{"rows_10_40_x40003", ts::random_rows(40003, 30000, seed, [](auto& r, int i) {
                              return i % 7919 == 5 ? 1500 : std::uniform_int_distribution<int>(10, 40)(r);
                            })};
  const ts::NamedMatrix low{"rows_2_8_x50001", ts::random_rows(50001, 30000, seed + 1, [](auto& r, int) {
                              return std::uniform_int_distribution<int>(2, 8)(r);
                            })};
  std::uint64_t s = seed;
  for (const auto* M : {&mid, &low})
    for (RowSet rs : {RowSet::plain, RowSet::permuted_space, RowSet::dcsr_permuted})
      for (int K : {32, 128})
        for (int w : {2, 4, 7}) {
          const std::int64_t len = ks::default_split_length(static_cast<std::int64_t>(M->A.entries.size()),
                                                            M->A.num_rows, ks::wave_rows<Exec>());
          run_case<T, Kokkos::LayoutRight>(*M, rs, K, 1.5, 0.0, ++s, len, 0, w);
          run_case<T, Kokkos::LayoutRight>(*M, rs, K, -0.5, 2.0, ++s, len, 0, w);
        }
  Kokkos::View<int*, Device> rm("rm", 2), en("en", 0), ids("ids", 0);  // one empty row
  Kokkos::View<T*, Device> va("va", 0);
  Kokkos::View<T**, Kokkos::LayoutRight, Device> B("B", 4, 3), Y("Y", 1, 3);
  const auto split = ks::build_row_split(Exec(), rm, ids, 8);
  EXPECT_THROW(ks::row_major(Exec(), T(1), rm, en, va, ids, B, T(0), Y, split, 0, 0), std::invalid_argument);
}

// row_major_tiled's tiles (build_row_tiles), checked on the host: they cover the rows in order;
// no tile crosses the edge of a window of tile_window_rows(max_rows) rows; a staged tile has at
// most max_rows rows and max_cols distinct columns, sorted and unique, and every entry's local
// index names its column; a tile with entries and no staged columns is one row wider than
// max_cols (direct); the greedy closes a staged tile only at a window's edge, when it is full of
// rows, or when the next row would bring its columns past max_cols.
template <class Tiles>
void check_tiles(const ts::HostD& A, const Tiles& t, int max_rows, int max_cols) {
  const auto row0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.row0);
  const auto cptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.cptr);
  const auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.cols);
  const auto local = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.local);
  ASSERT_EQ(static_cast<std::int64_t>(row0.extent(0)), t.tiles + 1);
  ASSERT_EQ(static_cast<std::int64_t>(cptr.extent(0)), t.tiles + 1);
  ASSERT_EQ(local.extent(0), A.entries.size());
  EXPECT_EQ(t.max_cols, max_cols);
  EXPECT_EQ(row0(0), 0);
  EXPECT_EQ(row0(t.tiles), A.num_rows);
  EXPECT_EQ(cptr(0), 0);
  EXPECT_EQ(static_cast<std::int64_t>(cptr(t.tiles)), t.staged_cols());
  EXPECT_EQ(static_cast<std::int64_t>(cols.extent(0)), t.staged_cols());
  const auto direct_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.direct_rows);
  std::int64_t direct = 0, staged_entries = 0;
  int widest = 0;
  const std::int64_t wr = ks::tile_window_rows(max_rows);
  for (std::int64_t k = 0; k < t.tiles; ++k) {
    SCOPED_TRACE("tile " + std::to_string(k));
    const int r0 = row0(k), r1 = row0(k + 1);
    ASSERT_LT(r0, r1);
    const int c0 = cptr(k), U = cptr(k + 1) - c0;
    const auto e0 = A.row_map[r0], e1 = A.row_map[r1];
    if (U == 0 && e1 > e0) {  // direct
      EXPECT_LT(direct, static_cast<std::int64_t>(direct_rows.extent(0)));
      if (direct < static_cast<std::int64_t>(direct_rows.extent(0))) EXPECT_EQ(direct_rows(direct), r0);
      ++direct;
      EXPECT_EQ(r1 - r0, 1);
      EXPECT_GT(e1 - e0, max_cols);
      continue;
    }
    EXPECT_LE(r1 - r0, max_rows);
    EXPECT_EQ(r0 / wr, (r1 - 1) / wr) << "rows [" << r0 << ", " << r1 << ") cross a window's edge";
    EXPECT_LE(U, max_cols);
    widest = std::max(widest, U);
    staged_entries += e1 - e0;
    std::vector<int> want(A.entries.begin() + e0, A.entries.begin() + e1);
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    ASSERT_EQ(static_cast<int>(want.size()), U);
    for (int u = 0; u < U; ++u) EXPECT_EQ(cols(c0 + u), want[u]);
    for (auto e = e0; e < e1; ++e) {
      ASSERT_LT(static_cast<int>(local(e)), U);
      EXPECT_EQ(cols(c0 + local(e)), A.entries[e]);
    }
    if (k + 1 < t.tiles && r1 % wr != 0 && r1 - r0 < max_rows) {  // the next row did not fit
      auto with_next = want;
      with_next.insert(with_next.end(), A.entries.begin() + A.row_map[r1], A.entries.begin() + A.row_map[r1 + 1]);
      std::sort(with_next.begin(), with_next.end());
      with_next.erase(std::unique(with_next.begin(), with_next.end()), with_next.end());
      EXPECT_GT(static_cast<int>(with_next.size()), max_cols);
    }
  }
  EXPECT_EQ(direct, t.direct_tiles());
  EXPECT_EQ(static_cast<std::int64_t>(direct_rows.extent(0)), direct);
  EXPECT_EQ(staged_entries, t.staged_entries);
  EXPECT_EQ(widest, t.widest);
}

// The row_major_tiled plan (the tiled kernel, and the row-major kernel for the direct tiles' rows)
// against the reference with Y poisoned when beta = 0, and its tiles (built for K as the plan
// builds them, tiled_max_cols) checked as above. With `tiles_only`, the tiled kernel alone: the
// direct tiles' rows must keep their poison, every other row must match.
template <class T>
void run_tiled_case(const ts::NamedMatrix& M, int K, double alpha, double beta, std::uint64_t seed,
                    bool tiles_only = false) {
  SCOPED_TRACE(M.name + " K=" + std::to_string(K) + " alpha=" + std::to_string(alpha) +
               " beta=" + std::to_string(beta) + " seed=" + std::to_string(seed) +
               " tiles_only=" + std::to_string(tiles_only));
  const auto& A = M.A;
  const int n = A.num_rows, m = A.num_cols;
  using Matrix = kkperm::Crs<T, int, Device, int>;
  const auto Ad = kkperm::to_device<Matrix>(A);
  const int cap = ks::tiled_max_cols(K, sizeof(T));
  const auto tiles = ks::build_row_tiles<Device>(Ad.graph.row_map, Ad.graph.entries, m,
                                                 ks::RowTiledConfig::max_rows, cap);
  check_tiles(A, tiles, ks::RowTiledConfig::max_rows, cap);
  const auto Bv = ts::random_dense(m, K, seed + 11);
  const auto Y0 = ts::random_dense(n, K, seed + 12);
  const auto ref = ts::reference_spmm<T>(A, alpha, Bv, beta, Y0, K);
  Kokkos::View<T**, Kokkos::LayoutRight, Device> B("B", m, K), Y("Y", n, K);
  auto Bh = Kokkos::create_mirror_view(B);
  auto Yh = Kokkos::create_mirror_view(Y);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < K; ++c) Bh(r, c) = static_cast<T>(Bv[std::size_t(r) * K + c]);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < K; ++c)
      Yh(i, c) = beta == 0.0 ? kkperm::test::poison<T>() : static_cast<T>(Y0[std::size_t(i) * K + c]);
  Kokkos::deep_copy(B, Bh);
  Kokkos::deep_copy(Y, Yh);
  std::vector<char> direct_row(static_cast<std::size_t>(n), 0);
  if (tiles_only) {
    ks::row_tiled(Exec(), T(alpha), tiles, Ad.graph.row_map, Ad.graph.entries, Ad.values, B, T(beta), Y);
    const auto dr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tiles.direct_rows);
    for (std::size_t k = 0; k < dr.extent(0); ++k) direct_row[static_cast<std::size_t>(dr(k))] = 1;
  } else {
    kkperm::OwnSpmmPlan<Matrix> plan(kkperm::SpmmCandidate::row_major_tiled);
    plan.prepare(Ad, K);
    EXPECT_NE(plan.details().find("direct_tiles=" + std::to_string(tiles.direct_tiles())), std::string::npos)
        << plan.details();
    plan.run(T(alpha), B, T(beta), Y);
  }
  Kokkos::fence();
  Kokkos::deep_copy(Yh, Y);
  int bad = 0;
  for (int i = 0; i < n && bad < 5; ++i)
    for (int c = 0; c < K && bad < 5; ++c) {
      const std::size_t idx = std::size_t(i) * K + c;
      const double got = static_cast<double>(Yh(i, c));
      if (direct_row[static_cast<std::size_t>(i)]) {  // untouched by the tiled kernel
        const double before = beta == 0.0 ? static_cast<double>(kkperm::test::poison<T>())
                                          : static_cast<double>(static_cast<T>(Y0[idx]));
        if (!(got == before || (std::isnan(got) && std::isnan(before)))) {
          ++bad;
          ADD_FAILURE() << "direct row " << i << " col " << c << " written by the tiled kernel: " << got;
        }
        continue;
      }
      if (!(std::abs(got - ref.y[idx]) <= ref.bound[idx])) {
        ++bad;
        ADD_FAILURE() << "row " << i << " col " << c << ": kernel " << got << " reference " << ref.y[idx]
                      << " bound " << ref.bound[idx];
      }
    }
}

// Banded rows (11 a row: tiles of 32 rows share most of 42 columns), dense diagonal blocks of 32
// (a tile is one block), random rows with some wider than any cap (direct tiles) and runs of empty
// rows (tiles with no entries), random rows over few columns (tiles full of rows), K across the
// pass widths (32 columns for K <= 32, 64 above) with partial passes.
TYPED_TEST(SpmmKernels, RowTiledMatchesReferenceAndTilesHoldTheirCaps) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  ts::HostD band, blocks;
  band.num_rows = band.num_cols = 3001;
  band.row_map.assign(1, 0);
  for (int i = 0; i < 3001; ++i) {
    for (int c = std::max(0, i - 5); c <= std::min(3000, i + 5); ++c) {
      band.entries.push_back(c);
      band.values.push_back(val(rng));
    }
    band.row_map.push_back(static_cast<std::int64_t>(band.entries.size()));
  }
  blocks.num_rows = blocks.num_cols = 32 * 41;
  blocks.row_map.assign(1, 0);
  for (int i = 0; i < 32 * 41; ++i) {
    for (int c = i / 32 * 32; c < i / 32 * 32 + 32; ++c) {
      blocks.entries.push_back(c);
      blocks.values.push_back(val(rng));
    }
    blocks.row_map.push_back(static_cast<std::int64_t>(blocks.entries.size()));
  }
  const std::vector<ts::NamedMatrix> mats{
      {"banded_5", band},
      {"blocks_32", blocks},
      {"wide_and_empty_rows", ts::random_rows(900, 2500, seed + 1, [](auto& r, int i) {
         return i % 97 == 3 ? 300 : (i / 50) % 4 == 1 ? 0 : std::uniform_int_distribution<int>(0, 12)(r);
       })},
      {"few_columns", ts::random_rows(700, 24, seed + 2, [](auto& r, int) {
         return std::uniform_int_distribution<int>(1, 6)(r);
       })}};
  std::uint64_t s = seed;
  for (const auto& M : mats)
    for (int K : {1, 32, 33, 64, 65, 130}) {
      run_tiled_case<T>(M, K, 1.5, 0.0, ++s);
      run_tiled_case<T>(M, K, -0.5, 2.0, ++s);
      if (K == 1 || K == 65) {
        run_tiled_case<T>(M, K, 1.5, 0.0, ++s, true);
        run_tiled_case<T>(M, K, -0.5, 2.0, ++s, true);
      }
    }
}

// The direct tiles' rows take row_major's split as it is set for all of A: an arrow-like matrix
// (2001 rows of 3 entries, row 7 with 5000) has row 7 split exactly as the row_major candidate
// splits it (on the host from 512 entries, 4 x A's mean of 5.5 being below the 512 floor; on CUDA
// from 64, A having fewer rows than a wave of lane groups), where the direct rows' own mean (5000)
// would leave it whole; the product still matches the reference.
TYPED_TEST(SpmmKernels, RowTiledSplitsDirectRowsAsForAllOfA) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  const ts::NamedMatrix M{"arrow_like", ts::random_rows(2001, 6000, seed, [](auto&, int i) { return i == 7 ? 5000 : 3; })};
  using Matrix = kkperm::Crs<T, int, Device, int>;
  const auto Ad = kkperm::to_device<Matrix>(M.A);
  kkperm::OwnSpmmPlan<Matrix> plan(kkperm::SpmmCandidate::row_major_tiled), whole(kkperm::SpmmCandidate::row_major);
  plan.prepare(Ad, 8);
  whole.prepare(Ad, 8);
  const std::string d = plan.details(), dw = whole.details();
  auto field = [](const std::string& s, const std::string& key) {
    const auto at = s.find(" " + key + "=");
    return at == std::string::npos ? std::string("(none)") : s.substr(at + key.size() + 2, s.find(' ', at + 1 + key.size() + 1) - (at + key.size() + 2));
  };
  EXPECT_NE(d.find("direct_tiles=1 "), std::string::npos) << d;
  EXPECT_EQ(field(d, "split_from"), field(dw, "split_from")) << d << "\n" << dw;
  EXPECT_EQ(field(d, "split_len"), field(dw, "split_len")) << d << "\n" << dw;
  EXPECT_EQ(field(d, "split_rows"), "1") << d;
  EXPECT_LT(std::stol(field(d, "split_from")), 5000) << d;
  run_tiled_case<T>(M, 8, 1.5, 0.0, seed + 1);
  run_tiled_case<T>(M, 40, -0.5, 2.0, seed + 2);
}

// The parallel tile builder (build_row_tiles: a warp per window of max_rows rows on CUDA, a
// thread per window on host backends) against its serial twin (build_row_tiles_serial), array
// for array: banded rows, dense blocks, random rows with rows wider than the cap, runs of empty
// rows and rows of more entries than a warp has lanes (several 32-entry chunks a row, staged),
// power-law rows; tiles of at most 1, 7, 32 and 300 rows (windows of 256 rows, of 300 for the
// last); caps from 1 to kTileBuildMaxCols, and one above it (the serial builder then builds both). The tiles must also hold check_tiles' invariants.
TYPED_TEST(SpmmKernels, RowTilesParallelBuildMatchesSerialTwin) {
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  using Matrix = kkperm::Crs<TypeParam, int, Device, int>;
  ts::HostD band;
  band.num_rows = band.num_cols = 2000;
  band.row_map.assign(1, 0);
  for (int i = 0; i < 2000; ++i) {
    for (int c = std::max(0, i - 8); c <= std::min(1999, i + 8); ++c) {
      band.entries.push_back(c);
      band.values.push_back(1.0);
    }
    band.row_map.push_back(static_cast<std::int64_t>(band.entries.size()));
  }
  const std::vector<ts::NamedMatrix> mats{
      {"banded_8", band},
      {"wide_empty_and_long_rows", ts::random_rows(1500, 4000, seed + 1, [](auto& r, int i) {
         return i % 89 == 5 ? 400 : i % 61 == 7 ? 70 : (i / 40) % 5 == 2 ? 0 : std::uniform_int_distribution<int>(0, 14)(r);
       })},
      {"few_columns", ts::random_rows(900, 40, seed + 2, [](auto& r, int) {
         return std::uniform_int_distribution<int>(1, 9)(r);
       })},
      {"power_law", ts::random_rows(1200, 3000, seed + 3, [](auto& r, int) {
         const double u = std::uniform_real_distribution<double>(0.0, 1.0)(r);
         return std::min(2999, static_cast<int>(2.0 / std::pow(1.0 - u * 0.999, 1.2)));
       })},
      {"empty", ts::random_rows(0, 5, seed + 4, [](auto&, int) { return 0; })}};
  auto host = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v); };
  auto same = [&](const auto& a, const auto& b, const char* what) {
    const auto ha = host(a);
    const auto hb = host(b);
    ASSERT_EQ(ha.extent(0), hb.extent(0)) << what;
    for (std::size_t i = 0; i < ha.extent(0); ++i) ASSERT_EQ(ha(i), hb(i)) << what << "[" << i << "]";
  };
  for (const auto& M : mats)
    for (int max_rows : {1, 7, 32, 300})
      for (int max_cols : {1, 5, 40, 96, ks::kTileBuildMaxCols, ks::kTileBuildMaxCols + 44}) {
        SCOPED_TRACE(M.name + " max_rows=" + std::to_string(max_rows) + " max_cols=" + std::to_string(max_cols));
        const auto Ad = kkperm::to_device<Matrix>(M.A);
        const auto par = ks::build_row_tiles<Device>(Ad.graph.row_map, Ad.graph.entries, M.A.num_cols, max_rows, max_cols);
        const auto ser =
            ks::build_row_tiles_serial<Device>(Ad.graph.row_map, Ad.graph.entries, M.A.num_cols, max_rows, max_cols);
        check_tiles(M.A, par, max_rows, max_cols);
        EXPECT_EQ(par.tiles, ser.tiles);
        EXPECT_EQ(par.staged_entries, ser.staged_entries);
        EXPECT_EQ(par.widest, ser.widest);
        EXPECT_EQ(par.max_cols, ser.max_cols);
        same(par.row0, ser.row0, "row0");
        same(par.cptr, ser.cptr, "cptr");
        same(par.cols, ser.cols, "cols");
        same(par.local, ser.local, "local");
        same(par.direct_rows, ser.direct_rows, "direct_rows");
      }
  // a column outside [0, num_cols): both builders (cap 96: the parallel one, past
  // kTileBuildMaxCols: the serial twin) name the lowest such row
  const auto expect_bad_row = [](const ts::HostD& H, int cols, int row, const char* what) {
    const auto Ad = kkperm::to_device<Matrix>(H);
    for (int cap : {96, ks::kTileBuildMaxCols + 1}) {
      try {
        ks::build_row_tiles<Device>(Ad.graph.row_map, Ad.graph.entries, cols, 32, cap);
        ADD_FAILURE() << "no throw for a column outside the matrix " << what << ", cap " << cap;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("row " + std::to_string(row) + " "), std::string::npos)
            << what << ", cap " << cap << ": " << e.what();
      }
    }
  };
  auto H = ts::random_rows(300, 50, seed + 5, [](auto&, int) { return 3; });
  H.entries[H.row_map[211] + 1] = 50;
  H.entries[H.row_map[250]] = -1;
  expect_bad_row(H, 50, 211, "in a short row");
  // the bad column in a row wider than the cap (a direct row, whose columns the tiling never reads)
  auto L = ts::random_rows(300, 500, seed + 6, [](auto&, int i) { return i == 40 ? 300 : 3; });
  L.entries[L.row_map[40] + 123] = 500;
  L.entries[L.row_map[100]] = -1;
  expect_bad_row(L, 500, 40, "in a row wider than the cap");
}

TYPED_TEST(SpmmKernels, RowTiledRejectsBadCapsColumnsAndForeignTiles) {
  using T = TypeParam;
  // the caps: f64 96 / 80 staged columns for passes of 32 / 64 columns (K <= 32 / K > 32), f32 96
  EXPECT_EQ(ks::tiled_pass_columns(1), 32);
  EXPECT_EQ(ks::tiled_pass_columns(33), 64);
  EXPECT_EQ(ks::tiled_pass_columns(512), 64);
  EXPECT_EQ(ks::tiled_max_cols(32, 8), 96);
  EXPECT_EQ(ks::tiled_max_cols(64, 8), 80);
  EXPECT_EQ(ks::tiled_max_cols(512, 8), 80);
  EXPECT_EQ(ks::tiled_max_cols(64, 4), 96);
  EXPECT_EQ(ks::tiled_max_cols(512, 4), 96);
  using Matrix = kkperm::Crs<T, int, Device, int>;
  const auto H = ts::random_rows(400, 3000, kkperm::test::fresh_seed(), [](auto& r, int) {
    return std::uniform_int_distribution<int>(4, 16)(r);
  });
  const auto Ad = kkperm::to_device<Matrix>(H);
  EXPECT_THROW(ks::build_row_tiles<Device>(Ad.graph.row_map, Ad.graph.entries, 3000, 0, 96), std::invalid_argument);
  EXPECT_THROW(ks::build_row_tiles<Device>(Ad.graph.row_map, Ad.graph.entries, 3000, 32, 0), std::invalid_argument);
  EXPECT_THROW(ks::build_row_tiles<Device>(Ad.graph.row_map, Ad.graph.entries, 3000, 32, 65536),
               std::invalid_argument);
  // a column outside [0, num_cols)
  EXPECT_THROW(ks::build_row_tiles<Device>(Ad.graph.row_map, Ad.graph.entries, 2000, 32, 96), std::invalid_argument);
  const auto tiles = ks::build_row_tiles<Device>(Ad.graph.row_map, Ad.graph.entries, 3000, 32, 200);
  ASSERT_GT(tiles.widest, ks::tiled_max_cols(130, sizeof(T)));
  Kokkos::View<T**, Kokkos::LayoutRight, Device> B("B", 3000, 130), Y("Y", 400, 130);
  // tiles too wide for the scratch at K = 130
  EXPECT_THROW(ks::row_tiled(Exec(), T(1), tiles, Ad.graph.row_map, Ad.graph.entries, Ad.values, B, T(0), Y),
               std::invalid_argument);
  // tiles of another matrix
  const auto other = kkperm::to_device<Matrix>(ts::random_rows(400, 3000, 7, [](auto&, int) { return 3; }));
  Kokkos::View<T**, Kokkos::LayoutRight, Device> B8("B8", 3000, 8), Y8("Y8", 400, 8);
  EXPECT_THROW(ks::row_tiled(Exec(), T(1), tiles, other.graph.row_map, other.graph.entries, other.values, B8, T(0), Y8),
               std::invalid_argument);
}

// Split length: 4 x the mean row length, at least min_split (512), or min_split_small (64) for row
// sets with fewer rows than one wave of lane groups and a row longer than small_split_from (256);
// host spaces have no waves.
TEST(SpmmKernelsSplit, DefaultLengthFollowsMeanAndWave) {
  EXPECT_EQ(ks::default_split_length(1000, 100), 512);
  EXPECT_EQ(ks::default_split_length(1000, 100, 101, 257), 64);
  EXPECT_EQ(ks::default_split_length(1000, 100, 101, 256), 512);  // no row long enough
  EXPECT_EQ(ks::default_split_length(1000, 100, 100, 900), 512);  // not fewer rows than a wave
  EXPECT_EQ(ks::default_split_length(100000, 100, 101, 5000), 4000);
  EXPECT_EQ(ks::default_split_length(100000, 100), 4000);
  EXPECT_EQ(ks::default_split_length(0, 0, 10, 0), 512);
  // the longest row, as build_split feeds it in (formats::device_max_row_length)
  Kokkos::View<int*, Device> rm("rm", 5);
  auto h = Kokkos::create_mirror_view(rm);
  h(0) = 0, h(1) = 3, h(2) = 3, h(3) = 303, h(4) = 310;
  Kokkos::deep_copy(rm, h);
  EXPECT_EQ(kkperm::formats::device_max_row_length<Exec>(rm), 300);
  EXPECT_EQ(kkperm::formats::device_max_row_length<Exec>(Kokkos::View<int*, Device>("none", 0)), 0);
  if (ks::is_gpu_space<Exec>::value) {
    EXPECT_GE(ks::wave_rows<Exec>(), 4);
    EXPECT_EQ(ks::wave_rows<Exec>(8), 4 * ks::wave_rows<Exec>());  // 8-lane groups: 4x the rows
  } else {
    EXPECT_EQ(ks::wave_rows<Exec>(), 0);
  }
}

TEST(SpmmKernelsSplit, RejectsNonPositiveLength) {
  Kokkos::View<int*, Device> rm("rm", 3), ids("ids", 0);
  EXPECT_THROW(ks::build_row_split(Exec(), rm, ids, 0), std::invalid_argument);
  EXPECT_THROW(ks::build_row_split(Exec(), rm, ids, 8, 0), std::invalid_argument);
  EXPECT_THROW(ks::build_row_split(Exec(), rm, ids, 4, 8), std::invalid_argument);  // split_from < seg_len
}

TYPED_TEST(SpmmKernels, AlphaZeroAndBetaOneKeepY) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  const auto mats = ts::corner_cases(seed);
  for (int K : {5, 64}) {
    run_case<T, Kokkos::LayoutLeft>(mats[3], RowSet::dcsr_permuted, K, 0.0, 1.0, seed + K);
    run_case<T, Kokkos::LayoutRight>(mats[4], RowSet::permuted_writeback, K, 1.0, 1.0, seed + K);
  }
}

}  // namespace
