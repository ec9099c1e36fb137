#include "kkperm/io/matrix_market.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include "kkperm/core/crs_sort.hpp"

namespace kkperm::io {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

namespace {

[[noreturn]] void fail_file(const std::string& path, const std::string& msg) {
  throw ParseError("kkperm::io: " + path + ": " + msg);
}

[[noreturn]] void fail_line(const std::string& path, std::int64_t line, const std::string& msg) {
  throw ParseError("kkperm::io: " + path + ":" + std::to_string(line) + ": " + msg);
}

/// Reads the whole (possibly gzip-compressed) file. gzread reads plain files transparently.
std::string slurp(const std::string& path) {
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f)
    fail_file(path, std::string("cannot open: ") + (errno ? std::strerror(errno) : "zlib error"));
  gzbuffer(f, 1 << 17);
  std::string text;
  constexpr unsigned chunk = 1u << 20;
  for (;;) {
    const std::size_t old = text.size();
    text.resize(old + chunk);
    const int got = gzread(f, &text[old], chunk);
    if (got < 0) {
      int err = Z_OK;
      const std::string msg = gzerror(f, &err);
      gzclose(f);
      fail_file(path,
                (err == Z_ERRNO ? "read error (" : "truncated or corrupt gzip stream (zlib: ") +
                    msg + ")");
    }
    text.resize(old + static_cast<std::size_t>(got));
    if (got == 0) break;
  }
  int err = Z_OK;
  const std::string msg = gzerror(f, &err);
  // zlib reports a stream that ends early as Z_BUF_ERROR ("unexpected end of file") from
  // gzerror/gzclose rather than from gzread, which returns the data it could decompress.
  if (err != Z_OK && err != Z_STREAM_END) {
    gzclose(f);
    fail_file(path, "truncated or corrupt gzip stream (zlib: " + msg + ")");
  }
  const int rc = gzclose(f);
  if (rc != Z_OK)
    fail_file(path, "truncated or corrupt gzip stream (gzclose returned " + std::to_string(rc) +
                        (rc == Z_BUF_ERROR ? ": unexpected end of file)" : ")"));
  return text;
}

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Line-oriented cursor over the buffer with a hand-written tokenizer.
class Lexer {
 public:
  Lexer(const std::string& path, const std::string& text)
      : path_(path), p_(text.data()), end_(text.data() + text.size()) {}

  /// Advances to the next line; false at end of input.
  bool next_line() {
    if (p_ >= end_) return false;
    ++line_;
    ls_ = p_;
    const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
    le_ = nl ? static_cast<const char*>(nl) : end_;
    p_ = nl ? le_ + 1 : end_;
    cur_ = ls_;
    return true;
  }
  std::int64_t line() const { return line_; }
  /// True for lines that hold only whitespace.
  bool blank() const {
    for (const char* c = ls_; c < le_; ++c)
      if (!is_space(*c)) return false;
    return true;
  }
  /// True for a `%` comment line (possibly indented).
  bool comment() const {
    const char* c = ls_;
    while (c < le_ && is_space(*c)) ++c;
    return c < le_ && *c == '%';
  }
  std::string text(std::size_t max = 80) const {
    const char* e = le_;
    while (e > ls_ && is_space(e[-1])) --e;
    std::string s(ls_, e);
    if (s.size() > max) s = s.substr(0, max) + "...";
    return s;
  }
  /// Next whitespace-delimited token of the current line; empty when the line is exhausted.
  std::pair<const char*, const char*> token() {
    while (cur_ < le_ && is_space(*cur_)) ++cur_;
    const char* b = cur_;
    while (cur_ < le_ && !is_space(*cur_)) ++cur_;
    return {b, cur_};
  }
  bool at_line_end() {
    while (cur_ < le_ && is_space(*cur_)) ++cur_;
    return cur_ >= le_;
  }
  [[noreturn]] void fail(const std::string& msg) const { fail_line(path_, line_, msg); }

