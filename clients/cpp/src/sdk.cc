// The SDK: one stream at a time, read by the thread that called Run, answered by a worker pool.
//
// Threads: the reader (Run's caller) reads the stream, dispatches messages and calls the hooks; a
// keeper thread per stream pings and watches for silence; the workers run the strategy. Writes to a
// stream are serialized by its write lock; match state is guarded by Impl::mu. Hooks and the
// strategy are never called with a lock held, so they may call Stop().
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "arena/bot.h"
#include "arena/v1/bot.grpc.pb.h"

#ifndef ARENA_BOT_VERSION
#define ARENA_BOT_VERSION "0.0.0"
#endif

namespace arena {
namespace {

constexpr int kSilentIntervals = 3;  // a stream silent this many keep-alive intervals is dead
constexpr auto kWelcomeTimeout = std::chrono::seconds(30);

using Stub = v1::BotService::Stub;
using ReaderWriter = grpc::ClientReaderWriter<v1::ConnectRequest, v1::ConnectResponse>;

template <typename... Parts>
std::string Text(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

double Seconds(const google::protobuf::Duration& duration) {
  return static_cast<double>(duration.seconds()) + duration.nanos() * 1e-9;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "?";
}

const char* StatusName(grpc::StatusCode code) {
  static const char* const kNames[] = {
      "OK",           "CANCELLED",         "UNKNOWN",   "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND",    "ALREADY_EXISTS",    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED",    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
      "UNAVAILABLE",  "DATA_LOSS",         "UNAUTHENTICATED"};
  auto index = static_cast<size_t>(code);
  return index < sizeof kNames / sizeof *kNames ? kNames[index] : "UNKNOWN";
}

// Statuses that retrying cannot fix: a wrong token, or a Hello the server refuses.
bool IsFatal(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::INVALID_ARGUMENT;
}

// A fixed set of threads running queued jobs; jobs still queued at shutdown are dropped.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned size) {
    for (unsigned i = 0; i < size; ++i) threads_.emplace_back([this] { Loop(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    for (auto& thread : threads_) thread.join();
  }
  void Submit(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return done_ || !jobs_.empty(); });
        if (done_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool done_ = false;
  std::vector<std::thread> threads_;
};

// One stream, from Hello until it ends.
struct Stream {
  explicit Stream(uint64_t generation) : generation(generation) {}

  const uint64_t generation;  // which stream this is, counted from 1
  grpc::ClientContext context;
  std::unique_ptr<ReaderWriter> rw;

  // Sends the Hello, after which other messages may go out.
  void Open(std::unique_ptr<ReaderWriter> reader_writer, const v1::ConnectRequest& hello) {
    std::lock_guard<std::mutex> lock(write_mu_);
    rw = std::move(reader_writer);
    ready_ = !closed_ && rw->Write(hello);
  }
  // Sends one message, one writer at a time; false if the stream is not open or gone.
  bool Write(const v1::ConnectRequest& request) {
    std::lock_guard<std::mutex> lock(write_mu_);
    return ready_ && !closed_ && rw->Write(request);
  }
  // No more writes (waits for one in progress).
  void Close() {
    std::lock_guard<std::mutex> lock(write_mu_);
    closed_ = true;
  }

  // What the keeper thread watches.
  std::mutex mu;
  std::condition_variable cv;
  bool over = false;
  bool welcomed = false;
  bool changed = false;
  bool silenced = false;  // the keeper cancelled the stream for silence
  double keep_alive = 0;  // seconds; 0 = the server sends no keep-alives
  std::atomic<Clock::rep> last_read{Clock::now().time_since_epoch().count()};

 private:
  std::mutex write_mu_;
  bool ready_ = false;
  bool closed_ = false;
};

// One seat the bot plays: (match id, seat). Everything per match is kept per seat, since a match
// may seat the bot more than once.
using SeatKey = std::pair<std::string, uint32_t>;

// What the SDK tracks per seat of a running match.
struct MatchState {
  std::shared_ptr<const MatchInfo> info;
  bool has_latest = false;
  uint64_t latest = 0;                           // the newest request's sequence
  std::shared_ptr<std::atomic<bool>> superseded;  // the newest request's flag
  bool running = false;                          // the newest request is being decided
  bool has_answer = false;                       // the last answer, for a resent request:
  uint64_t answer_sequence = 0;
  std::string answer_text;
  uint64_t answer_generation = 0;  // the stream it went out on; 0 = not sent
};

google::protobuf::Timestamp Now() {
  auto since = std::chrono::system_clock::now().time_since_epoch();
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since);
  google::protobuf::Timestamp timestamp;
  timestamp.set_seconds(seconds.count());
  timestamp.set_nanos(static_cast<int32_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(since - seconds).count()));
  return timestamp;
}

}  // namespace

// -- values ---------------------------------------------------------------------------------------

MatchInfo MatchInfo::FromProto(const v1::MatchStarted& message) {
  MatchInfo info;
  info.match_id = message.match_id();
  info.game = message.game();
  info.seat = message.seat();
  info.num_players = message.num_players();
  info.bot_names.assign(message.bot_names().begin(), message.bot_names().end());
  info.time_control = message.time_control();
  info.options.insert(message.options().begin(), message.options().end());
  return info;
}

std::string GameOf(const v1::Observation& observation) {
  const auto* oneof = v1::Observation::descriptor()->FindOneofByName("game");
  const auto* field = oneof ? observation.GetReflection()->GetOneofFieldDescriptor(observation, oneof) : nullptr;
  if (field == nullptr) return "";
  const std::string& name = field->name();
  return name.rfind("game_", 0) == 0 ? name.substr(5) : name;
}

Turn Turn::FromProto(const v1::ActionRequest& request, Clock::time_point received_at,
                     std::shared_ptr<const std::atomic<bool>> superseded) {
  Turn turn;
  turn.match_id = request.match_id();
  turn.sequence = request.sequence();
  turn.seat = request.seat();
  turn.observation = request.observation();
  turn.game = GameOf(turn.observation);
  turn.legal_actions.assign(request.legal_actions().begin(), request.legal_actions().end());
  turn.action_hint = request.action_hint();
  turn.message = request;
  turn.received_at = received_at;
  turn.superseded_ = std::move(superseded);
  return turn;
}

double Turn::time_left() const {
  return Seconds(message.allowance()) + Seconds(message.time_bank()) - SecondsSince(received_at);
}

double Turn::free_time_left() const { return Seconds(message.allowance()) - SecondsSince(received_at); }

MatchResult MatchResult::FromProto(const v1::MatchEnded& message, std::shared_ptr<const MatchInfo> match) {
  MatchResult result;
  result.match_id = message.match_id();
  result.seat = message.seat();
  result.outcome = message.outcome();
  result.match = std::move(match);
  const auto& outcome = message.outcome();
  if (static_cast<int>(result.seat) < outcome.placings_size()) result.placing = outcome.placings(result.seat);
  if (static_cast<int>(result.seat) < outcome.scores_size()) result.score = outcome.scores(result.seat);
  result.won = std::find(outcome.winners().begin(), outcome.winners().end(), result.seat) != outcome.winners().end();
  return result;
}

ConnectionRefusedError::ConnectionRefusedError(int code, const std::string& details)
    : Error(Text("the arena refused the connection: ", StatusName(static_cast<grpc::StatusCode>(code)), ": ",
                 details)),
      code(code),
      details(details) {}

ConnectionReplacedError::ConnectionReplacedError(const std::string& details)
    : Error("another connection of this bot took over: " + details), details(details) {}

std::chrono::milliseconds BackoffDelay(unsigned attempt, std::chrono::milliseconds initial,
                                       std::chrono::milliseconds max, double jitter) {
  double delay = static_cast<double>(initial.count());
  for (unsigned i = 0; i < attempt && delay < max.count(); ++i) delay *= 2;
  delay = std::min(delay, static_cast<double>(max.count()));
  return std::chrono::milliseconds(static_cast<int64_t>(delay * std::clamp(jitter, 0.5, 1.0)));
}

// -- the client -----------------------------------------------------------------------------------

struct Client::Impl {
  Impl(Options options, Strategy strategy, Hooks hooks)
      : options(std::move(options)), strategy(std::move(strategy)), hooks(std::move(hooks)) {}

