// Unit tests of the SDK and the starter bots: values, the heuristic, and the client's protocol
// handling against a scripted in-process gRPC server (one script per incoming connection).
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "arena/bot.h"
#include "arena/bots.h"
#include "arena/cli.h"
#include "arena/games/azul.h"
#include "arena/games/coloretto.h"
#include "arena/games/fool.h"
#include "arena/games/g5211.h"
#include "arena/v1/bot.grpc.pb.h"

namespace {

using arena::v1::ConnectRequest;
using arena::v1::ConnectResponse;
using namespace std::chrono_literals;
using ServerStream = grpc::ServerReaderWriter<ConnectResponse, ConnectRequest>;
using Script = std::function<grpc::Status(ServerStream&)>;

// -- values -----------------------------------------------------------------------------------------

TEST(Card, ParsesAndPrintsNotation) {
  auto card = arena::g5211::Card::Parse("G3");
  ASSERT_TRUE(card);
  EXPECT_EQ(card->colour, 1);
  EXPECT_EQ(card->value, 3);
  EXPECT_EQ(card->ToString(), "G3");
  EXPECT_FALSE(arena::g5211::Card::Parse("Z9"));
  EXPECT_FALSE(arena::g5211::Card::Parse("G7"));
  EXPECT_FALSE(arena::g5211::Card::Parse("G"));
  auto cards = arena::g5211::ParseCards("B1 Y6");
  ASSERT_TRUE(cards);
  ASSERT_EQ(cards->size(), 2u);
  EXPECT_EQ((*cards)[1].ToString(), "Y6");
  EXPECT_FALSE(arena::g5211::ParseCards("B1 Q2"));
}

// ConnectResponses the server sent: the ActionRequest of seat 0 of a 3-player grey-wall Azul match in
// round 2's tiling, and of seat 7 of an 8-player FOOL! match in a trick of round 1 (their observations
// arena.catalogue.observation_to_proto of the engine's, their legal actions the engine's).
constexpr const char* kAzulTiling = "1a97050a016d10013adb031ad80308001003180220642802300242030001024a004a004a004a004a004a004a0060026a7012030a015712030a015212090a01570a01570a015712090a014b0a014b0a014b12060a014b0a014b1a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201592201592201592201596a6812030a015212030a015712060a01570a015712030a014b12060a01570a01571a0b0a000a000a000a01590a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201522201422201422201426a7112030a014b120012030a014212090a014b0a014b0a014b12060a01420a01421a0a0a000a000a000a000a001a0b0a01420a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a0022015322015922015222015222015222015222015272050c070809087a01427a01597a01597a01597a01597a01597a01597a01597a01527a01527a01527a01527a014b7a01577a01577a015782012e08011a001a03313a341a03323a31220022080a0608011004180122080a060802100118012a03060e0132030000004207313a3120333a324207313a3120333a334207313a3120333a344207313a3120333a354207313a3220333a314207313a3220333a334207313a3220333a344207313a3220333a354207313a3320333a314207313a3320333a324207313a3320333a344207313a3320333a354207313a3420333a314207313a3420333a324207313a3420333a334207313a3420333a354207313a3520333a314207313a3520333a324207313a3520333a334207313a3520333a34";
constexpr const char* kFoolTrick = "1aa1040a016d100118073a810422fe03080710081a0247321a0247331a0247341a0247351a0247361a0247371a0247381a0247391a034731301a034731311a034731321a034731331a034731341a034731351a034731361a034731371a034731381a034731391a034732301a034732311a034732321a034732331a034732341a034732351a034732361a034732371a0252321a0252331a0252341a0252351a0252361a0252371a0252381a0252391a035231301a035231311a035231321a035231331a035231341a035231351a035231361a035231371a035231381a035231391a035232301a035232311a035232321a035232331a0259321a0259331a0259341a0259351a0259361a0259371a0259381a0259391a035931301a035931311a035931321a035931331a035931341a035931351a035931361a035931371a035931381a035931391a035932301a035932311a0242321a0242331a0242341a0242351a0242361a0242371a0242381a0242391a034231301a034231311a034231321a034231331a034231341a034231351a0257311a0257311a0257311a0257311a0257311a025731200b28023005380140054a0247394a034732354a0252324a0252384a035231304a035232324a0259334a0259344a0242384a0257314a02573152080b0b0b0b0b0b0a0b58066a0708061203523137700278079a01080000000000000000a20108000000000000000042025232420252384203523130420352323242025731";

// The turn of the ActionRequest in a ConnectResponse's bytes (hex).
arena::Turn TurnOf(const std::string& hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  ConnectResponse response;
  EXPECT_TRUE(response.ParseFromString(bytes));
  EXPECT_TRUE(response.has_action_request());
  return arena::Turn::FromProto(response.action_request());
}

TEST(Azul, AGreyWallTilingTurnHasItsObservationAndItsTilings) {
  auto turn = TurnOf(kAzulTiling);
  EXPECT_EQ(turn.game, "azul");
  const auto& view = arena::azul::Observation(turn);
  EXPECT_EQ(view.wall_side(), arena::v1::AzulObservation::WALL_SIDE_GREY);
  EXPECT_EQ(view.phase(), arena::v1::AzulObservation::PHASE_TILING);
  EXPECT_EQ(view.boards_size(), 3);
  auto actions = arena::azul::LegalActions(turn);
  ASSERT_EQ(actions.size(), turn.legal_actions.size());
  EXPECT_EQ(actions[0].kind, arena::azul::Action::Kind::kTiling);
  EXPECT_EQ(actions[0].tiling, (std::vector<std::pair<int, int>>{{1, 1}, {3, 2}}));
  for (size_t i = 0; i < actions.size(); ++i) EXPECT_EQ(actions[i].ToString(), turn.legal_actions[i]);
  try {
    arena::fool::Observation(turn);
    ADD_FAILURE() << "an Azul turn gave a FOOL! observation";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "match m plays \"azul\", not fool");
  }
}

