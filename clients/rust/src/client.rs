//! The connection to the arena: Hello, the stream's messages, decisions, keep-alive and reconnects.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::UnboundedReceiverStream;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Status};

use crate::proto::bot_service_client::BotServiceClient;
use crate::proto::connect_request::Kind as RequestKind;
use crate::proto::connect_response::Kind as ResponseKind;
use crate::proto::{
    Action, ActionRejected, ActionRequest, ConnectRequest, ConnectResponse, Fault, Hello, MatchEnded, MatchStarted,
    Observation, Outcome, Ping, ProtocolError, TimeControl, Welcome,
};
use crate::rng::Rng;

/// Sent in Hello as the client's name, for the server's logs.
pub const CLIENT_NAME: &str = "arena-bot-rust";
/// Sent in Hello as the client's version.
pub const CLIENT_VERSION: &str = env!("CARGO_PKG_VERSION");
/// A stream that says nothing for this many keep-alive intervals is taken for dead.
const SILENT_INTERVALS: u32 = 3;
/// How long to wait for the connection and the Welcome.
const WELCOME_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one dial may take before the next address is tried.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A bot: the one callback the SDK calls for every decision, and an optional event hook.
///
/// Any `Fn(&Turn) -> String + Send + Sync + 'static` closure is a `Bot`.
pub trait Bot: Send + Sync + 'static {
    /// Choose an action for `turn`: one of `turn.legal_actions` (e.g. `"G3 Y1"` in 5211, `"take 2"` in Coloretto).
    ///
    /// Runs on a blocking thread of its own, so it may take its time (see [`Turn::time_left`]); a
    /// panic is logged and the first legal action is sent instead.
    fn act(&self, turn: &Turn) -> String;

    /// Called on the SDK's own thread for each [`Event`]; the default logs it to stderr. Keep it
    /// quick: the stream waits for it.
    fn on_event(&self, event: &Event) {
        log_event(event);
    }
}

impl<F> Bot for F
where
    F: Fn(&Turn) -> String + Send + Sync + 'static,
{
    fn act(&self, turn: &Turn) -> String {
        self(turn)
    }
}

/// Something the bot may want to hear about, passed to [`Bot::on_event`].
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // a few events a match: not worth boxing
pub enum Event {
    /// The server accepted the Hello (after every connect and reconnect).
    Welcome(Welcome),
    /// A match started (said once per match, not again when the server resends it after a reconnect).
    MatchStarted(Arc<MatchInfo>),
    /// The server did not use an action (late, invalid or illegal) and played a fallback instead.
    ActionRejected(ActionRejected),
    /// The server could not use an Action (stale or unknown sequence): no strike, but out of step.
    ProtocolError(ProtocolError),
    /// A match ended.
    MatchEnded(MatchResult),
    /// The stream dropped or could not be opened; the next attempt goes to `address` after `delay`.
    Reconnecting {
        /// Why the last stream ended.
        reason: String,
        /// The address tried next.
        address: String,
        /// The wait before that attempt (backoff with jitter).
        delay: Duration,
    },
}

/// A match the bot plays in, as announced by `MatchStarted`.
#[derive(Clone, Debug)]
pub struct MatchInfo {
    /// The match's id.
    pub match_id: String,
    /// The game, by registry name (e.g. "5211").
    pub game: String,
    /// The bot's seat, 0-based.
    pub seat: u32,
    /// The number of seats.
    pub num_players: u32,
    /// The registered bot names in seat order.
    pub bot_names: Vec<String>,
    /// The match's time control.
    pub time_control: Option<TimeControl>,
    /// The game's rules options.
    pub options: HashMap<String, String>,
}

impl From<MatchStarted> for MatchInfo {
    fn from(message: MatchStarted) -> Self {
        MatchInfo {
            match_id: message.match_id,
            game: message.game,
            seat: message.seat,
            num_players: message.num_players,
            bot_names: message.bot_names,
            time_control: message.time_control,
            options: message.options,
        }
    }
}

/// A match's end, as told by `MatchEnded`.
#[derive(Clone, Debug)]
pub struct MatchResult {
    /// The match's id.
    pub match_id: String,
    /// The bot's seat.
    pub seat: u32,
    /// The seat's placing (1 = a winner), if the outcome has one for the seat.
    pub placing: Option<u32>,
    /// The seat's final score, if the outcome has one for the seat.
    pub score: Option<i64>,
    /// The whole outcome: termination, scores, placings, winners, forfeits.
    pub outcome: Outcome,
    /// The seat's final observation envelope, when the match ended by the rules (see [`crate::games`]).
    pub final_observation: Option<Observation>,
    /// The match as announced, if this connection heard its start.
    pub info: Option<Arc<MatchInfo>>,
}