 private:
  const std::string& path_;
  const char* p_;
  const char* end_;
  const char* ls_ = nullptr;
  const char* le_ = nullptr;
  const char* cur_ = nullptr;
  std::int64_t line_ = 0;
};

using Tok = std::pair<const char*, const char*>;

std::string tok_str(Tok t) { return std::string(t.first, t.second); }

bool parse_i64(Tok t, std::int64_t& out, bool& overflow) {
  const char* b = t.first;
  if (b < t.second && *b == '+') ++b;
  const auto r = std::from_chars(b, t.second, out);
  overflow = r.ec == std::errc::result_out_of_range;
  return r.ec == std::errc() && r.ptr == t.second && b < t.second;
}

bool parse_f64(Tok t, double& out) {
  const char* b = t.first;
  if (b < t.second && *b == '+') {
    ++b;
    if (b < t.second && (*b == '+' || *b == '-')) return false;  // "+-1", "++1"
  }
  if (b == t.second) return false;
#if !defined(__cpp_lib_to_chars)
  // Host compilers without floating-point from_chars (GCC < 11, e.g. an old nvcc host g++).
  const std::string s(b, t.second);
  char* endp = nullptr;
  out = std::strtod(s.c_str(), &endp);
  return s[0] != ' ' && endp == s.c_str() + s.size();
#else
  const auto r = std::from_chars(b, t.second, out, std::chars_format::general);
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars reports overflow/underflow without a value; strtod gives +-inf / denormal/0,
    // matching what other readers produce for e.g. 1e-400.
    const std::string s(t.first, t.second);
    char* endp = nullptr;
    out = std::strtod(s.c_str(), &endp);
    return endp == s.c_str() + s.size();
  }
  return r.ec == std::errc() && r.ptr == t.second;
#endif
}

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew, hermitian };

struct Header {
  Format format = Format::coordinate;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
};

