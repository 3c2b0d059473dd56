// FOOL! helpers (see arena/games/fool.h).
#include "arena/games/fool.h"

#include <stdexcept>

namespace arena {
namespace fool {

const v1::FoolObservation& Observation(const Turn& turn) {
  if (turn.game != kGame || !turn.observation.has_game_fool())
    throw std::invalid_argument("match " + turn.match_id + " plays \"" + turn.game + "\", not fool");
  return turn.observation.game_fool();
}

std::optional<Card> Card::Parse(std::string_view text) {
  if (text.size() < 2 || text.size() > 3 || text[1] < '1' || text[1] > '9') return std::nullopt;
  int value = 0;
  for (char digit : text.substr(1)) {
    if (digit < '0' || digit > '9') return std::nullopt;
    value = value * 10 + (digit - '0');
  }
  int low = 2, high = 0;
  switch (text[0]) {
    case 'G': high = 27; break;
    case 'R': high = 23; break;
    case 'Y': high = 21; break;
    case 'B': high = 15; break;
    case 'W': low = high = 1; break;
    default: return std::nullopt;
  }
  if (value < low || value > high) return std::nullopt;
  return Card{text[0], value};
}

std::vector<Card> LegalCards(const Turn& turn) {
  std::vector<Card> cards;
  for (const auto& text : turn.legal_actions)
    if (auto card = Card::Parse(text)) cards.push_back(*card);
  return cards;
}

}  // namespace fool
}  // namespace arena
