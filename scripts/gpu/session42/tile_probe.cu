// Session 42 probe 2 (standalone CUDA, no Kokkos): row-major SpMM (f64, B/Y row-major) with B's
// rows staged in shared memory per tile of consecutive rows.  Host prep: rows are grouped into
// tiles of up to TMAX consecutive rows whose distinct columns number at most UMAX; each tile
// keeps its sorted distinct columns and every entry a 16-bit local index into them.  Kernel: a
// block (4 warps) per tile; per pass of 32 columns the block copies the tile's B rows into
// shared memory (coalesced 256-byte rows), then each warp takes rows, lane = column.
// Against a warp-per-row baseline that gathers B from global memory.  Usage: tile_probe
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)

struct Csr { int m = 0, n = 0; std::vector<int> rp, ci; std::vector<double> v; std::string name; };
static uint64_t rs = 88172645463325252ull;
static inline uint64_t rnd() { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static double rv() { return double(rnd() % 1000) / 1000.0 - 0.5; }

static Csr from_rows(int m, int n, const std::vector<std::vector<int>>& rows, const char* name) {
  Csr A; A.m = m; A.n = n; A.name = name; A.rp.assign(m + 1, 0);
  for (int i = 0; i < m; ++i) A.rp[i + 1] = A.rp[i] + int(rows[i].size());
  A.ci.reserve(A.rp[m]); for (auto& r : rows) for (int c : r) { A.ci.push_back(c); A.v.push_back(rv()); }
  return A;
}
static Csr stencil(int nx, int ny, int nz, int pts, const char* name) {
  const int m = nx * ny * nz; std::vector<std::vector<int>> rows(m);
  for (int z = 0; z < nz; ++z) for (int y = 0; y < ny; ++y) for (int x = 0; x < nx; ++x) {
    auto& r = rows[(z * ny + y) * nx + x];
    for (int dz = -1; dz <= 1; ++dz) for (int dy = -1; dy <= 1; ++dy) for (int dx = -1; dx <= 1; ++dx) {
      const int nd = std::abs(dx) + std::abs(dy) + std::abs(dz);
      if (nz == 1 && dz != 0) continue;
      if ((pts == 5 || pts == 7) && nd > 1) continue;
      const int X = x + dx, Y = y + dy, Z = z + dz;
      if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz) continue;
      r.push_back((Z * ny + Y) * nx + X); }
  }
  return from_rows(m, m, rows, name);
}
static Csr banded(int m, int lower, const char* name) {
  std::vector<std::vector<int>> rows(m);
  for (int i = 0; i < m; ++i) for (int c = std::max(0, i - lower); c <= std::min(m - 1, i + lower); ++c) rows[i].push_back(c);
  return from_rows(m, m, rows, name);
}
static Csr banded_fill(int m, int lower, double fill, const char* name) {
  std::vector<std::vector<int>> rows(m);
  for (int i = 0; i < m; ++i) for (int c = std::max(0, i - lower); c <= std::min(m - 1, i + lower); ++c)
    if (c == i || double(rnd() % 1000000) / 1e6 < fill) rows[i].push_back(c);
  return from_rows(m, m, rows, name);
}
static Csr blocks(int nb, int bs, const char* name) {
  const int m = nb * bs; std::vector<std::vector<int>> rows(m);
  for (int b = 0; b < nb; ++b) for (int i = 0; i < bs; ++i) for (int j = 0; j < bs; ++j) rows[b * bs + i].push_back(b * bs + j);
  return from_rows(m, m, rows, name);
}
static Csr uniform(int m, int L, const char* name) {
  std::vector<std::vector<int>> rows(m);
  for (int i = 0; i < m; ++i) { for (int e = 0; e < L; ++e) rows[i].push_back(int(rnd() % uint64_t(m))); std::sort(rows[i].begin(), rows[i].end()); }
  return from_rows(m, m, rows, name);
}

