// Grid Laplacians: one generic routine over a list of (dz, dy, dx) neighbour offsets.
#include <array>
#include <vector>

#include "kkperm/gen/detail/gen_common.hpp"

namespace kkperm::gen {
namespace {

struct Offset {
  int dz, dy, dx;
};

// Offsets listed in (dz, dy, dx) lexicographic order. For grid points inside the grid this is
// also increasing column order (col = x + nx*(y + ny*z) and |dx|, |dy| <= 1), so rows come out
// sorted without a sort.
std::vector<Offset> offsets(int dims, bool full) {
  std::vector<Offset> out;
  const int zr = dims == 3 ? 1 : 0;
  for (int dz = -zr; dz <= zr; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int nonzero = (dz != 0) + (dy != 0) + (dx != 0);
        if (full || nonzero <= 1) out.push_back({dz, dy, dx});
      }
  return out;
}

GenCsr stencil(const char* who, std::int64_t nx, std::int64_t ny, std::int64_t nz, int dims,
               bool full, std::int64_t (*nnz_formula)(std::int64_t, std::int64_t, std::int64_t)) {
  detail::require_dim(who, "nx", nx, 1);
  detail::require_dim(who, "ny", ny, 1);
  detail::require_dim(who, "nz", nz, 1);
  const std::int64_t nxy = detail::checked_mul(who, "nx*ny", nx, ny);
  const std::int64_t n = detail::checked_mul(who, "nx*ny*nz", nxy, nz);
  // n <= INT_MAX, so every formula below stays far inside int64.
  const std::int64_t expected_nnz = nnz_formula(nx, ny, nz);
  const auto offs = offsets(dims, full);
  const double diag = static_cast<double>(offs.size() - 1);  // neighbour count of interior point

  GenCsr h = detail::make_csr(n, n, expected_nnz);
  h.values.reserve(static_cast<std::size_t>(expected_nnz));
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x) {
        const std::int64_t row = x + nx * (y + ny * z);
        for (const Offset& o : offs) {
          const std::int64_t xx = x + o.dx, yy = y + o.dy, zz = z + o.dz;
          if (xx < 0 || xx >= nx || yy < 0 || yy >= ny || zz < 0 || zz >= nz) continue;
          const std::int64_t col = xx + nx * (yy + ny * zz);
          h.entries.push_back(static_cast<int>(col));
          h.values.push_back(col == row ? diag : -1.0);
        }
        detail::close_row(h);
      }
  KKPERM_ASSERT(h.nnz() == expected_nnz,
                who << " produced " << h.nnz() << " entries, formula " << expected_nnz);
  return h;
}

}  // namespace

GenCsr laplace2d_5pt(std::int64_t nx, std::int64_t ny) {
  return stencil(
      "kkperm::gen::laplace2d_5pt", nx, ny, 1, 2, false,
      [](std::int64_t x, std::int64_t y, std::int64_t) { return 5 * x * y - 2 * x - 2 * y; });
}

GenCsr laplace2d_9pt(std::int64_t nx, std::int64_t ny) {
  return stencil(
      "kkperm::gen::laplace2d_9pt", nx, ny, 1, 2, true,
      [](std::int64_t x, std::int64_t y, std::int64_t) { return (3 * x - 2) * (3 * y - 2); });
}

GenCsr laplace3d_7pt(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return stencil("kkperm::gen::laplace3d_7pt", nx, ny, nz, 3, false,
                 [](std::int64_t x, std::int64_t y, std::int64_t z) {
                   return 7 * x * y * z - 2 * (x * y + y * z + x * z);
                 });
}

GenCsr laplace3d_27pt(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return stencil("kkperm::gen::laplace3d_27pt", nx, ny, nz, 3, true,
                 [](std::int64_t x, std::int64_t y, std::int64_t z) {
                   return (3 * x - 2) * (3 * y - 2) * (3 * z - 2);
                 });
}

}  // namespace kkperm::gen
