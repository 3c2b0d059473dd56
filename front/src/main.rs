//! `arena-front`: the arena node's public gRPC listener (`arena serve --front`,
//! `arena/grpc/front.py` has the node's end).
//!
//! - Every bot stream (`/arena.v1.BotService/Connect`) is relayed to the node over one Unix socket,
//!   the link (`--node`), as frames; the node serves each with its own `BotServicer.Connect`.
//! - Every other call (unary or streaming, any service) is proxied unchanged, as HTTP/2, to the
//!   node's gRPC server on a second Unix socket (`--backend`), with the client's address in the
//!   `x-arena-peer` header. If that server cannot be reached, the call ends UNAVAILABLE.
//! - The clients' connections are capped, closed when their handshake is late or they have had no
//!   call open for a while (`listener.rs`), and served over TLS if asked (`tls.rs`).
//!
//! The link's frames, both ways: a little-endian u32 length (of what follows), a u8 kind and a u32
//! stream id, then the payload (OPEN: the client's `IP:PORT`, IPv6 as `[IP]:PORT`; DATA: one
//! encoded message; HALF_CLOSE and CANCEL: none; END: a u32 status code and the details). The
//! node's CONFIRM is a DATA whose writing to the bot's stream the front tells the node (WRITTEN, no
//! payload): a match's end, which the node keeps for the bot's next connection until then. The
//! node says which version of the link it speaks (`--link-version`); the front refuses any other.
//!
//! The first line on stdout is `listening on HOST:PORT`. A bad flag, a TLS file that cannot be
//! used, an address that cannot be bound or a link that cannot be dialled: one line on stderr and
//! exit status 2. When the node closes the link (it stopped), the front exits with status 0.

use bytes::{Buf, BufMut, Bytes};
use http::header::{HeaderName, HeaderValue};
use http_body::{Frame as BodyFrame, SizeHint};
use hyper::body::Incoming;
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use listener::{Peer, Routed, Serving, accept, bind};
use std::collections::{HashMap, VecDeque};
use std::future::{Ready, ready};
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tls::TlsFiles;
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_stream::Stream;
use tonic::body::Body;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::server::Grpc;
use tonic::{Code, Status, Streaming};

mod listener;
mod tls;

// The link's frame kinds, both ways (see arena/grpc/front.py).
const OPEN: u8 = 1;
const DATA: u8 = 2;
const HALF_CLOSE: u8 = 3;
const CANCEL: u8 = 4;
const END: u8 = 5;
const CONFIRM: u8 = 6;
const WRITTEN: u8 = 7;
/// The version of the link's frames this front speaks (the node's `--link-version`).
const LINK_VERSION: &str = "2";

const CONNECT: &str = "/arena.v1.BotService/Connect";
/// The header that names the client to the node's gRPC server.
const PEER_HEADER: &str = "x-arena-peer";
const UNREACHABLE: &str = "the node is not reachable";
/// tonic's per-call codec buffer; its 8 KiB default dominates an idle stream's memory.
const CODEC_BUFFER: usize = 256;
const CODEC_YIELD: usize = 32 * 1024;

/// The node closed or broke the link: it stopped, and so does its front.
fn link_gone() -> ! {
    std::process::exit(0)
}

/// A bad start: one line on stderr, exit status 2.
fn refuse(message: impl std::fmt::Display) -> ! {
    eprintln!("arena-front: {message}");
    std::process::exit(2)
}

/// A client's address as the node names it: `IP:PORT`, IPv6 as `[IP]:PORT`, an IPv4-mapped IPv6
/// address as the IPv4 one.
fn peer_name(address: SocketAddr) -> String {
    match address.ip().to_canonical() {
        IpAddr::V4(ip) => format!("{ip}:{}", address.port()),
        IpAddr::V6(ip) => format!("[{ip}]:{}", address.port()),
    }
}

// ---- the command line ----

struct Config {
    listen: String,
    node: PathBuf,
    backend: PathBuf,
    reuse_port: bool,
    max_connections: usize,
    max_streams_per_connection: u32,
    /// None: no keepalive pings.
    keepalive: Option<Duration>,
    keepalive_timeout: Duration,
    max_message_bytes: usize,
    /// A connection without its preface (TLS handshake and preface, with TLS) by then is closed.
    handshake_timeout: Duration,
    /// A connection with no call open this long is sent a GOAWAY.
    idle_timeout: Duration,
    /// None: plain TCP.
    tls: Option<TlsFiles>,
}

