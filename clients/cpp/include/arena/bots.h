// The starter bots: a random one for every game, a heuristic one for 5211. Each is a Strategy for
// arena::Client.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arena/bot.h"
#include "arena/games/g5211.h"

namespace arena {
namespace bots {

// A uniformly random legal action (any game). Thread-safe; seed 0 = a random seed.
Strategy Random(uint64_t seed = 0);

// 5211: lays the cards that best fit the colour likely to win this round without reaching the
// limit, preferring high values, and spends little else. Any other game (it has no heuristic for
// it): a uniformly random legal action, as Random(seed).
Strategy Heuristic(uint64_t seed = 0);

// The heuristic's choice for one observation (exposed for tests).
std::string ChooseHeuristic(const v1::Game5211Observation& observation, const std::vector<std::string>& legal_actions);

// The heuristic's value of laying `action` now (higher is better; exposed for tests).
double ScoreAction(const v1::Game5211Observation& observation, const std::vector<g5211::Card>& action);

}  // namespace bots
}  // namespace arena
