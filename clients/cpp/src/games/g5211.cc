// 5211 helpers (see arena/games/g5211.h).
#include "arena/games/g5211.h"

#include <stdexcept>

namespace arena {
namespace g5211 {

const v1::Game5211Observation& Observation(const Turn& turn) {
  if (turn.game != kGame || !turn.observation.has_game_5211())
    throw std::invalid_argument("match " + turn.match_id + " plays \"" + turn.game + "\", not 5211");
  return turn.observation.game_5211();
}

std::optional<Card> Card::Parse(std::string_view text) {
  if (text.size() != 2) return std::nullopt;
  auto colour = kColours.find(text[0]);
  if (colour == std::string_view::npos || text[1] < '1' || text[1] > '6') return std::nullopt;
  return Card{static_cast<int>(colour), text[1] - '0'};
}

std::string Card::ToString() const { return {kColours[colour], static_cast<char>('0' + value)}; }

std::optional<std::vector<Card>> ParseCards(std::string_view text) {
  std::vector<Card> cards;
  while (!text.empty()) {
    auto space = text.find(' ');
    auto word = text.substr(0, space);
    if (!word.empty()) {
      auto card = Card::Parse(word);
      if (!card) return std::nullopt;
      cards.push_back(*card);
    }
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return cards;
}

std::vector<std::vector<Card>> LegalPlays(const Turn& turn) {
  std::vector<std::vector<Card>> plays;
  for (const auto& action : turn.legal_actions) plays.push_back(ParseCards(action).value_or(std::vector<Card>{}));
  return plays;
}

}  // namespace g5211
}  // namespace arena