const USAGE: &str = "usage: arena-front --listen HOST:PORT --node SOCKET --backend SOCKET [--reuse-port] \
[--max-connections N] [--max-streams-per-connection N] [--keepalive-seconds S] \
[--keepalive-timeout-seconds S] [--max-message-bytes N] [--handshake-timeout-seconds S] \
[--idle-connection-seconds S] [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]] [--link-version V]";

fn positive<T: std::str::FromStr + PartialOrd + Default>(flag: &str, value: &str) -> T {
    match value.parse::<T>() {
        Ok(n) if n > T::default() => n,
        _ => refuse(format!("--{flag}: not a positive integer: {value:?}")),
    }
}

fn seconds(flag: &str, value: &str, zero: bool) -> Duration {
    match value
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
    {
        Some(d) if zero || !d.is_zero() => d,
        _ => refuse(format!(
            "--{flag}: not a {} number of seconds: {value:?}",
            if zero { "non-negative" } else { "positive" }
        )),
    }
}

fn parse_args(args: impl Iterator<Item = String>) -> Config {
    let mut config = Config {
        listen: String::new(),
        node: PathBuf::new(),
        backend: PathBuf::new(),
        reuse_port: false,
        max_connections: 10_000,
        max_streams_per_connection: 100,
        keepalive: Some(Duration::from_secs(30)),
        keepalive_timeout: Duration::from_secs(20),
        max_message_bytes: 64 * 1024,
        handshake_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(60),
        tls: None,
    };
    let (mut listen, mut node, mut backend) = (None, None, None);
    let (mut cert, mut key, mut client_ca) = (None, None, None);
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let Some(flag) = arg.strip_prefix("--") else {
            refuse(format!("unexpected argument {arg:?}; {USAGE}"));
        };
        let (flag, inline) = match flag.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_string())),
            None => (flag, None),
        };
        if flag == "reuse-port" {
            config.reuse_port = match inline.as_deref() {
                None | Some("true") => true,
                Some("false") => false,
                Some(value) => refuse(format!("--reuse-port: not true or false: {value:?}")),
            };
            continue;
        }
        if flag == "help" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let known = [
            "listen",
            "node",
            "backend",
            "max-connections",
            "max-streams-per-connection",
            "keepalive-seconds",
            "keepalive-timeout-seconds",
            "max-message-bytes",
            "handshake-timeout-seconds",
            "idle-connection-seconds",
            "tls-cert",
            "tls-key",
            "tls-client-ca",
            "link-version",
        ];
        if !known.contains(&flag) {
            refuse(format!("unknown flag {arg:?}; {USAGE}"));
        }
        let value = match inline.or_else(|| args.next()) {
            Some(value) => value,
            None => refuse(format!("--{flag} needs a value")),
        };
        match flag {
            "listen" => listen = Some(value),
            "node" => node = Some(value),
            "backend" => backend = Some(value),
            "max-connections" => config.max_connections = positive(flag, &value),
            "max-streams-per-connection" => {
                config.max_streams_per_connection = positive(flag, &value)
            }
            "keepalive-seconds" => {
                let interval = seconds(flag, &value, true);
                config.keepalive = (!interval.is_zero()).then_some(interval);
            }
            "keepalive-timeout-seconds" => config.keepalive_timeout = seconds(flag, &value, false),
            "max-message-bytes" => config.max_message_bytes = positive(flag, &value),
            "handshake-timeout-seconds" => config.handshake_timeout = seconds(flag, &value, false),
            "idle-connection-seconds" => config.idle_timeout = seconds(flag, &value, false),
            "tls-cert" => cert = Some(PathBuf::from(value)),
            "tls-key" => key = Some(PathBuf::from(value)),
            "tls-client-ca" => client_ca = Some(PathBuf::from(value)),
            "link-version" if value != LINK_VERSION => refuse(format!(
                "--link-version: the node speaks version {value:?} of the link, this front \
                 {LINK_VERSION:?}: build the front of the node's checkout (make front)"
            )),
            "link-version" => {}
            _ => unreachable!(),
        }
    }
    for (flag, value) in [("listen", &listen), ("node", &node), ("backend", &backend)] {
        match value.as_deref() {
            None => refuse(format!("--{flag} is required; {USAGE}")),
            Some("") => refuse(format!("--{flag}: empty")),
            Some(_) => {}
        }
    }
    config.tls = match (cert, key) {
        (Some(cert), Some(key)) => Some(TlsFiles {
            cert,
            key,
            client_ca,
        }),
        (None, None) if client_ca.is_none() => None,
        (None, None) => refuse("--tls-client-ca needs --tls-cert and --tls-key"),
        _ => refuse("--tls-cert and --tls-key go together"),
    };
    config.listen = listen.unwrap_or_default();
    config.node = PathBuf::from(node.unwrap_or_default());
    config.backend = PathBuf::from(backend.unwrap_or_default());
    config
}