/// One decision to make: what the seat may know now, and what it may do.
#[derive(Clone, Debug)]
pub struct Turn {
    /// The match.
    pub match_id: String,
    /// The request's sequence number (the SDK echoes it).
    pub sequence: u64,
    /// The bot's seat, 0-based.
    pub seat: u32,
    /// The game, by registry name (e.g. "5211", "coloretto"), from the match's `MatchStarted` (empty if
    /// this connection missed it).
    pub game: String,
    /// The observation envelope: exactly what this seat may know, in the field of its `oneof game` that
    /// the game sets (none for a game this build does not know). The helpers in [`crate::games`] (e.g.
    /// `games::g5211::observation(turn)`) read it for you.
    pub observation: Option<Observation>,
    /// Every legal action now, in the game's notation (e.g. "G3 Y1" in 5211, "take 2" in Coloretto).
    pub legal_actions: Vec<String>,
    /// One line saying what an action looks like now.
    pub action_hint: String,
    /// The time this decision may take without spending the time bank.
    pub allowance: Duration,
    /// What is left of the seat's time bank for the match.
    pub time_bank: Duration,
    /// When the SDK received the request (the clock for [`Turn::time_left`]).
    pub received_at: Instant,
    /// The match as announced by `MatchStarted`.
    pub info: Option<Arc<MatchInfo>>,
    latest: Arc<AtomicU64>,
}

impl Turn {
    /// Builds a turn from a request, e.g. to test a bot offline.
    pub fn from_request(request: ActionRequest, info: Option<Arc<MatchInfo>>) -> Turn {
        let sequence = request.sequence;
        Turn::new(request, info, Arc::new(AtomicU64::new(sequence)))
    }

    fn new(request: ActionRequest, info: Option<Arc<MatchInfo>>, latest: Arc<AtomicU64>) -> Turn {
        let game = info.as_ref().map(|info| info.game.clone()).unwrap_or_default();
        let observation = request.observation;
        Turn {
            match_id: request.match_id,
            sequence: request.sequence,
            seat: request.seat,
            game,
            observation,
            legal_actions: request.legal_actions,
            action_hint: request.action_hint,
            allowance: duration(request.allowance),
            time_bank: duration(request.time_bank),
            received_at: Instant::now(),
            info,
            latest,
        }
    }

    /// Time before the action is late (allowance plus time bank, less the time since receipt).
    pub fn time_left(&self) -> Duration {
        (self.allowance + self.time_bank).saturating_sub(self.received_at.elapsed())
    }

    /// Time before the time bank starts being spent.
    pub fn free_time_left(&self) -> Duration {
        self.allowance.saturating_sub(self.received_at.elapsed())
    }

    /// Whether a newer request for the same match has arrived: this turn's answer will be dropped.
    pub fn is_superseded(&self) -> bool {
        self.latest.load(Ordering::Relaxed) != self.sequence
    }
}

/// Why [`Client::run`] gave up.
#[derive(Debug)]
pub enum Error {
    /// Another connection with the same token took over (the server ended the stream with ABORTED).
    /// Reconnecting would take the seat back and start a tug of war, so the SDK stops.
    Replaced(String),
    /// The server refused the token or the Hello (UNAUTHENTICATED, PERMISSION_DENIED,
    /// INVALID_ARGUMENT): retrying cannot help.
    Refused {
        /// The gRPC status code.
        code: Code,
        /// The server's explanation.
        message: String,
    },
    /// The client was set up wrongly (no address, an address that does not parse).
    Config(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Replaced(why) => write!(f, "another connection of this bot took over: {why}"),
            Error::Refused { code, message } => write!(f, "the arena refused the connection: {code:?}: {message}"),
            Error::Config(why) => write!(f, "bad client configuration: {why}"),
        }
    }
}

impl std::error::Error for Error {}

/// Stops a running [`Client`] from any thread: `run` then returns `Ok(())`.
#[derive(Clone, Debug)]
pub struct Stopper(watch::Sender<bool>);

impl Stopper {
    /// Ask the client to disconnect and return.
    pub fn stop(&self) {
        self.0.send_replace(true);
    }
}

/// Connects a [`Bot`] to the arena and plays until stopped. Build it, adjust it, then `run`.
#[derive(Debug)]
pub struct Client {
    addresses: Vec<String>,
    token: String,
    games: Vec<String>,
    max_concurrent_matches: u32,
    max_matches: Option<u64>,
    initial_backoff: Duration,
    max_backoff: Duration,
    stop: watch::Sender<bool>,
}

