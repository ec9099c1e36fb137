#include "kkperm/io/binary_csr.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/io/matrix_market.hpp"

namespace kkperm::io {

namespace {

constexpr char kMagic[8] = {'K', 'K', 'P', 'C', 'S', 'R', '\r', '\n'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 40;
enum : std::uint8_t { kF64 = 1 };
enum : std::uint8_t { kI32 = 1, kI64 = 2 };

bool host_is_little_endian() {
  const std::uint32_t one = 1;
  unsigned char c;
  std::memcpy(&c, &one, 1);
  return c == 1;
}

[[noreturn]] void fail(const std::string& path, const std::string& msg) {
  throw ParseError("kkperm::io: " + path + ": " + msg);
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};

template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

void write_binary_csr(const std::string& path, const HostCsr<double, int, std::int64_t>& A) {
  KKPERM_REQUIRE(host_is_little_endian(),
                 "kkperm::io::write_binary_csr: big-endian hosts are not supported");
  KKPERM_REQUIRE(A.num_rows >= 0 && A.num_cols >= 0 &&
                     A.row_map.size() == static_cast<std::size_t>(A.num_rows) + 1 &&
                     A.entries.size() == static_cast<std::size_t>(A.nnz()) &&
                     A.values.size() == static_cast<std::size_t>(A.nnz()),
                 "kkperm::io::write_binary_csr: inconsistent HostCsr ("
                     << A.num_rows << " x " << A.num_cols << ", row_map " << A.row_map.size()
                     << ", entries " << A.entries.size() << ", values " << A.values.size() << ")");
  errno = 0;
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (!f)
    throw std::runtime_error("kkperm::io::write_binary_csr: cannot open '" + path +
                             "' for writing: " + std::strerror(errno));
  unsigned char head[kHeaderBytes] = {};
  std::memcpy(head, kMagic, 8);
  std::memcpy(head + 8, &kVersion, 4);
  head[12] = kF64;
  head[13] = kI32;
  head[14] = kI64;
  const std::int64_t dims[3] = {A.num_rows, A.num_cols, A.nnz()};
  std::memcpy(head + 16, dims, sizeof dims);
  bool ok = std::fwrite(head, 1, kHeaderBytes, f.get()) == kHeaderBytes;
  auto put = [&](const void* p, std::size_t bytes) {
    ok = ok && (bytes == 0 || std::fwrite(p, 1, bytes, f.get()) == bytes);
  };
  put(A.row_map.data(), A.row_map.size() * sizeof(std::int64_t));
  put(A.entries.data(), A.entries.size() * sizeof(int));
  put(A.values.data(), A.values.size() * sizeof(double));
  const bool closed = std::fclose(f.release()) == 0;
  if (!ok || !closed)
    throw std::runtime_error("kkperm::io::write_binary_csr: write to '" + path + "' failed");
}

HostCsr<double, int, std::int64_t> read_binary_csr(const std::string& path) {
  if (!host_is_little_endian()) fail(path, "big-endian hosts are not supported");
  errno = 0;
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::vector<unsigned char> data;
  {
    unsigned char buf[1 << 16];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f.get())) > 0)
      data.insert(data.end(), buf, buf + got);
    if (std::ferror(f.get())) fail(path, "read error");
  }
  if (data.size() < 8 || std::memcmp(data.data(), kMagic, 8) != 0)
    fail(path, "bad magic: not a kkperm binary CSR file (expected \"KKPCSR\\r\\n\")");
  if (data.size() < kHeaderBytes)
    fail(path, "truncated header: " + std::to_string(data.size()) + " bytes, need " +
                   std::to_string(kHeaderBytes));
  const auto version = load<std::uint32_t>(data.data() + 8);
  if (version != kVersion)
    fail(path, "unsupported version " + std::to_string(version) + " (this reader knows " +
                   std::to_string(kVersion) + ")");
  const unsigned vcode = data[12], ocode = data[13], fcode = data[14];
  if (vcode != kF64) fail(path, "unknown value type code " + std::to_string(vcode));
  if (ocode != kI32 && ocode != kI64)
    fail(path, "unknown ordinal type code " + std::to_string(ocode));
  if (fcode != kI32 && fcode != kI64)
    fail(path, "unknown offset type code " + std::to_string(fcode));
  const auto rows = load<std::int64_t>(data.data() + 16);
  const auto cols = load<std::int64_t>(data.data() + 24);
  const auto nnz = load<std::int64_t>(data.data() + 32);
  if (rows < 0 || cols < 0 || nnz < 0)
    fail(path, "negative size in header (" + std::to_string(rows) + " x " + std::to_string(cols) +
                   ", nnz " + std::to_string(nnz) + ")");
  if (rows > INT_MAX || cols > INT_MAX)
    fail(path, "matrix " + std::to_string(rows) + " x " + std::to_string(cols) +
                   " overflows 32-bit ordinals");
  const std::size_t osz = ocode == kI32 ? 4 : 8, fsz = fcode == kI32 ? 4 : 8;
  // Sizes below are bounded: rows <= INT_MAX; nnz checked against the file size before use.
  const auto avail = static_cast<std::uint64_t>(data.size() - kHeaderBytes);
  const std::uint64_t rm_bytes = (static_cast<std::uint64_t>(rows) + 1) * fsz;
  if (static_cast<std::uint64_t>(nnz) > avail / (osz + 8) + 1 || rm_bytes > avail)
    fail(path, "truncated file: header declares " + std::to_string(rows) + " rows and nnz " +
                   std::to_string(nnz) + " but only " + std::to_string(avail) +
                   " bytes of data follow");
  const std::uint64_t want = rm_bytes + static_cast<std::uint64_t>(nnz) * (osz + 8);
  if (want != avail)
    fail(path, std::string(want > avail ? "truncated file" : "size mismatch") +
                   ": header implies " + std::to_string(want + kHeaderBytes) + " bytes, file has " +
                   std::to_string(data.size()));

  HostCsr<double, int, std::int64_t> A;
  A.num_rows = static_cast<int>(rows);
  A.num_cols = static_cast<int>(cols);
  A.row_map.resize(static_cast<std::size_t>(rows) + 1);
  A.entries.resize(static_cast<std::size_t>(nnz));
  A.values.resize(static_cast<std::size_t>(nnz));
  const unsigned char* p = data.data() + kHeaderBytes;
  for (std::size_t i = 0; i < A.row_map.size(); ++i, p += fsz)
    A.row_map[i] = fsz == 4 ? load<std::int32_t>(p) : load<std::int64_t>(p);
  for (std::size_t k = 0; k < A.entries.size(); ++k, p += osz) {
    const std::int64_t c = osz == 4 ? load<std::int32_t>(p) : load<std::int64_t>(p);
    if (c < 0 || c >= cols)
      fail(path, "entry " + std::to_string(k) + " has column " + std::to_string(c) +
                     " outside [0, " + std::to_string(cols) + ")");
    A.entries[k] = static_cast<int>(c);
  }
  if (nnz > 0) std::memcpy(A.values.data(), p, static_cast<std::size_t>(nnz) * 8);
  if (A.row_map[0] != 0)
    fail(path, "row_map(0) is " + std::to_string(A.row_map[0]) + ", expected 0");
  for (std::int64_t i = 0; i < rows; ++i)
    if (A.row_map[i + 1] < A.row_map[i])
      fail(path, "row_map is not monotone at row " + std::to_string(i));
  if (A.row_map.back() != nnz)
    fail(path, "row_map(n) is " + std::to_string(A.row_map.back()) + " but nnz is " +
                   std::to_string(nnz));
  return A;
}

}  // namespace kkperm::io
