#pragma once
/**
 * @brief PermutedCrsMatrix: P, P^-1 and the row-permuted KokkosSparse::CrsMatrix A_p with
 * A_p(p, :) = A(perm(p), :) (and, for a symmetric permutation such as RCM, columns renamed by
 * P^-1 and re-sorted: A_p = P A P^T). The gather map (permuted nnz k <- original nnz g(k)) is kept,
 * so value-only updates re-gather values without rebuilding the permutation.
 *
 * Usage:
 *   auto P = kkperm::build_permutation(A, kkperm::Permutation::lpt);  // device-resident
 *   kkperm::PermutedCrsMatrix<Matrix> Ap; Ap.build(A, P);  // (A, P, false): A validated already
 *   Ap.apply(1.0, x, 0.0, y);            // y = A x in the caller's row order
 *   Ap.to_permuted(y, yp); Ap.apply_permuted(1.0, xp, 0.0, yp); Ap.from_permuted(yp, y);
 *   Ap.update_values(A_new);             // same structure, new values
 * Preconditions: vectors are rank-1 views in the matrix's memory space; x has numCols entries,
 * y numRows (checked); A valid with sorted columns; update_values requires the same row_map and
 * entries shape (nnz and dimensions checked).
 * Every pass (row lengths, scan, gather, value re-gather, vector gathers) runs on A's space.
 */
#include <Kokkos_Core.hpp>
#include <KokkosKernels_SparseUtils.hpp>
#include <KokkosSparse_spmv.hpp>
#include <vector>

#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/permute/permutation.hpp"

namespace kkperm {

template <class Matrix>
class PermutedCrsMatrix {
 public:
  using O = typename Matrix::non_const_ordinal_type;
  using F = typename Matrix::non_const_size_type;
  using V = typename Matrix::non_const_value_type;
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using OView = Kokkos::View<O*, mem_t>;
  using FView = Kokkos::View<F*, mem_t>;
  using VView = Kokkos::View<V*, mem_t>;

  /// The permuted matrix A_p.
  const Matrix& matrix() const { return ap_; }
  /// P as a gather map: perm(p) = original row at permuted position p.
  const OView& perm() const { return perm_; }
  /// P^-1: inverse(i) = permuted position of original row i.
  const OView& inverse() const { return inv_; }
  /// Permuted nnz k holds original nnz gather_map(k).
  const FView& gather_map() const { return gather_; }
  bool symmetric() const { return symmetric_; }
  Permutation kind() const { return kind_; }

  /// Builds from a device-resident permutation (build_permutation's result): no host traffic.
  /// perm/inverse consistency is checked on A's space (O(n)); validate_matrix = false skips
  /// kkperm::validate(A) for callers that validated A already.
  void build(const Matrix& A, const DeviceRowPermutation<O, mem_t>& p, bool validate_matrix = true) {
    if (validate_matrix) validate(A, "kkperm::PermutedCrsMatrix::build");
    const O n = A.numRows();
    KKPERM_REQUIRE(p.perm.extent(0) == static_cast<std::size_t>(n) && p.inverse.extent(0) == p.perm.extent(0),
                   "kkperm::PermutedCrsMatrix::build: permutation has " << p.perm.extent(0) << " / "
                       << p.inverse.extent(0) << " entries for " << n << " rows");
    KKPERM_REQUIRE(!p.symmetric || A.numRows() == A.numCols(),
                   "kkperm::PermutedCrsMatrix::build: a symmetric permutation needs a square matrix, got "
                       << A.numRows() << " x " << A.numCols());
    const std::int64_t bad = count_inconsistent(p.perm, p.inverse);
    KKPERM_REQUIRE(bad == 0, "kkperm::PermutedCrsMatrix::build: perm/inverse are not inverse bijections at "
                                 << bad << " positions");
    symmetric_ = p.symmetric;
    kind_ = p.kind;
    nnz_ = A.nnz();
    perm_ = p.perm;
    inv_ = p.inverse;
    build_structure(A);
    update_values(A);
  }

