// A complete bot: 5211, lay the highest cards I hold. Usage: ARENA_TOKEN=... greedy HOST:PORT
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "arena/bot.h"

int points(const std::string& action) {  // "G3 Y1" -> 4: a card is a colour letter and a value
  int sum = 0;
  for (char c : action) sum += std::isdigit(c) ? c - '0' : 0;
  return sum;
}

int main(int argc, char** argv) {
  const char* token = std::getenv("ARENA_TOKEN");  // not an argument: a command line is public
  if (argc != 2 || token == nullptr) return 2;
  arena::Options options;
  options.addresses = {argv[1]};
  options.token = token;
  arena::Client(options, [](const arena::Turn& turn) {
    // arena::g5211::Observation(turn) (arena/games/g5211.h) is my seat's view: my hand, what was laid...
    return *std::max_element(turn.legal_actions.begin(), turn.legal_actions.end(),
                             [](auto& a, auto& b) { return points(a) < points(b); });
  }).Run();
}
