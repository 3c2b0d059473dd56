// Starter bots for 5211 and the card helpers they use. Each bot is a Strategy for arena::Client.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arena/bot.h"

namespace arena {
namespace g5211 {

// The five colours in notation order; a card's colour index is its letter's position here.
inline constexpr std::string_view kColours = "BGOVY";

// A card in notation: a colour letter and a value 1-6 ("G3"; value 1 is the Kododo).
struct Card {
  int colour = 0;  // index into kColours
  int value = 0;

  // The card "G3" is {1, 3}; nothing if the text is not a card.
  static std::optional<Card> Parse(std::string_view text);
  std::string ToString() const;
};

// The cards of an action or hand in notation ("G3 Y1"); nothing if any word is not a card.
std::optional<std::vector<Card>> ParseCards(std::string_view text);

// The cards of a repeated field of card strings (a hand, a seat's laid cards); bad cards skipped.
template <typename Strings>
std::vector<Card> ToCards(const Strings& strings) {
  std::vector<Card> cards;
  for (const auto& text : strings)
    if (auto card = Card::Parse(text)) cards.push_back(*card);
  return cards;
}

}  // namespace g5211

namespace bots {

// A uniformly random legal action (any game). Thread-safe; seed 0 = a random seed.
Strategy Random(uint64_t seed = 0);

// 5211: lays the cards that best fit the colour likely to win this round without reaching the
// limit, preferring high values, and spends little else. Any game: the first legal action.
Strategy Heuristic();

// The heuristic's choice for one observation (exposed for tests).
std::string ChooseHeuristic(const v1::Game5211Observation& observation, const std::vector<std::string>& legal_actions);

// The heuristic's value of laying `action` now (higher is better; exposed for tests).
double ScoreAction(const v1::Game5211Observation& observation, const std::vector<g5211::Card>& action);

}  // namespace bots
}  // namespace arena
