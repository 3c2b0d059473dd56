// Azul helpers (see arena/games/azul.h).
#include "arena/games/azul.h"

#include <sstream>
#include <stdexcept>

namespace arena {
namespace azul {
namespace {

// A one-character number in [low, high], `letter` for `special`, else nothing.
std::optional<int> Number(const std::string& text, int low, int high, char letter, int special) {
  if (text.size() != 1) return std::nullopt;
  if (text[0] == letter) return special;
  int n = text[0] - '0';
  if (n < low || n > high) return std::nullopt;
  return n;
}

std::string Written(int n, int special, char letter) {
  return n == special ? std::string(1, letter) : std::to_string(n);
}

}  // namespace

const v1::AzulObservation& Observation(const Turn& turn) {
  if (turn.game != kGame || !turn.observation.has_game_azul())
    throw std::invalid_argument("match " + turn.match_id + " plays \"" + turn.game + "\", not azul");
  return turn.observation.game_azul();
}

std::optional<Action> Action::Parse(std::string_view text) {
  std::istringstream stream{std::string(text)};
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  Action action;
  if (text.find(':') != std::string_view::npos) {
    if (words.empty() || words.size() > 5) return std::nullopt;
    action.kind = Kind::kTiling;
    for (const auto& word : words) {
      if (word.size() != 3 || word[1] != ':') return std::nullopt;
      auto line = Number(word.substr(0, 1), 1, 5, '\0', 0);
      auto column = Number(word.substr(2), 1, 5, 'F', kFloor);
      if (!line || !column || (!action.tiling.empty() && *line <= action.tiling.back().first)) return std::nullopt;
      action.tiling.emplace_back(*line, *column);
    }
    return action;
  }
  if (words.size() != 3 || words[1].size() != 1 || std::string_view("BYRKW").find(words[1][0]) == std::string_view::npos)
    return std::nullopt;
  auto source = Number(words[0], 0, 8, 'C', kCentre);
  auto target = Number(words[2], 1, 5, 'F', kFloor);
  if (!source || !target) return std::nullopt;
  action.source = *source;
  action.colour = words[1][0];
  action.target = *target;
  return action;
}

std::string Action::ToString() const {
  if (kind == Kind::kTake) return Written(source, kCentre, 'C') + " " + colour + " " + Written(target, kFloor, 'F');
  std::string text;
  for (const auto& [line, column] : tiling)
    text += (text.empty() ? "" : " ") + std::to_string(line) + ":" + Written(column, kFloor, 'F');
  return text;
}

std::vector<Action> LegalActions(const Turn& turn) {
  std::vector<Action> actions;
  for (const auto& text : turn.legal_actions)
    if (auto action = Action::Parse(text)) actions.push_back(*action);
  return actions;
}

}  // namespace azul
}  // namespace arena
