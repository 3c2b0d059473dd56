// What a bot's command line needs beyond the SDK: "--name=value" flags and where the token comes from.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace arena::cli {

// The environment variables the token may come from, in order.
inline constexpr const char* kTokenVariables[] = {"ARENA_TOKEN", "ARENA_BOT_TOKEN"};

// "--name=value" as {"--name", "value"}; anything else (including "-x=y") as {arg, nullopt}. A value
// may start with '-', as a token may.
std::pair<std::string, std::optional<std::string>> SplitFlag(const std::string& arg);

// A token that cannot be had; what() is the one line to print.
class TokenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The token: `given` (--token), else the contents of the file at `path` (--token-file), whitespace
// stripped, else the first non-empty variable of kTokenVariables read with `getenv` (nullptr: unset).
// An empty `given` or `path` counts as not given. Throws TokenError for a missing or empty file, or
// when there is no token anywhere.
std::string TokenFrom(const std::string& given, const std::string& path,
                      const std::function<const char*(const char*)>& getenv);

}  // namespace arena::cli