// ---- pass-through codec: messages go on as they came, the front decodes nothing ----

#[derive(Clone, Copy)]
struct BytesCodec(BufferSettings);
#[derive(Clone, Copy)]
struct BytesEnc(BufferSettings);
#[derive(Clone, Copy)]
struct BytesDec(BufferSettings);

impl Codec for BytesCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = BytesEnc;
    type Decoder = BytesDec;
    fn encoder(&mut self) -> BytesEnc {
        BytesEnc(self.0)
    }
    fn decoder(&mut self) -> BytesDec {
        BytesDec(self.0)
    }
}
impl Encoder for BytesEnc {
    type Item = Bytes;
    type Error = Status;
    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }
    fn buffer_settings(&self) -> BufferSettings {
        self.0
    }
}
impl Decoder for BytesDec {
    type Item = Bytes;
    type Error = Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
    fn buffer_settings(&self) -> BufferSettings {
        self.0
    }
}

// ---- the link ----

/// One frame for the node.
struct Frame {
    kind: u8,
    id: u32,
    payload: Bytes,
}

/// What the node sent one stream, in order.
enum Out {
    /// A message, and whether to tell the node once it is written (its CONFIRM).
    Data(Bytes, bool),
    /// The node's END: a gRPC status code and its details.
    End(u32, Bytes),
    /// The bot's side broke (e.g. a message over the limit): end the call with this status.
    Fail(Status),
}

/// One bot stream's way back from the node: a queue and the waker of the call waiting on it.
/// (A VecDeque allocates nothing while empty, which an idle stream mostly is.)
#[derive(Default)]
struct Queue {
    items: VecDeque<Out>,
    waker: Option<Waker>,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Set once the node needs to hear nothing more of this stream: its CANCEL was sent, or the
    /// node ended the stream itself. Guards the CANCEL frame to at most once.
    closed: AtomicBool,
}

