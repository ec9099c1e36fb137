// Matrix Market reader/writer: every shared malformed and real file, hand-written error files,
// round trips, read_crs, and a timing check on the largest real file.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "common/test_utils.hpp"
#include "kkperm/io/matrix_market.hpp"
#include "unit/io_test_helpers.hpp"

namespace {
using kkperm::io::HostMatrix;
using kkperm::io::ParseError;
using kkperm::test::TempDir;

std::string real_dir() { return kkperm::test::matrices_dir() + "/real/"; }
std::string malformed_dir() { return kkperm::test::matrices_dir() + "/malformed/"; }

/// Runs the reader and returns the ParseError message ("" when it succeeded).
std::string error_of(const std::string& path) {
  try {
    kkperm::io::read_matrix_market(path);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

/// Asserts read_matrix_market(path) throws a ParseError naming `path:line` and containing `what`.
void expect_error(const std::string& path, std::int64_t line, const std::string& what) {
  const std::string msg = error_of(path);
  ASSERT_FALSE(msg.empty()) << path << " was accepted; expected an error containing '" << what
                            << "'";
  const std::string where =
      "kkperm::io: " + path + (line > 0 ? ":" + std::to_string(line) + ": " : ": ");
  EXPECT_EQ(msg.rfind(where, 0), 0u) << "message does not start with '" << where << "': " << msg;
  EXPECT_NE(msg.find(what), std::string::npos) << "expected '" << what << "' in: " << msg;
}

/// Structural invariants every reader output must satisfy.
void expect_valid(const HostMatrix& A) {
  ASSERT_EQ(A.row_map.size(), static_cast<std::size_t>(A.num_rows) + 1);
  ASSERT_EQ(A.row_map[0], 0);
  ASSERT_EQ(A.entries.size(), static_cast<std::size_t>(A.nnz()));
  ASSERT_EQ(A.values.size(), static_cast<std::size_t>(A.nnz()));
  for (int i = 0; i < A.num_rows; ++i) {
    ASSERT_LE(A.row_map[i], A.row_map[i + 1]);
    for (auto k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      ASSERT_GE(A.entries[k], 0);
      ASSERT_LT(A.entries[k], A.num_cols);
      if (k > A.row_map[i]) ASSERT_LT(A.entries[k - 1], A.entries[k]) << "row " << i;
    }
  }
}

/// Dense lookup of A(i, j) (0 when absent); for small test matrices.
double at(const HostMatrix& A, int i, int j) {
  for (auto k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
    if (A.entries[k] == j) return A.values[k];
  return 0.0;
}
bool has(const HostMatrix& A, int i, int j) {
  for (auto k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
    if (A.entries[k] == j) return true;
  return false;
}

// ------------------------------------------------------------------------------------------------
// ../shared/matrices/malformed: one decided outcome per file.
struct Outcome {
  bool ok;
  std::int64_t line;  // error line (errors only)
  std::string what;   // error substring (errors only)
  int rows, cols;
  std::int64_t nnz;  // after expansion (ok only)
};
Outcome accept(int r, int c, std::int64_t nnz) { return {true, 0, "", r, c, nnz}; }
Outcome reject(std::int64_t line, std::string what) {
  return {false, line, std::move(what), 0, 0, 0};
}

const std::map<std::string, Outcome>& malformed_table() {
  static const std::map<std::string, Outcome> t = {
      // array real general 3 x 0: a valid empty matrix.
      {"3by0.mtx", accept(3, 0, 0)},
      // banner and two comments, then end of file: no size line.
      {"bad_dimensions.mtx", reject(4, "unexpected end of file: missing size line")},
      // dense arrays are read into CSR, every element kept (an extra %%GraphBLAS line is a
      // comment).
      {"comments_full.mtx", accept(3, 3, 9)},
      {"full.mtx", accept(3, 3, 9)},
      {"full_symmetric.mtx", accept(4, 4, 16)},  // 10 stored (lower, with diagonal) -> 16
      {"fullrsa.mtx", accept(2, 2, 4)},          // blank and comment lines among values skipped
      {"fullrza.mtx", accept(2, 2, 2)},          // skew array: one stored value, zero diagonal
      {"complex.mtx", reject(1, "complex matrices are not supported")},
      {"fullcsa.mtx", reject(1, "complex matrices are not supported")},
      {"full_noheader.mtx", reject(1, "missing banner")},
      {"fullcrud1.mtx", reject(1, "missing banner")},
      {"west0067_noheader.mtx", reject(1, "missing banner")},
      // 2 x 2 array with 3 values then a comment line.
      {"fullcrud.mtx", reject(6,
                              "too few entries: the size line (line 2) declares 4 array elements, "
                              "the file ends after 3")},
      {"fullcrud2.mtx", reject(3, "non-numeric value 'garbled'")},
      {"mangle1.mtx", reject(1, "unknown object 'junk'")},
      {"mangle2.mtx", reject(1, "unknown format 'junk'")},
      {"mangle3.mtx", reject(1, "unknown field 'junk'")},
      {"mangle4.mtx", reject(1, "unknown symmetry 'junk'")},
      {"mangled1.mtx", reject(1, "unknown object 'mangled'")},
      {"mangled2.mtx", reject(1, "unknown format 'mangled'")},
      {"mangled3.mtx", reject(1, "unknown field 'mangled'")},
      // "array real" with two numbers per line (complex data under a real banner).
      {"mangled15.mtx", reject(5, "trailing garbage '.959'")},
      {"mangled16.mtx", reject(5, "trailing garbage '.959'")},
      {"mangled8.mtx", reject(4, "bad size line '3': expected 'rows cols nnz'")},
      {"mangled_format.mtx", reject(1, "'array' format cannot have field 'pattern'")},
      // a blank line before the banner is tolerated; the 0-based entry is not.
      {"row0.mtx", reject(12, "row index 0: Matrix Market indices are 1-based")},
  };
  return t;
}

TEST(MatrixMarketMalformed, EveryFileInTheFolderHasADecidedOutcome) {
  const auto files = kkperm::test::list_files("malformed", ".mtx");
  ASSERT_FALSE(files.empty()) << "no files in " << malformed_dir();
  std::set<std::string> listed;
  for (const auto& f : files) {
    listed.insert(f);
    EXPECT_TRUE(malformed_table().count(f))
        << "new file " << f << " has no entry in malformed_table()";
  }
  // Every other file in the folder is INDEX.tsv.
  std::ifstream idx(malformed_dir() + "INDEX.tsv");
  ASSERT_TRUE(idx.good());
  std::string line;
  std::getline(idx, line);
  std::size_t indexed = 0;
  while (std::getline(idx, line)) {
    std::istringstream ss(line);
    std::string kind, file;
    ss >> kind >> file;
    EXPECT_TRUE(listed.count(file)) << "INDEX.tsv lists " << file << " which is missing";
    ++indexed;
  }
  EXPECT_EQ(indexed, files.size());
  for (const auto& [f, o] : malformed_table())
    EXPECT_TRUE(listed.count(f)) << "table entry " << f << " has no file";
}

TEST(MatrixMarketMalformed, EachFileGetsItsDecidedOutcome) {
  for (const auto& [file, o] : malformed_table()) {
    SCOPED_TRACE(file);
    const std::string path = malformed_dir() + file;
    if (!o.ok) {
      expect_error(path, o.line, o.what);
      continue;
    }
    HostMatrix A;
    ASSERT_NO_THROW(A = kkperm::io::read_matrix_market(path)) << error_of(path);
    expect_valid(A);
    EXPECT_EQ(A.num_rows, o.rows);
    EXPECT_EQ(A.num_cols, o.cols);
    EXPECT_EQ(A.nnz(), o.nnz);
  }
}

TEST(MatrixMarketMalformed, DenseArraysAreColumnMajorWithMirroring) {
  const auto full = kkperm::io::read_matrix_market(malformed_dir() + "full.mtx");
  // Values in file order .646 .709 .754 | .276 .679 .655 | .162 .118 .498, column by column.
  const double want[3][3] = {{.646, .276, .162}, {.709, .679, .118}, {.754, .655, .498}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(at(full, i, j), want[i][j]) << i << "," << j;
  const auto rsa = kkperm::io::read_matrix_market(malformed_dir() + "fullrsa.mtx");
  EXPECT_EQ(at(rsa, 0, 0), 1.3);
  EXPECT_EQ(at(rsa, 1, 0), 3.4);
  EXPECT_EQ(at(rsa, 0, 1), 3.4);
  EXPECT_EQ(at(rsa, 1, 1), 7.7);
  const auto rza = kkperm::io::read_matrix_market(malformed_dir() + "fullrza.mtx");
  EXPECT_EQ(at(rza, 1, 0), 3.4);
  EXPECT_EQ(at(rza, 0, 1), -3.4);
  EXPECT_FALSE(has(rza, 0, 0));
  EXPECT_FALSE(has(rza, 1, 1));
  const auto sym = kkperm::io::read_matrix_market(malformed_dir() + "full_symmetric.mtx");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(at(sym, i, j), at(sym, j, i));
  EXPECT_EQ(at(sym, 0, 0), 10.762188911437988);
  EXPECT_EQ(at(sym, 1, 0), 18.18952178955078);
  EXPECT_EQ(at(sym, 1, 1), 7.084949970245361);  // 5th stored value: column 2 starts at (2,2)
}

// ------------------------------------------------------------------------------------------------
// ../shared/matrices/real: independent expectation from the header and the entries.
struct Expected {
  std::string field, symmetry;
  std::int64_t rows = 0, cols = 0, header_nnz = 0, stored = 0, nnz = 0;
  // Over the finite expanded entries (pattern: 1 per unique entry); non-finite ones counted.
  double value_sum = 0, abs_sum = 0;
  std::int64_t non_finite = 0;
};

/// Independent reference: an istringstream parse (slow, simple) of the decompressed text.
Expected reference(const std::string& path) {
  std::istringstream in(kkperm::test::gunzip(path));
  Expected e;
  std::string line, banner, object, format;
  std::getline(in, line);
  std::istringstream(line) >> banner >> object >> format >> e.field >> e.symmetry;
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
  }
  std::istringstream(line) >> e.rows >> e.cols >> e.header_nnz;
  std::vector<std::pair<std::pair<std::int64_t, std::int64_t>, double>> ent;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '%') continue;
    std::istringstream ls(line);
    std::int64_t i, j;
    double v = 1;
    ls >> i >> j;
    if (e.field != "pattern") {  // strtod: istream >> double does not read "nan"/"inf"
      std::string tok;
      ls >> tok;
      v = std::strtod(tok.c_str(), nullptr);
    }
    ++e.stored;
    ent.push_back({{i, j}, v});
    if (e.symmetry != "general" && i != j)
      ent.push_back({{j, i}, e.symmetry == "skew-symmetric" ? -v : v});
  }
  std::sort(ent.begin(), ent.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t k = 0; k < ent.size(); ++k) {
    const bool repeat = k > 0 && ent[k].first == ent[k - 1].first;
    if (!repeat) ++e.nnz;
    if (e.field == "pattern") {
      if (!repeat) e.value_sum += 1, e.abs_sum += 1;
    } else if (!std::isfinite(ent[k].second)) {
      ++e.non_finite;  // the test files have no duplicates at non-finite positions
    } else {
      e.value_sum += ent[k].second;
      e.abs_sum += std::fabs(ent[k].second);
    }
  }
  return e;
}

// Real files decided to be rejected: complex fields (by banner) and these mangled ones.
const std::map<std::string, std::pair<std::int64_t, std::string>>& rejected_real() {
  static const std::map<std::string, std::pair<std::int64_t, std::string>> t = {
      {"bad_header.mtx.gz", {1, "unknown symmetry 'bogus'"}},
      {"mangled4.mtx.gz", {1, "unknown symmetry 'mangled'"}},
      {"mangled5.mtx.gz", {5, "trailing garbage '1'"}},  // "2 2 1 1" in a pattern file
      {"mangled6.mtx.gz", {5, "trailing garbage '1'"}},  // "2 2 1 1" in a real file
      {"mangled7.mtx.gz", {5, "missing value (expected 'row col value')"}},
      {"mangled9.mtx.gz", {4, "must be square, got 3 x 4"}},
      {"mangled10.mtx.gz",
       {6,
        "too few entries: the size line (line 4) declares 3 entries, the file "
        "ends after 2"}},
      {"mangled11.mtx.gz", {5, "non-numeric column index 'zero'"}},
      {"mangled12.mtx.gz", {5, "missing value (expected 'row col value')"}},
      {"mangled13.mtx.gz", {7, "column index 9999 out of range [1, 4]"}},
      // 0-based test matrices from ParU (their first entry is "0 0 ...").
      {"a1.mtx.gz", {11, "row index 0: Matrix Market indices are 1-based"}},
      {"a2.mtx.gz", {9, "row index 0: Matrix Market indices are 1-based"}},
      {"a4.mtx.gz", {11, "row index 0: Matrix Market indices are 1-based"}},
      {"az88.mtx.gz", {11, "row index 0: Matrix Market indices are 1-based"}},
      {"r2.mtx.gz", {9, "row index 0: Matrix Market indices are 1-based"}},
      {"s32.mtx.gz", {10, "row index 0: Matrix Market indices are 1-based"}},
      // "pattern" banner but every line carries a value.
      {"Ragusa16.mtx.gz", {23, "trailing garbage '1' on line '14 2 1' (expected 'row col')"}},
      {"Tina_AskCal_perm.mtx.gz",
       {6, "trailing garbage '1' on line '1 1  1' (expected 'row col')"}},
      // "integer" banner holding -inf / inf.
      {"matrix_fp32.mtx.gz", {7, "non-integer value '-inf' in an 'integer' matrix"}},
      {"matrix_fp64.mtx.gz", {7, "non-integer value '-inf' in an 'integer' matrix"}},
  };
  return t;
}

TEST(MatrixMarketReal, EveryFileReadsWithNnzConsistentWithHeaderAndSymmetry) {
  const auto files = kkperm::test::list_files("real", ".mtx.gz");
  ASSERT_GT(files.size(), 200u);
  // INDEX.tsv: file -> rows cols nnz field symmetry ("?" / "-" when unknown).
  std::map<std::string, std::vector<std::string>> index;
  {
    std::ifstream idx(real_dir() + "INDEX.tsv");
    std::string line;
    std::getline(idx, line);
    while (std::getline(idx, line)) {
      std::vector<std::string> col;
      std::istringstream ss(line);
      std::string c;
      while (std::getline(ss, c, '\t')) col.push_back(c);
      ASSERT_GE(col.size(), 9u) << line;
      index[col[1]] = {col[4], col[5], col[6], col[7], col[8]};
    }
  }
  std::size_t read_ok = 0, complex_rejected = 0, mangled_rejected = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const std::string path = real_dir() + f;
    EXPECT_TRUE(index.count(f)) << "not in INDEX.tsv";
    std::string banner;
    std::getline(std::istringstream(kkperm::test::gunzip(path)), banner);
    if (rejected_real().count(f)) {
      expect_error(path, rejected_real().at(f).first, rejected_real().at(f).second);
      ++mangled_rejected;
      continue;
    }
    if (banner.find(" complex ") != std::string::npos) {
      expect_error(path, 1, "complex matrices are not supported");
      ++complex_rejected;
      continue;
    }
    const Expected e = reference(path);
    HostMatrix A;
    try {
      A = kkperm::io::read_matrix_market(path);
    } catch (const std::exception& ex) {
      ADD_FAILURE() << ex.what();
      continue;
    }
    expect_valid(A);
    EXPECT_EQ(e.stored, e.header_nnz) << "entry lines vs header";
    EXPECT_EQ(A.num_rows, e.rows);
    EXPECT_EQ(A.num_cols, e.cols);
    EXPECT_EQ(A.nnz(), e.nnz);
    // Sum of values: the reader sums duplicates and mirrors in another order than the reference,
    // so each may round differently; both are within nnz * eps * sum|v| of the exact sum.
    double sum = 0;
    std::int64_t non_finite = 0;
    for (double v : A.values) {
      if (std::isfinite(v))
        sum += v;
      else
        ++non_finite;
    }
    EXPECT_EQ(non_finite, e.non_finite);
    const double tol = 2.0 * static_cast<double>(e.stored * 2 + 1) *
                       std::numeric_limits<double>::epsilon() * e.abs_sum;
    EXPECT_NEAR(sum, e.value_sum, tol);
    const auto& ix = index[f];
    if (ix.size() == 5 && ix[0] != "?") {
      EXPECT_EQ(ix[0], std::to_string(e.rows));
      EXPECT_EQ(ix[1], std::to_string(e.cols));
      EXPECT_EQ(ix[2], std::to_string(e.header_nnz));
      EXPECT_EQ(ix[3], e.field);
      EXPECT_EQ(ix[4], e.symmetry);
    }
    ++read_ok;
  }
  EXPECT_EQ(mangled_rejected, rejected_real().size());
  std::cout << "[real] read " << read_ok << ", rejected complex " << complex_rejected
            << ", rejected mangled " << mangled_rejected << "\n";
}

TEST(MatrixMarketReal, AcceptedOddFilesReadAsDecided) {
  // Duplicates in a general file are summed: (2,2) = 3.4 + 7.1.
  const auto dup = kkperm::io::read_matrix_market(real_dir() + "mangled14.mtx.gz");
  EXPECT_EQ(dup.nnz(), 2);
  EXPECT_DOUBLE_EQ(at(dup, 1, 1), 3.4 + 7.1);
  // Integer values beyond the GraphBLAS type named in a comment are plain integers to us.
  const auto i32 = kkperm::io::read_matrix_market(real_dir() + "mangled_int32.mtx.gz");
  EXPECT_EQ(at(i32, 3, 0), -2147483649.0);
  const auto u32 = kkperm::io::read_matrix_market(real_dir() + "mangled_uint32.mtx.gz");
  EXPECT_EQ(at(u32, 0, 1), 4294967296.0);
  // Skew-symmetric integer: mirrored negated.
  const auto skew = kkperm::io::read_matrix_market(real_dir() + "mangled_skew.mtx.gz");
  EXPECT_EQ(skew.nnz(), 20);
  EXPECT_EQ(at(skew, 3, 0), 12.0);
  EXPECT_EQ(at(skew, 0, 3), -12.0);
  // A symmetric file storing the upper triangle is mirrored like a lower one.
  const auto up =
      kkperm::io::read_matrix_market(real_dir() + "ldbc-undirected-example-bool.mtx.gz");
  EXPECT_EQ(up.nnz(), 24);
  EXPECT_TRUE(has(up, 0, 1) && has(up, 1, 0));
  // Zero dimensions.
  for (auto [f, r, c] : {std::tuple<const char*, int, int>{"a00.mtx.gz", 0, 0},
                         {"a01.mtx.gz", 0, 1},
                         {"a10.mtx.gz", 1, 0},
                         {"empty.mtx.gz", 3, 4}}) {
    const auto z = kkperm::io::read_matrix_market(real_dir() + f);
    EXPECT_EQ(z.num_rows, r) << f;
    EXPECT_EQ(z.num_cols, c) << f;
    EXPECT_EQ(z.nnz(), 0) << f;
    expect_valid(z);
  }
}

TEST(MatrixMarketReal, LargestFileReadsFast) {
  // NotreDame_www: 2.5 MB gzip, 1.5M entries. The bound is generous because the build machine
  // is shared (~7 jobs on 2 cores); unshared it reads in ~0.3 s (see the printed time).
  const std::string path = real_dir() + "NotreDame_www.mtx.gz";
  const auto t0 = std::chrono::steady_clock::now();
  const auto A = kkperm::io::read_matrix_market(path);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[perf] read_matrix_market(NotreDame_www.mtx.gz): " << s << " s, " << A.num_rows
            << " rows, nnz " << A.nnz() << "\n";
  ::testing::Test::RecordProperty("notre_dame_read_seconds", std::to_string(s));
  EXPECT_EQ(A.num_rows, 325729);
  EXPECT_LT(s, 3.0);
}

// ------------------------------------------------------------------------------------------------
// Hand-written files, one per error class.
const std::string kBanner = "%%MatrixMarket matrix coordinate real general\n";

TEST(MatrixMarketErrors, Banner) {
  TempDir d;
  expect_error(d.write("empty.mtx", ""), 1, "empty file: missing '%%MatrixMarket' banner");
  expect_error(d.write("nob.mtx", "2 2 1\n1 1 1\n"), 1, "missing banner");
  expect_error(d.write("short.mtx", "%%MatrixMarket matrix coordinate real\n2 2 0\n"), 1,
               "garbled banner");
  expect_error(d.write("glued.mtx", "%%MatrixMarketmatrix coordinate real general\n2 2 0\n"), 1,
               "garbled banner");
  expect_error(d.write("extra.mtx", "%%MatrixMarket matrix coordinate real general junk\n2 2 0\n"),
               1, "unexpected text after the symmetry");
  expect_error(
      d.write("cplx.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n"),
      1, "complex matrices are not supported");
  expect_error(
      d.write("pskew.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n"), 1,
      "'pattern' field cannot be 'skew-symmetric'");
  // Keywords are case-insensitive; leading blank lines tolerated.
  const auto A = kkperm::io::read_matrix_market(
      d.write("case.mtx", "\n  \n%%MatrixMarket Matrix COORDINATE Real General\n1 1 1\n1 1 5\n"));
  EXPECT_EQ(at(A, 0, 0), 5.0);
  expect_error(d.path("does_not_exist.mtx"), 0, "cannot open");
}

TEST(MatrixMarketErrors, SizeLine) {
  TempDir d;
  expect_error(d.write("a.mtx", kBanner + "% c\n3 3\n"), 3,
               "bad size line '3 3': expected 'rows cols nnz'");
  expect_error(d.write("b.mtx", kBanner + "3 3 x\n"), 2, "bad size line '3 3 x'");
  expect_error(d.write("c.mtx", kBanner + "3 3 1 1\n1 1 1\n"), 2, "bad size line '3 3 1 1'");
  expect_error(d.write("d.mtx", kBanner + "-1 3 0\n"), 2, "negative size");
  expect_error(d.write("e.mtx", kBanner + "3 3 -2\n"), 2, "negative size");
  expect_error(d.write("f.mtx", kBanner + "3000000000 1 0\n"), 2, "overflows 32-bit ordinals");
  expect_error(d.write("g.mtx", kBanner + "1 2147483648 0\n"), 2, "overflows 32-bit ordinals");
  expect_error(d.write("h.mtx", kBanner + "0 3 2\n"), 2, "a 0 x 3 matrix cannot have 2 entries");
  expect_error(d.write("i.mtx", kBanner + "99999999999999999999 1 0\n"), 2, "overflows 64 bits");
  expect_error(d.write("j.mtx", kBanner + "% only comments\n\n"), 4, "missing size line");
  expect_error(d.write("k.mtx", "%%MatrixMarket matrix array real general\n2 2 4\n"), 2,
               "bad size line '2 2 4': expected 'rows cols'");
  expect_error(d.write("l.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n"), 2,
               "must be square");
  // INT_MAX itself is fine (no entries, so no memory).
  const auto big = kkperm::io::read_matrix_market(d.write("m.mtx", kBanner + "1 2147483647 0\n"));
  EXPECT_EQ(big.num_cols, 2147483647);
  const auto zero = kkperm::io::read_matrix_market(d.write("z.mtx", kBanner + "0 0 0\n"));
  EXPECT_EQ(zero.num_rows, 0);
  EXPECT_EQ(zero.row_map.size(), 1u);
}

TEST(MatrixMarketErrors, EntryCounts) {
  TempDir d;
  expect_error(d.write("few.mtx", kBanner + "2 2 3\n1 1 1\n2 2 1\n"), 4,
               "too few entries: the size line (line 2) declares 3 entries, the file ends after 2");
  expect_error(
      d.write("many.mtx", kBanner + "2 2 1\n1 1 1\n\n2 2 1\n"), 5,
      "too many entries: the size line (line 2) declares 1 entries, found another: '2 2 1'");
  expect_error(d.write("arr.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n"), 5,
               "too many entries");
  // No final newline, comments and blank lines between entries, CRLF line ends: all fine.
  const auto A = kkperm::io::read_matrix_market(
      d.write("ok.mtx",
              "%%MatrixMarket matrix coordinate real general\r\n2 2 2\r\n1 1 1.5\r\n"
              "% note\r\n\r\n2 1 -2"));
  EXPECT_EQ(A.nnz(), 2);
  EXPECT_EQ(at(A, 1, 0), -2.0);
}

TEST(MatrixMarketErrors, IndicesZeroOrOutOfRange) {
  TempDir d;
  expect_error(d.write("r0.mtx", kBanner + "2 3 1\n0 1 1\n"), 3,
               "row index 0: Matrix Market indices are 1-based");
  expect_error(d.write("c0.mtx", kBanner + "2 3 1\n1 0 1\n"), 3, "column index 0");
  expect_error(d.write("rh.mtx", kBanner + "2 3 1\n3 1 1\n"), 3, "row index 3 out of range [1, 2]");
  expect_error(d.write("ch.mtx", kBanner + "2 3 1\n1 4 1\n"), 3,
               "column index 4 out of range [1, 3]");
  expect_error(d.write("neg.mtx", kBanner + "2 3 1\n-1 1 1\n"), 3, "row index -1 out of range");
  expect_error(d.write("huge.mtx", kBanner + "2 3 1\n1 99999999999999999999 1\n"), 3,
               "column index '99999999999999999999' out of range");
  expect_error(d.write("frac.mtx", kBanner + "2 3 1\n1.5 1 1\n"), 3, "non-numeric row index '1.5'");
}

TEST(MatrixMarketErrors, NonNumericAndTrailingGarbage) {
  TempDir d;
  expect_error(d.write("v.mtx", kBanner + "2 2 1\n1 1 abc\n"), 3, "non-numeric value 'abc'");
  expect_error(d.write("v2.mtx", kBanner + "2 2 1\n1 1 1.0x\n"), 3, "non-numeric value '1.0x'");
  expect_error(d.write("v3.mtx", kBanner + "2 2 1\n1 1 +-1\n"), 3, "non-numeric value '+-1'");
  expect_error(d.write("miss.mtx", kBanner + "2 2 1\n1\n"), 3, "missing column index");
  expect_error(d.write("t.mtx", kBanner + "2 2 1\n1 1 1.0 7\n"), 3, "trailing garbage '7'");
  expect_error(
      d.write("tp.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n"), 3,
      "trailing garbage '1'");
  const std::string ib = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n";
  expect_error(d.write("i1.mtx", ib + "1 1 1.5\n"), 3,
               "non-integer value '1.5' in an 'integer' matrix");
  EXPECT_EQ(at(kkperm::io::read_matrix_market(d.write("i2.mtx", ib + "1 1 18446744073709551615\n")),
               0, 0),
            18446744073709551615.0);  // beyond int64: still an integer, rounded to double
  expect_error(d.write("i3.mtx", ib + "1 1 seven\n"), 3, "non-numeric value 'seven'");
  // Accepted number spellings.
  const auto A = kkperm::io::read_matrix_market(d.write(
      "num.mtx", kBanner + "1 6 6\n1 1 +1.5\n1 2 -.5e-3\n1 3 1E+2\n1 4 1e-400\n1 5 inf\n1 6 7\n"));
  EXPECT_EQ(at(A, 0, 0), 1.5);
  EXPECT_EQ(at(A, 0, 1), -.5e-3);
  EXPECT_EQ(at(A, 0, 2), 100.0);
  EXPECT_EQ(at(A, 0, 3), 0.0);  // underflows to 0 like strtod, but the entry is kept
  EXPECT_TRUE(has(A, 0, 3));
  EXPECT_TRUE(std::isinf(at(A, 0, 4)));
}

TEST(MatrixMarketErrors, TruncatedOrCorruptGzip) {
  TempDir d;
  const std::string src = real_dir() + "bcsstk13.mtx.gz";
  const std::string bytes = kkperm::test::read_bytes(src);
  ASSERT_GT(bytes.size(), 1000u);
  for (std::size_t cut : {bytes.size() / 2, bytes.size() - 4, std::size_t(30)}) {
    SCOPED_TRACE(cut);
    const std::string p = d.write("cut.mtx.gz", bytes.substr(0, cut), /*raw=*/true);
    expect_error(p, 0, "truncated or corrupt gzip stream");
  }
  std::string flipped = bytes;
  flipped[bytes.size() / 2] = static_cast<char>(flipped[bytes.size() / 2] ^ 0x5a);
  expect_error(d.write("flip.mtx.gz", flipped, /*raw=*/true), 0,
               "truncated or corrupt gzip stream");
}

TEST(MatrixMarketSemantics, SymmetricExpansion) {
  TempDir d;
  const auto S = kkperm::io::read_matrix_market(d.write(
      "s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n3 1 2\n2 2 5\n"));
  EXPECT_EQ(S.nnz(), 4);  // diagonal not duplicated
  EXPECT_EQ(at(S, 2, 0), 2.0);
  EXPECT_EQ(at(S, 0, 2), 2.0);
  EXPECT_EQ(at(S, 0, 0), 4.0);
  // Hermitian real data == symmetric; upper-triangle storage accepted.
  const auto H = kkperm::io::read_matrix_market(
      d.write("h.mtx", "%%MatrixMarket matrix coordinate real hermitian\n3 3 2\n1 3 2\n2 3 -1\n"));
  EXPECT_EQ(H.nnz(), 4);
  EXPECT_EQ(at(H, 2, 0), 2.0);
  EXPECT_EQ(at(H, 2, 1), -1.0);
  expect_error(
      d.write("both.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 1\n"),
      4, "both triangles (upper on line 4, lower on line 3)");
  // Skew: negated mirror, no diagonal allowed.
  const auto K = kkperm::io::read_matrix_market(d.write(
      "k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -4\n"));
  EXPECT_EQ(K.nnz(), 4);
  EXPECT_EQ(at(K, 1, 0), 1.5);
  EXPECT_EQ(at(K, 0, 1), -1.5);
  EXPECT_EQ(at(K, 1, 2), 4.0);
  expect_error(
      d.write("kd.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 0\n"), 3,
      "skew-symmetric matrix has a diagonal entry (1, 1)");
}

TEST(MatrixMarketSemantics, DuplicatesSummedPatternIsOne) {
  TempDir d;
  const auto A = kkperm::io::read_matrix_market(
      d.write("dup.mtx", kBanner + "2 3 5\n2 3 1\n1 2 0.25\n2 1 7\n1 2 0.5\n2 3 -1\n"));
  EXPECT_EQ(A.nnz(), 3);
  EXPECT_EQ(A.row_map, (std::vector<std::int64_t>{0, 1, 3}));
  EXPECT_EQ(A.entries, (std::vector<int>{1, 0, 2}));           // columns sorted
  EXPECT_EQ(A.values, (std::vector<double>{0.75, 7.0, 0.0}));  // cancelling duplicates stay
  const auto P = kkperm::io::read_matrix_market(d.write(
      "p.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n2 1\n3 3\n2 1\n3 2\n"));
  EXPECT_EQ(P.nnz(), 5);
  for (double v : P.values) EXPECT_EQ(v, 1.0);
  // Duplicate off-diagonal in a symmetric file sums on both sides.
  const auto S = kkperm::io::read_matrix_market(d.write(
      "sd.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 3\n2 1 4\n"));
  EXPECT_EQ(at(S, 1, 0), 7.0);
  EXPECT_EQ(at(S, 0, 1), 7.0);
}

TEST(MatrixMarketSemantics, ArrayFormat) {
  TempDir d;
  const auto A = kkperm::io::read_matrix_market(
      d.write("a.mtx", "%%MatrixMarket matrix array integer general\n2 3\n1\n0\n3\n4\n0\n6\n"));
  EXPECT_EQ(A.nnz(), 6);  // zeros kept
  EXPECT_EQ(at(A, 0, 0), 1.0);
  EXPECT_EQ(at(A, 1, 0), 0.0);
  EXPECT_TRUE(has(A, 1, 0));
  EXPECT_EQ(at(A, 0, 1), 3.0);
  EXPECT_EQ(at(A, 1, 2), 6.0);
  const auto K = kkperm::io::read_matrix_market(
      d.write("k.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"));
  EXPECT_EQ(K.nnz(), 6);
  EXPECT_EQ(at(K, 1, 0), 1.0);
  EXPECT_EQ(at(K, 2, 0), 2.0);
  EXPECT_EQ(at(K, 2, 1), 3.0);
  EXPECT_EQ(at(K, 1, 2), -3.0);
  expect_error(d.write("few.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n"), 5,
               "declares 6 array elements, the file ends after 3");
  expect_error(d.write("two.mtx", "%%MatrixMarket matrix array real general\n1 2\n1 2\n"), 3,
               "trailing garbage '2'");
}

// ------------------------------------------------------------------------------------------------
HostMatrix awkward() {
  HostMatrix h;
  h.num_rows = 4;
  h.num_cols = 5;
  h.row_map = {0, 3, 3, 4, 6};
  h.entries = {0, 2, 4, 1, 0, 4};
  h.values = {1.0 / 3.0,          -1e-300, 6.02214076e23, -0.0, std::nextafter(1.0, 2.0),
              123456789.123456789};
  return h;
}

void expect_same(const HostMatrix& a, const HostMatrix& b) {
  EXPECT_EQ(a.num_rows, b.num_rows);
  EXPECT_EQ(a.num_cols, b.num_cols);
  EXPECT_EQ(a.row_map, b.row_map);
  EXPECT_EQ(a.entries, b.entries);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t k = 0; k < a.values.size(); ++k)  // bitwise: %.17g round-trips doubles
    EXPECT_EQ(std::signbit(a.values[k]), std::signbit(b.values[k])) << k;
  EXPECT_EQ(a.values, b.values);
}

TEST(MatrixMarketWrite, RoundTripMtxAndGzExactly) {
  TempDir d;
  const auto h = awkward();
  for (const char* name : {"rt.mtx", "rt.mtx.gz"}) {
    SCOPED_TRACE(name);
    kkperm::io::write_matrix_market(d.path(name), h);
    expect_same(kkperm::io::read_matrix_market(d.path(name)), h);
  }
  EXPECT_EQ(kkperm::test::read_bytes(d.path("rt.mtx.gz")).substr(0, 2), std::string("\x1f\x8b"));
  // A real symmetric matrix: expanded, written as general, read back identical.
  const auto bus = kkperm::io::read_matrix_market(real_dir() + "1138_bus.mtx.gz");
  kkperm::io::write_matrix_market(d.path("bus.mtx.gz"), bus);
  expect_same(kkperm::io::read_matrix_market(d.path("bus.mtx.gz")), bus);
  // Empty matrices.
  HostMatrix z;
  z.num_rows = 0;
  z.num_cols = 7;
  kkperm::io::write_matrix_market(d.path("z.mtx"), z);
  expect_same(kkperm::io::read_matrix_market(d.path("z.mtx")), z);
}

TEST(MatrixMarketWrite, RejectsBadInputAndUnwritablePath) {
  TempDir d;
  auto h = awkward();
  h.entries[1] = 5;  // column out of range
  EXPECT_THROW(kkperm::io::write_matrix_market(d.path("x.mtx"), h), std::invalid_argument);
  EXPECT_THROW(kkperm::io::write_matrix_market(d.path("no/such/dir/x.mtx"), awkward()),
               std::runtime_error);
}

TEST(MatrixMarketReadCrs, DefaultCrsEqualsHost) {
  for (const char* f :
       {"1138_bus.mtx.gz", "lp_afiro.mtx.gz", "mangled_skew.mtx.gz", "a01.mtx.gz"}) {
    SCOPED_TRACE(f);
    const auto h = kkperm::io::read_matrix_market(real_dir() + f);
    const auto A = kkperm::io::read_crs<kkperm::DefaultCrs>(real_dir() + f);
    EXPECT_TRUE(kkperm::check_crs(A).ok()) << kkperm::check_crs(A).problem;
    const auto back = kkperm::to_host(A);
    EXPECT_EQ(back.num_rows, h.num_rows);
    EXPECT_EQ(back.num_cols, h.num_cols);
    EXPECT_EQ(std::vector<std::int64_t>(back.row_map.begin(), back.row_map.end()), h.row_map);
    EXPECT_EQ(back.entries, h.entries);
    EXPECT_EQ(back.values, h.values);
  }
  // Other value/offset types and the binary path.
  using F32 = kkperm::Crs<float, int, kkperm::DefaultDevice, std::int64_t>;
  const auto B = kkperm::io::read_crs<F32>(real_dir() + "bcsstk01.mtx.gz");
  EXPECT_EQ(B.nnz(), 400);
  TempDir d;
  const auto h = kkperm::io::read_matrix_market(real_dir() + "west0497.mtx.gz");
  kkperm::io::write_binary_csr(d.path("w.kkcsr"), h);
  const auto W = kkperm::io::read_crs<kkperm::DefaultCrs>(d.path("w.kkcsr"));
  EXPECT_EQ(kkperm::to_host(W).values, h.values);
  EXPECT_THROW(kkperm::io::read_crs<kkperm::DefaultCrs>(malformed_dir() + "mangle1.mtx"),
               ParseError);
}

}  // namespace
