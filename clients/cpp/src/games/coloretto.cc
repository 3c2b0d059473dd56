// Coloretto helpers (see arena/games/coloretto.h).
#include "arena/games/coloretto.h"

#include <sstream>
#include <stdexcept>

namespace arena {
namespace coloretto {

const v1::ColorettoObservation& Observation(const Turn& turn) {
  if (turn.game != kGame || !turn.observation.has_game_coloretto())
    throw std::invalid_argument("match " + turn.match_id + " plays \"" + turn.game + "\", not coloretto");
  return turn.observation.game_coloretto();
}

std::optional<Move> Move::Parse(std::string_view text) {
  std::istringstream words{std::string(text)};
  std::string kind, row, rest;
  words >> kind >> row >> rest;
  if (!rest.empty()) return std::nullopt;
  if (kind == "draw" && row.empty()) return Move{Kind::kDraw, -1};
  if ((kind == "place" || kind == "take") && row.size() == 1 && row[0] >= '0' && row[0] <= '9')
    return Move{kind == "place" ? Kind::kPlace : Kind::kTake, row[0] - '0'};
  return std::nullopt;
}

std::string Move::ToString() const {
  switch (kind) {
    case Kind::kDraw:
      return "draw";
    case Kind::kPlace:
      return "place " + std::to_string(row);
    case Kind::kTake:
      return "take " + std::to_string(row);
  }
  return "";
}

std::vector<Move> LegalMoves(const Turn& turn) {
  std::vector<Move> moves;
  for (const auto& action : turn.legal_actions)
    if (auto move = Move::Parse(action)) moves.push_back(*move);
  return moves;
}

}  // namespace coloretto
}  // namespace arena
