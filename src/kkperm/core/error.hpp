#pragma once
/**
 * @brief Error macros used at every public boundary of kkperm.
 *
 * KKPERM_REQUIRE(cond, msg)  user-facing precondition; throws std::invalid_argument. `msg` is
 *                            streamed, so `"kkperm::spmv: x has " << n << " rows"` works. By
 *                            convention it starts with the public function's name.
 * KKPERM_ASSERT(cond, msg)   internal invariant; throws std::logic_error with file and line.
 * KKPERM_THROW(Type, msg)    throws `Type` (any std::exception taking a string) with a streamed
 *                            message, e.g. kkperm::io::ParseError.
 */
#include <sstream>
#include <stdexcept>
#include <string>

#define KKPERM_THROW(ExceptionType, msg)      \
  do {                                        \
    std::ostringstream kkperm_err_os_;        \
    kkperm_err_os_ << msg;                    \
    throw ExceptionType(kkperm_err_os_.str()); \
  } while (0)

#define KKPERM_REQUIRE(cond, msg)                                   \
  do {                                                              \
    if (!(cond)) KKPERM_THROW(std::invalid_argument, msg);          \
  } while (0)

#define KKPERM_ASSERT(cond, msg)                                                        \
  do {                                                                                  \
    if (!(cond))                                                                        \
      KKPERM_THROW(std::logic_error, "kkperm internal error at " << __FILE__ << ":"     \
                                         << __LINE__ << ": (" #cond ") failed: " << msg); \
  } while (0)