TEST(Azul, TakesParseAndPrint) {
  auto take = arena::azul::Action::Parse("C K F");
  ASSERT_TRUE(take);
  EXPECT_EQ(take->kind, arena::azul::Action::Kind::kTake);
  EXPECT_EQ(take->source, arena::azul::kCentre);
  EXPECT_EQ(take->colour, 'K');
  EXPECT_EQ(take->target, arena::azul::kFloor);
  EXPECT_EQ(arena::azul::Action::Parse("3 R 4")->target, 4);
  for (const char* text : {"C K F", "0 W 1", "3 R 4", "2:4 5:F"}) EXPECT_EQ(arena::azul::Action::Parse(text)->ToString(), text);
  for (const char* bad : {"", "3 R", "9 R 4", "3 G 4", "3 R 6", "C K F F", "2:6", "3:1 2:4", "2:4:1", "take 1"})
    EXPECT_FALSE(arena::azul::Action::Parse(bad)) << bad;
}

TEST(Fool, ATurnHasItsObservationAndItsCards) {
  auto turn = TurnOf(kFoolTrick);
  EXPECT_EQ(turn.game, "fool");
  const auto& view = arena::fool::Observation(turn);
  EXPECT_EQ(view.num_players(), 8u);
  EXPECT_EQ(view.seat(), 7u);
  EXPECT_GT(view.trick_size(), 0);
  EXPECT_EQ(turn.legal_actions, (std::vector<std::string>{"R2", "R8", "R10", "R22", "W1"}));
  auto cards = arena::fool::LegalCards(turn);
  ASSERT_EQ(cards.size(), 5u);
  EXPECT_EQ(cards[2], (arena::fool::Card{'R', 10}));
  EXPECT_TRUE(cards[4].IsWild());
  for (size_t i = 0; i < cards.size(); ++i) EXPECT_EQ(cards[i].ToString(), turn.legal_actions[i]);
  EXPECT_THROW(arena::azul::Observation(turn), std::invalid_argument);
  for (const char* bad : {"", "G", "G1", "G28", "B16", "W2", "R02", "X5", "g5", "R 5"})
    EXPECT_FALSE(arena::fool::Card::Parse(bad)) << bad;
}

TEST(Backoff, DoublesUpToTheCapWithJitter) {
  EXPECT_EQ(arena::BackoffDelay(0, 500ms, 30s, 1.0), 500ms);
  EXPECT_EQ(arena::BackoffDelay(3, 500ms, 30s, 1.0), 4000ms);
  EXPECT_EQ(arena::BackoffDelay(20, 500ms, 30s, 1.0), 30000ms);
  EXPECT_EQ(arena::BackoffDelay(1, 500ms, 30s, 0.5), 500ms);
  EXPECT_EQ(arena::BackoffDelay(1, 500ms, 30s, 0.0), 500ms);  // jitter is clamped to [0.5, 1]
}

