#pragma once
/**
 * @brief SpmmPlan for kkperm's own kernels (C-stationary, row-major) on any row set: identity,
 * DCSR and, through `row_order`, any row permutation (results in the caller's order, or in
 * permuted space when `permuted_space` is set). Used by make_spmm_plan; the selector and the
 * Handle may construct it directly with a permutation built by kkperm::permute.
 */
#include <cstdint>
#include <string>

#include "kkperm/formats/spmv_formats.hpp"
#include "kkperm/kernels/spmm/c_stationary.hpp"
#include "kkperm/kernels/spmm/layout_copy.hpp"
#include "kkperm/kernels/spmm/row_major.hpp"
#include "kkperm/kernels/spmm/row_set.hpp"
#include "kkperm/kernels/spmm/row_tiled.hpp"
#include "kkperm/permute/build.hpp"
#include "kkperm/select/spmm_candidates.hpp"

namespace kkperm {

template <class Matrix>
class OwnSpmmPlan final : public SpmmPlan<Matrix> {
  using base = SpmmPlan<Matrix>;

 public:
  using typename base::b_left;
  using typename base::b_right;
  using typename base::device_type;
  using typename base::ordinal_type;
  using typename base::value_type;
  using typename base::y_left;
  using typename base::y_right;
  using perm_view = Kokkos::View<const ordinal_type*, device_type>;

  /// `row_order(p)` = original row stored at position p (extent 0 = A's order). With
  /// `permuted_space`, run() reads and writes Y in permuted row order.
  explicit OwnSpmmPlan(SpmmCandidate c, perm_view row_order = {}, bool permuted_space = false)
      : base(c), perm_(row_order), permuted_space_(permuted_space) {
    const auto& i = info(c);
    KKPERM_REQUIRE(std::string(i.kernel) == "c_stationary" || std::string(i.kernel) == "row_major",
                   "kkperm::OwnSpmmPlan: " << i.name << " is not a kkperm kernel candidate");
  }

  double extra_bytes() const override {
    return rs_.extra_bytes + split_.bytes() + tiles_.bytes() +
           static_cast<double>(bt_.span() + yt_.span()) * static_cast<double>(sizeof(value_type));
  }
  std::string details() const override {
    return "stored_rows=" + std::to_string(rs_.stored_rows) +
           " empty_rows=" + std::to_string(rs_.empty_rows.extent(0)) +
           (split_.split_from > 0 ? " split_from=" + std::to_string(split_.split_from) +
                                     " split_len=" + std::to_string(split_.seg_len) +
                                     " split_rows=" + std::to_string(split_.long_rows.extent(0)) +
                                     " segments=" + std::to_string(split_.segments())
                               : std::string()) +
           (perm_.extent(0) ? (permuted_space_ ? " permuted_space" : " caller_order") : "") +
           (left_direct_ ? " left_direct" : "") +
           (tiles_.tiles > 0 ? " tiles=" + std::to_string(tiles_.tiles) + " direct_tiles=" +
                                   std::to_string(tiles_.direct_tiles()) + " tile_cols<=" +
                                   std::to_string(tiles_.max_cols) + " widest=" + std::to_string(tiles_.widest) +
                                   " reuse=" + std::to_string(tiles_.reuse())
                             : std::string()) +
           (std::string(info(this->candidate()).kernel) == "row_major"
                ? " tuning=" + kernels::spmm::row_major_tuning()
                : std::string());
  }