Header parse_banner(Lexer& lx, const std::string& path) {
  // First non-blank line must be the banner.
  for (;;) {
    if (!lx.next_line())
      fail_line(path, std::max<std::int64_t>(lx.line(), 1),
                "empty file: missing '%%MatrixMarket' banner");
    if (!lx.blank()) break;
  }
  const Tok first = lx.token();
  const std::string word = tok_str(first);
  if (word.rfind("%%MatrixMarket", 0) != 0)
    lx.fail("missing banner: expected '%%MatrixMarket matrix <format> <field> <symmetry>', got '" +
            lx.text() + "'");
  if (word != "%%MatrixMarket")
    lx.fail("garbled banner '" + lx.text() + "': expected '%%MatrixMarket' followed by a space");
  std::string w[4];
  for (auto& s : w) {
    const Tok t = lx.token();
    if (t.first == t.second)
      lx.fail("garbled banner '" + lx.text() +
              "': expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
    s = lower(tok_str(t));
  }
  if (!lx.at_line_end())
    lx.fail("garbled banner '" + lx.text() + "': unexpected text after the symmetry");
  Header h;
  if (w[0] != "matrix") lx.fail("unknown object '" + w[0] + "' in banner (expected 'matrix')");
  if (w[1] == "coordinate")
    h.format = Format::coordinate;
  else if (w[1] == "array")
    h.format = Format::array;
  else
    lx.fail("unknown format '" + w[1] + "' in banner (expected 'coordinate' or 'array')");
  if (w[2] == "real")
    h.field = Field::real;
  else if (w[2] == "integer")
    h.field = Field::integer;
  else if (w[2] == "pattern")
    h.field = Field::pattern;
  else if (w[2] == "complex")
    lx.fail("complex matrices are not supported (field 'complex')");
  else
    lx.fail("unknown field '" + w[2] +
            "' in banner (expected 'real', 'integer', 'pattern' or "
            "'complex')");
  if (w[3] == "general")
    h.symmetry = Symmetry::general;
  else if (w[3] == "symmetric")
    h.symmetry = Symmetry::symmetric;
  else if (w[3] == "skew-symmetric")
    h.symmetry = Symmetry::skew;
  else if (w[3] == "hermitian")
    h.symmetry = Symmetry::hermitian;
  else
    lx.fail("unknown symmetry '" + w[3] +
            "' in banner (expected 'general', 'symmetric', "
            "'skew-symmetric' or 'hermitian')");
  if (h.format == Format::array && h.field == Field::pattern)
    lx.fail("invalid banner: 'array' format cannot have field 'pattern'");
  if (h.field == Field::pattern && h.symmetry == Symmetry::skew)
    lx.fail("invalid banner: 'pattern' field cannot be 'skew-symmetric' (no values to negate)");
  return h;
}

struct Triplets {
  std::vector<int> row, col;
  std::vector<double> val;
  void reserve(std::size_t n) {
    row.reserve(n);
    col.reserve(n);
    val.reserve(n);
  }
  void push(int i, int j, double v) {
    row.push_back(i);
    col.push_back(j);
    val.push_back(v);
  }
};

/// Parses an index token in [1, dim]; returns it 0-based.
int parse_index(Lexer& lx, Tok t, std::int64_t dim, const char* what, const char* expect) {
  if (t.first == t.second)
    lx.fail(std::string("missing ") + what + " index (expected '" + expect + "')");
  std::int64_t v = 0;
  bool overflow = false;
  if (!parse_i64(t, v, overflow)) {
    if (overflow)
      lx.fail(std::string(what) + " index '" + tok_str(t) + "' out of range [1, " +
              std::to_string(dim) + "]");
    lx.fail(std::string("non-numeric ") + what + " index '" + tok_str(t) + "'");
  }
  if (v == 0) lx.fail(std::string(what) + " index 0: Matrix Market indices are 1-based");
  if (v < 1 || v > dim)
    lx.fail(std::string(what) + " index " + std::to_string(v) + " out of range [1, " +
            std::to_string(dim) + "]");
  return static_cast<int>(v - 1);
}

double parse_value(Lexer& lx, Field field, const char* expect) {
  const Tok t = lx.token();
  if (t.first == t.second) lx.fail(std::string("missing value (expected '") + expect + "')");
  if (field == Field::integer) {
    std::int64_t v = 0;
    bool overflow = false;
    if (parse_i64(t, v, overflow)) return static_cast<double>(v);
    double d = 0;
    // Integers beyond 64 bits (e.g. a uint64 maximum) are still integers: rounded to double.
    if (overflow && parse_f64(t, d)) return d;
    if (parse_f64(t, d)) lx.fail("non-integer value '" + tok_str(t) + "' in an 'integer' matrix");
    lx.fail("non-numeric value '" + tok_str(t) + "'");
  }
  double d = 0;
  if (!parse_f64(t, d)) lx.fail("non-numeric value '" + tok_str(t) + "'");
  return d;
}

void require_line_end(Lexer& lx, const char* expect) {
  if (!lx.at_line_end())
    lx.fail("trailing garbage '" + tok_str(lx.token()) + "' on line '" + lx.text() +
            "' (expected '" + expect + "')");
}

/// Skips blank and comment lines; false at end of input.
bool next_data_line(Lexer& lx) {
  while (lx.next_line())
    if (!lx.blank() && !lx.comment()) return true;
  return false;
}

}  // namespace