arena::v1::ActionRequest Request(const std::string& match_id, uint64_t sequence,
                                 std::vector<std::string> legal = {"G3 Y1", "B1 B2"}) {
  arena::v1::ActionRequest request;
  request.set_match_id(match_id);
  request.set_sequence(sequence);
  request.set_seat(0);
  request.mutable_allowance()->set_seconds(2);
  request.mutable_time_bank()->set_seconds(3);
  auto* observation = request.mutable_observation()->mutable_game_5211();
  observation->set_seat(0);
  observation->set_num_players(2);
  observation->set_turn(1);
  observation->set_cards_to_lay(2);
  for (const char* card : {"B1", "B2", "G3", "O2", "Y1"}) observation->add_hand_cards(card);
  observation->add_laid_cards();
  observation->add_laid_cards();
  for (auto& action : legal) request.add_legal_actions(action);
  return request;
}

// -- the command line ----------------------------------------------------------------------------

TEST(Cli, ATokenMayStartWithADashInTheEqualsForm) {
  using Split = std::pair<std::string, std::optional<std::string>>;
  EXPECT_EQ(arena::cli::SplitFlag("--token=-x_Y"), (Split{"--token", "-x_Y"}));
  EXPECT_EQ(arena::cli::SplitFlag("--token-file=a=b"), (Split{"--token-file", "a=b"}));
  EXPECT_EQ(arena::cli::SplitFlag("--token"), (Split{"--token", std::nullopt}));
  EXPECT_EQ(arena::cli::SplitFlag("-x=y"), (Split{"-x=y", std::nullopt}));
}

// A temporary file holding `text`, removed at the end of the test.
struct TempFile {
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/arena-token-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path = name;
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
};

std::function<const char*(const char*)> Environment(std::map<std::string, std::string> values) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(values));
  return [shared](const char* name) -> const char* {
    auto found = shared->find(name);
    return found == shared->end() ? nullptr : found->second.c_str();
  };
}

TEST(Cli, TheTokenComesFromTheFlagThenTheFileThenTheEnvironment) {
  TempFile file("  -from_file\n");
  auto env = Environment({{"ARENA_TOKEN", "from_env"}, {"ARENA_BOT_TOKEN", "older"}});
  EXPECT_EQ(arena::cli::TokenFrom("-flag", file.path, env), "-flag");
  EXPECT_EQ(arena::cli::TokenFrom("", file.path, env), "-from_file");
  EXPECT_EQ(arena::cli::TokenFrom("", "", env), "from_env");
  EXPECT_EQ(arena::cli::TokenFrom("", "", Environment({{"ARENA_BOT_TOKEN", "older"}})), "older");
  try {
    arena::cli::TokenFrom("", "", Environment({}));
    ADD_FAILURE() << "no token anywhere, and no error";
  } catch (const arena::cli::TokenError& error) {
    EXPECT_STREQ(error.what(), "give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token");
  }
}