 protected:
  void prepare_impl(const Matrix& A) override {
    const auto& inf = info(this->candidate());
    const bool dcsr = inf.format == SpmmFormat::dcsr;
    const std::string pname = inf.permutation;
    tiles_ = tiles_t{};
    if (this->candidate() == SpmmCandidate::row_major_tiled) {  // every row of A, in order
      if (perm_.extent(0) != 0)
        throw CandidateNotApplicable(this->name() + ": tiles follow A's row order; no permutation");
      tiles_ = kernels::spmm::build_row_tiles<device_type>(
          A.graph.row_map, A.graph.entries, static_cast<std::int64_t>(A.numCols()),
          kernels::spmm::RowTiledConfig::max_rows,
          kernels::spmm::tiled_max_cols(this->K(), sizeof(value_type)));
      a_ = A;
      rs_ = kernels::spmm::build_row_subset(A, tiles_.direct_rows);  // rows too wide to stage: the row kernel's
      // split as row_major would set it for all of A: the direct rows alone average thousands of
      // entries, and a split length from their mean would leave a row of 10^6 entries whole
      build_split(inf, static_cast<std::int64_t>(A.nnz()), static_cast<std::int64_t>(A.numRows()));
      return;
    }
    if (perm_.extent(0) != 0 || pname == "identity") {
      rs_ = kernels::spmm::build_row_set(A, perm_, dcsr, permuted_space_);
      build_split(inf);
      make_row_major_buffers(A);
      return;
    }
    PermuteParams params;
    // Rows are striped over the warps of one team: the order must use the kernel's Nw.
    params.feature.warps_per_block = std::string(inf.kernel) == "c_stationary"
                                         ? kernels::spmm::CStationaryConfig::warps_per_team
                                         : kernels::spmm::RowMajorConfig::warps_per_team;
    const Permutation kind = permutation_from_string(pname);
    if (kind == Permutation::rcm && A.numRows() != A.numCols())
      throw CandidateNotApplicable(this->name() + ": RCM needs a square matrix, A is " +
                                   std::to_string(A.numRows()) + " x " +
                                   std::to_string(A.numCols()));
    params.validate_matrix = false;  // plan precondition: A validated by the caller
    const auto P = build_permutation(A, kind, params);  // device-resident, no host copy
    rs_ = kernels::spmm::build_row_set(A, perm_view(P.perm), dcsr, permuted_space_);
    build_split(inf);
    make_row_major_buffers(A);
  }
  void run_impl(value_type alpha, const b_left& B, value_type beta,
                const y_left& Y) const override {
    using exec = typename Matrix::execution_space;
    if (this->candidate() == SpmmCandidate::row_major_left) {
      if (left_direct_) {  // one launch, strided loads
        run_row_major(alpha, B, beta, Y);
        return;
      }
      // the row-major run on the buffers
      kernels::spmm::layout_copy(exec(), B, bt_);
      if (beta != value_type(0)) kernels::spmm::layout_copy(exec(), Y, yt_);  // else never read
      run_row_major(alpha, b_right(bt_), beta, yt_);
      kernels::spmm::layout_copy(exec(), yt_, Y);
      return;
    }
    kernels::spmm::c_stationary(exec(), alpha, rs_.row_map, rs_.entries, rs_.values, rs_.row_ids,
                                B, beta, Y);
    kernels::spmm::scale_rows(exec(), beta, rs_.empty_rows, Y);
  }
  void run_impl(value_type alpha, const b_right& B, value_type beta,
                const y_right& Y) const override {
    run_row_major(alpha, B, beta, Y);
  }

 private:
  /// The row-major kernel on the row set (either layout of B and Y), with the candidate's column
  /// slabs (row_major_slab) and chunked walk (row_major_chunked), then the empty rows' beta scale.
  template <class BView, class YView>
  void run_row_major(value_type alpha, const BView& B, value_type beta, const YView& Y) const {
    using exec = typename Matrix::execution_space;
    if (this->candidate() == SpmmCandidate::row_major_tiled) {  // the tiles cover empty rows too
      kernels::spmm::row_tiled(exec(), alpha, tiles_, a_.graph.row_map, a_.graph.entries, a_.values, B, beta, Y);
      if (rs_.stored_rows > 0)  // the direct tiles' rows
        kernels::spmm::row_major(exec(), alpha, rs_.row_map, rs_.entries, rs_.values, rs_.row_ids, B, beta, Y,
                                 split_);
      return;
    }
    const int slab = this->candidate() == SpmmCandidate::row_major_slab
                         ? kernels::spmm::slab_columns(static_cast<std::int64_t>(B.extent(0)),
                                                       static_cast<int>(Y.extent(1)), sizeof(value_type))
                         : 0;
    const int walk_rows = this->candidate() == SpmmCandidate::row_major_chunked
                              ? kernels::spmm::RowMajorConfig::chunked_walk_rows
                              : 1;
    kernels::spmm::row_major(exec(), alpha, rs_.row_map, rs_.entries, rs_.values, rs_.row_ids, B,
                             beta, Y, split_, slab, walk_rows);
    kernels::spmm::scale_rows(exec(), beta, rs_.empty_rows, Y);
  }

  /// row_major_left on device backends runs the row-major kernel on the column-major B and Y
  /// directly (one launch instead of copy, kernel, copy; its lanes' loads strided by the leading
  /// dimension) when the row set has fewer stored rows than one wave of lane groups and
  /// entries x K is at most this (K <= 32) ...
  static constexpr std::int64_t left_direct_work_k32 = std::int64_t(1) << 20;
  /// ... or this (K > 32). H100 run 214 (every real matrix, f64): on row sets under one wave the
  /// direct run was faster than the copies on 392 of the 396 cases within these limits (typically
  /// 17-23 us -> 9-12 us), and slower on most cases above them at K = 128 (e.g. n1024-l* with
  /// 4.2e6 entries x K: 23 -> 44 us).
  static constexpr std::int64_t left_direct_work = std::int64_t(1) << 18;

