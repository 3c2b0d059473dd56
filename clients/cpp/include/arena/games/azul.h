// Azul helpers: a turn's typed Azul observation, and its actions parsed.
//
//   const auto& view = arena::azul::Observation(turn);  // wall_side(), phase(), factories(), boards()...
//   auto actions = arena::azul::LegalActions(turn);      // takes "3 R 4", "C K F"; grey-wall tilings "2:4 5:1"
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arena/bot.h"

namespace arena {
namespace azul {

// The game's registry name.
inline constexpr std::string_view kGame = "azul";
// A take's source for the centre (C); a take's target, or a tiling's column, for the floor (F).
inline constexpr int kCentre = -1;
inline constexpr int kFloor = 0;

// The seat's Azul observation. Throws std::invalid_argument when the turn is of another game or
// carries no Azul observation.
const v1::AzulObservation& Observation(const Turn& turn);

// One Azul action: in the factory offer (kTake), every `colour` tile (B, Y, R, K or W) from `source`
// (a factory index or kCentre) to `target` (a pattern line 1-5 or kFloor); on the grey wall's tiling
// (kTiling), a (line, column) per full line, top to bottom, 1-based, column kFloor for none legal.
struct Action {
  enum class Kind { kTake, kTiling };
  Kind kind = Kind::kTake;
  int source = 0;
  char colour = 0;
  int target = 0;
  std::vector<std::pair<int, int>> tiling;

  // "3 R 4", "C K F" or "2:4 5:1"; nothing if the text is not one.
  static std::optional<Action> Parse(std::string_view text);
  std::string ToString() const;
  bool operator==(const Action& other) const {
    return kind == other.kind && source == other.source && colour == other.colour && target == other.target &&
           tiling == other.tiling;
  }
};

// The legal actions, parsed (any that do not parse are skipped).
std::vector<Action> LegalActions(const Turn& turn);

}  // namespace azul
}  // namespace arena