TEST(Cli, AMissingOrEmptyTokenFileIsAnErrorNamingIt) {
  TempFile empty(" \n\t");
  std::string missing = empty.path + "-missing";
  auto env = Environment({{"ARENA_TOKEN", "from_env"}});
  auto error_of = [&](const std::string& path) -> std::string {
    try {
      arena::cli::TokenFrom("", path, env);
    } catch (const arena::cli::TokenError& error) {
      return error.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(error_of(missing), "cannot read the token file '" + missing + "': No such file or directory");
  EXPECT_EQ(error_of(empty.path), "the token file '" + empty.path + "' is empty");
}

TEST(Turn, ReadsTheRequestAndCountsTimeFromReceipt) {
  auto received = arena::Clock::now() - 1s;
  auto turn = arena::Turn::FromProto(Request("m1", 7), received);
  EXPECT_EQ(turn.match_id, "m1");
  EXPECT_EQ(turn.sequence, 7u);
  EXPECT_EQ(turn.game, "5211");  // from the envelope: no MatchStarted here
  EXPECT_EQ(arena::g5211::Observation(turn).hand_cards_size(), 5);
  EXPECT_EQ(turn.legal_actions, (std::vector<std::string>{"G3 Y1", "B1 B2"}));
  EXPECT_NEAR(turn.time_left(), 4.0, 0.2);
  EXPECT_NEAR(turn.free_time_left(), 1.0, 0.2);
  EXPECT_FALSE(turn.is_superseded());
}

TEST(MatchResult, TakesTheSeatsPlacingAndScore) {
  arena::v1::MatchEnded ended;
  ended.set_match_id("m1");
  ended.set_seat(1);
  auto* outcome = ended.mutable_outcome();
  outcome->add_scores(10);
  outcome->add_scores(12);
  outcome->add_placings(2);
  outcome->add_placings(1);
  outcome->add_winners(1);
  auto result = arena::MatchResult::FromProto(ended, nullptr);
  EXPECT_EQ(result.placing, 1u);
  EXPECT_EQ(result.score, 12);
  EXPECT_TRUE(result.won);
}

// -- the heuristic ----------------------------------------------------------------------------------

TEST(Heuristic, LaysHighCardsOfTheLeadingColour) {
  auto request = Request("m", 1, {"B1 O2", "G3 O2", "O2 V6", "V5 V6"});
  auto* observation = request.mutable_observation()->mutable_game_5211();
  observation->clear_hand_cards();
  for (const char* card : {"B1", "G3", "O2", "V5", "V6"}) observation->add_hand_cards(card);
  auto turn = arena::Turn::FromProto(request);
  EXPECT_EQ(arena::bots::Heuristic()(turn), "V5 V6");
}

TEST(Heuristic, DoesNotPushAColourToTheLimit) {
  // Two players (limit 5): four green cards are down in turn 3; a fifth would kill green.
  auto request = Request("m", 1, {"G6", "Y1"});
  auto* observation = request.mutable_observation()->mutable_game_5211();
  observation->set_turn(3);
  observation->set_cards_to_lay(1);
  observation->clear_hand_cards();
  observation->add_hand_cards("G6");
  observation->add_hand_cards("Y1");
  for (const char* card : {"G2", "G3"}) observation->mutable_laid_cards(0)->add_cards(card);
  for (const char* card : {"G1", "G2", "B2"}) observation->mutable_laid_cards(1)->add_cards(card);
  EXPECT_EQ(arena::bots::ChooseHeuristic(*observation, {"G6", "Y1"}), "Y1");
}

TEST(Random, PicksALegalAction) {
  auto strategy = arena::bots::Random(42);
  auto turn = arena::Turn::FromProto(Request("m", 1));
  for (int i = 0; i < 20; ++i) {
    auto action = strategy(turn);
    EXPECT_TRUE(action == "G3 Y1" || action == "B1 B2") << action;
  }
}

// -- the client against a scripted server ---------------------------------------------------------

class ScriptedService final : public arena::v1::BotService::Service {
 public:
  void Add(Script script) {
    std::lock_guard<std::mutex> lock(mu_);
    scripts_.push_back(std::move(script));
  }
  int connections() {
    std::lock_guard<std::mutex> lock(mu_);
    return connections_;
  }
  grpc::Status Connect(grpc::ServerContext*, ServerStream* stream) override {
    Script script;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++connections_;
      if (scripts_.empty()) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no more scripts");
      script = std::move(scripts_.front());
      scripts_.pop_front();
    }
    return script(*stream);
  }

 private:
  std::mutex mu_;
  std::deque<Script> scripts_;
  int connections_ = 0;
};

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_);
    options_.addresses = {"127.0.0.1:" + std::to_string(port_)};
    options_.token = "tok";
    options_.max_matches = 1;
    options_.initial_backoff = 10ms;
    options_.log_level = arena::LogLevel::kError;
  }
  void TearDown() override { server_->Shutdown(std::chrono::system_clock::now() + 1s); }

  // Runs a client to its end (or fails after 10 s); returns the exception it threw, if any.
  std::exception_ptr Run(arena::Strategy strategy, arena::Hooks hooks = {}) {
    arena::Client client(options_, std::move(strategy), std::move(hooks));
    auto done = std::async(std::launch::async, [&] {
      try {
        client.Run();
      } catch (...) {
        return std::current_exception();
      }
      return std::exception_ptr();
    });
    if (done.wait_for(10s) != std::future_status::ready) {
      client.Stop();
      ADD_FAILURE() << "the client did not finish within 10 s";
    }
    return done.get();
  }

  ScriptedService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  arena::Options options_;
};

ConnectResponse Welcome() {
  ConnectResponse response;
  response.mutable_welcome()->set_bot_name("cpp");
  response.mutable_welcome()->mutable_keep_alive_interval()->set_seconds(1);
  return response;
}

ConnectResponse Started(const std::string& match_id, uint32_t seat = 0) {
  ConnectResponse response;
  response.mutable_match_started()->set_match_id(match_id);
  response.mutable_match_started()->set_seat(seat);
  response.mutable_match_started()->set_game("5211");
  response.mutable_match_started()->set_num_players(2);
  return response;
}

ConnectResponse Asked(const std::string& match_id, uint64_t sequence) {
  ConnectResponse response;
  *response.mutable_action_request() = Request(match_id, sequence);
  return response;
}