impl Client {
    /// A client for `addresses` (`host:port`, tried in turn) with the bot's secret token.
    pub fn new<I, S>(addresses: I, token: impl Into<String>) -> Client
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Client {
            addresses: addresses.into_iter().map(Into::into).collect(),
            token: token.into(),
            games: Vec::new(),
            max_concurrent_matches: 1,
            max_matches: None,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            stop: watch::channel(false).0,
        }
    }

    /// The games this connection plays, by registry name (default none: every game the bot is registered for).
    pub fn games<I: IntoIterator<Item = S>, S: Into<String>>(mut self, games: I) -> Client {
        self.games = games.into_iter().map(Into::into).collect();
        self
    }

    /// How many matches to play at once (default 1).
    pub fn max_concurrent_matches(mut self, n: u32) -> Client {
        self.max_concurrent_matches = n.max(1);
        self
    }

    /// Return after this many matches have ended, a match counted once per seat the bot held in it
    /// (default: play until stopped).
    pub fn max_matches(mut self, n: u64) -> Client {
        self.max_matches = Some(n);
        self
    }

    /// The reconnect backoff: the first wait and the cap (default 0.5 s and 30 s).
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Client {
        self.initial_backoff = initial;
        self.max_backoff = max.max(initial);
        self
    }

    /// A handle that stops [`Client::run`] from anywhere.
    pub fn stopper(&self) -> Stopper {
        Stopper(self.stop.clone())
    }

    /// Runs [`Client::run`] on a new tokio runtime, blocking the calling thread.
    pub fn run_blocking<B: Bot>(self, bot: B) -> Result<(), Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Config(format!("cannot start the tokio runtime: {e}")))?;
        runtime.block_on(self.run(bot))
    }

    /// Connects and plays, reconnecting as needed, until stopped, `max_matches` matches have
    /// ended, the token is refused, or another connection of the bot takes over.
    pub async fn run<B: Bot>(self, bot: B) -> Result<(), Error> {
        if self.addresses.is_empty() {
            return Err(Error::Config("give at least one arena address (host:port)".into()));
        }
        let mut endpoints = Vec::new();
        for address in &self.addresses {
            endpoints.push(endpoint(address)?);
        }
        let runner = Arc::new(Runner {
            bot,
            hello: Hello {
                token: self.token.clone(),
                games: self.games.clone(),
                max_concurrent_matches: self.max_concurrent_matches,
                client_name: CLIENT_NAME.into(),
                client_version: CLIENT_VERSION.into(),
            },
            max_matches: self.max_matches,
            state: Mutex::new(State::default()),
            stop: self.stop.clone(),
        });
        let mut stop = self.stop.subscribe();
        let mut rng = Rng::from_entropy();
        let mut index = 0;
        let mut backoff = self.initial_backoff;
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            let end = runner.session(&self.addresses[index], &endpoints[index]).await?;
            if *stop.borrow() {
                return Ok(());
            }
            let delay = if end.welcomed {
                // The connection worked: come back to the same address, quickly.
                backoff = self.initial_backoff;
                self.initial_backoff.mul_f64(rng.uniform(0.5, 1.0))
            } else {
                index = (index + 1) % self.addresses.len();
                if index == 0 {
                    // Every address failed once more: wait longer each round.
                    let delay = backoff.mul_f64(rng.uniform(0.5, 1.0));
                    backoff = (backoff * 2).min(self.max_backoff);
                    delay
                } else {
                    Duration::ZERO
                }
            };
            runner.bot.on_event(&Event::Reconnecting {
                reason: end.reason,
                address: self.addresses[index].clone(),
                delay,
            });
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = stop.wait_for(|stopped| *stopped) => return Ok(()),
            }
        }
    }
}

/// `host:port` (or a full `http://` URI) as a tonic endpoint.
fn endpoint(address: &str) -> Result<Endpoint, Error> {
    let uri = if address.contains("://") { address.to_owned() } else { format!("http://{address}") };
    Endpoint::from_shared(uri)
        .map(|e| e.connect_timeout(CONNECT_TIMEOUT).tcp_nodelay(true))
        .map_err(|e| Error::Config(format!("bad arena address {address:?}: {e}")))
}

/// How one stream ended, when it was not fatal.
struct SessionEnd {
    welcomed: bool,
    reason: String,
}

/// One seat the bot plays: (match id, seat). Everything per match is kept per seat, since a match
/// may seat the bot more than once.
type SeatKey = (String, u32);

/// Per-seat bookkeeping (one per match the bot holds one seat in).
#[derive(Default)]
struct MatchState {
    info: Option<Arc<MatchInfo>>,
    /// The newest request sequence seen (shared with that request's [`Turn`]).
    latest: Arc<AtomicU64>,
    has_request: bool,
    /// The sequence whose decision is being computed.
    working: Option<u64>,
    /// The last answer: sequence, text, and the stream it went out on (None: not sent yet).
    answer: Option<(u64, String, Option<u64>)>,
}

#[derive(Default)]
struct State {
    /// The live stream: its id and its outgoing queue.
    stream: Option<(u64, mpsc::UnboundedSender<ConnectRequest>)>,
    next_stream_id: u64,
    matches: HashMap<SeatKey, MatchState>,
    /// Seats of matches already told as ended (a resent end is not counted twice).
    ended: HashSet<SeatKey>,
}

struct Runner<B: Bot> {
    bot: B,
    hello: Hello,
    max_matches: Option<u64>,
    state: Mutex<State>,
    stop: watch::Sender<bool>,
}

