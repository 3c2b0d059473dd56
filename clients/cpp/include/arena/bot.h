// arena-bot for C++: write a bot for the arena as one function; the SDK does the protocol.
//
//   arena::Options options;
//   options.addresses = {"localhost:50051"};
//   options.token = "the token RegisterBot gave you";
//   arena::Client(options, [](const arena::Turn& turn) { return turn.legal_actions.front(); }).Run();
//
// What Client::Run handles (the protocol itself is documented in proto/arena/v1/bot.proto):
// - dials the arena, sends Hello with the token, the games and the concurrency asked for;
// - answers every ActionRequest on a worker pool, echoing its match id, seat and sequence number (a
//   match may seat the same bot more than once: each seat is played on its own, its state kept per
//   match and seat);
// - drops work on requests that a newer request for the same seat has superseded;
// - pings at the server's keep-alive interval and takes a stream silent for three intervals for dead;
// - logs rejections and protocol errors (and calls your hooks), never crashing on a bad message;
// - when the stream drops, reconnects with capped exponential backoff and jitter, trying each
//   address in turn, and says Hello again with the same token; the server then resends each running
//   match and its pending request, which is answered (from the cached answer if already decided).
// It returns after Stop() or max_matches ended matches, and throws ConnectionRefusedError when the
// server refuses the token or the Hello, ConnectionReplacedError when a newer connection of the
// same bot takes over (status ABORTED: it must not come back).
//
// This header pulls in the generated messages (arena/v1/bot.pb.h) but not gRPC's headers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "arena/v1/bot.pb.h"

namespace arena {

namespace v1 = ::arena::v1;
using Clock = std::chrono::steady_clock;

// A match the bot plays in, as told by MatchStarted.
struct MatchInfo {
  std::string match_id;
  std::string game;
  uint32_t seat = 0;
  uint32_t num_players = 0;
  std::vector<std::string> bot_names;  // registered names in seat order
  v1::TimeControl time_control;
  std::map<std::string, std::string> options;  // the game's rules options

  static MatchInfo FromProto(const v1::MatchStarted& message);
};

// The game an observation envelope is of: the name of the field its `oneof game` sets, less the
// "game_" prefix ("" when none is set).
std::string GameOf(const v1::Observation& observation);

// One decision to make: everything the seat may know now, and what it may do. It names no game:
// the typed helpers of each game are in arena/games/<game>.h (e.g. g5211::Observation(turn)).
struct Turn {
  std::string match_id;
  uint64_t sequence = 0;
  uint32_t seat = 0;
  // The game's registry name ("5211", "coloretto", ...), from the match's MatchStarted, else from
  // the field the observation envelope sets ("" when none).
  std::string game;
  // The observation envelope: exactly what the seat may know, in the `oneof game` field of its game
  // (none set, game_case() == GAME_NOT_SET, for a game this build does not know).
  v1::Observation observation;
  std::vector<std::string> legal_actions;  // every legal action ("G3 Y1", "take 2"); answer one of them
  std::string action_hint;                 // what an action looks like now, in words
  std::shared_ptr<const MatchInfo> match;  // the match's start (null if the server never sent it)
  v1::ActionRequest message;               // the raw request
  Clock::time_point received_at;

  // A turn from a request received at `received_at` (public so bots can be tested offline); its
  // game is the envelope's until the SDK sets `match` and `game` from the match's start.
  static Turn FromProto(const v1::ActionRequest& request, Clock::time_point received_at = Clock::now(),
                        std::shared_ptr<const std::atomic<bool>> superseded = nullptr);

  // Seconds left before the answer is late (allowance plus time bank, measured from receipt).
  double time_left() const;
  // Seconds left before the time bank starts being spent.
  double free_time_left() const;
  // Whether a newer request for this match (or its end) has made this turn moot: a long search
  // may poll it and give up, since its answer will be dropped anyway.
  bool is_superseded() const { return superseded_ && superseded_->load(); }

 private:
  std::shared_ptr<const std::atomic<bool>> superseded_;
};

// How a match ended for this bot.
struct MatchResult {
  std::string match_id;
  uint32_t seat = 0;
  uint32_t placing = 0;  // 1 for a winner
  int64_t score = 0;
  bool won = false;
  v1::Outcome outcome;
  std::shared_ptr<const MatchInfo> match;  // null if the bot never saw the match start

  static MatchResult FromProto(const v1::MatchEnded& message, std::shared_ptr<const MatchInfo> match);
};

// The one function an author writes: choose an action (one of turn.legal_actions) for a turn.
// It runs on a worker thread, possibly for several matches at once: share state with care.
using Strategy = std::function<std::string(const Turn& turn)>;

enum class LogLevel { kDebug, kInfo, kWarning, kError };

// Optional reactions to events. They run on the connection's reader thread, one at a time: keep
// them quick. An exception thrown by a hook is logged and ignored. Rejections and protocol errors
// are logged as warnings whether or not a hook is set.
struct Hooks {
  std::function<void(const v1::Welcome&)> on_welcome;          // each (re)connection
  std::function<void(const MatchInfo&)> on_match_start;        // once per match and seat
  std::function<void(const MatchResult&)> on_match_end;        // once per match and seat
  std::function<void(const v1::ActionRejected&)> on_action_rejected;
  std::function<void(const v1::ProtocolError&)> on_protocol_error;
  std::function<void(double delay_seconds)> on_reconnecting;   // before each new attempt
};

struct Options {
  std::vector<std::string> addresses;  // host:port; the next is tried when one fails
  std::string token;                   // from RegistryService.RegisterBot
  std::vector<std::string> games;  // registry names; empty = every game the bot is registered for
  uint32_t max_concurrent_matches = 1;  // matches played at once
  uint32_t max_matches = 0;             // return after this many ended matches (one per seat held); 0 = never
  unsigned workers = 0;                 // threads that run the strategy; 0 = max(2, concurrency)
  bool answer_on_error = true;  // if the strategy throws, answer the first legal action
  bool tls = false;
  std::string root_certificates;  // PEM; implies TLS; empty = the system's roots
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{30000};
  std::string client_name = "arena-bot-cpp";
  LogLevel log_level = LogLevel::kInfo;
  // Where log lines go (default: stderr, prefixed "arena-bot:").
  std::function<void(LogLevel, const std::string&)> log;
};

// Base of the SDK's errors.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The server refused the connection for good (bad token, unknown game): retrying will not help.
class ConnectionRefusedError : public Error {
 public:
  ConnectionRefusedError(int code, const std::string& details);
  int code;  // the gRPC status code
  std::string details;
};

// Another connection with the same token took over (status ABORTED): this one must not come back.
class ConnectionReplacedError : public Error {
 public:
  explicit ConnectionReplacedError(const std::string& details);
  std::string details;
};

// A bot's connection to the arena; see the top of this file.
class Client {
 public:
  Client(Options options, Strategy strategy, Hooks hooks = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Connect and play, reconnecting as needed, until Stop() or max_matches (blocking).
  void Run();
  // Ask Run to disconnect and return; safe from any thread, hooks and the strategy included.
  void Stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The backoff before reconnect attempt `attempt` (0-based) after every address failed:
// min(max, initial * 2^attempt), scaled by `jitter` in [0.5, 1].
std::chrono::milliseconds BackoffDelay(unsigned attempt, std::chrono::milliseconds initial,
                                       std::chrono::milliseconds max, double jitter);

}  // namespace arena
