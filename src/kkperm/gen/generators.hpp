#pragma once
/**
 * @brief Seeded, deterministic sparse matrix generators (host side).
 *
 * Usage: `auto A = kkperm::gen::from_spec("powerlaw:n=1000000,deg=16,gamma=2.1,seed=7");`
 *        `auto L = kkperm::gen::laplace2d_5pt(1000, 1000);`
 *
 * Every generator returns a GenCsr (HostCsr<double, int, int64_t>) with sorted, unique,
 * in-range columns per row and a monotone row_map; convert with kkperm::to_device.
 *
 * Determinism: output depends only on the arguments (and seed), never on the machine, standard
 * library, thread count or backend: all randomness comes from kkperm::gen::Rng (xoshiro256**,
 * SplitMix64-seeded per (seed, purpose, row)) and all real functions from det_log/det_exp
 * (kkperm/gen/random.hpp). Generation is single-threaded, row by row, O(nnz + rows) except
 * where noted.
 *
 * Values: stencils carry their fixed stencil values; every other family draws each value
 * uniformly from [-1, 1) on a 2^-52 grid with 0 excluded (Rng::value), from a stream separate
 * from the structure's, so no kernel test ever runs on all-zero data.
 *
 * Errors: bad arguments throw std::invalid_argument starting with the function's name
 * ("kkperm::gen::banded: ..."); sizes that do not fit `int` rows/cols are rejected.
 */
#include <cstdint>
#include <string>
#include <vector>

#include "kkperm/core/host_csr.hpp"

