// Session 42 probe (standalone CUDA, no Kokkos): does packing row-major B into narrow column
// panels that fit L2 speed up row-major SpMM on random-column matrices?  Y = A*B, f64, B/Y
// row-major. Kernels: a warp-per-row baseline (lanes across K, like kkperm's row walk), and for
// panel widths W = 2/4/8: pack B into K/W panels (nB x W each, contiguous), then one launch over
// (rows, panels) with the panel as the slowest grid dimension, in two lane layouts:
//   slots: a warp per row, 32/W slots split the row's entries, W lanes per slot across columns,
//          slots reduced by shuffles;
//   group: W lanes per row, 32/W rows a warp;
// and nopack: the group layout reading the panel's columns straight from row-major B.
// Timing: CUDA events, 2 warm-ups, median of 10.  Usage: panel_probe [K]
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)

struct Csr { int m = 0, n = 0; std::vector<int> rp, ci; std::vector<double> v; std::string name; };

static uint64_t rng_state = 88172645463325252ull;
static inline uint64_t rnd() { rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17; return rng_state; }

static Csr uniform(int m, int n, int lo, int hi, const char* name) {
  Csr A; A.m = m; A.n = n; A.name = name; A.rp.resize(m + 1); A.rp[0] = 0;
  for (int i = 0; i < m; ++i) { int L = lo + (hi > lo ? int(rnd() % uint64_t(hi - lo + 1)) : 0); A.rp[i + 1] = A.rp[i] + L; }
  A.ci.resize(A.rp[m]); A.v.resize(A.rp[m]);
  for (int i = 0; i < m; ++i) { for (int e = A.rp[i]; e < A.rp[i + 1]; ++e) { A.ci[e] = int(rnd() % uint64_t(n)); A.v[e] = double(rnd() % 1000) / 1000.0 - 0.5; }
    std::sort(A.ci.begin() + A.rp[i], A.ci.begin() + A.rp[i + 1]); }
  return A;
}
// power law: row lengths from a Pareto-like draw, columns biased to low ids (hubs)
static Csr powerlaw(int m, double deg, double gamma, const char* name) {
  Csr A; A.m = m; A.n = m; A.name = name; A.rp.resize(m + 1); A.rp[0] = 0;
  for (int i = 0; i < m; ++i) { double u = (rnd() % 1000000 + 1) / 1e6; double L = deg * (gamma - 2) / (gamma - 1) * std::pow(u, -1.0 / (gamma - 1));
    long long l = std::min<long long>((long long)L + 1, m / 4); A.rp[i + 1] = A.rp[i] + int(l); }
  A.ci.resize(A.rp[m]); A.v.resize(A.rp[m]);
  for (int i = 0; i < m; ++i) { for (int e = A.rp[i]; e < A.rp[i + 1]; ++e) { double u = (rnd() % 1000000 + 1) / 1e6;
      long long c = (long long)(std::pow(u, 2.0) * m); A.ci[e] = int(std::min<long long>(c, m - 1)); A.v[e] = double(rnd() % 1000) / 1000.0 - 0.5; }
    std::sort(A.ci.begin() + A.rp[i], A.ci.begin() + A.rp[i + 1]); }
  return A;
}
static Csr banded(int m, int lower, const char* name) {
  Csr A; A.m = m; A.n = m; A.name = name; A.rp.resize(m + 1); A.rp[0] = 0;
  for (int i = 0; i < m; ++i) { int b = std::max(0, i - lower), e = std::min(m - 1, i + lower); A.rp[i + 1] = A.rp[i] + (e - b + 1); }
  A.ci.resize(A.rp[m]); A.v.resize(A.rp[m]);
  for (int i = 0; i < m; ++i) { int b = std::max(0, i - lower); for (int e = A.rp[i]; e < A.rp[i + 1]; ++e) { A.ci[e] = b + (e - A.rp[i]); A.v[e] = double(rnd() % 1000) / 1000.0 - 0.5; } }
  return A;
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

template <int W>
__global__ void pack(int nB, int K, const double* __restrict__ B, double* __restrict__ P) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;  // over nB * K, read-coalesced
  if (t >= size_t(nB) * K) return;
  const int j = int(t / K), k = int(t % K);
  const int p = k / W, c = k % W;
  P[(size_t(p) * nB + j) * W + c] = B[t];
}