struct Tiles { std::vector<int> row0, cptr, cols; std::vector<uint16_t> loc; double reuse = 0; int maxU = 0; };
static Tiles make_tiles(const Csr& A, int TMAX, int UMAX) {
  Tiles t; std::vector<int> mark(A.n, -1), slot(A.n, 0); t.loc.resize(A.ci.size());
  int r = 0, tile = 0; t.cptr.push_back(0);
  while (r < A.m) {
    t.row0.push_back(r); int U = 0; const int cbeg = int(t.cols.size());
    while (r < A.m && r - t.row0.back() < TMAX) {
      int nw = 0; for (int e = A.rp[r]; e < A.rp[r + 1]; ++e) if (mark[A.ci[e]] != tile) { mark[A.ci[e]] = tile; ++nw; }
      if (U + nw > UMAX && r > t.row0.back()) break;  // (the recount below uses a fresh mark)
      U += nw; ++r;
    }
    // recount the tile exactly over its rows [row0, r): distinct columns in first-seen order, sorted
    ++tile; std::vector<int> cs;
    for (int i = t.row0.back(); i < r; ++i) for (int e = A.rp[i]; e < A.rp[i + 1]; ++e) if (mark[A.ci[e]] != tile) { mark[A.ci[e]] = tile; cs.push_back(A.ci[e]); }
    std::sort(cs.begin(), cs.end());
    for (int k = 0; k < int(cs.size()); ++k) slot[cs[k]] = k;
    for (int i = t.row0.back(); i < r; ++i) for (int e = A.rp[i]; e < A.rp[i + 1]; ++e) t.loc[e] = uint16_t(slot[A.ci[e]]);
    t.cols.insert(t.cols.end(), cs.begin(), cs.end()); t.cptr.push_back(int(t.cols.size()));
    t.maxU = std::max<int>(t.maxU, int(cs.size())); ++tile; (void)cbeg;
  }
  t.row0.push_back(A.m);
  t.reuse = double(A.ci.size()) / double(std::max<size_t>(1, t.cols.size()));
  return t;
}

template <int R>
__global__ void __launch_bounds__(256) rm_warp(int m, const int* __restrict__ rp, const int* __restrict__ ci, const double* __restrict__ v,
                                               const double* __restrict__ B, double* __restrict__ Y, int K) {
  const int lane = threadIdx.x & 31;
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (r >= m) return;
  for (int base = 0; base < K; base += 32 * R) {
    double acc[R];
#pragma unroll
    for (int q = 0; q < R; ++q) acc[q] = 0;
    const int beg = rp[r], end = rp[r + 1];
    for (int c0 = beg; c0 < end; c0 += 32) {
      const int n = min(32, end - c0);
      int mc = 0; double mv = 0;
      if (lane < n) { mc = ci[c0 + lane]; mv = v[c0 + lane]; }
      int j = 0;
      for (; j + 4 <= n; j += 4) {
        int cc[4]; double vv[4]; double bb[4][R];
#pragma unroll
        for (int u = 0; u < 4; ++u) { cc[u] = __shfl_sync(~0u, mc, j + u); vv[u] = __shfl_sync(~0u, mv, j + u); }
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
          for (int q = 0; q < R; ++q) { int c = base + lane + 32 * q; bb[u][q] = c < K ? __ldg(&B[size_t(cc[u]) * K + c]) : 0.0; }
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
          for (int q = 0; q < R; ++q) acc[q] += vv[u] * bb[u][q];
      }
      for (; j < n; ++j) { int cc = __shfl_sync(~0u, mc, j); double vv = __shfl_sync(~0u, mv, j);
#pragma unroll
        for (int q = 0; q < R; ++q) { int c = base + lane + 32 * q; if (c < K) acc[q] += vv * __ldg(&B[size_t(cc) * K + c]); } }
    }
#pragma unroll
    for (int q = 0; q < R; ++q) { int c = base + lane + 32 * q; if (c < K) Y[size_t(r) * K + c] = acc[q]; }
  }
}

