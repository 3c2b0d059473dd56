// The starter bots (see arena/bots.h).
#include "arena/bots.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <random>

namespace arena {

namespace bots {
namespace {

using g5211::Card;

constexpr int kLeftToLay[] = {4, 2, 1};  // cards a seat lays from the start of turn 1, 2, 3 to the round's end
constexpr double kSpendCost = 0.35;     // what laying a point that does not score costs
constexpr double kFutureWeight = 0.5;   // what a hand card of the winning colour, still to lay, is worth

// P(X <= k) for X ~ Binomial(n, p).
double BinomialCdf(int k, int n, double p) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  double total = 0, term = std::pow(1 - p, n);  // P(X = 0)
  for (int i = 0; i <= k; ++i) {
    total += term;
    term *= (n - i) / (i + 1.0) * p / (1 - p);
  }
  return total;
}

}  // namespace

double ScoreAction(const v1::Game5211Observation& observation, const std::vector<Card>& action) {
  const int players = static_cast<int>(observation.num_players());
  const int turn = static_cast<int>(observation.turn());
  if (players < 2 || turn < 1 || turn > 3) return 0;
  const int limit = players + 3;
  const int me = observation.has_seat() ? static_cast<int>(observation.seat()) : 0;

  // Cards of each colour laid this round, this action included; my stake (points) in each.
  int count[5] = {};
  double stake[5] = {};
  for (int seat = 0; seat < observation.laid_cards_size(); ++seat)
    for (const Card& card : g5211::ToCards(observation.laid_cards(seat).cards())) {
      ++count[card.colour];
      if (seat == me) stake[card.colour] += card.value;
    }
  double spent = 0;
  for (const Card& card : action) {
    ++count[card.colour];
    stake[card.colour] += card.value;
    spent += card.value;
  }

  // The others' cards still to come this round: if each is of a given colour with chance 1/5, how
  // likely each colour is to stay below the limit.
  const int others = (players - 1) * kLeftToLay[turn - 1];
  double alive[5];
  for (int colour = 0; colour < 5; ++colour) alive[colour] = BinomialCdf(limit - 1 - count[colour], others, 0.2);

  // The likely winner: the most-laid colour that will probably stay alive (ties: my bigger stake).
  int winner = -1;
  for (int colour = 0; colour < 5; ++colour) {
    if (alive[colour] < 0.5) continue;
    if (winner < 0 || count[colour] > count[winner] ||
        (count[colour] == count[winner] && stake[colour] > stake[winner]))
      winner = colour;
  }
  if (winner < 0) return -kSpendCost * spent;

  // What I could still add to the winner later this round, from the hand left after this action.
  std::vector<Card> hand = g5211::ToCards(observation.hand_cards());
  for (const Card& card : action) {
    auto same = std::find_if(hand.begin(), hand.end(),
                             [&](const Card& c) { return c.colour == card.colour && c.value == card.value; });
    if (same != hand.end()) hand.erase(same);
  }
  std::vector<int> later_values;
  for (const Card& card : hand)
    if (card.colour == winner) later_values.push_back(card.value);
  std::sort(later_values.rbegin(), later_values.rend());
  const int later = kLeftToLay[turn - 1] - static_cast<int>(action.size());
  double future = 0;
  for (int i = 0; i < later && i < static_cast<int>(later_values.size()); ++i) future += later_values[i];

  double wasted = 0;
  for (const Card& card : action)
    if (card.colour != winner) wasted += card.value;
  return alive[winner] * (stake[winner] + kFutureWeight * future) - kSpendCost * wasted;
}

std::string ChooseHeuristic(const v1::Game5211Observation& observation, const std::vector<std::string>& legal_actions) {
  if (legal_actions.empty()) return "";
  const std::string* best = &legal_actions.front();
  double best_score = -INFINITY;
  for (const auto& action : legal_actions) {
    auto cards = g5211::ParseCards(action);
    if (!cards) continue;
    double score = ScoreAction(observation, *cards);
    if (score > best_score) {
      best_score = score;
      best = &action;
    }
  }
  return *best;
}

Strategy Random(uint64_t seed) {
  struct State {
    std::mutex mu;
    std::mt19937_64 rng;
  };
  auto state = std::make_shared<State>();
  state->rng.seed(seed ? seed : std::random_device{}());
  return [state](const Turn& turn) -> std::string {
    if (turn.legal_actions.empty()) return "";
    std::lock_guard<std::mutex> lock(state->mu);
    std::uniform_int_distribution<size_t> pick(0, turn.legal_actions.size() - 1);
    return turn.legal_actions[pick(state->rng)];
  };
}

Strategy Heuristic(uint64_t seed) {
  Strategy fallback = Random(seed);
  return [fallback](const Turn& turn) -> std::string {
    if (turn.game != g5211::kGame || !turn.observation.has_game_5211()) return fallback(turn);
    return ChooseHeuristic(g5211::Observation(turn), turn.legal_actions);
  };
}

}  // namespace bots
}  // namespace arena
