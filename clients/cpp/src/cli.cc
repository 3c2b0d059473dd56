// The command line's helpers (include/arena/cli.h).
#include "arena/cli.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace arena::cli {

std::pair<std::string, std::optional<std::string>> SplitFlag(const std::string& arg) {
  auto equals = arg.find('=');
  if (arg.rfind("--", 0) != 0 || equals == std::string::npos) return {arg, std::nullopt};
  return {arg.substr(0, equals), arg.substr(equals + 1)};
}

namespace {

std::string Stripped(const std::string& text) {
  const char* space = " \t\r\n\v\f";
  auto first = text.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

}  // namespace

std::string TokenFrom(const std::string& given, const std::string& path,
                      const std::function<const char*(const char*)>& getenv) {
  if (!given.empty()) return given;
  if (!path.empty()) {
    std::ifstream file(path);
    if (!file) throw TokenError("cannot read the token file '" + path + "': " + std::strerror(errno));
    std::string token = Stripped(std::string(std::istreambuf_iterator<char>(file), {}));
    if (file.bad()) throw TokenError("cannot read the token file '" + path + "': " + std::strerror(errno));
    if (token.empty()) throw TokenError("the token file '" + path + "' is empty");
    return token;
  }
  for (const char* variable : kTokenVariables) {
    const char* value = getenv(variable);
    if (value != nullptr && *value != '\0') return value;
  }
  throw TokenError("give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token");
}

}  // namespace arena::cli