// a block of NW warps per tile; PW = columns per pass (32 * R), shared: U x PW doubles
template <int R, int NW>
__global__ void __launch_bounds__(NW * 32) tiled(const int* __restrict__ row0, const int* __restrict__ cptr, const int* __restrict__ cols,
                                                 const int* __restrict__ rp, const uint16_t* __restrict__ loc, const double* __restrict__ v,
                                                 const double* __restrict__ B, double* __restrict__ Y, int K) {
  extern __shared__ double S[];
  constexpr int PW = 32 * R;
  const int t = blockIdx.x, lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int r0 = row0[t], r1 = row0[t + 1], c0 = cptr[t], U = cptr[t + 1] - c0;
  for (int base = 0; base < K; base += PW) {
    if (base > 0) __syncthreads();
    // staging: each warp keeps SU rows' loads in flight (column indices first, then the rows)
    constexpr int SU = 8;
    for (int u0 = w * SU; u0 < U; u0 += NW * SU) {
      int cu = 0; if (lane < SU && u0 + lane < U) cu = __ldg(&cols[c0 + u0 + lane]);
      double tmp[SU][R];
#pragma unroll
      for (int s = 0; s < SU; ++s) {
        const size_t src = size_t(__shfl_sync(~0u, cu, s)) * K + base;
#pragma unroll
        for (int q = 0; q < R; ++q) { const int c = lane + 32 * q; tmp[s][q] = (u0 + s < U && base + c < K) ? __ldg(&B[src + c]) : 0.0; }
      }
#pragma unroll
      for (int s = 0; s < SU; ++s)
        if (u0 + s < U)
#pragma unroll
          for (int q = 0; q < R; ++q) S[(u0 + s) * PW + lane + 32 * q] = tmp[s][q];
    }
    __syncthreads();
    for (int r = r0 + w; r < r1; r += NW) {
      double acc[R];
#pragma unroll
      for (int q = 0; q < R; ++q) acc[q] = 0;
      const int beg = rp[r], end = rp[r + 1];
      for (int e0 = beg; e0 < end; e0 += 32) {
        const int n = min(32, end - e0);
        int ml = 0; double mv = 0;
        if (lane < n) { ml = __ldg(&loc[e0 + lane]); mv = __ldg(&v[e0 + lane]); }
#pragma unroll 4
        for (int j = 0; j < n; ++j) {
          const int l = __shfl_sync(~0u, ml, j); const double vv = __shfl_sync(~0u, mv, j);
#pragma unroll
          for (int q = 0; q < R; ++q) acc[q] += vv * S[l * PW + lane + 32 * q];
        }
      }
#pragma unroll
      for (int q = 0; q < R; ++q) { const int c = base + lane + 32 * q; if (c < K) Y[size_t(r) * K + c] = acc[q]; }
    }
  }
}

template <class F> static float time_med(F f) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < 10; ++i) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  std::sort(t.begin(), t.end()); CK(cudaGetLastError()); return t[t.size() / 2];
}
static double check(const double* dy, const double* dr, size_t n) {
  std::vector<double> y(n), r(n);
  CK(cudaMemcpy(y.data(), dy, n * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(r.data(), dr, n * 8, cudaMemcpyDeviceToHost));
  double mx = 0, sc = 0; for (size_t i = 0; i < n; ++i) { mx = std::max(mx, std::fabs(y[i] - r[i])); sc = std::max(sc, std::fabs(r[i])); }
  return sc > 0 ? mx / sc : mx;
}
template <class T> static T* up(const std::vector<T>& h) { T* d; CK(cudaMalloc(&d, h.size() * sizeof(T) + 16)); CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice)); return d; }

template <int R, int NW>
static void run_tiled(const Csr& A, int K, const double* dB, double* dY, const double* dYref, int* drp, const double* dv, double floor_ms,
                      int TMAX, int UMAX) {
  Tiles t = make_tiles(A, TMAX, UMAX);
  int *d0 = up(t.row0), *dc = up(t.cptr), *dcols = up(t.cols); uint16_t* dl = up(t.loc);
  const int nt = int(t.row0.size()) - 1;
  const size_t shm = size_t(t.maxU) * 32 * R * 8;
  auto k = tiled<R, NW>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm)));
  const size_t ny = size_t(A.m) * K;
  CK(cudaMemset(dY, 0xff, ny * 8));
  const float tt = time_med([&] { k<<<nt, NW * 32, shm>>>(d0, dc, dcols, drp, dl, dv, dB, dY, K); });
  std::printf("  tiled R=%d NW=%d T<=%d U<=%d: %d tiles, reuse %.2f, max U %d, shm %zu KB: %.3f ms (%.0f%% floor) err %.1e\n", R, NW, TMAX, UMAX, nt,
              t.reuse, t.maxU, shm / 1024, tt, 100 * floor_ms / tt, check(dY, dYref, ny));
  CK(cudaFree(d0)); CK(cudaFree(dc)); CK(cudaFree(dcols)); CK(cudaFree(dl));
}

