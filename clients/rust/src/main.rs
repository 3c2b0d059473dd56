//! `arena-bot`: runs a starter bot against an arena and prints one line per event on stdout.
//!
//! ```text
//! arena-bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH]
//!           [--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]
//! ```
//!
//! The token comes from `--token`, else from `--token-file` (the file's contents, whitespace
//! stripped), else from `$ARENA_TOKEN` (or its older alias `$ARENA_BOT_TOKEN`). The last two keep it
//! out of the process's command line, which other local users can read. A token may start with '-'
//! (`--token=-x` and `--token -x` both work).
//!
//! stdout lines: `welcome <bot_name>`, `started <match_id> <seat>`,
//! `rejected <match_id> <sequence> <fault>`, `ended <match_id> <placing>`, `reconnecting`.
//! Logs go to stderr. Exit status: 0 after N matches, 2 on a usage error, a missing or empty token
//! file, a refused token or when another connection of the bot took over.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use arena_bot::bots::{HeuristicBot, RandomBot};
use arena_bot::{Bot, Client, Event, Turn};

const USAGE: &str = "usage: arena-bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH] \
[--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]
the token: --token, else --token-file, else $ARENA_TOKEN (the last two keep it off the command line)";

/// The environment variables the token may come from, in order.
const TOKEN_VARIABLES: [&str; 2] = ["ARENA_TOKEN", "ARENA_BOT_TOKEN"];

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
    token: Option<String>,
    token_file: Option<String>,
    strategy: String,
    max_matches: Option<u64>,
    invalid_first: bool,
    concurrency: u32,
    seed: Option<u64>,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args {
        servers: Vec::new(),
        token: None,
        token_file: None,
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
            "--token" => args.token = Some(value()?),
            "--token-file" => args.token_file = Some(value()?),
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
    if !matches!(args.strategy.as_str(), "random" | "heuristic") {
        return Err(format!("unknown strategy {:?}: use random or heuristic", args.strategy));
    }
    Ok(args)
}

/// The token: `given` (`--token`), else the contents of the file at `path` (`--token-file`),
/// whitespace stripped, else the first non-empty variable of [`TOKEN_VARIABLES`] (read with
/// `getenv`). The error, one line, says what is wrong: a missing or empty file, or no token anywhere.
fn token_from(
    given: Option<&str>,
    path: Option<&str>,
    getenv: impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    if let Some(token) = given.filter(|token| !token.is_empty()) {
        return Ok(token.to_owned());
    }
    if let Some(path) = path {
        let text = std::fs::read_to_string(path).map_err(|error| {
            let reason = match error.kind() {
                std::io::ErrorKind::NotFound => "No such file or directory".to_owned(),
                std::io::ErrorKind::PermissionDenied => "Permission denied".to_owned(),
                _ => error.to_string(),
            };
            format!("cannot read the token file {path:?}: {reason}")
        })?;
        let token = text.trim();
        if token.is_empty() {
            return Err(format!("the token file {path:?} is empty"));
        }
        return Ok(token.to_owned());
    }
    TOKEN_VARIABLES
        .iter()
        .find_map(|name| getenv(name).filter(|value| !value.is_empty()))
        .ok_or_else(|| "give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token".to_owned())
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
    let token = match token_from(args.token.as_deref(), args.token_file.as_deref(), |name| std::env::var(name).ok()) {
        Ok(token) => token,
        Err(message) => {
            eprintln!("arena-bot: {message}");
            return ExitCode::from(2);
        }
    };
    let strategy = match args.strategy.as_str() {
        "random" => Strategy::Random(RandomBot::new(args.seed)),
        _ => Strategy::Heuristic(HeuristicBot::new(args.seed)),
    };
    let bot = CliBot { strategy, invalid_first: AtomicBool::new(args.invalid_first) };
    let mut client = Client::new(args.servers, token).max_concurrent_matches(args.concurrency);
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
    use std::collections::HashMap;

    use super::{parse_args, token_from};

    fn parse(line: &str) -> Result<super::Args, String> {
        parse_args(line.split_whitespace().map(String::from))
    }

    #[test]
    fn the_command_line_reads_every_flag() {
        let args =
            parse("--server a:1,b:2 --server c:3 --token t --strategy random --max-matches 3 --invalid-first").unwrap();
        assert_eq!(args.servers, ["a:1", "b:2", "c:3"]);
        assert_eq!((args.token.as_deref(), args.strategy.as_str()), (Some("t"), "random"));
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

    #[test]
    fn a_token_may_start_with_a_dash_in_either_form() {
        assert_eq!(parse("--server a:1 --token=-x_Y").unwrap().token.as_deref(), Some("-x_Y"));
        assert_eq!(parse("--token -x_Y --server a:1").unwrap().token.as_deref(), Some("-x_Y"));
        assert_eq!(parse("--server a:1 --token-file=-f").unwrap().token_file.as_deref(), Some("-f"));
    }

    fn environment(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let values: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| values.get(name).cloned()
    }

    /// A fresh folder for one test's files, removed with everything in it when dropped (also when
    /// an assertion fails and the test unwinds).
    struct Folder(std::path::PathBuf);

    impl Folder {
        fn join(&self, name: &str) -> std::path::PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn folder(name: &str) -> Folder {
        let path = std::env::temp_dir().join(format!("arena-bot-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    #[test]
    fn the_token_comes_from_the_flag_then_the_file_then_the_environment() {
        let folder = folder("precedence");
        let file = folder.join("token");
        std::fs::write(&file, "  -from_file\n").unwrap();
        let file = file.to_str().unwrap();
        let env = || environment(&[("ARENA_TOKEN", "from_env"), ("ARENA_BOT_TOKEN", "older")]);
        assert_eq!(token_from(Some("-flag"), Some(file), env()).unwrap(), "-flag");
        assert_eq!(token_from(None, Some(file), env()).unwrap(), "-from_file");
        assert_eq!(token_from(None, None, env()).unwrap(), "from_env");
        assert_eq!(token_from(Some(""), None, env()).unwrap(), "from_env");
        assert_eq!(token_from(None, None, environment(&[("ARENA_BOT_TOKEN", "older")])).unwrap(), "older");
        assert_eq!(
            token_from(None, None, environment(&[])).unwrap_err(),
            "give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token"
        );
    }

    #[test]
    fn a_missing_or_empty_token_file_is_an_error_naming_it() {
        let folder = folder("missing");
        let empty = folder.join("empty");
        std::fs::write(&empty, " \n\t").unwrap();
        let (empty, missing) = (empty.to_str().unwrap(), folder.join("missing"));
        let missing = missing.to_str().unwrap();
        let env = || environment(&[("ARENA_TOKEN", "from_env")]);
        assert_eq!(
            token_from(None, Some(missing), env()).unwrap_err(),
            format!("cannot read the token file {missing:?}: No such file or directory")
        );
        assert_eq!(token_from(None, Some(empty), env()).unwrap_err(), format!("the token file {empty:?} is empty"));
    }
}
