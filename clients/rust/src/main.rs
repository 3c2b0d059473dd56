//! `arena-bot`: runs a starter bot against an arena and prints one line per event on stdout.
//!
//! ```text
//! arena-bot --server HOST:PORT[,HOST:PORT...] --token TOKEN [--strategy random|heuristic]
//!           [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]
//! ```
//!
//! stdout lines: `welcome <bot_name>`, `started <match_id> <seat>`,
//! `rejected <match_id> <sequence> <fault>`, `ended <match_id> <placing>`, `reconnecting`.
//! Logs go to stderr. Exit status: 0 after N matches, 2 on a usage error, a refused token or when
//! another connection of the bot took over.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use arena_bot::bots::{HeuristicBot, RandomBot};
use arena_bot::{Bot, Client, Event, Turn};

const USAGE: &str = "usage: arena-bot --server HOST:PORT[,HOST:PORT...] --token TOKEN \
[--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]";

enum Strategy {
    Random(RandomBot),
    Heuristic(HeuristicBot),
}

/// A starter bot that prints its events, and may answer its first request with an invalid action.
struct CliBot {
    strategy: Strategy,
    invalid_first: AtomicBool,
}

impl Bot for CliBot {
    fn act(&self, turn: &Turn) -> String {
        if self.invalid_first.swap(false, Ordering::SeqCst) {
            return "Z9".to_owned();
        }
        match &self.strategy {
            Strategy::Random(bot) => bot.act(turn),
            Strategy::Heuristic(bot) => bot.act(turn),
        }
    }

    fn on_event(&self, event: &Event) {
        arena_bot::log_event(event);
        let line = match event {
            Event::Welcome(w) => format!("welcome {}", w.bot_name),
            Event::MatchStarted(m) => format!("started {} {}", m.match_id, m.seat),
            Event::ActionRejected(r) => {
                format!("rejected {} {} {}", r.match_id, r.sequence, arena_bot::fault_name(r.fault))
            }
            Event::MatchEnded(r) => {
                format!("ended {} {}", r.match_id, r.placing.map_or_else(|| "-".to_owned(), |p| p.to_string()))
            }
            Event::Reconnecting { .. } => "reconnecting".to_owned(),
            Event::ProtocolError(_) => return,
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

struct Args {
    servers: Vec<String>,
    token: String,
    strategy: String,
    max_matches: Option<u64>,
    invalid_first: bool,
    concurrency: u32,
    seed: Option<u64>,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args {
        servers: Vec::new(),
        token: std::env::var("ARENA_TOKEN").unwrap_or_default(),
        strategy: "heuristic".into(),
        max_matches: None,
        invalid_first: false,
        concurrency: 4,
        seed: None,
    };
    while let Some(flag) = argv.next() {
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name.to_owned(), Some(value.to_owned())),
            _ => (flag.clone(), None),
        };
        let mut value = || inline.clone().or_else(|| argv.next()).ok_or(format!("{name} needs a value"));
        let number = |text: String| text.parse::<u64>().map_err(|_| format!("{name}: not a number: {text:?}"));
        match name.as_str() {
            "--server" => {
                args.servers.extend(value()?.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from))
            }
            "--token" => args.token = value()?,
            "--strategy" => args.strategy = value()?,
            "--max-matches" => args.max_matches = Some(number(value()?)?),
            "--concurrency" => args.concurrency = number(value()?)?.clamp(1, 1024) as u32,
            "--seed" => args.seed = Some(number(value()?)?),
            "--invalid-first" => args.invalid_first = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if args.servers.is_empty() {
        return Err("give the arena address with --server HOST:PORT".into());
    }
    if args.token.is_empty() {
        return Err("give the bot's token with --token (or ARENA_TOKEN)".into());
    }
    if !matches!(args.strategy.as_str(), "random" | "heuristic") {
        return Err(format!("unknown strategy {:?}: use random or heuristic", args.strategy));
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            if message.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("arena-bot: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let strategy = match args.strategy.as_str() {
        "random" => Strategy::Random(RandomBot::new(args.seed)),
        _ => Strategy::Heuristic(HeuristicBot::new(args.seed)),
    };
    let bot = CliBot { strategy, invalid_first: AtomicBool::new(args.invalid_first) };
    let mut client = Client::new(args.servers, args.token).max_concurrent_matches(args.concurrency);
    if let Some(n) = args.max_matches {
        client = client.max_matches(n);
    }
    match client.run_blocking(bot) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("arena-bot: {error}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_args;

    fn parse(line: &str) -> Result<super::Args, String> {
        parse_args(line.split_whitespace().map(String::from))
    }

    #[test]
    fn the_command_line_reads_every_flag() {
        let args =
            parse("--server a:1,b:2 --server c:3 --token t --strategy random --max-matches 3 --invalid-first").unwrap();
        assert_eq!(args.servers, ["a:1", "b:2", "c:3"]);
        assert_eq!((args.token.as_str(), args.strategy.as_str()), ("t", "random"));
        assert_eq!(args.max_matches, Some(3));
        assert!(args.invalid_first);
        assert_eq!(parse("--server=a:1 --token=t").unwrap().servers, ["a:1"]);
    }

    #[test]
    fn bad_command_lines_are_refused() {
        assert!(parse("--token t").is_err());
        assert!(parse("--server a:1 --token t --strategy clever").is_err());
        assert!(parse("--server a:1 --token t --max-matches x").is_err());
        assert!(parse("--server a:1 --token t --what").is_err());
    }
}