int main() {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, L2 %d bytes, %d SMs, smem/block optin %zu\n", prop.name, prop.l2CacheSize, prop.multiProcessorCount, prop.sharedMemPerBlockOptin);
  std::vector<Csr> mats;
  mats.push_back(stencil(1000, 1000, 1, 5, "laplace2d5 1000^2"));
  mats.push_back(stencil(1000, 1000, 1, 9, "laplace2d9 1000^2"));
  mats.push_back(stencil(100, 100, 100, 7, "laplace3d7 100^3"));
  mats.push_back(stencil(100, 100, 100, 27, "laplace3d27 100^3"));
  mats.push_back(banded(2000000, 8, "banded 2M lower 8"));
  mats.push_back(banded_fill(1000000, 200, 0.05, "banded 1M lower 200 fill 5%"));
  mats.push_back(blocks(20000, 32, "block 20000 x 32"));
  mats.push_back(uniform(1000000, 16, "uniform 1M x 16"));
  for (const Csr& A : mats) {
    const size_t nnz = A.ci.size();
    int* drp = up(A.rp); int* dci = up(A.ci); double* dv = up(A.v);
    for (int K : {32, 128}) {
      const size_t nb = size_t(A.n) * K, ny = size_t(A.m) * K;
      std::vector<double> hb(nb); for (auto& x : hb) x = double(rnd() % 2000) / 1000.0 - 1.0;
      double* dB = up(hb); double *dY, *dYr; CK(cudaMalloc(&dY, ny * 8)); CK(cudaMalloc(&dYr, ny * 8));
      const double floor_ms = (double(nnz) * 12 + double(A.m + 1) * 4 + double(nb) * 8 + double(ny) * 8) / 4.8e12 * 1e3;
      CK(cudaMemset(dYr, 0xff, ny * 8));
      const unsigned g = unsigned((size_t(A.m) * 32 + 255) / 256);
      const float t0 = K <= 32 ? time_med([&] { rm_warp<1><<<g, 256>>>(A.m, drp, dci, dv, dB, dYr, K); })
                               : time_med([&] { rm_warp<4><<<g, 256>>>(A.m, drp, dci, dv, dB, dYr, K); });
      std::printf("%s, nnz %zu, K %d: floor %.3f ms at 4.8 TB/s; warp-per-row baseline %.3f ms (%.0f%%)\n", A.name.c_str(), nnz, K, floor_ms, t0,
                  100 * floor_ms / t0);
      run_tiled<1, 4>(A, K, dB, dY, dYr, drp, dv, floor_ms, 32, 96);
      run_tiled<1, 4>(A, K, dB, dY, dYr, drp, dv, floor_ms, 64, 192);
      run_tiled<1, 8>(A, K, dB, dY, dYr, drp, dv, floor_ms, 64, 192);
      run_tiled<1, 8>(A, K, dB, dY, dYr, drp, dv, floor_ms, 128, 384);
      if (K > 32) { run_tiled<2, 8>(A, K, dB, dY, dYr, drp, dv, floor_ms, 64, 192); run_tiled<4, 8>(A, K, dB, dY, dYr, drp, dv, floor_ms, 64, 96);
                    run_tiled<4, 4>(A, K, dB, dY, dYr, drp, dv, floor_ms, 32, 64); }
      std::fflush(stdout);
      CK(cudaFree(dB)); CK(cudaFree(dY)); CK(cudaFree(dYr));
    }
    CK(cudaFree(drp)); CK(cudaFree(dci)); CK(cudaFree(dv));
  }
  return 0;
}
