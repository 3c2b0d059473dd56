// 5211 helpers: a turn's typed 5211 observation, and cards in notation.
//
//   const auto& view = arena::g5211::Observation(turn);  // hand_cards(), laid_cards(), points()...
//   auto plays = arena::g5211::LegalPlays(turn);          // each legal play's cards
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arena/bot.h"

namespace arena {
namespace g5211 {

// The game's registry name.
inline constexpr std::string_view kGame = "5211";

// The five colours in notation order; a card's colour index is its letter's position here.
inline constexpr std::string_view kColours = "BGOVY";

// The seat's 5211 observation. Throws std::invalid_argument when the turn is of another game or
// carries no 5211 observation (never an empty message in its place).
const v1::Game5211Observation& Observation(const Turn& turn);

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

// The legal plays, each its cards (a play that does not parse is empty).
std::vector<std::vector<Card>> LegalPlays(const Turn& turn);

// The cards of a repeated field of card strings (a hand, a seat's laid cards); bad cards skipped.
template <typename Strings>
std::vector<Card> ToCards(const Strings& strings) {
  std::vector<Card> cards;
  for (const auto& text : strings)
    if (auto card = Card::Parse(text)) cards.push_back(*card);
  return cards;
}

}  // namespace g5211
}  // namespace arena
