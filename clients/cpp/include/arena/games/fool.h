// FOOL! helpers: a turn's typed FOOL! observation, and its actions parsed.
//
//   const auto& view = arena::fool::Observation(turn);  // hand(), hand_sizes(), trick(), totals()...
//   auto cards = arena::fool::LegalCards(turn);          // the cards of your hand you may play: R2, W1...
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arena/bot.h"

namespace arena {
namespace fool {

// The game's registry name.
inline constexpr std::string_view kGame = "fool";

// The seat's FOOL! observation. Throws std::invalid_argument when the turn is of another game or
// carries no FOOL! observation.
const v1::FoolObservation& Observation(const Turn& turn);

// One FOOL! card: colour 'G', 'R', 'Y', 'B', or 'W' for the wild W1; its face value.
struct Card {
  char colour = 0;
  int value = 0;

  // G2-G27, R2-R23, Y2-Y21, B2-B15 or W1; nothing if the text is not one.
  static std::optional<Card> Parse(std::string_view text);
  std::string ToString() const { return colour + std::to_string(value); }
  bool IsWild() const { return colour == 'W'; }
  bool operator==(const Card& other) const { return colour == other.colour && value == other.value; }
};

// The legal actions, parsed: cards of the seat's own hand (any that do not parse are skipped).
std::vector<Card> LegalCards(const Turn& turn);

}  // namespace fool
}  // namespace arena