  const Options options;
  const Strategy strategy;
  const Hooks hooks;

  std::mutex mu;  // guards everything below
  std::condition_variable cv;
  bool stopping = false;
  std::shared_ptr<Stream> live;  // the stream being opened or used, if any
  uint64_t generations = 0;
  std::map<SeatKey, MatchState> matches;
  uint32_t ended = 0;
  std::mt19937_64 rng{std::random_device{}()};
  std::unique_ptr<WorkerPool> pool;

  void Log(LogLevel level, const std::string& line) const {
    if (level < options.log_level) return;
    if (options.log) {
      options.log(level, line);
      return;
    }
    static std::mutex log_mu;
    std::lock_guard<std::mutex> lock(log_mu);
    std::cerr << "arena-bot: " << LevelName(level) << ": " << line << std::endl;
  }

  template <typename Hook, typename... Args>
  void Call(const char* name, const Hook& hook, const Args&... args) {
    if (!hook) return;
    try {
      hook(args...);
    } catch (const std::exception& error) {
      Log(LogLevel::kError, Text(name, " failed: ", error.what()));
    } catch (...) {
      Log(LogLevel::kError, Text(name, " failed"));
    }
  }

  bool IsStopping() {
    std::lock_guard<std::mutex> lock(mu);
    return stopping;
  }