// slots: a warp per row (one row per warp, blockIdx.y = panel)
template <int W>
__global__ void __launch_bounds__(256) panel_slots(int m, int nB, const int* __restrict__ rp, const int* __restrict__ ci,
                                                   const double* __restrict__ v, const double* __restrict__ P,
                                                   double* __restrict__ Y, int K) {
  constexpr int S = 32 / W;
  const int lane = threadIdx.x & 31, slot = lane / W, c = lane % W;
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (r >= m) return;
  const int p = blockIdx.y;
  const double* __restrict__ Pp = P + size_t(p) * nB * W;
  const int beg = rp[r], end = rp[r + 1];
  double acc0 = 0, acc1 = 0;
  int e = beg + slot;
  for (; e + S < end; e += 2 * S) {
    const int j0 = __ldg(&ci[e]), j1 = __ldg(&ci[e + S]);
    const double v0 = __ldg(&v[e]), v1 = __ldg(&v[e + S]);
    const double b0 = __ldg(&Pp[size_t(j0) * W + c]), b1 = __ldg(&Pp[size_t(j1) * W + c]);
    acc0 += v0 * b0; acc1 += v1 * b1;
  }
  if (e < end) acc0 += __ldg(&v[e]) * __ldg(&Pp[size_t(__ldg(&ci[e])) * W + c]);
  double acc = acc0 + acc1;
#pragma unroll
  for (int off = 16; off >= W; off >>= 1) acc += __shfl_xor_sync(~0u, acc, off);
  const int k = p * W + c;
  if (slot == 0 && k < K) Y[size_t(r) * K + k] = acc;
}

// group: W lanes per row, 32/W rows per warp; NoPack reads B (row-major, stride K) directly
template <int W, bool NoPack>
__global__ void __launch_bounds__(256) panel_group(int m, int nB, const int* __restrict__ rp, const int* __restrict__ ci,
                                                   const double* __restrict__ v, const double* __restrict__ P,
                                                   double* __restrict__ Y, int K) {
  const int c = threadIdx.x % W;
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / W;
  if (r >= m) return;
  const int p = blockIdx.y;
  const int k = p * W + c;
  const double* __restrict__ Pp = NoPack ? P + k : P + size_t(p) * nB * W + c;
  const size_t ld = NoPack ? size_t(K) : size_t(W);
  const int beg = rp[r], end = rp[r + 1];
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int e = beg;
  for (; e + 4 <= end; e += 4) {
    const int j0 = __ldg(&ci[e]), j1 = __ldg(&ci[e + 1]), j2 = __ldg(&ci[e + 2]), j3 = __ldg(&ci[e + 3]);
    const double v0 = __ldg(&v[e]), v1 = __ldg(&v[e + 1]), v2 = __ldg(&v[e + 2]), v3 = __ldg(&v[e + 3]);
    a0 += v0 * __ldg(&Pp[j0 * ld]); a1 += v1 * __ldg(&Pp[j1 * ld]); a2 += v2 * __ldg(&Pp[j2 * ld]); a3 += v3 * __ldg(&Pp[j3 * ld]);
  }
  for (; e < end; ++e) a0 += __ldg(&v[e]) * __ldg(&Pp[size_t(__ldg(&ci[e])) * ld]);
  if (k < K) Y[size_t(r) * K + k] = (a0 + a1) + (a2 + a3);
}

struct Dev { int *rp, *ci; double *v, *B, *P, *Y, *Yref; };

template <class F> static float time_med(F f) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < 10; ++i) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  std::sort(t.begin(), t.end()); CK(cudaGetLastError()); return t[t.size() / 2];
}