impl<B: Bot> Runner<B> {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a harmful way.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// One stream, from Hello until it ends. `Err` only for what must not be retried.
    async fn session(self: &Arc<Self>, address: &str, endpoint: &Endpoint) -> Result<SessionEnd, Error> {
        let fail = |welcomed: bool, reason: String| Ok(SessionEnd { welcomed, reason });
        let mut stop = self.stop.subscribe();
        let channel: Channel = match tokio::time::timeout(WELCOME_TIMEOUT, endpoint.connect()).await {
            Ok(Ok(channel)) => channel,
            Ok(Err(e)) => return fail(false, format!("{address}: cannot connect: {e}")),
            Err(_) => return fail(false, format!("{address}: cannot connect: timed out")),
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let _ = tx.send(request(RequestKind::Hello(self.hello.clone())));
        let mut client = BotServiceClient::new(channel);
        let call = tokio::select! {
            call = tokio::time::timeout(WELCOME_TIMEOUT, client.connect(UnboundedReceiverStream::new(rx))) => call,
            _ = stop.wait_for(|stopped| *stopped) => return fail(false, "stopped".into()),
        };
        let mut inbound = match call {
            Ok(Ok(response)) => response.into_inner(),
            Ok(Err(status)) => return classify(status, false, address),
            Err(_) => return fail(false, format!("{address}: no answer to Hello")),
        };
        let stream_id = {
            let mut state = self.lock();
            state.next_stream_id += 1;
            let id = state.next_stream_id;
            state.stream = Some((id, tx.clone()));
            id
        };
        let mut pinger: Option<tokio::task::JoinHandle<()>> = None;
        let mut silence = WELCOME_TIMEOUT;
        let mut welcomed = false;
        let end = loop {
            let next = tokio::select! {
                next = tokio::time::timeout(silence, inbound.message()) => next,
                _ = stop.wait_for(|stopped| *stopped) => break fail(welcomed, "stopped".into()),
            };
            let message = match next {
                Err(_) => break fail(welcomed, format!("{address}: nothing heard for {silence:?}")),
                Ok(Err(status)) => break classify(status, welcomed, address),
                Ok(Ok(None)) => break fail(welcomed, format!("{address}: the server ended the stream")),
                Ok(Ok(Some(ConnectResponse { kind: None }))) => continue, // a kind this client does not know
                Ok(Ok(Some(ConnectResponse { kind: Some(kind) }))) => kind,
            };
            if let ResponseKind::Welcome(welcome) = &message {
                welcomed = true;
                let interval = duration(welcome.keep_alive_interval);
                if !interval.is_zero() {
                    silence = interval * SILENT_INTERVALS;
                    if pinger.is_none() {
                        pinger = Some(tokio::spawn(ping(tx.clone(), interval)));
                    }
                } else {
                    silence = Duration::from_secs(3600);
                }
            }
            self.dispatch(message, stream_id);
            if *stop.borrow() {
                break fail(welcomed, "stopped".into());
            }
        };
        if let Some(pinger) = pinger {
            pinger.abort();
        }
        let mut state = self.lock();
        if state.stream.as_ref().is_some_and(|(id, _)| *id == stream_id) {
            state.stream = None;
        }
        end
    }

    fn dispatch(self: &Arc<Self>, message: ResponseKind, stream_id: u64) {
        match message {
            ResponseKind::Welcome(welcome) => self.bot.on_event(&Event::Welcome(welcome)),
            ResponseKind::MatchStarted(started) => {
                let info = Arc::new(MatchInfo::from(started));
                let first = {
                    let mut state = self.lock();
                    let entry = state.matches.entry((info.match_id.clone(), info.seat)).or_default();
                    let first = entry.info.is_none();
                    entry.info = Some(info.clone());
                    first
                };
                if first {
                    self.bot.on_event(&Event::MatchStarted(info));
                }
            }
            ResponseKind::ActionRequest(request) => self.on_request(request, stream_id),
            ResponseKind::ActionRejected(rejected) => self.bot.on_event(&Event::ActionRejected(rejected)),
            ResponseKind::MatchEnded(ended) => self.on_end(ended),
            ResponseKind::KeepAlive(_) => {}
            ResponseKind::Error(error) => self.bot.on_event(&Event::ProtocolError(error)),
        }
    }

    fn on_request(self: &Arc<Self>, request: ActionRequest, stream_id: u64) {
        let (match_id, seat, sequence) = (request.match_id.clone(), request.seat, request.sequence);
        let mut state = self.lock();
        let state = &mut *state;
        let entry = state.matches.entry((match_id.clone(), seat)).or_default();
        if entry.has_request {
            let latest = entry.latest.load(Ordering::Relaxed);
            if sequence < latest {
                debug(format_args!("match {match_id}: ignoring stale request {sequence} (have {latest})"));
                return;
            }
            if sequence == latest {
                // The server resent the request (after a reconnect): answer again from the cached
                // answer, or let the running decision answer when it is done.
                if let Some((answered, text, sent_on)) = &mut entry.answer
                    && *answered == sequence
                {
                    if *sent_on != Some(stream_id) {
                        *sent_on = send(&state.stream, action(&match_id, seat, sequence, text));
                    }
                    return;
                }
                if entry.working == Some(sequence) {
                    return;
                }
            }
        }
        entry.has_request = true;
        entry.latest.store(sequence, Ordering::Relaxed);
        entry.working = Some(sequence);
        let turn = Turn::new(request, entry.info.clone(), entry.latest.clone());
        let runner = Arc::clone(self);
        tokio::spawn(async move {
            let decider = Arc::clone(&runner);
            let (turn, chosen) = tokio::task::spawn_blocking(move || {
                let chosen = catch_unwind(AssertUnwindSafe(|| decider.bot.act(&turn)));
                (turn, chosen)
            })
            .await
            .expect("the decision task is never cancelled");
            let text = match chosen {
                Ok(text) => text,
                Err(_) => {
                    warn(format_args!("match {}, request {}: act panicked", turn.match_id, turn.sequence));
                    match turn.legal_actions.first() {
                        Some(first) => first.clone(),
                        None => return,
                    }
                }
            };
            runner.answer(&turn, text);
        });
    }

    /// Sends a decision unless it was superseded, and remembers it for a resent request.
    fn answer(&self, turn: &Turn, text: String) {
        let mut state = self.lock();
        let state = &mut *state;
        let Some(entry) = state.matches.get_mut(&(turn.match_id.clone(), turn.seat)) else {
            return; // the match ended meanwhile
        };
        if entry.working == Some(turn.sequence) {
            entry.working = None;
        }
        if turn.is_superseded() {
            debug(format_args!("match {}: dropping the answer to superseded request {}", turn.match_id, turn.sequence));
            return;
        }
        let sent_on = send(&state.stream, action(&turn.match_id, turn.seat, turn.sequence, &text));
        if sent_on.is_none() {
            debug(format_args!("match {}: answer to {} kept for the reconnect", turn.match_id, turn.sequence));
        }
        entry.answer = Some((turn.sequence, text, sent_on));
    }

    fn on_end(&self, ended: MatchEnded) {
        let (info, done) = {
            let mut state = self.lock();
            let key = (ended.match_id.clone(), ended.seat);
            let info = state.matches.remove(&key).and_then(|entry| entry.info);
            if !state.ended.insert(key) {
                return;
            }
            (info, self.max_matches.is_some_and(|max| state.ended.len() as u64 >= max))
        };
        let outcome = ended.outcome.unwrap_or_default();
        let seat = ended.seat as usize;
        let result = MatchResult {
            placing: outcome.placings.get(seat).copied(),
            score: outcome.scores.get(seat).copied(),
            match_id: ended.match_id,
            seat: ended.seat,
            outcome,
            final_observation: ended.final_observation,
            info,
        };
        self.bot.on_event(&Event::MatchEnded(result));
        if done {
            self.stop.send_replace(true);
        }
    }
}

/// Sends a keep-alive Ping every `interval` until the stream's queue closes.
async fn ping(tx: mpsc::UnboundedSender<ConnectRequest>, interval: Duration) {
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    loop {
        ticker.tick().await;
        let ping = Ping { client_time: Some(SystemTime::now().into()) };
        if tx.send(request(RequestKind::Ping(ping))).is_err() {
            return;
        }
    }
}

/// A stream's end status: fatal (ABORTED, refused) or worth a reconnect.
fn classify(status: Status, welcomed: bool, address: &str) -> Result<SessionEnd, Error> {
    match status.code() {
        Code::Aborted => Err(Error::Replaced(status.message().to_owned())),
        code @ (Code::Unauthenticated | Code::PermissionDenied | Code::InvalidArgument) => {
            Err(Error::Refused { code, message: status.message().to_owned() })
        }
        code => Ok(SessionEnd { welcomed, reason: format!("{address}: stream failed: {code:?} {}", status.message()) }),
    }
}

/// Queues a message on the live stream; returns that stream's id, or None when there is none.
fn send(stream: &Option<(u64, mpsc::UnboundedSender<ConnectRequest>)>, message: ConnectRequest) -> Option<u64> {
    let (id, tx) = stream.as_ref()?;
    tx.send(message).ok().map(|()| *id)
}

fn request(kind: RequestKind) -> ConnectRequest {
    ConnectRequest { kind: Some(kind) }
}

/// An answer, echoing the request's match, seat and sequence.
fn action(match_id: &str, seat: u32, sequence: u64, text: &str) -> ConnectRequest {
    request(RequestKind::Action(Action {
        match_id: match_id.to_owned(),
        seat: Some(seat),
        sequence,
        text: text.to_owned(),
    }))
}

fn duration(value: Option<prost_types::Duration>) -> Duration {
    value.and_then(|d| Duration::try_from(d).ok()).unwrap_or_default()
}

/// The default event log: one line on stderr per event.
pub fn log_event(event: &Event) {
    match event {
        Event::Welcome(w) => info(format_args!("connected as {} (games {})", w.bot_name, w.games.join(", "))),
        Event::MatchStarted(m) => {
            info(format_args!("match {} started: {}, seat {} of {:?}", m.match_id, m.game, m.seat, m.bot_names))
        }
        Event::ActionRejected(r) => warn(format_args!(
            "match {}, request {}: action rejected ({}): {}; played {:?} instead, strike {} of {}",
            r.match_id,
            r.sequence,
            fault_name(r.fault),
            r.reason,
            r.fallback_action,
            r.strikes,
            r.strike_limit
        )),
        Event::ProtocolError(e) => {
            warn(format_args!("match {}, request {}: protocol error: {}", e.match_id, e.sequence, e.reason))
        }
        Event::MatchEnded(r) => info(format_args!(
            "match {} ended ({}): placing {}, score {}",
            r.match_id,
            r.outcome.termination().as_str_name(),
            r.placing.map_or_else(|| "-".to_owned(), |p| p.to_string()),
            r.score.map_or_else(|| "-".to_owned(), |s| s.to_string()),
        )),
        Event::Reconnecting { reason, address, delay } => {
            warn(format_args!("{reason}; reconnecting to {address} in {:.2} s", delay.as_secs_f64()))
        }
    }
}

/// A fault's name as in the proto (e.g. `FAULT_INVALID_ACTION`).
pub fn fault_name(fault: i32) -> &'static str {
    Fault::try_from(fault).map(|f| f.as_str_name()).unwrap_or("FAULT_UNKNOWN")
}