HostMatrix read_matrix_market(const std::string& path) {
  const std::string text = slurp(path);
  Lexer lx(path, text);
  const Header h = parse_banner(lx, path);
  const bool coord = h.format == Format::coordinate;
  const char* size_expect = coord ? "rows cols nnz" : "rows cols";

  // ---- size line ----
  if (!next_data_line(lx))
    fail_line(path, lx.line() + 1,
              std::string("unexpected end of file: missing size line '") + size_expect + "'");
  std::int64_t dims[3] = {0, 0, 0};
  const int n_dims = coord ? 3 : 2;
  for (int d = 0; d < n_dims; ++d) {
    const Tok t = lx.token();
    bool overflow = false;
    if (t.first == t.second || !parse_i64(t, dims[d], overflow))
      lx.fail("bad size line '" + lx.text() + "': expected '" + size_expect + "'" +
              (overflow ? " (number overflows 64 bits)" : ""));
  }
  if (!lx.at_line_end())
    lx.fail("bad size line '" + lx.text() + "': expected '" + size_expect + "'");
  const std::int64_t rows = dims[0], cols = dims[1];
  if (rows < 0 || cols < 0 || dims[2] < 0)
    lx.fail("bad size line '" + lx.text() + "': negative size");
  if (rows > INT_MAX || cols > INT_MAX)
    lx.fail("matrix " + std::to_string(rows) + " x " + std::to_string(cols) +
            " overflows 32-bit ordinals (max " + std::to_string(INT_MAX) + ")");
  if (h.symmetry != Symmetry::general && rows != cols)
    lx.fail("a non-general (symmetric/skew-symmetric/hermitian) matrix must be square, got " +
            std::to_string(rows) + " x " + std::to_string(cols));
  std::int64_t expected = 0;  // number of stored entries the file must hold
  if (coord) {
    expected = dims[2];
    if ((rows == 0 || cols == 0) && expected != 0)
      lx.fail("a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix cannot have " +
              std::to_string(expected) + " entries");
    // Expansion at most doubles the count; keep it representable in int64 offsets.
    if (expected > INT64_MAX / 2) lx.fail("nnz " + std::to_string(expected) + " is too large");
  } else if (h.symmetry == Symmetry::general) {
    expected = rows * cols;  // < 2^62: both are <= INT_MAX
  } else if (h.symmetry == Symmetry::skew) {
    expected = rows * (rows - 1) / 2;
  } else {
    expected = rows * (rows + 1) / 2;
  }
  const std::int64_t size_line = lx.line();

  // Reserve no more than the text could possibly hold, so a lying header cannot exhaust memory.
  const std::size_t min_bytes_per_entry = coord ? 4 : 2;
  const bool mirrors = h.symmetry != Symmetry::general;
  std::size_t reserve = std::min<std::size_t>(static_cast<std::size_t>(expected),
                                              text.size() / min_bytes_per_entry + 1);
  Triplets t;
  t.reserve(mirrors ? 2 * reserve : reserve);

  const char* entry_expect = !coord                      ? "value"
                             : h.field == Field::pattern ? "row col"
                                                         : "row col value";
  std::int64_t count = 0;
  std::int64_t first_upper_line = 0, first_lower_line = 0;
  std::int64_t ai = 0, aj = 0;  // array position (0-based row, col), column-major
  if (!coord && h.symmetry == Symmetry::skew) ai = 1;
  while (next_data_line(lx)) {
    if (count == expected)
      lx.fail("too many entries: the size line (line " + std::to_string(size_line) + ") declares " +
              std::to_string(expected) + (coord ? " entries" : " array elements") +
              ", found another: '" + lx.text() + "'");
    int i = 0, j = 0;
    double v = 1.0;
    if (coord) {
      i = parse_index(lx, lx.token(), rows, "row", entry_expect);
      j = parse_index(lx, lx.token(), cols, "column", entry_expect);
      if (h.field != Field::pattern) v = parse_value(lx, h.field, entry_expect);
      require_line_end(lx, entry_expect);
      if (mirrors) {
        if (i < j && !first_upper_line) first_upper_line = lx.line();
        if (i > j && !first_lower_line) first_lower_line = lx.line();
        if (first_upper_line && first_lower_line)
          lx.fail("symmetric file stores entries in both triangles (upper on line " +
                  std::to_string(first_upper_line) + ", lower on line " +
                  std::to_string(first_lower_line) + "); only one triangle may be stored");
        if (i == j && h.symmetry == Symmetry::skew)
          lx.fail("skew-symmetric matrix has a diagonal entry (" + std::to_string(i + 1) + ", " +
                  std::to_string(j + 1) + "); its diagonal must not be stored");
      }
    } else {
      v = parse_value(lx, h.field, entry_expect);
      require_line_end(lx, entry_expect);
      i = static_cast<int>(ai);
      j = static_cast<int>(aj);
      // Next position: down the column; symmetric kinds store only the lower triangle.
      if (++ai >= rows) {
        ++aj;
        ai = h.symmetry == Symmetry::general ? 0 : h.symmetry == Symmetry::skew ? aj + 1 : aj;
      }
    }
    t.push(i, j, v);
    ++count;
  }
  if (count < expected)
    fail_line(path, lx.line(),
              "too few entries: the size line (line " + std::to_string(size_line) + ") declares " +
                  std::to_string(expected) + (coord ? " entries" : " array elements") +
                  ", the file ends after " + std::to_string(count));

  // ---- symmetric expansion: mirror off-diagonal entries (negated for skew) ----
  if (mirrors) {
    const std::size_t stored = t.row.size();
    const double sign = h.symmetry == Symmetry::skew ? -1.0 : 1.0;
    for (std::size_t k = 0; k < stored; ++k)
      if (t.row[k] != t.col[k]) t.push(t.col[k], t.row[k], sign * t.val[k]);
  }

  // ---- triplets -> CSR by a stable counting sort on rows, then sort + merge every row ----
  HostMatrix A;
  A.num_rows = static_cast<int>(rows);
  A.num_cols = static_cast<int>(cols);
  const std::size_t nnz = t.row.size();
  A.row_map.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t k = 0; k < nnz; ++k) ++A.row_map[static_cast<std::size_t>(t.row[k]) + 1];
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) A.row_map[r + 1] += A.row_map[r];
  A.entries.resize(nnz);
  A.values.resize(nnz);
  {
    std::vector<std::int64_t> next(A.row_map.begin(), A.row_map.end() - 1);
    for (std::size_t k = 0; k < nnz; ++k) {
      const auto o = static_cast<std::size_t>(next[static_cast<std::size_t>(t.row[k])]++);
      A.entries[o] = t.col[k];
      A.values[o] = t.val[k];
    }
  }
  t = Triplets();
  return sort_and_merge_crs_serial(std::move(A), /*sum_duplicates=*/h.field != Field::pattern);
}

