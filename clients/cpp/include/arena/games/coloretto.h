// Coloretto helpers: a turn's typed Coloretto observation, and its actions parsed.
//
//   const auto& view = arena::coloretto::Observation(turn);  // rows(), collections(), drawn()...
//   auto moves = arena::coloretto::LegalMoves(turn);          // draw, place r, take r
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arena/bot.h"

namespace arena {
namespace coloretto {

// The game's registry name.
inline constexpr std::string_view kGame = "coloretto";

// The seat's Coloretto observation. Throws std::invalid_argument when the turn is of another game
// or carries no Coloretto observation.
const v1::ColorettoObservation& Observation(const Turn& turn);

// One Coloretto decision.
struct Move {
  enum class Kind { kDraw, kPlace, kTake };
  Kind kind = Kind::kDraw;
  int row = -1;  // 0-based, for kPlace and kTake

  // "draw", "place r" or "take r"; nothing if the text is not one.
  static std::optional<Move> Parse(std::string_view text);
  std::string ToString() const;
  bool operator==(const Move& other) const { return kind == other.kind && row == other.row; }
};

// The legal actions, parsed (any that do not parse are skipped).
std::vector<Move> LegalMoves(const Turn& turn);

}  // namespace coloretto
}  // namespace arena