fn info(message: fmt::Arguments<'_>) {
    eprintln!("arena-bot INFO {message}");
}

fn warn(message: fmt::Arguments<'_>) {
    eprintln!("arena-bot WARNING {message}");
}

fn debug(message: fmt::Arguments<'_>) {
    if std::env::var_os("ARENA_BOT_DEBUG").is_some() {
        eprintln!("arena-bot DEBUG {message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_become_http_uris() {
        assert_eq!(endpoint("localhost:50051").unwrap().uri().to_string(), "http://localhost:50051/");
        assert_eq!(endpoint("http://10.0.0.1:1").unwrap().uri().to_string(), "http://10.0.0.1:1/");
        assert!(matches!(endpoint("not an address"), Err(Error::Config(_))));
    }

    #[test]
    fn aborted_is_replaced_and_auth_errors_are_fatal() {
        assert!(matches!(classify(Status::aborted("replaced"), true, "a"), Err(Error::Replaced(_))));
        assert!(matches!(
            classify(Status::unauthenticated("no"), false, "a"),
            Err(Error::Refused { code: Code::Unauthenticated, .. })
        ));
        let end = classify(Status::unavailable("down"), true, "a").unwrap();
        assert!(end.welcomed && end.reason.contains("Unavailable"));
    }

    #[test]
    fn a_turn_knows_its_time_and_supersession() {
        let request = ActionRequest {
            match_id: "m".into(),
            sequence: 4,
            allowance: Some(prost_types::Duration { seconds: 1, nanos: 0 }),
            time_bank: Some(prost_types::Duration { seconds: 2, nanos: 0 }),
            legal_actions: vec!["G1 G2".into()],
            ..Default::default()
        };
        let turn = Turn::from_request(request, None);
        assert!(turn.time_left() > Duration::from_millis(2900) && turn.time_left() <= Duration::from_secs(3));
        assert!(turn.free_time_left() <= Duration::from_secs(1));
        assert!(!turn.is_superseded());
        turn.latest.store(5, Ordering::Relaxed);
        assert!(turn.is_superseded());
    }

    /// A runner with no network: its "live stream" is a channel the test reads.
    fn runner<B: Bot>(bot: B, max_matches: Option<u64>) -> Arc<Runner<B>> {
        Arc::new(Runner {
            bot,
            hello: Hello::default(),
            max_matches,
            state: Mutex::new(State::default()),
            stop: watch::channel(false).0,
        })
    }

    fn attach<B: Bot>(runner: &Runner<B>, id: u64) -> mpsc::UnboundedReceiver<ConnectRequest> {
        let (tx, rx) = mpsc::unbounded_channel();
        runner.lock().stream = Some((id, tx));
        rx
    }

    fn request(sequence: u64) -> ResponseKind {
        ResponseKind::ActionRequest(ActionRequest {
            match_id: "m".into(),
            sequence,
            legal_actions: vec![format!("G{sequence}")],
            ..Default::default()
        })
    }

    fn started() -> ResponseKind {
        ResponseKind::MatchStarted(MatchStarted { match_id: "m".into(), game: "5211".into(), ..Default::default() })
    }

    fn started_at(seat: u32) -> ResponseKind {
        ResponseKind::MatchStarted(MatchStarted {
            match_id: "m".into(),
            game: "5211".into(),
            seat,
            ..Default::default()
        })
    }

    fn request_at(seat: u32, sequence: u64) -> ResponseKind {
        ResponseKind::ActionRequest(ActionRequest {
            match_id: "m".into(),
            sequence,
            seat,
            legal_actions: vec![format!("G{sequence} S{seat}")],
            ..Default::default()
        })
    }

    /// The next Action sent, within a second, as (seat, sequence, text).
    async fn next_answer(rx: &mut mpsc::UnboundedReceiver<ConnectRequest>) -> (Option<u32>, u64, String) {
        match tokio::time::timeout(Duration::from_secs(1), rx.recv()).await {
            Ok(Some(ConnectRequest { kind: Some(RequestKind::Action(a)) })) => (a.seat, a.sequence, a.text),
            other => panic!("expected an action, got {other:?}"),
        }
    }

    /// The next Action sent, within a second.
    async fn next_action(rx: &mut mpsc::UnboundedReceiver<ConnectRequest>) -> (u64, String) {
        match tokio::time::timeout(Duration::from_secs(1), rx.recv()).await {
            Ok(Some(ConnectRequest { kind: Some(RequestKind::Action(a)) })) => (a.sequence, a.text),
            other => panic!("expected an action, got {other:?}"),
        }
    }

    async fn nothing_sent(rx: &mut mpsc::UnboundedReceiver<ConnectRequest>) {
        // Nothing within the wait, or the stream closed with nothing in it.
        let got = tokio::time::timeout(Duration::from_millis(300), rx.recv()).await;
        assert!(matches!(got, Err(_) | Ok(None)), "unexpected message {got:?}");
    }

    /// A bot that answers a request's only legal action, slowly for `slow` sequences, counting its calls.
    fn counting_bot(calls: Arc<AtomicU64>, slow: &'static [u64]) -> impl Bot {
        move |turn: &Turn| {
            calls.fetch_add(1, Ordering::SeqCst);
            if slow.contains(&turn.sequence) {
                std::thread::sleep(Duration::from_millis(200));
            }
            turn.legal_actions[0].clone()
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_superseded_request_is_never_answered_and_a_stale_one_is_ignored() {
        let calls = Arc::new(AtomicU64::new(0));
        let runner = runner(counting_bot(calls.clone(), &[1]), None);
        let mut rx = attach(&runner, 1);
        runner.dispatch(started(), 1);
        runner.dispatch(request(1), 1);
        runner.dispatch(request(2), 1);
        assert_eq!(next_action(&mut rx).await, (2, "G2".into()));
        nothing_sent(&mut rx).await; // the slow answer to 1 is dropped
        runner.dispatch(request(1), 1); // stale
        nothing_sent(&mut rx).await;
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_resent_request_is_answered_from_the_cache_on_the_new_stream_only() {
        let calls = Arc::new(AtomicU64::new(0));
        let runner = runner(counting_bot(calls.clone(), &[]), None);
        let mut first = attach(&runner, 1);
        runner.dispatch(started(), 1);
        runner.dispatch(request(1), 1);
        assert_eq!(next_action(&mut first).await, (1, "G1".into()));
        runner.dispatch(request(1), 1); // a duplicate on the same stream: already answered there
        nothing_sent(&mut first).await;
        let mut second = attach(&runner, 2);
        runner.dispatch(started(), 2);
        runner.dispatch(request(1), 2);
        assert_eq!(next_action(&mut second).await, (1, "G1".into()));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_decision_in_flight_across_a_reconnect_goes_out_on_the_new_stream() {
        let calls = Arc::new(AtomicU64::new(0));
        let runner = runner(counting_bot(calls.clone(), &[1]), None);
        let mut old = attach(&runner, 1);
        runner.dispatch(started(), 1);
        runner.dispatch(request(1), 1);
        runner.lock().stream = None; // the stream drops while the bot thinks
        let mut new = attach(&runner, 2);
        runner.dispatch(request(1), 2); // resent: the running decision will answer it
        assert_eq!(next_action(&mut new).await, (1, "G1".into()));
        nothing_sent(&mut old).await;
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_act_answers_the_first_legal_action() {
        let runner = runner(|_: &Turn| -> String { panic!("oops") }, None);
        let mut rx = attach(&runner, 1);
        runner.dispatch(request(7), 1);
        assert_eq!(next_action(&mut rx).await, (7, "G7".into()));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_seat_of_a_match_is_its_own_decision_answered_with_its_seat() {
        let calls = Arc::new(AtomicU64::new(0));
        let runner = runner(counting_bot(calls.clone(), &[]), Some(2));
        let mut rx = attach(&runner, 1);
        runner.dispatch(started_at(0), 1);
        runner.dispatch(started_at(1), 1);
        // The same sequence for each seat: neither is a resend of the other.
        runner.dispatch(request_at(0, 1), 1);
        runner.dispatch(request_at(1, 1), 1);
        let mut answers = vec![next_answer(&mut rx).await, next_answer(&mut rx).await];
        answers.sort();
        assert_eq!(answers, [(Some(0), 1, "G1 S0".to_owned()), (Some(1), 1, "G1 S1".to_owned())]);
        nothing_sent(&mut rx).await;
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        // Each seat's end counts as one ended match.
        let ended = |seat| ResponseKind::MatchEnded(MatchEnded { match_id: "m".into(), seat, ..Default::default() });
        runner.dispatch(ended(0), 1);
        assert!(!*runner.stop.borrow());
        runner.dispatch(ended(1), 1);
        assert!(*runner.stop.borrow());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_one_seat_answer_echoes_its_seat() {
        let runner = runner(|turn: &Turn| turn.legal_actions[0].clone(), None);
        let mut rx = attach(&runner, 1);
        runner.dispatch(started_at(2), 1);
        runner.dispatch(request_at(2, 4), 1);
        assert_eq!(next_answer(&mut rx).await, (Some(2), 4, "G4 S2".to_owned()));
    }

    #[test]
    fn max_matches_counts_each_match_once_then_stops() {
        let runner = runner(|turn: &Turn| turn.legal_actions[0].clone(), Some(2));
        let ended = |id: &str| ResponseKind::MatchEnded(MatchEnded { match_id: id.into(), ..Default::default() });
        runner.dispatch(ended("a"), 1);
        runner.dispatch(ended("a"), 1); // told again after a reconnect
        assert!(!*runner.stop.borrow());
        runner.dispatch(ended("b"), 1);
        assert!(*runner.stop.borrow());
    }

    /// A runner whose bot keeps each turn it is given and answers as `inner` does.
    fn keeping<B: Bot>(inner: B, kept: Arc<Mutex<Vec<Turn>>>) -> impl Bot {
        move |turn: &Turn| {
            kept.lock().unwrap().push(turn.clone());
            inner.act(turn)
        }
    }

    fn started_game(game: &str) -> ResponseKind {
        ResponseKind::MatchStarted(MatchStarted { match_id: "m".into(), game: game.into(), ..Default::default() })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_coloretto_turn_carries_its_game_and_the_coloretto_observation() {
        use crate::games::{coloretto, g5211};
        use crate::proto::{ColorettoObservation, ColorettoRow, observation::Game};
        let kept = Arc::new(Mutex::new(Vec::new()));
        let runner = runner(keeping(crate::bots::RandomBot::new(Some(1)), kept.clone()), None);
        let mut rx = attach(&runner, 1);
        runner.dispatch(started_game("coloretto"), 1);
        let view = ColorettoObservation {
            num_players: 3,
            pile_size: 60,
            rows: vec![ColorettoRow { cards: vec!["B".into(), "J".into()], capacity: 3, taken_by: None }],
            ..Default::default()
        };
        runner.dispatch(
            ResponseKind::ActionRequest(ActionRequest {
                match_id: "m".into(),
                sequence: 1,
                observation: Some(Observation { game: Some(Game::GameColoretto(view)) }),
                legal_actions: vec!["draw".into(), "take 0".into()],
                ..Default::default()
            }),
            1,
        );
        let (_, answer) = next_action(&mut rx).await;
        assert!(["draw", "take 0"].contains(&answer.as_str()), "{answer}");
        let turn = kept.lock().unwrap().pop().unwrap();
        assert_eq!(turn.game, "coloretto");
        let got = coloretto::observation(&turn).unwrap();
        assert_eq!((got.pile_size, got.rows[0].cards.clone()), (60, vec!["B".to_owned(), "J".to_owned()]));
        assert_eq!(coloretto::legal_moves(&turn), [coloretto::Move::Draw, coloretto::Move::Take(0)]);
        let wrong = g5211::observation(&turn).unwrap_err();
        assert_eq!(wrong.to_string(), "match m plays \"coloretto\", not 5211");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_turn_of_a_game_this_build_does_not_know_still_has_legal_actions_the_bots_answer() {
        use prost::Message;
        // The bytes of a request from a newer arena: its envelope sets a oneof field (999) unknown here.
        let known = ActionRequest {
            match_id: "m".into(),
            sequence: 1,
            legal_actions: vec!["pass".into(), "play 7".into()],
            ..Default::default()
        };
        let mut bytes = known.encode_to_vec();
        let unknown_game = [0xba, 0x3e, 0x02, 0x08, 0x01]; // field 999 (length-delimited): a message {1: 1}
        bytes.extend_from_slice(&[0x3a, unknown_game.len() as u8]); // field 7, the observation envelope
        bytes.extend_from_slice(&unknown_game);
        let request = ActionRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(request.observation, Some(Observation { game: None }));
        for (name, bot) in [
            ("random", {
                let random = crate::bots::RandomBot::new(Some(2));
                Box::new(move |turn: &Turn| random.act(turn)) as Box<dyn Fn(&Turn) -> String + Send + Sync>
            }),
            ("heuristic", {
                let heuristic = crate::bots::HeuristicBot::new(Some(2));
                Box::new(move |turn: &Turn| heuristic.act(turn))
            }),
        ] {
            let kept = Arc::new(Mutex::new(Vec::new()));
            let runner = runner(keeping(move |turn: &Turn| bot(turn), kept.clone()), None);
            let mut rx = attach(&runner, 1);
            runner.dispatch(started_game("some-new-game"), 1);
            runner.dispatch(ResponseKind::ActionRequest(request.clone()), 1);
            let (sequence, answer) = next_action(&mut rx).await;
            assert!(sequence == 1 && ["pass", "play 7"].contains(&answer.as_str()), "{name}: {answer}");
            let turn = kept.lock().unwrap().pop().unwrap();
            assert_eq!((turn.game.as_str(), turn.legal_actions.len()), ("some-new-game", 2));
            assert!(crate::games::g5211::observation(&turn).is_err());
            assert!(crate::games::coloretto::observation(&turn).is_err());
        }
    }
}