  void Stop() {
    std::shared_ptr<Stream> stream;
    {
      std::lock_guard<std::mutex> lock(mu);
      stopping = true;
      stream = live;
    }
    if (stream) stream->context.TryCancel();
    cv.notify_all();
  }

  void Run() {
    if (options.addresses.empty()) throw std::invalid_argument("give at least one arena address (host:port)");
    unsigned workers = options.workers ? options.workers : std::max(2u, options.max_concurrent_matches);
    pool = std::make_unique<WorkerPool>(workers);
    try {
      Reconnect();
    } catch (...) {
      Shutdown();
      throw;
    }
    Shutdown();
  }

  void Reconnect() {
    size_t index = 0;
    unsigned failed_rounds = 0;
    std::uniform_real_distribution<double> jitter(0.5, 1.0);
    while (!IsStopping()) {
      const std::string& address = options.addresses[index];
      bool welcomed = Session(address);
      if (IsStopping()) break;
      std::chrono::milliseconds delay{0};
      if (welcomed) {
        // The connection worked: come back to the same address, quickly.
        failed_rounds = 0;
        delay = BackoffDelay(0, options.initial_backoff, options.max_backoff, jitter(rng));
      } else {
        index = (index + 1) % options.addresses.size();
        // Every address failed once more: wait longer each round.
        if (index == 0)
          delay = BackoffDelay(failed_rounds++, options.initial_backoff, options.max_backoff, jitter(rng));
      }
      double seconds = std::chrono::duration<double>(delay).count();
      Log(LogLevel::kInfo, Text("reconnecting in ", seconds, " s"));
      Call("on_reconnecting", hooks.on_reconnecting, seconds);
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, delay, [this] { return stopping; });
    }
  }

  void Shutdown() {
    {
      std::lock_guard<std::mutex> lock(mu);
      for (auto& entry : matches)
        if (entry.second.superseded) entry.second.superseded->store(true);
    }
    pool.reset();  // waits for decisions in progress
  }