// A request for `seat` whose only legal action names the seat.
ConnectResponse AskedSeat(const std::string& match_id, uint64_t sequence, uint32_t seat) {
  ConnectResponse response;
  *response.mutable_action_request() = Request(match_id, sequence, {"S" + std::to_string(seat)});
  response.mutable_action_request()->set_seat(seat);
  return response;
}

ConnectResponse Ended(const std::string& match_id, uint32_t seat = 0) {
  ConnectResponse response;
  response.mutable_match_ended()->set_match_id(match_id);
  response.mutable_match_ended()->set_seat(seat);
  response.mutable_match_ended()->mutable_outcome()->add_placings(1);
  response.mutable_match_ended()->mutable_outcome()->add_placings(2);
  return response;
}

// Reads until an Action (skipping pings); false if the stream ends first.
bool ReadAction(ServerStream& stream, arena::v1::Action* action) {
  ConnectRequest request;
  while (stream.Read(&request))
    if (request.has_action()) {
      *action = request.action();
      return true;
    }
  return false;
}

TEST_F(ClientTest, SaysHelloAndEchoesMatchAndSequence) {
  arena::v1::Hello hello;
  arena::v1::Action action;
  service_.Add([&](ServerStream& stream) {
    ConnectRequest first;
    if (!stream.Read(&first)) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no hello");
    hello = first.hello();
    stream.Write(Welcome());
    stream.Write(Started("m1"));
    stream.Write(Asked("m1", 4));
    ReadAction(stream, &action);
    stream.Write(Ended("m1"));
    ReadAction(stream, &action);  // until the client leaves
    return grpc::Status::OK;
  });
  int ended = 0;
  arena::Hooks hooks;
  hooks.on_match_end = [&](const arena::MatchResult& result) { ended += result.placing == 1; };
  EXPECT_FALSE(Run([](const arena::Turn& turn) { return turn.legal_actions.back(); }, hooks));
  EXPECT_EQ(hello.token(), "tok");
  EXPECT_EQ(hello.games_size(), 0);  // every game the bot is registered for
  EXPECT_EQ(action.match_id(), "m1");
  EXPECT_TRUE(action.has_seat());
  EXPECT_EQ(action.seat(), 0u);
  EXPECT_EQ(action.sequence(), 4u);
  EXPECT_EQ(action.text(), "B1 B2");
  EXPECT_EQ(ended, 1);
}

