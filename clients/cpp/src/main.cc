// bin/bot: a starter bot on the command line.
//
//   bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH] [--strategy random|heuristic]
//       [--max-matches N] [--invalid-first] [--concurrency N] [--seed N] [--tls] [--root-certs FILE] [-v|-q]
//
// The token comes from --token, else from --token-file (the file's contents, whitespace stripped),
// else from $ARENA_TOKEN (or its older alias $ARENA_BOT_TOKEN). The last two keep it out of the process's
// command line, which other local users can read. A flag's value may be given as --name=value, and
// may start with '-' (as a token may) in either form.
//
// Prints one line per event on stdout (flushed): "welcome <bot_name>", "started <match_id> <seat>",
// "rejected <match_id> <sequence> <fault>", "ended <match_id> <placing>", "reconnecting". Logs go to
// stderr. Exit status: 0 after N matches or a graceful stop on SIGINT/SIGTERM (a second signal
// exits at once), 2 for a usage error, a missing or empty token file, a refused token or a connection
// replaced by a newer one.
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "arena/bot.h"
#include "arena/bots.h"
#include "arena/cli.h"

namespace {

const char kUsage[] =
    "usage: bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH] [--strategy random|heuristic]\n"
    "           [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]\n"
    "           [--tls] [--root-certs FILE] [-v|--verbose] [-q|--quiet]\n"
    "\n"
    "Plays every game the arena hosts until killed, or until N matches have ended.\n"
    "  --server        arena address(es), comma-separated or repeated; tried in turn\n"
    "  --token         the bot's token (visible to local users: prefer $ARENA_TOKEN or --token-file)\n"
    "  --token-file    read the bot's token from this file (default: $ARENA_TOKEN)\n"
    "  --strategy      random or heuristic (default: heuristic)\n"
    "  --max-matches   exit 0 after N matches have ended (default: never)\n"
    "  --invalid-first answer the very first request with the invalid action Z9\n"
    "  --concurrency   matches played at once (default: 8)\n"
    "  --seed          seed of the random choices (default: random)\n"
    "  --tls           connect with TLS (system roots); --root-certs FILE: PEM roots, implies TLS\n"
    "  -v, -q          log everything / only warnings and errors (stderr)\n";

[[noreturn]] void Usage(const std::string& error) {
  std::cerr << "bot: " << error << "\n\n" << kUsage;
  std::exit(2);
}

unsigned long Number(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    unsigned long value = std::stoul(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  Usage(flag + " needs a number, not '" + text + "'");
}

std::mutex out_mu;

template <typename... Parts>
void Event(const Parts&... parts) {
  std::lock_guard<std::mutex> lock(out_mu);
  (std::cout << ... << parts) << std::endl;
}

std::atomic<arena::Client*> running_client{nullptr};

}  // namespace

int main(int argc, char** argv) {
  arena::Options options;
  options.max_concurrent_matches = 8;
  std::string token, token_file;
  std::string strategy_name = "heuristic";
  bool invalid_first = false;
  uint64_t seed = 0;
  for (int i = 1; i < argc; ++i) {
    auto [arg, inline_value] = arena::cli::SplitFlag(argv[i]);
    bool value_taken = false;
    auto value = [&, &arg = arg, &inline_value = inline_value]() -> std::string {
      value_taken = true;
      if (inline_value) return *inline_value;
      if (i + 1 >= argc) Usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--server") {
      std::stringstream list(value());
      for (std::string address; std::getline(list, address, ',');)
        if (!address.empty()) options.addresses.push_back(address);
    } else if (arg == "--token") {
      token = value();
    } else if (arg == "--token-file") {
      token_file = value();
    } else if (arg == "--strategy") {
      strategy_name = value();
    } else if (arg == "--max-matches") {
      options.max_matches = static_cast<uint32_t>(Number(arg, value()));
    } else if (arg == "--invalid-first") {
      invalid_first = true;
    } else if (arg == "--concurrency") {
      options.max_concurrent_matches = static_cast<uint32_t>(Number(arg, value()));
    } else if (arg == "--seed") {
      seed = Number(arg, value());
    } else if (arg == "--tls") {
      options.tls = true;
    } else if (arg == "--root-certs") {
      std::string path = value();
      std::ifstream file(path);
      if (!file) Usage("cannot read " + path);
      options.root_certificates.assign(std::istreambuf_iterator<char>(file), {});
    } else if (arg == "-v" || arg == "--verbose") {
      options.log_level = arena::LogLevel::kDebug;
    } else if (arg == "-q" || arg == "--quiet") {
      options.log_level = arena::LogLevel::kWarning;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else {
      Usage("unknown argument '" + arg + "'");
    }
    if (inline_value && !value_taken) Usage(arg + " takes no value");
  }
  if (options.addresses.empty()) Usage("give the arena's address with --server HOST:PORT");
  try {
    options.token = arena::cli::TokenFrom(token, token_file, [](const char* name) { return std::getenv(name); });
  } catch (const arena::cli::TokenError& error) {
    std::cerr << "bot: " << error.what() << "\n";
    return 2;
  }

  arena::Strategy strategy;
  if (strategy_name == "random")
    strategy = arena::bots::Random(seed);
  else if (strategy_name == "heuristic")
    strategy = arena::bots::Heuristic(seed);
  else
    Usage("unknown strategy '" + strategy_name + "': use random or heuristic");
  if (invalid_first) {
    auto first = std::make_shared<std::atomic<bool>>(true);
    strategy = [first, inner = std::move(strategy)](const arena::Turn& turn) -> std::string {
      if (first->exchange(false)) return "Z9";  // not a card: the server rejects it as invalid
      return inner(turn);
    };
  }

  arena::Hooks hooks;
  hooks.on_welcome = [](const arena::v1::Welcome& welcome) { Event("welcome ", welcome.bot_name()); };
  hooks.on_match_start = [](const arena::MatchInfo& match) { Event("started ", match.match_id, " ", match.seat); };
  hooks.on_action_rejected = [](const arena::v1::ActionRejected& rejection) {
    Event("rejected ", rejection.match_id(), " ", rejection.sequence(), " ", arena::v1::Fault_Name(rejection.fault()));
  };
  hooks.on_match_end = [](const arena::MatchResult& result) { Event("ended ", result.match_id, " ", result.placing); };
  hooks.on_reconnecting = [](double) { Event("reconnecting"); };

  // SIGINT and SIGTERM stop the bot gracefully: a thread waits for them (blocked everywhere else).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    for (bool first = true;; first = false) {
      int signal = 0;
      sigwait(&signals, &signal);
      arena::Client* client = running_client.load();
      if (!client || !first) std::_Exit(128 + signal);  // not playing, or asked twice: leave now
      client->Stop();
    }
  }).detach();

  arena::Client client(options, strategy, hooks);
  running_client = &client;
  int status = 0;
  try {
    client.Run();
  } catch (const arena::Error& error) {
    std::cerr << "bot: " << error.what() << std::endl;
    status = 2;
  }
  running_client = nullptr;
  return status;
}