namespace kkperm::gen {

/// The matrix type every generator returns.
using GenCsr = HostCsr<double, int, std::int64_t>;

// ---- stencils (grid Laplacians with Dirichlet boundary, lexicographic order, x fastest) ------
// Row of grid point (i, j[, k]) is i + nx*(j + ny*k). Off-diagonals are -1 for every stencil
// neighbour inside the grid; the diagonal is the number of stencil neighbours of an interior
// point (4, 8, 6, 26), so interior rows sum to 0 and boundary rows are strictly diagonally
// dominant (neighbours outside the grid are simply dropped). All four are symmetric.

/// 5-point 2D Laplacian, (nx*ny)^2, nnz = 5*nx*ny - 2*nx - 2*ny. Requires nx, ny >= 1.
GenCsr laplace2d_5pt(std::int64_t nx, std::int64_t ny);
/// 9-point 2D Laplacian (all 8 neighbours), nnz = (3*nx - 2)*(3*ny - 2).
GenCsr laplace2d_9pt(std::int64_t nx, std::int64_t ny);
/// 7-point 3D Laplacian, nnz = 7*nx*ny*nz - 2*(nx*ny + ny*nz + nx*nz).
GenCsr laplace3d_7pt(std::int64_t nx, std::int64_t ny, std::int64_t nz);
/// 27-point 3D Laplacian (all 26 neighbours), nnz = (3*nx - 2)*(3*ny - 2)*(3*nz - 2).
GenCsr laplace3d_27pt(std::int64_t nx, std::int64_t ny, std::int64_t nz);

// ---- random families ------------------------------------------------------------------------

/// n_rows x n_cols, every row has exactly `nnz_per_row` distinct uniformly random columns
/// (0 <= nnz_per_row <= n_cols).
GenCsr random_uniform(std::int64_t n_rows, std::int64_t n_cols, std::int64_t nnz_per_row,
                      std::uint64_t seed);
/// As above, but each row's length is drawn uniformly from [min_nnz_per_row, max_nnz_per_row].
GenCsr random_uniform(std::int64_t n_rows, std::int64_t n_cols, std::int64_t min_nnz_per_row,
                      std::int64_t max_nnz_per_row, std::uint64_t seed);
/// lengths.size() x n_cols, row i has exactly lengths[i] distinct uniformly random columns
/// (0 <= lengths[i] <= n_cols): for tests that place row ends at chosen positions. No spec.
GenCsr rows_of_lengths(const std::vector<std::int64_t>& lengths, std::int64_t n_cols,
                       std::uint64_t seed);

/**
 * @brief Chung–Lu power-law matrix, n x n, with power-law row AND column degrees.
 *
 * Node weights w_i = (i+1)^(-1/(gamma-1)) (Zipf form of a degree distribution with tail
 * exponent gamma). Entry (i, j) is present independently with probability
 * min(1, c * w_i * w_j) (directed: (i,j) and (j,i) independent, diagonal allowed), where c is
 * found by bisection so that the EXPECTED nnz, including the min(1, .) capping of hub pairs,
 * equals n * avg_deg (so the realised mean row length is avg_deg up to sampling noise).
 * Sampling is the exact O(n + nnz) geometric-skip algorithm of Miller & Hagberg (2011).
 * With `shuffle` (default), one random permutation relabels rows and columns alike, so hubs
 * are scattered instead of sitting in the first rows. Requires n >= 1, gamma > 1,
 * 0 < avg_deg <= n/2.
 */
GenCsr power_law(std::int64_t n, double avg_deg, double gamma, std::uint64_t seed,
                 bool shuffle = true);

/// n x n band: row i holds columns [i - lower, i + upper] clipped to [0, n); the diagonal is
/// always present, each off-diagonal band entry independently with probability `fill`
/// (0 < fill <= 1; 1 = full band, then nnz = n + sum of clipped band widths).
GenCsr banded(std::int64_t n, std::int64_t lower, std::int64_t upper, double fill,
              std::uint64_t seed);

/// Block diagonal with `n_blocks` dense block_size x block_size blocks (n = n_blocks*size).
GenCsr block_diagonal(std::int64_t n_blocks, std::int64_t block_size, std::uint64_t seed);
/// Block diagonal with dense blocks whose sizes are drawn uniformly from [min_size, max_size];
/// n = sum of the sizes.
GenCsr block_diagonal(std::int64_t n_blocks, std::int64_t min_size, std::int64_t max_size,
                      std::uint64_t seed);

/// n x n arrow: rows 0..dense_rows-1 are full, columns 0..dense_cols-1 are full, plus the full
/// diagonal (0 <= dense_rows, dense_cols <= n).
GenCsr arrow(std::int64_t n, std::int64_t dense_rows, std::int64_t dense_cols, std::uint64_t seed);

/// n x n hypersparse: exactly round(nonempty_fraction * n) rows, chosen uniformly at random,
/// hold min(nnz_per_row, n) distinct uniform random columns each; every other row is empty.
GenCsr hypersparse(std::int64_t n, double nonempty_fraction, std::int64_t nnz_per_row,
                   std::uint64_t seed);

// ---- Kronecker expansion of a pattern -------------------------------------------------------

struct KroneckerOptions {
  int block = 2;         ///< seed block size k, 2 <= k <= 16
  double density = 0.5;  ///< probability of each off-diagonal seed-block entry, in [0, 1]
  double jitter = 0.0;   ///< probability that an entry moves to a nearby column, in [0, 1]
};

/**
 * @brief Expands the sparsity pattern of `pattern` (values ignored) to at least `target_nnz`
 * entries: A = P ⊗ K_1 ⊗ K_2 ⊗ ... ⊗ K_r, with r the smallest count reaching target_nnz
 * (r = 0 when nnz(P) >= target_nnz).
 *
 * Each seed block K_l is k x k (k = opts.block) with its full diagonal plus every off-diagonal
 * entry independently with probability opts.density, drawn from (seed, l). So each level
 * multiplies rows and columns by k and nnz by nnz(K_l) in [k, k^2]:
 * rows(A) = rows(P) * k^r, cols(A) = cols(P) * k^r, nnz(A) = nnz(P) * prod nnz(K_l), hence
 * target_nnz <= nnz(A) < target_nnz * k^2 (before jitter, which keeps nnz unchanged).
 * Entry (a, c) of P becomes the dense-ish block rows a*k^r .. , columns c*k^r + pattern(K),
 * so P's coarse structure (row-length distribution, locality) is preserved at every scale.
 *
 * Jitter: each entry independently with probability opts.jitter moves to a uniformly random
 * column within max(k^r, 8) of its own that is not already in the row (up to 32 tries,
 * otherwise it stays), so the result is not perfectly block structured; nnz is unchanged.
 * Values: fresh uniform [-1,1)\{0} (see file comment). Requires a structurally valid pattern
 * with nnz >= 1 and a result whose rows/cols fit in int and whose nnz is at most 2^33.
 */
GenCsr kronecker(const GenCsr& pattern, std::int64_t target_nnz, std::uint64_t seed,
                 const KroneckerOptions& opts = KroneckerOptions{});

// ---- specs ----------------------------------------------------------------------------------

/**
 * @brief Builds a matrix from a spec "family:key=value,key=value,...", e.g.
 * "laplace2d5:nx=1000,ny=1000", "powerlaw:n=1000000,deg=16,gamma=2.1,seed=7",
 * "kron:file=path.mtx.gz,nnz=20000000,seed=3". Integers may be written as 2e7.
 * Throws std::invalid_argument "kkperm::gen::from_spec: ..." on an unknown family or key,
 * a repeated key, a missing required key, a malformed value, or arguments the generator
 * rejects (its message is appended). See spec_help() for families, keys and defaults.
 */
GenCsr from_spec(const std::string& spec);

/// The spec in canonical form: primary family name, every key in fixed order, defaults filled
/// in, e.g. "laplace2d5:nx=10,ny=10". from_spec(normalize_spec(s)) builds the same matrix as
/// from_spec(s). Same errors as from_spec (but builds nothing).
std::string normalize_spec(const std::string& spec);

/// Human-readable list of families, their keys, defaults (required keys marked) and meaning.
std::string spec_help();

}  // namespace kkperm::gen