  /// Positions k with perm(k) out of [0, n) or inverse(perm(k)) != k (public only for CUDA lambdas).
  static std::int64_t count_inconsistent(const OView& pm, const OView& iv) {
    const std::int64_t n = static_cast<std::int64_t>(pm.extent(0));
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "kkperm::PermutedCrs::check", kkperm::range_policy<exec_t>(0, n),
        KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& b) {
          const O r = pm(k);
          if (r < 0 || static_cast<std::int64_t>(r) >= n || static_cast<std::int64_t>(iv(r)) != k) ++b;
        },
        bad);
    return bad;
  }

  /// Builds from a host permutation (serial twins, tests): checked on the host, copied over.
  void build(const Matrix& A, const RowPermutation<O>& p) {
    validate(A, "kkperm::PermutedCrsMatrix::build");
    const O n = A.numRows();
    KKPERM_REQUIRE(p.perm.size() == static_cast<std::size_t>(n) && p.inverse.size() == p.perm.size(),
                   "kkperm::PermutedCrsMatrix::build: permutation has " << p.perm.size() << " / "
                       << p.inverse.size() << " entries for " << n << " rows");
    KKPERM_REQUIRE(!p.symmetric || A.numRows() == A.numCols(),
                   "kkperm::PermutedCrsMatrix::build: a symmetric permutation needs a square matrix, got "
                       << A.numRows() << " x " << A.numCols());
    for (std::size_t k = 0; k < p.perm.size(); ++k)
      KKPERM_REQUIRE(p.perm[k] >= 0 && p.perm[k] < n && p.inverse[p.perm[k]] == static_cast<O>(k),
                     "kkperm::PermutedCrsMatrix::build: perm/inverse are not inverse bijections at " << k);
    symmetric_ = p.symmetric;
    kind_ = p.kind;
    nnz_ = A.nnz();
    perm_ = OView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::PermutedCrs::perm"), n);
    inv_ = OView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::PermutedCrs::inverse"), n);
    {
      auto hp = Kokkos::create_mirror_view(perm_);
      auto hi = Kokkos::create_mirror_view(inv_);
      for (O i = 0; i < n; ++i) {
        hp(i) = p.perm[i];
        hi(i) = p.inverse[i];
      }
      Kokkos::deep_copy(perm_, hp);
      Kokkos::deep_copy(inv_, hi);
    }
    build_structure(A);
    update_values(A);
  }

  /// Re-gathers values from A (same structure as at build time) into the permuted matrix.
  void update_values(const Matrix& A) {
    KKPERM_REQUIRE(A.nnz() == nnz_ && A.numRows() == ap_.numRows() && A.numCols() == ap_.numCols(),
                   "kkperm::PermutedCrsMatrix::update_values: matrix " << A.numRows() << " x " << A.numCols()
                       << " nnz " << A.nnz() << " differs from the built structure " << ap_.numRows()
                       << " x " << ap_.numCols() << " nnz " << nnz_);
    auto src = A.values;
    auto dst = ap_.values;
    auto g = gather_;
    kkperm::parallel_for(
        "kkperm::PermutedCrs::gather_values", kkperm::range_policy<exec_t>(0, nnz_),
        KOKKOS_LAMBDA(const F k) { dst(k) = src(g(k)); });
  }

  /// out(p) = in(perm(p)): a row-space vector into permuted order.
  template <class InView, class OutView>
  void to_permuted(const InView& in, const OutView& out) const {
    check_len(in, "to_permuted", "in");
    check_len(out, "to_permuted", "out");
    auto pm = perm_;
    kkperm::parallel_for(
        "kkperm::PermutedCrs::to_permuted", kkperm::range_policy<exec_t>(0, pm.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t q) { out(q) = in(pm(q)); });
  }
  /// out(perm(p)) = in(p): back to the caller's order.
  template <class InView, class OutView>
  void from_permuted(const InView& in, const OutView& out) const {
    check_len(in, "from_permuted", "in");
    check_len(out, "from_permuted", "out");
    auto pm = perm_;
    kkperm::parallel_for(
        "kkperm::PermutedCrs::from_permuted", kkperm::range_policy<exec_t>(0, pm.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t q) { out(pm(q)) = in(q); });
  }

  /// y_p = beta y_p + alpha A_p x_p entirely in permuted space (x_p permuted only if symmetric).
  template <class XView, class YView>
  void apply_permuted(V alpha, const XView& xp, V beta, const YView& yp) const {
    KKPERM_REQUIRE(xp.extent(0) == static_cast<std::size_t>(ap_.numCols()) &&
                       yp.extent(0) == static_cast<std::size_t>(ap_.numRows()),
                   "kkperm::PermutedCrsMatrix::apply_permuted: x has " << xp.extent(0) << " and y "
                       << yp.extent(0) << " entries for a " << ap_.numRows() << " x " << ap_.numCols() << " matrix");
    KokkosSparse::spmv("N", alpha, ap_, xp, beta, yp);
  }

  /// y = beta y + alpha A x with x and y in the caller's order (gathers x if symmetric, y if
  /// beta != 0, and scatters the result back).
  template <class XView, class YView>
  void apply(V alpha, const XView& x, V beta, const YView& y) const {
    KKPERM_REQUIRE(x.extent(0) == static_cast<std::size_t>(ap_.numCols()) &&
                       y.extent(0) == static_cast<std::size_t>(ap_.numRows()),
                   "kkperm::PermutedCrsMatrix::apply: x has " << x.extent(0) << " and y " << y.extent(0)
                       << " entries for a " << ap_.numRows() << " x " << ap_.numCols() << " matrix");
    if (ywork_.extent(0) != y.extent(0))
      ywork_ = VView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::PermutedCrs::y"), y.extent(0));
    if (beta != V(0)) to_permuted(y, ywork_);
    if (symmetric_) {
      if (xwork_.extent(0) != x.extent(0))
        xwork_ = VView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::PermutedCrs::x"), x.extent(0));
      to_permuted(x, xwork_);
      KokkosSparse::spmv("N", alpha, ap_, xwork_, beta, ywork_);
    } else {
      KokkosSparse::spmv("N", alpha, ap_, x, beta, ywork_);
    }
    from_permuted(ywork_, y);
  }

  /// Builds row_map, entries and the gather map of A_p (public only for CUDA lambdas).
  void build_structure(const Matrix& A) {
    const O n = A.numRows();
    auto rm = A.graph.row_map;
    auto ent = A.graph.entries;
    auto pm = perm_;
    auto iv = inv_;
    const bool sym = symmetric_;
    typename Matrix::row_map_type::non_const_type new_rm("kkperm::PermutedCrs::row_map", n + 1);
    Kokkos::parallel_scan(
        "kkperm::PermutedCrs::row_map", kkperm::range_policy<exec_t>(0, n),
        KOKKOS_LAMBDA(const O q, F& upd, const bool final) {
          upd += rm(pm(q) + 1) - rm(pm(q));
          if (final) new_rm(q + 1) = upd;
        });
    typename Matrix::index_type::non_const_type new_ent(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::PermutedCrs::entries"), nnz_);
    gather_ = FView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::PermutedCrs::gather"), nnz_);
    auto g = gather_;
    kkperm::parallel_for(
        "kkperm::PermutedCrs::gather_structure", kkperm::range_policy<exec_t>(0, n), KOKKOS_LAMBDA(const O q) {
          const F src = rm(pm(q)), dst = new_rm(q), len = rm(pm(q) + 1) - src;
          for (F k = 0; k < len; ++k) {
            g(dst + k) = src + k;
            new_ent(dst + k) = sym ? iv(ent(src + k)) : ent(src + k);
          }
        });
    if (sym && nnz_ > 0)  // renamed columns: re-sort each row, carrying the gather map along
      KokkosKernels::Impl::sort_crs_matrix<exec_t, decltype(new_rm), decltype(new_ent), FView>(new_rm, new_ent, g);
    VView vals(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::PermutedCrs::values"), nnz_);
    ap_ = Matrix("kkperm::PermutedCrs", n, A.numCols(), nnz_, vals, new_rm, new_ent);
  }

 private:
  template <class View>
  void check_len(const View& v, const char* fn, const char* which) const {
    KKPERM_REQUIRE(v.extent(0) == perm_.extent(0), "kkperm::PermutedCrsMatrix::" << fn << ": " << which << " has "
                                                        << v.extent(0) << " entries, expected " << perm_.extent(0));
  }

  Matrix ap_;
  OView perm_, inv_;
  FView gather_;
  F nnz_ = 0;
  bool symmetric_ = false;
  Permutation kind_ = Permutation::identity;
  mutable VView xwork_, ywork_;
};

}  // namespace kkperm