// ------------------------------------------------------------------------------------------------
void write_matrix_market(const std::string& path, const HostMatrix& A) {
  detail::require_host_csr(A, "kkperm::io::write_matrix_market");
  const bool gz = ends_with(path, ".gz");
  gzFile gzf = nullptr;
  std::FILE* f = nullptr;
  errno = 0;
  if (gz)
    gzf = gzopen(path.c_str(), "wb6");
  else
    f = std::fopen(path.c_str(), "wb");
  if (!gzf && !f)
    throw std::runtime_error("kkperm::io::write_matrix_market: cannot open '" + path +
                             "' for writing: " + (errno ? std::strerror(errno) : "zlib error"));
  std::string buf;
  buf.reserve(1 << 20);
  bool ok = true;
  auto flush = [&]() {
    if (buf.empty()) return;
    if (gz)
      ok = ok && gzwrite(gzf, buf.data(), static_cast<unsigned>(buf.size())) ==
                     static_cast<int>(buf.size());
    else
      ok = ok && std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
    buf.clear();
  };
  std::ostringstream head;
  head << "%%MatrixMarket matrix coordinate real general\n% written by kkperm::io\n"
       << A.num_rows << ' ' << A.num_cols << ' ' << A.nnz() << '\n';
  buf += head.str();
  char line[96];
  for (int i = 0; i < A.num_rows; ++i)
    for (std::int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int len = std::snprintf(line, sizeof line, "%d %d %.17g\n", i + 1,
                                    A.entries[static_cast<std::size_t>(k)] + 1,
                                    A.values[static_cast<std::size_t>(k)]);
      buf.append(line, static_cast<std::size_t>(len));
      if (buf.size() > (1u << 20) - 128) flush();
    }
  flush();
  const bool closed = gz ? gzclose(gzf) == Z_OK : std::fclose(f) == 0;
  if (!ok || !closed)
    throw std::runtime_error("kkperm::io::write_matrix_market: write to '" + path + "' failed");
}

}  // namespace kkperm::io