  /// row_major_left: row-major copies of B (num_cols x K) and Y (num_rows x K), made once here
  /// and reused by every run() (so concurrent run() calls on one such plan would race), unless
  /// the run is direct (left_direct_work).
  void make_row_major_buffers(const Matrix& A) {
    bt_ = rm_view();
    yt_ = rm_view();
    left_direct_ = false;
    if (this->candidate() != SpmmCandidate::row_major_left) return;
    using exec = typename Matrix::execution_space;
    const std::int64_t work = static_cast<std::int64_t>(rs_.entries.extent(0)) * this->K();
    left_direct_ = rs_.stored_rows < kernels::spmm::wave_rows<exec>() &&
                   work <= (this->K() <= 32 ? left_direct_work_k32 : left_direct_work);
    if (left_direct_) return;
    const std::size_t K = static_cast<std::size_t>(this->K());
    const double bytes = (static_cast<double>(A.numCols()) + static_cast<double>(A.numRows())) *
                         static_cast<double>(K) * sizeof(value_type);
    try {
      bt_ = rm_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmm::b_row_major"),
                    static_cast<std::size_t>(A.numCols()), K);
      yt_ = rm_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmm::y_row_major"),
                    static_cast<std::size_t>(A.numRows()), K);
    } catch (const std::exception& e) {
      bt_ = rm_view();
      yt_ = rm_view();
      throw CandidateNotApplicable(this->name() + ": row-major copies of B and Y (" +
                                   std::to_string(static_cast<long long>(bytes)) +
                                   " bytes) could not be allocated: " + e.what());
    }
  }

  /// Row-major candidates: rows far longer than the mean go to segments (row_major.hpp), shorter
  /// ones when the segments would not fill one wave (wave_segment_length). The split length comes
  /// from the row set's entries and rows, or from `nnz` and `rows` when given (row_major_tiled:
  /// A's, whose direct rows are a row set of their own).
  void build_split(const SpmmCandidateInfo& inf, std::int64_t nnz = -1, std::int64_t rows = -1) {
    split_ = split_t{};
    if (std::string(inf.kernel) != "row_major" || rs_.stored_rows == 0) return;
    using exec = typename Matrix::execution_space;
    const std::int64_t wave = kernels::spmm::wave_rows<exec>();
    // the longest row: only small row sets need it (default_split_length)
    const std::int64_t max_row = rs_.stored_rows < wave ? formats::device_max_row_length<exec>(rs_.row_map) : 0;
    const auto len = kernels::spmm::default_split_length(
        nnz >= 0 ? nnz : static_cast<std::int64_t>(rs_.entries.extent(0)), rows >= 0 ? rows : rs_.stored_rows, wave,
        max_row);
    split_ = kernels::spmm::build_row_split(exec(), rs_.row_map, rs_.row_ids, len);
    // segments that would not fill one wave: the same rows in shorter segments, at most
    // max_row_segments a row
    const std::int64_t segs = split_.segments();
    if (segs == 0 || segs >= wave) return;
    const std::int64_t longest = max_row > 0 ? max_row : formats::device_max_row_length<exec>(rs_.row_map);
    const auto seg = kernels::spmm::wave_segment_length(segs, len, wave, longest);
    if (seg < len) split_ = kernels::spmm::build_row_split(exec(), rs_.row_map, rs_.row_ids, len, seg);
  }

  using split_t = kernels::spmm::RowSplit<device_type, typename Matrix::non_const_ordinal_type,
                                          typename Matrix::non_const_size_type>;
  split_t split_;
  using tiles_t = kernels::spmm::RowTiles<device_type, typename Matrix::non_const_ordinal_type,
                                          typename Matrix::non_const_size_type>;
  tiles_t tiles_;  ///< row_major_tiled's tiles (empty for the other candidates)
  Matrix a_;       ///< row_major_tiled: A as prepared (its views; the plan keeps A's views anyway)
  using rm_view = y_right;
  rm_view bt_, yt_;  ///< row_major_left's buffers (empty for the other candidates)
  bool left_direct_ = false;  ///< row_major_left on a small row set: no buffers, no copies
  perm_view perm_;
  bool permuted_space_ = false;
  kernels::spmm::RowSet<Matrix> rs_;
};

}  // namespace kkperm