TEST_F(ClientTest, PlaysTwoSeatsOfOneMatchEachAnswerEchoingItsSeat) {
  std::vector<arena::v1::Action> actions(2);
  bool answered = false;
  service_.Add([&](ServerStream& stream) {
    ConnectRequest first;
    if (!stream.Read(&first)) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no hello");
    stream.Write(Welcome());
    stream.Write(Started("m1", 0));
    stream.Write(Started("m1", 1));
    // The same sequence for each seat: neither is a resend of the other.
    stream.Write(AskedSeat("m1", 1, 0));
    stream.Write(AskedSeat("m1", 1, 1));
    answered = ReadAction(stream, &actions[0]) && ReadAction(stream, &actions[1]);
    stream.Write(Ended("m1", 0));
    stream.Write(Ended("m1", 1));
    arena::v1::Action more;
    while (ReadAction(stream, &more)) actions.push_back(more);  // until the client leaves
    return grpc::Status::OK;
  });
  options_.max_matches = 2;  // one per seat
  std::vector<uint32_t> started, ended;
  arena::Hooks hooks;
  hooks.on_match_start = [&](const arena::MatchInfo& match) { started.push_back(match.seat); };
  hooks.on_match_end = [&](const arena::MatchResult& result) { ended.push_back(result.seat); };
  EXPECT_FALSE(Run([](const arena::Turn& turn) { return turn.legal_actions.front(); }, hooks));
  ASSERT_TRUE(answered);
  ASSERT_EQ(actions.size(), 2u);
  std::set<std::string> got;
  for (const auto& action : actions) {
    EXPECT_TRUE(action.has_seat()) << action.DebugString();
    got.insert(std::to_string(action.seat()) + " " + std::to_string(action.sequence()) + " " + action.text());
  }
  EXPECT_EQ(got, (std::set<std::string>{"0 1 S0", "1 1 S1"}));
  EXPECT_EQ(started, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(ended, (std::vector<uint32_t>{0, 1}));
}

TEST_F(ClientTest, ASupersededRequestIsNeverAnswered) {
  std::vector<uint64_t> answered;
  std::promise<void> deciding;  // the decision on request 1 has begun
  service_.Add([&](ServerStream& stream) {
    ConnectRequest hello;
    stream.Read(&hello);
    stream.Write(Welcome());
    stream.Write(Started("m1"));
    stream.Write(Asked("m1", 1));
    deciding.get_future().wait_for(5s);
    stream.Write(Asked("m1", 2));
    arena::v1::Action action;
    ReadAction(stream, &action);
    answered.push_back(action.sequence());
    std::this_thread::sleep_for(200ms);  // time for a (wrong) answer to request 1
    stream.Write(Ended("m1"));
    while (ReadAction(stream, &action)) answered.push_back(action.sequence());
    return grpc::Status::OK;
  });
  options_.max_concurrent_matches = 2;
  std::atomic<bool> first_saw_superseded{false};
  EXPECT_FALSE(Run([&](const arena::Turn& turn) {
    if (turn.sequence == 1) {
      // A slow decision: it sees the newer request supersede it.
      deciding.set_value();
      for (int i = 0; i < 500 && !turn.is_superseded(); ++i) std::this_thread::sleep_for(2ms);
      first_saw_superseded = turn.is_superseded();
    }
    return turn.legal_actions.front();
  }));
  EXPECT_EQ(answered, std::vector<uint64_t>{2});
  EXPECT_TRUE(first_saw_superseded);
}

TEST_F(ClientTest, ReconnectsAndAnswersAResentRequestFromItsCache) {
  std::vector<std::string> tokens;
  arena::v1::Action first, second;
  service_.Add([&](ServerStream& stream) {
    ConnectRequest hello;
    stream.Read(&hello);
    tokens.push_back(hello.hello().token());
    stream.Write(Welcome());
    stream.Write(Started("m1"));
    stream.Write(Asked("m1", 3));
    ReadAction(stream, &first);
    return grpc::Status::OK;  // the server ends the stream: the client must come back
  });
  service_.Add([&](ServerStream& stream) {
    ConnectRequest hello;
    stream.Read(&hello);
    tokens.push_back(hello.hello().token());
    stream.Write(Welcome());
    stream.Write(Started("m1"));
    stream.Write(Asked("m1", 3));  // resent: same sequence
    ReadAction(stream, &second);
    stream.Write(Ended("m1"));
    ReadAction(stream, &second);
    return grpc::Status::OK;
  });
  std::atomic<int> decisions{0}, starts{0}, reconnects{0};
  arena::Hooks hooks;
  hooks.on_match_start = [&](const arena::MatchInfo&) { ++starts; };
  hooks.on_reconnecting = [&](double) { ++reconnects; };
  EXPECT_FALSE(Run(
      [&](const arena::Turn& turn) {
        ++decisions;
        return turn.legal_actions.front();
      },
      hooks));
  EXPECT_EQ(tokens, (std::vector<std::string>{"tok", "tok"}));
  EXPECT_EQ(first.sequence(), 3u);
  EXPECT_EQ(second.sequence(), 3u);
  EXPECT_EQ(second.text(), first.text());
  EXPECT_EQ(decisions, 1);
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(reconnects, 1);
}

TEST_F(ClientTest, PingsAndTakesASilentStreamForDead) {
  int pings = 0;
  service_.Add([&](ServerStream& stream) {
    ConnectRequest request;
    stream.Read(&request);
    auto welcome = Welcome();
    welcome.mutable_welcome()->mutable_keep_alive_interval()->set_seconds(0);
    welcome.mutable_welcome()->mutable_keep_alive_interval()->set_nanos(100'000'000);
    stream.Write(welcome);
    while (stream.Read(&request)) pings += request.has_ping();  // silent until the client gives up
    return grpc::Status::OK;
  });
  service_.Add([&](ServerStream& stream) {
    ConnectRequest hello;
    stream.Read(&hello);
    stream.Write(Welcome());
    stream.Write(Ended("m0"));
    arena::v1::Action action;
    ReadAction(stream, &action);
    return grpc::Status::OK;
  });
  auto started = arena::Clock::now();
  EXPECT_FALSE(Run([](const arena::Turn& turn) { return turn.legal_actions.front(); }));
  EXPECT_EQ(service_.connections(), 2);
  EXPECT_GE(pings, 2);
  EXPECT_LT(arena::Clock::now() - started, 3s);
}

TEST_F(ClientTest, StopFromAnotherThreadEndsRun) {
  std::promise<void> welcomed;
  service_.Add([&](ServerStream& stream) {
    ConnectRequest request;
    stream.Read(&request);
    stream.Write(Welcome());
    while (stream.Read(&request)) {
    }
    return grpc::Status::OK;
  });
  arena::Hooks hooks;
  hooks.on_welcome = [&](const arena::v1::Welcome&) { welcomed.set_value(); };
  options_.max_matches = 0;
  arena::Client client(options_, [](const arena::Turn& turn) { return turn.legal_actions.front(); }, hooks);
  auto done = std::async(std::launch::async, [&] { client.Run(); });
  ASSERT_EQ(welcomed.get_future().wait_for(5s), std::future_status::ready);
  client.Stop();
  ASSERT_EQ(done.wait_for(5s), std::future_status::ready);
  done.get();
}

TEST_F(ClientTest, TriesTheNextAddressWhenOneFails) {
  // A port nobody listens on: bind a socket, note its port, close it.
  int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(bind(socket_fd, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  close(socket_fd);
  int dead_port = ntohs(address.sin_port);
  options_.addresses.insert(options_.addresses.begin(), "127.0.0.1:" + std::to_string(dead_port));
  service_.Add([&](ServerStream& stream) {
    ConnectRequest hello;
    stream.Read(&hello);
    stream.Write(Welcome());
    stream.Write(Ended("m0"));
    arena::v1::Action action;
    ReadAction(stream, &action);
    return grpc::Status::OK;
  });
  EXPECT_FALSE(Run([](const arena::Turn& turn) { return turn.legal_actions.front(); }));
  EXPECT_EQ(service_.connections(), 1);
}

TEST_F(ClientTest, AReplacedConnectionDoesNotComeBack) {
  service_.Add([](ServerStream& stream) {
    ConnectRequest hello;
    stream.Read(&hello);
    stream.Write(Welcome());
    return grpc::Status(grpc::StatusCode::ABORTED, "replaced by a newer connection of the same bot");
  });
  auto error = Run([](const arena::Turn& turn) { return turn.legal_actions.front(); });
  ASSERT_TRUE(error);
  EXPECT_THROW(std::rethrow_exception(error), arena::ConnectionReplacedError);
  EXPECT_EQ(service_.connections(), 1);
}

TEST_F(ClientTest, ARefusedTokenIsFatal) {
  service_.Add([](ServerStream&) { return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "unknown token"); });
  auto error = Run([](const arena::Turn& turn) { return turn.legal_actions.front(); });
  ASSERT_TRUE(error);
  EXPECT_THROW(std::rethrow_exception(error), arena::ConnectionRefusedError);
}

TEST_F(ClientTest, SurvivesBadMessagesAndAFailingStrategy) {
  arena::v1::Action action;
  service_.Add([&](ServerStream& stream) {
    ConnectRequest hello;
    stream.Read(&hello);
    stream.Write(Welcome());
    stream.Write(ConnectResponse());  // no kind set: a newer server's message
    ConnectResponse error;
    error.mutable_error()->set_match_id("nope");
    error.mutable_error()->set_reason("unknown match");
    stream.Write(error);
    ConnectResponse rejected;
    rejected.mutable_action_rejected()->set_match_id("nope");
    stream.Write(rejected);
    ConnectResponse empty_request;
    empty_request.mutable_action_request()->set_match_id("m1");  // no observation, no legal actions
    stream.Write(empty_request);
    stream.Write(Started("m1"));
    stream.Write(Asked("m1", 2));
    ReadAction(stream, &action);
    stream.Write(Ended("m1"));
    ReadAction(stream, &action);
    return grpc::Status::OK;
  });
  std::atomic<int> protocol_errors{0};
  arena::Hooks hooks;
  hooks.on_protocol_error = [&](const arena::v1::ProtocolError&) {
    ++protocol_errors;
    throw std::runtime_error("a hook that fails");
  };
  EXPECT_FALSE(Run([](const arena::Turn&) -> std::string { throw std::runtime_error("no idea"); }, hooks));
  EXPECT_EQ(action.sequence(), 2u);
  EXPECT_EQ(action.text(), "G3 Y1");  // the first legal action, since the strategy failed
  EXPECT_EQ(protocol_errors, 1);
}

// -- the envelope: a turn names no game ----------------------------------------------------------

// Plays one match of `game` whose one request is `request` with `strategy`: the turn it saw and the
// answer the server got.
struct Played {
  arena::Turn turn;
  arena::v1::Action action;
};

class EnvelopeTest : public ClientTest {
 protected:
  Played PlayOne(const std::string& game, const arena::v1::ActionRequest& request, arena::Strategy strategy) {
    Played played;
    service_.Add([&](ServerStream& stream) {
      ConnectRequest hello;
      stream.Read(&hello);
      stream.Write(Welcome());
      ConnectResponse started = Started(request.match_id());
      started.mutable_match_started()->set_game(game);
      stream.Write(started);
      ConnectResponse asked;
      *asked.mutable_action_request() = request;
      stream.Write(asked);
      ReadAction(stream, &played.action);
      stream.Write(Ended(request.match_id()));
      arena::v1::Action ignored;
      ReadAction(stream, &ignored);
      return grpc::Status::OK;
    });
    std::mutex mu;
    EXPECT_FALSE(Run([&](const arena::Turn& turn) {
      {
        std::lock_guard<std::mutex> lock(mu);
        played.turn = turn;
      }
      return strategy(turn);
    }));
    return played;
  }
};

TEST_F(EnvelopeTest, AColorettoTurnCarriesItsGameAndTheColorettoObservation) {
  arena::v1::ActionRequest request;
  request.set_match_id("m");
  request.set_sequence(1);
  auto* view = request.mutable_observation()->mutable_game_coloretto();
  view->set_num_players(3);
  view->set_pile_size(60);
  auto* row = view->add_rows();
  row->add_cards("B");
  row->add_cards("J");
  row->set_capacity(3);
  request.add_legal_actions("draw");
  request.add_legal_actions("take 0");
  auto played = PlayOne("coloretto", request, arena::bots::Random(3));
  EXPECT_TRUE(played.action.text() == "draw" || played.action.text() == "take 0") << played.action.text();
  EXPECT_EQ(played.turn.game, "coloretto");
  EXPECT_EQ(arena::GameOf(played.turn.observation), "coloretto");
  const auto& got = arena::coloretto::Observation(played.turn);
  EXPECT_EQ(got.pile_size(), 60u);
  EXPECT_EQ(got.rows(0).cards(1), "J");
  using Kind = arena::coloretto::Move::Kind;
  EXPECT_EQ(arena::coloretto::LegalMoves(played.turn),
            (std::vector<arena::coloretto::Move>{{Kind::kDraw, -1}, {Kind::kTake, 0}}));
  // Never an empty 5211 message in its place: asking for one is an error naming the game.
  try {
    arena::g5211::Observation(played.turn);
    ADD_FAILURE() << "a Coloretto turn gave a 5211 observation";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "match m plays \"coloretto\", not 5211");
  }
}

TEST_F(EnvelopeTest, ATurnOfAGameThisBuildDoesNotKnowStillHasLegalActionsTheBotsAnswer) {
  // The bytes of a newer arena's request: its envelope (field 7) sets a oneof field (999) unknown here.
  arena::v1::ActionRequest known;
  known.set_match_id("m");
  known.set_sequence(1);
  known.add_legal_actions("pass");
  known.add_legal_actions("play 7");
  std::string bytes = known.SerializeAsString();
  const std::string unknown_game = {'\xba', '\x3e', '\x02', '\x08', '\x01'};  // field 999: a message {1: 1}
  bytes += std::string{'\x3a', static_cast<char>(unknown_game.size())} + unknown_game;
  arena::v1::ActionRequest request;
  ASSERT_TRUE(request.ParseFromString(bytes));
  ASSERT_TRUE(request.has_observation());
  EXPECT_EQ(request.observation().game_case(), arena::v1::Observation::GAME_NOT_SET);
  for (const char* strategy : {"random", "heuristic"}) {
    auto played = PlayOne("some-new-game", request,
                          std::string(strategy) == "random" ? arena::bots::Random(5) : arena::bots::Heuristic(5));
    EXPECT_TRUE(played.action.text() == "pass" || played.action.text() == "play 7")
        << strategy << ": " << played.action.text();
    EXPECT_EQ(played.turn.game, "some-new-game");
    EXPECT_EQ(played.turn.legal_actions, (std::vector<std::string>{"pass", "play 7"}));
    EXPECT_EQ(arena::GameOf(played.turn.observation), "");
    EXPECT_THROW(arena::g5211::Observation(played.turn), std::invalid_argument);
    EXPECT_THROW(arena::coloretto::Observation(played.turn), std::invalid_argument);
  }
}

TEST(Heuristic, PlaysAGameItHasNoHeuristicForAtRandom) {
  arena::v1::ActionRequest request;
  request.set_match_id("m");
  for (const char* action : {"draw", "take 0", "take 2"}) request.add_legal_actions(action);
  request.mutable_observation()->mutable_game_coloretto();
  auto turn = arena::Turn::FromProto(request);
  turn.game = "coloretto";
  auto strategy = arena::bots::Heuristic(7);
  std::set<std::string> seen;
  for (int i = 0; i < 60; ++i) seen.insert(strategy(turn));
  EXPECT_EQ(seen, (std::set<std::string>{"draw", "take 0", "take 2"}));
}

}  // namespace