static double check(const Dev& d, size_t n) {
  std::vector<double> y(n), r(n);
  CK(cudaMemcpy(y.data(), d.Y, n * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(r.data(), d.Yref, n * 8, cudaMemcpyDeviceToHost));
  double mx = 0, sc = 0; for (size_t i = 0; i < n; ++i) { mx = std::max(mx, std::fabs(y[i] - r[i])); sc = std::max(sc, std::fabs(r[i])); }
  return sc > 0 ? mx / sc : mx;
}

template <int W>
static void run_w(const Csr& A, const Dev& d, int K, double floor_ms) {
  const int np = (K + W - 1) / W;
  const size_t nbk = size_t(A.n) * K;
  auto pk = [&] { pack<W><<<unsigned((nbk + 255) / 256), 256>>>(A.n, K, d.B, d.P); };
  const float t_pack = time_med(pk);
  pk(); CK(cudaDeviceSynchronize());
  const size_t ny = size_t(A.m) * K;
  // slots
  CK(cudaMemset(d.Y, 0xff, ny * 8));
  dim3 gs(unsigned((size_t(A.m) * 32 + 255) / 256), np);
  const float t_s = time_med([&] { panel_slots<W><<<gs, 256>>>(A.m, A.n, d.rp, d.ci, d.v, d.P, d.Y, K); });
  const double e_s = check(d, ny);
  CK(cudaMemset(d.Y, 0xff, ny * 8));
  dim3 gg(unsigned((size_t(A.m) * W + 255) / 256), np);
  const float t_g = time_med([&] { panel_group<W, false><<<gg, 256>>>(A.m, A.n, d.rp, d.ci, d.v, d.P, d.Y, K); });
  const double e_g = check(d, ny);
  CK(cudaMemset(d.Y, 0xff, ny * 8));
  const float t_n = time_med([&] { panel_group<W, true><<<gg, 256>>>(A.m, A.n, d.rp, d.ci, d.v, d.B, d.Y, K); });
  const double e_n = check(d, ny);
  std::printf("  W=%d panel=%.1fMB pack %.3f | slots %.3f (+pack %.3f, %.0f%% floor) err %.1e | group %.3f (+pack %.3f) err %.1e | nopack %.3f err %.1e\n",
              W, double(A.n) * W * 8 / 1e6, t_pack, t_s, t_s + t_pack, 100 * floor_ms / (t_s + t_pack), e_s, t_g, t_g + t_pack, e_g, t_n, e_n);
}

int main(int argc, char** argv) {
  std::vector<int> Ks = {32, 128};
  if (argc > 1) Ks = {std::atoi(argv[1])};
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, L2 %d bytes, %d SMs\n", prop.name, prop.l2CacheSize, prop.multiProcessorCount);
  std::vector<Csr> mats;
  mats.push_back(uniform(1000000, 1000000, 16, 16, "uniform 1M x 16"));
  mats.push_back(uniform(2000000, 2000000, 4, 4, "uniform 2M x 4"));
  mats.push_back(uniform(1000000, 1000000, 1, 63, "uniform 1M x 1-63"));
  mats.push_back(uniform(500000, 500000, 64, 64, "uniform 500k x 64"));
  mats.push_back(powerlaw(1000000, 16, 2.1, "powerlaw-ish 1M deg 16"));
  mats.push_back(banded(2000000, 8, "banded 2M lower 8"));
  for (const Csr& A : mats) {
    const size_t nnz = A.rp[A.m];
    Dev d;
    CK(cudaMalloc(&d.rp, (A.m + 1) * 4)); CK(cudaMalloc(&d.ci, nnz * 4)); CK(cudaMalloc(&d.v, nnz * 8));
    CK(cudaMemcpy(d.rp, A.rp.data(), (A.m + 1) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.ci, A.ci.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.v, A.v.data(), nnz * 8, cudaMemcpyHostToDevice));
    for (int K : Ks) {
      const size_t nb = size_t(A.n) * K, ny = size_t(A.m) * K;
      CK(cudaMalloc(&d.B, nb * 8)); CK(cudaMalloc(&d.P, nb * 8 + 64)); CK(cudaMalloc(&d.Y, ny * 8)); CK(cudaMalloc(&d.Yref, ny * 8));
      { std::vector<double> hb(nb); for (auto& x : hb) x = double(rnd() % 2000) / 1000.0 - 1.0; CK(cudaMemcpy(d.B, hb.data(), nb * 8, cudaMemcpyHostToDevice)); }
      const double bytes = double(nnz) * 12 + double(A.m + 1) * 4 + double(nb) * 8 + double(ny) * 8;
      const double floor_ms = bytes / 4.8e12 * 1e3;
      CK(cudaMemset(d.Yref, 0xff, ny * 8));
      unsigned g = unsigned((size_t(A.m) * 32 + 255) / 256);
      float t0 = K <= 32 ? time_med([&] { rm_warp<1><<<g, 256>>>(A.m, d.rp, d.ci, d.v, d.B, d.Yref, K); })
               : K <= 64 ? time_med([&] { rm_warp<2><<<g, 256>>>(A.m, d.rp, d.ci, d.v, d.B, d.Yref, K); })
                         : time_med([&] { rm_warp<4><<<g, 256>>>(A.m, d.rp, d.ci, d.v, d.B, d.Yref, K); });
      std::printf("%s, nnz %zu, K %d: byte floor %.3f ms at 4.8 TB/s; warp-per-row baseline %.3f ms (%.0f%%)\n", A.name.c_str(), nnz, K,
                  floor_ms, t0, 100 * floor_ms / t0);
      run_w<2>(A, d, K, floor_ms);
      run_w<4>(A, d, K, floor_ms);
      run_w<8>(A, d, K, floor_ms);
      std::fflush(stdout);
      CK(cudaFree(d.B)); CK(cudaFree(d.P)); CK(cudaFree(d.Y)); CK(cudaFree(d.Yref));
    }
    CK(cudaFree(d.rp)); CK(cudaFree(d.ci)); CK(cudaFree(d.v));
  }
  return 0;
}