  std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address) const {
    grpc::ChannelArguments args;
    // A channel of its own each time: no connection (or connection backoff) shared with the last.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetString(GRPC_ARG_PRIMARY_USER_AGENT_STRING, options.client_name + "/" ARENA_BOT_VERSION);
    std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
    if (options.tls || !options.root_certificates.empty()) {
      grpc::SslCredentialsOptions ssl;
      ssl.pem_root_certs = options.root_certificates;
      credentials = grpc::SslCredentials(ssl);
    }
    return grpc::CreateCustomChannel(address, credentials, args);
  }

  v1::ConnectRequest Hello() const {
    v1::ConnectRequest request;
    auto* hello = request.mutable_hello();
    hello->set_token(options.token);
    for (const auto& game : options.games) hello->add_games(game);
    hello->set_max_concurrent_matches(std::max(1u, options.max_concurrent_matches));
    hello->set_client_name(options.client_name);
    hello->set_client_version(ARENA_BOT_VERSION);
    return request;
  }

  // One stream, from Hello until it ends; returns whether the server welcomed us.
  bool Session(const std::string& address) {
    auto channel = MakeChannel(address);
    auto stub = v1::BotService::NewStub(channel);
    std::shared_ptr<Stream> stream;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stopping) return false;
      stream = live = std::make_shared<Stream>(++generations);
    }
    Log(LogLevel::kInfo, Text("connecting to ", address));
    std::thread keeper([this, stream] { Keep(*stream); });
    bool welcomed = false;
    bool leaving = false;  // we end the stream, rather than it ending
    // If the Hello cannot go out, the stream has already ended: the first Read says so.
    stream->Open(stub->Connect(&stream->context), Hello());
    {
      v1::ConnectResponse response;
      while (!leaving && stream->rw->Read(&response)) {
        stream->last_read = Clock::now().time_since_epoch().count();
        if (response.has_welcome()) {
          welcomed = true;
          Log(LogLevel::kInfo, Text("connected to ", address, " as ", response.welcome().bot_name()));
          std::lock_guard<std::mutex> lock(stream->mu);
          stream->welcomed = stream->changed = true;
          stream->keep_alive = Seconds(response.welcome().keep_alive_interval());
          stream->cv.notify_all();
        }
        Dispatch(*stream, response);
        leaving = IsStopping();
      }
    }
    if (leaving) {
      // Not before: a cancel would hide the status the server ended the stream with.
      stream->context.TryCancel();
      v1::ConnectResponse rest;
      while (stream->rw->Read(&rest)) {
      }
    }
    stream->Close();
    bool silenced;
    {
      std::lock_guard<std::mutex> lock(stream->mu);
      stream->over = true;
      silenced = stream->silenced;
    }
    stream->cv.notify_all();
    keeper.join();
    grpc::Status status = stream->rw->Finish();
    {
      std::lock_guard<std::mutex> lock(mu);
      if (live == stream) live.reset();
      if (stopping) return welcomed;
    }
    grpc::StatusCode code = status.error_code();
    if (code == grpc::StatusCode::ABORTED) throw ConnectionReplacedError(status.error_message());
    if (IsFatal(code)) throw ConnectionRefusedError(code, status.error_message());
    if (!silenced) {
      if (code == grpc::StatusCode::OK)
        Log(LogLevel::kWarning, Text(address, ": the server ended the stream"));
      else
        Log(LogLevel::kWarning, Text(address, ": stream failed: ", StatusName(code), " ", status.error_message()));
    }
    return welcomed;
  }

  // The keeper: pings at the keep-alive interval; cancels a stream that went silent.
  void Keep(Stream& stream) {
    auto started = Clock::now();
    std::unique_lock<std::mutex> lock(stream.mu);
    while (!stream.over) {
      Clock::duration wait = kWelcomeTimeout;
      if (stream.welcomed)
        wait = stream.keep_alive > 0 ? std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(stream.keep_alive))
                                     : Clock::duration(std::chrono::hours(24));
      if (stream.cv.wait_for(lock, wait, [&] { return stream.over || stream.changed; })) {
        stream.changed = false;
        continue;
      }
      const char* why = nullptr;
      double silent = SecondsSince(Clock::time_point(Clock::duration(stream.last_read.load())));
      if (!stream.welcomed && Clock::now() - started >= kWelcomeTimeout)
        why = "no Welcome";
      else if (stream.welcomed && stream.keep_alive > 0 && silent > kSilentIntervals * stream.keep_alive)
        why = "nothing heard";
      if (why) {
        stream.silenced = true;
        lock.unlock();
        Log(LogLevel::kWarning, Text(why, " for ", silent, " s; reconnecting"));
        stream.context.TryCancel();
        return;
      }
      if (!stream.welcomed) continue;
      lock.unlock();
      v1::ConnectRequest ping;
      *ping.mutable_ping()->mutable_client_time() = Now();
      stream.Write(ping);
      lock.lock();
    }
  }

  // Sends on the live stream, if there is one; returns that stream's generation, or 0.
  uint64_t Send(const v1::ConnectRequest& request) {
    std::shared_ptr<Stream> stream;
    {
      std::lock_guard<std::mutex> lock(mu);
      stream = live;
    }
    return stream && stream->Write(request) ? stream->generation : 0;
  }

  // An answer, echoing the request's match, seat and sequence.
  static v1::ConnectRequest ActionMessage(const std::string& match_id, uint32_t seat, uint64_t sequence,
                                          const std::string& text) {
    v1::ConnectRequest request;
    auto* action = request.mutable_action();
    action->set_match_id(match_id);
    action->set_seat(seat);
    action->set_sequence(sequence);
    action->set_text(text);
    return request;
  }

  // -- messages from the server -------------------------------------------------------------------

  void Dispatch(Stream& stream, const v1::ConnectResponse& response) {
    switch (response.kind_case()) {
      case v1::ConnectResponse::kWelcome:
        Call("on_welcome", hooks.on_welcome, response.welcome());
        break;
      case v1::ConnectResponse::kMatchStarted:
        OnStarted(response.match_started());
        break;
      case v1::ConnectResponse::kActionRequest:
        OnRequest(stream, response.action_request());
        break;
      case v1::ConnectResponse::kActionRejected: {
        const auto& rejection = response.action_rejected();
        Log(LogLevel::kWarning,
            Text("match ", rejection.match_id(), ", request ", rejection.sequence(), ": action rejected (",
                 v1::Fault_Name(rejection.fault()), "): ", rejection.reason(), "; played '",
                 rejection.fallback_action(), "' instead, strike ", rejection.strikes(), " of ",
                 rejection.strike_limit()));
        Call("on_action_rejected", hooks.on_action_rejected, rejection);
        break;
      }
      case v1::ConnectResponse::kMatchEnded:
        OnEnded(response.match_ended());
        break;
      case v1::ConnectResponse::kKeepAlive:
        break;
      case v1::ConnectResponse::kError: {
        const auto& error = response.error();
        Log(LogLevel::kWarning, Text("match ", error.match_id(), ", request ", error.sequence(),
                                     ": protocol error: ", error.reason()));
        Call("on_protocol_error", hooks.on_protocol_error, error);
        break;
      }
      default:
        Log(LogLevel::kDebug, "ignoring a server message of an unknown kind (newer server?)");
    }
  }

  void OnStarted(const v1::MatchStarted& message) {
    auto info = std::make_shared<const MatchInfo>(MatchInfo::FromProto(message));
    bool first;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto& match = matches[{info->match_id, info->seat}];
      first = !match.info;
      match.info = info;
    }
    if (!first) return;  // resent after a reconnect
    Log(LogLevel::kInfo, Text("match ", info->match_id, " started: ", info->game, ", seat ", info->seat));
    Call("on_match_start", hooks.on_match_start, *info);
  }

  void OnRequest(Stream& stream, const v1::ActionRequest& request) {
    auto received_at = Clock::now();
    const std::string& match_id = request.match_id();
    uint32_t seat = request.seat();
    uint64_t sequence = request.sequence();
    std::optional<std::string> resend;
    std::shared_ptr<Turn> turn;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto& match = matches[{match_id, seat}];
      if (match.has_latest && sequence < match.latest) {
        Log(LogLevel::kDebug, Text("match ", match_id, ": ignoring stale request ", sequence));
        return;
      }
      if (match.has_latest && sequence == match.latest) {
        // The server resent the request (after a reconnect): answer again, or let the running
        // decision answer when it is done.
        if (match.has_answer && match.answer_sequence == sequence) {
          if (match.answer_generation == stream.generation) return;
          match.answer_generation = stream.generation;
          resend = match.answer_text;
        } else if (match.running) {
          return;
        }
      }
      if (!resend) {
        if (match.superseded) match.superseded->store(true);
        match.has_latest = true;
        match.latest = sequence;
        match.superseded = std::make_shared<std::atomic<bool>>(false);
        match.running = true;
        turn = std::make_shared<Turn>(Turn::FromProto(request, received_at, match.superseded));
        turn->match = match.info;
        if (match.info) turn->game = match.info->game;
      }
    }
    if (resend) {
      Log(LogLevel::kInfo, Text("match ", match_id, ": answering resent request ", sequence, " again"));
      stream.Write(ActionMessage(match_id, seat, sequence, *resend));
      return;
    }
    pool->Submit([this, turn] { Decide(*turn); });
  }

  void Decide(const Turn& turn) {
    if (turn.is_superseded()) {
      Log(LogLevel::kDebug, Text("match ", turn.match_id, ": request ", turn.sequence, " superseded before it ran"));
      return;
    }
    std::optional<std::string> text;
    try {
      text = strategy(turn);
    } catch (const std::exception& error) {
      Log(LogLevel::kError, Text("match ", turn.match_id, ", request ", turn.sequence, ": strategy failed: ",
                                 error.what()));
    } catch (...) {
      Log(LogLevel::kError, Text("match ", turn.match_id, ", request ", turn.sequence, ": strategy failed"));
    }
    if (!text && options.answer_on_error && !turn.legal_actions.empty()) {
      text = turn.legal_actions.front();
      Log(LogLevel::kWarning, Text("match ", turn.match_id, ", request ", turn.sequence, ": answering '",
                                   *text, "' instead"));
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      auto found = matches.find({turn.match_id, turn.seat});
      if (found == matches.end() || found->second.latest != turn.sequence) {
        Log(LogLevel::kDebug,
            Text("match ", turn.match_id, ": dropping the answer to superseded request ", turn.sequence));
        return;
      }
      auto& match = found->second;
      match.running = false;
      if (!text) return;
      match.has_answer = true;
      match.answer_sequence = turn.sequence;
      match.answer_text = *text;
      match.answer_generation = 0;
    }
    uint64_t sent_on = Send(ActionMessage(turn.match_id, turn.seat, turn.sequence, *text));
    std::lock_guard<std::mutex> lock(mu);
    auto found = matches.find({turn.match_id, turn.seat});
    if (found != matches.end() && found->second.has_answer && found->second.answer_sequence == turn.sequence &&
        found->second.answer_generation == 0)
      found->second.answer_generation = sent_on;
    if (!sent_on)
      Log(LogLevel::kInfo, Text("match ", turn.match_id, ": answer to ", turn.sequence, " kept for the reconnect"));
  }

  void OnEnded(const v1::MatchEnded& message) {
    std::shared_ptr<const MatchInfo> info;
    bool done;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto found = matches.find({message.match_id(), message.seat()});
      if (found != matches.end()) {
        if (found->second.superseded) found->second.superseded->store(true);
        info = found->second.info;
        matches.erase(found);
      }
      ++ended;
      done = options.max_matches > 0 && ended >= options.max_matches;
      if (done) stopping = true;
    }
    MatchResult result = MatchResult::FromProto(message, info);
    Log(LogLevel::kInfo, Text("match ", result.match_id, " ended (", v1::Termination_Name(result.outcome.termination()),
                              "): placing ", result.placing, ", score ", result.score));
    Call("on_match_end", hooks.on_match_end, result);
    if (done) Log(LogLevel::kInfo, Text("played ", options.max_matches, " matches; stopping"));
  }
};

Client::Client(Options options, Strategy strategy, Hooks hooks)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(strategy), std::move(hooks))) {}

Client::~Client() = default;

void Client::Run() { impl_->Run(); }

void Client::Stop() { impl_->Stop(); }

}  // namespace arena