impl Shared {
    fn push(&self, item: Out) {
        let waker = {
            let mut queue = self.queue.lock().unwrap();
            queue.items.push_back(item);
            queue.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The link and the open streams.
struct Mux {
    streams: Mutex<HashMap<u32, Arc<Shared>>>,
    next: AtomicU32,
    send: mpsc::UnboundedSender<Frame>,
}

impl Mux {
    fn send(&self, kind: u8, id: u32, payload: Bytes) {
        // The writer only stops by exiting the process, so the channel is never closed.
        let _ = self.send.send(Frame { kind, id, payload });
    }
}

fn put_frame(buffer: &mut Vec<u8>, frame: &Frame) {
    buffer.put_u32_le(5 + frame.payload.len() as u32);
    buffer.put_u8(frame.kind);
    buffer.put_u32_le(frame.id);
    buffer.extend_from_slice(&frame.payload);
}

/// Sends the frames queued meanwhile in one write.
async fn writer(mut socket: OwnedWriteHalf, mut frames: mpsc::UnboundedReceiver<Frame>) {
    let mut buffer: Vec<u8> = Vec::with_capacity(64 * 1024);
    while let Some(frame) = frames.recv().await {
        put_frame(&mut buffer, &frame);
        while buffer.len() < 1 << 20 {
            match frames.try_recv() {
                Ok(frame) => put_frame(&mut buffer, &frame),
                Err(_) => break,
            }
        }
        if socket.write_all(&buffer).await.is_err() {
            link_gone();
        }
        buffer.clear();
        if buffer.capacity() > 1 << 20 {
            buffer = Vec::with_capacity(64 * 1024);
        }
    }
}

/// Hands the node's frames to their streams; exits the process when the link ends.
async fn reader(socket: OwnedReadHalf, mux: Arc<Mux>) {
    let mut socket = BufReader::with_capacity(64 * 1024, socket);
    let mut header = [0u8; 9];
    loop {
        if socket.read_exact(&mut header).await.is_err() {
            link_gone();
        }
        let length = u32::from_le_bytes(header[0..4].try_into().unwrap()) as usize;
        if length < 5 {
            eprintln!("arena-front: the node sent a frame of {length} bytes");
            std::process::exit(1);
        }
        let mut payload = vec![0u8; length - 5];
        if socket.read_exact(&mut payload).await.is_err() {
            link_gone();
        }
        let kind = header[4];
        let id = u32::from_le_bytes(header[5..9].try_into().unwrap());
        let Some(stream) = mux.streams.lock().unwrap().get(&id).cloned() else {
            continue;
        };
        match kind {
            DATA => stream.push(Out::Data(Bytes::from(payload), false)),
            CONFIRM => stream.push(Out::Data(Bytes::from(payload), true)),
            END if payload.len() >= 4 => {
                let code = u32::from_le_bytes(payload[0..4].try_into().unwrap());
                stream.push(Out::End(code, Bytes::from(payload).slice(4..)))
            }
            _ => {}
        }
    }
}

/// The response stream of one relayed call: the node's messages, then its status. Dropping it
/// (the call ended or the bot went away) forgets the stream and, unless the node ended it or a
/// CANCEL went already, tells the node CANCEL.
struct Relay {
    mux: Arc<Mux>,
    id: u32,
    shared: Arc<Shared>,
    inbound: AbortHandle,
    done: bool,
}

impl Stream for Relay {
    type Item = Result<Bytes, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let item = {
            let mut queue = this.shared.queue.lock().unwrap();
            match queue.items.pop_front() {
                Some(item) => item,
                None => {
                    match &queue.waker {
                        Some(waker) if waker.will_wake(cx.waker()) => {}
                        _ => queue.waker = Some(cx.waker().clone()),
                    }
                    return Poll::Pending;
                }
            }
        };
        match item {
            Out::Data(message, confirm) => {
                // Taken once the bot's stream has room for it: as written as gRPC's own write.
                if confirm {
                    this.mux.send(WRITTEN, this.id, Bytes::new());
                }
                Poll::Ready(Some(Ok(message)))
            }
            Out::End(code, details) => {
                this.done = true;
                this.shared.closed.store(true, Ordering::Relaxed);
                if code == 0 {
                    Poll::Ready(None)
                } else {
                    let details = String::from_utf8_lossy(&details).into_owned();
                    Poll::Ready(Some(Err(Status::new(Code::from(code as i32), details))))
                }
            }
            Out::Fail(status) => {
                this.done = true;
                Poll::Ready(Some(Err(status)))
            }
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.mux.streams.lock().unwrap().remove(&self.id);
        self.inbound.abort();
        if !self.shared.closed.swap(true, Ordering::Relaxed) {
            self.mux.send(CANCEL, self.id, Bytes::new());
        }
    }
}

/// Relays one bot stream: a task reads the bot, the response stream writes to it.
#[derive(Clone)]
struct Connect(Arc<Mux>);

impl tower::Service<tonic::Request<Streaming<Bytes>>> for Connect {
    type Response = tonic::Response<Relay>;
    type Error = Status;
    type Future = Ready<Result<Self::Response, Status>>;
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }
    fn call(&mut self, request: tonic::Request<Streaming<Bytes>>) -> Self::Future {
        let mux = self.0.clone();
        let address = request
            .extensions()
            .get::<Peer>()
            .map(|peer| peer_name(peer.0))
            .unwrap_or_default();
        let mut inbound = request.into_inner();
        let shared = Arc::new(Shared::default());
        let id = mux.next.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        mux.streams.lock().unwrap().insert(id, shared.clone());
        mux.send(OPEN, id, Bytes::from(address));
        let task = {
            let (mux, shared) = (mux.clone(), shared.clone());
            tokio::spawn(async move {
                loop {
                    match inbound.message().await {
                        Ok(Some(message)) => {
                            if shared.closed.load(Ordering::Relaxed) {
                                return;
                            }
                            mux.send(DATA, id, message);
                        }
                        Ok(None) => {
                            if !shared.closed.load(Ordering::Relaxed) {
                                mux.send(HALF_CLOSE, id, Bytes::new());
                            }
                            return;
                        }
                        Err(status) => {
                            if !shared.closed.swap(true, Ordering::Relaxed) {
                                mux.send(CANCEL, id, Bytes::new());
                                // tonic says OUT_OF_RANGE for a message over the limit; gRPC
                                // (and grpc-go) say RESOURCE_EXHAUSTED.
                                let status = match status.code() {
                                    Code::OutOfRange => {
                                        Status::resource_exhausted(status.message())
                                    }
                                    _ => status,
                                };
                                shared.push(Out::Fail(status));
                            }
                            return;
                        }
                    }
                }
            })
        };
        let relay = Relay {
            mux,
            id,
            shared,
            inbound: task.abort_handle(),
            done: false,
        };
        ready(Ok(tonic::Response::new(relay)))
    }
}

// ---- the proxy to the node's gRPC server ----

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// One HTTP/2 connection to the node's gRPC server, shared by every proxied call; opened when
/// first needed and again after it broke.
struct Backend {
    path: PathBuf,
    /// The connection, with a number that tells it from the ones before.
    conn: tokio::sync::Mutex<Option<(u64, SendRequest<Body>)>>,
    generation: AtomicU64,
}

/// Connection-specific headers, which HTTP/2 forbids (`te` is allowed as `trailers` only).
const HOP_BY_HOP: [&str; 5] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
];

impl Backend {
    /// The current connection, or a new one if there is none or it is closed.
    async fn sender(&self) -> Result<(u64, SendRequest<Body>), BoxError> {
        let mut slot = self.conn.lock().await;
        if let Some((generation, send)) = slot.as_ref()
            && !send.is_closed()
        {
            return Ok((*generation, send.clone()));
        }
        *slot = None;
        let stream = UnixStream::connect(&self.path).await?;
        let (send, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
            .handshake::<_, Body>(TokioIo::new(stream))
            .await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let generation = self.generation.fetch_add(1, Ordering::Relaxed) + 1;
        *slot = Some((generation, send.clone()));
        Ok((generation, send))
    }

    /// Forgets connection `generation` (it failed), unless a newer one replaced it already.
    async fn forget(&self, generation: u64) {
        let mut slot = self.conn.lock().await;
        if matches!(slot.as_ref(), Some((current, _)) if *current == generation) {
            *slot = None;
        }
    }

    async fn proxy(self: Arc<Self>, request: http::Request<Body>) -> http::Response<Body> {
        let peer = request.extensions().get::<Peer>().map(|peer| peer.0);
        let (mut parts, body) = request.into_parts();
        let mut uri = parts.uri.into_parts();
        if uri.scheme.is_none() {
            uri.scheme = Some(http::uri::Scheme::HTTP);
        }
        if uri.authority.is_none() {
            uri.authority = Some(http::uri::Authority::from_static("localhost"));
        }
        if uri.path_and_query.is_none() {
            uri.path_and_query = Some(http::uri::PathAndQuery::from_static("/"));
        }
        parts.uri = match http::Uri::from_parts(uri) {
            Ok(uri) => uri,
            Err(_) => return Status::internal("a request the front cannot forward").into_http(),
        };
        for name in HOP_BY_HOP {
            parts.headers.remove(name);
        }
        if parts
            .headers
            .get(http::header::TE)
            .is_some_and(|te| te != "trailers")
        {
            parts
                .headers
                .insert(http::header::TE, HeaderValue::from_static("trailers"));
        }
        let peer_header = HeaderName::from_static(PEER_HEADER);
        parts.headers.remove(&peer_header);
        if let Some(peer) = peer
            && let Ok(value) = HeaderValue::try_from(peer_name(peer))
        {
            parts.headers.insert(peer_header, value);
        }
        parts.extensions = http::Extensions::new();
        let mut request = http::Request::from_parts(parts, body);
        // A request the connection refused unsent (it had just closed) is tried once more, on a
        // new connection.
        for attempt in 0..2 {
            let Ok((generation, mut send)) = self.sender().await else {
                break;
            };
            match send.try_send_request(request).await {
                Ok(response) => {
                    return response.map(|body| Body::new(Upstream { body, done: false }));
                }
                Err(mut err) => {
                    self.forget(generation).await;
                    match err.take_message() {
                        Some(unsent) if attempt == 0 => request = unsent,
                        _ => break,
                    }
                }
            }
        }
        Status::unavailable(UNREACHABLE).into_http()
    }
}

/// A proxied response's body: if the node's server breaks off mid-response, the call ends with
/// UNAVAILABLE trailers rather than a reset stream.
struct Upstream {
    body: Incoming,
    done: bool,
}

impl http_body::Body for Upstream {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<BodyFrame<Bytes>, Status>>> {
        if self.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.body).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if frame.is_trailers() {
                    self.done = true;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(_))) => {
                self.done = true;
                let mut trailers = http::HeaderMap::new();
                match Status::unavailable(UNREACHABLE).add_header(&mut trailers) {
                    Ok(()) => Poll::Ready(Some(Ok(BodyFrame::trailers(trailers)))),
                    Err(status) => Poll::Ready(Some(Err(status))),
                }
            }
            Poll::Ready(None) => {
                self.done = true;
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        if self.done {
            SizeHint::with_exact(0)
        } else {
            self.body.size_hint()
        }
    }
}

// ---- routing on the path ----

#[derive(Clone)]
struct Front {
    codec: BytesCodec,
    max_message_bytes: usize,
    mux: Arc<Mux>,
    backend: Arc<Backend>,
}

impl Front {
    /// A call's response: a bot stream's relayed, any other call's proxied.
    fn route(&self, request: http::Request<Body>) -> Routed {
        if request.uri().path() == CONNECT {
            let mut grpc = Grpc::new(self.codec).max_decoding_message_size(self.max_message_bytes);
            let connect = Connect(self.mux.clone());
            Box::pin(async move { grpc.streaming(connect, request).await })
        } else {
            let backend = self.backend.clone();
            Box::pin(backend.proxy(request))
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let config = parse_args(std::env::args().skip(1));
    let tls = config
        .tls
        .as_ref()
        .map(|files| tls::acceptor(files).unwrap_or_else(|err| refuse(err)));

    let listener = match bind(&config.listen, config.reuse_port).await {
        Ok(listener) => listener,
        Err(err) => refuse(format!("cannot listen on {:?}: {err}", config.listen)),
    };
    let address = match listener.local_addr() {
        Ok(address) => address,
        Err(err) => refuse(format!("cannot listen on {:?}: {err}", config.listen)),
    };

    let link = match UnixStream::connect(&config.node).await {
        Ok(link) => link,
        Err(err) => refuse(format!("cannot reach the node at {:?}: {err}", config.node)),
    };
    let (read, write) = link.into_split();
    let (send, frames) = mpsc::unbounded_channel();
    let mux = Arc::new(Mux {
        streams: Mutex::new(HashMap::new()),
        next: AtomicU32::new(0),
        send,
    });
    tokio::spawn(writer(write, frames));
    tokio::spawn(reader(read, mux.clone()));

    let backend = Arc::new(Backend {
        path: config.backend.clone(),
        conn: tokio::sync::Mutex::new(None),
        generation: AtomicU64::new(0),
    });

    {
        let mut out = std::io::stdout().lock();
        if writeln!(out, "listening on {address}")
            .and_then(|()| out.flush())
            .is_err()
        {
            std::process::exit(1);
        }
    }

    let mut http2 = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
    http2
        .timer(TokioTimer::new())
        .max_concurrent_streams(config.max_streams_per_connection)
        .keep_alive_interval(config.keepalive)
        .keep_alive_timeout(config.keepalive_timeout);
    let serving = Serving {
        http2,
        handshake_timeout: config.handshake_timeout,
        idle_timeout: config.idle_timeout,
        tls,
        front: Front {
            codec: BytesCodec(BufferSettings::new(CODEC_BUFFER, CODEC_YIELD)),
            max_message_bytes: config.max_message_bytes,
            mux,
            backend,
        },
    };
    accept(listener, config.max_connections, Arc::new(serving)).await;
}
