//! A trial, not a transport: the Rust twin of `benchmarks/gateway_trial` (Go), the one
//! `bench_gateway_trial.py` runs by default. A gRPC front for the arena's bot streams that hands
//! every `arena.v1.BotService/Connect` stream to one node over one Unix socket
//! (`benchmarks/gateway_trial_node.py` has the node's end and the frames), to measure what a front
//! outside Python would save the node. It proxies no other RPC and has no TLS.
//!
//! Frames, both ways: a little-endian u32 length (of what follows), a u8 kind and a u32 stream id,
//! then the payload (OPEN: the bot's address; DATA: one encoded message; HALF_CLOSE and CANCEL:
//! none; END: a u32 status code and the details).
//!
//! With `-echo` it is instead a bare tonic echo server (`/bench.Echo/Ping`), the floor it is
//! compared with. Run: `gateway_trial_rs -node SOCKET` or `gateway_trial_rs -echo`; the first line
//! on stdout is the port it listens on (127.0.0.1).

use bytes::{Buf, BufMut, Bytes};
use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::future::{Future, Ready, ready};
use std::io::Write;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
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
use tower::ServiceExt;

// The frame kinds, both ways (see gateway_trial_node.py).
const OPEN: u8 = 1;
const DATA: u8 = 2;
const HALF_CLOSE: u8 = 3;
const CANCEL: u8 = 4;
const END: u8 = 5;

const CONNECT: &str = "/arena.v1.BotService/Connect";
const MAX_MESSAGE: usize = 64 * 1024;
/// tonic's per-call codec buffer; its 8 KiB default dominates an idle stream's memory.
const CODEC_BUFFER: usize = 256;
const CODEC_YIELD: usize = 32 * 1024;

fn fatal(what: &str, err: impl std::fmt::Display) -> ! {
    eprintln!("the node's socket: {what}: {err}");
    std::process::exit(1)
}

// ---- pass-through codec: messages go on as they came, the gateway decodes nothing ----

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

fn grpc(codec: BytesCodec) -> Grpc<BytesCodec> {
    Grpc::new(codec).max_decoding_message_size(MAX_MESSAGE)
}

// ---- the node's socket ----

/// One frame for the node.
struct Frame {
    kind: u8,
    id: u32,
    payload: Bytes,
}

/// What the node sent one stream, in order.
enum Out {
    Data(Bytes),
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

/// The node's socket and the open streams.
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
        if let Err(err) = socket.write_all(&buffer).await {
            fatal("write", err);
        }
        buffer.clear();
        if buffer.capacity() > 1 << 20 {
            buffer = Vec::with_capacity(64 * 1024);
        }
    }
}

/// Hands the node's frames to their streams.
async fn reader(socket: OwnedReadHalf, mux: Arc<Mux>) {
    let mut socket = BufReader::with_capacity(64 * 1024, socket);
    let mut header = [0u8; 9];
    loop {
        if let Err(err) = socket.read_exact(&mut header).await {
            fatal("read", err);
        }
        let length = u32::from_le_bytes(header[0..4].try_into().unwrap()) as usize;
        if length < 5 {
            fatal("read", format!("a frame of {length} bytes"));
        }
        let mut payload = vec![0u8; length - 5];
        if let Err(err) = socket.read_exact(&mut payload).await {
            fatal("read", err);
        }
        let kind = header[4];
        let id = u32::from_le_bytes(header[5..9].try_into().unwrap());
        let Some(stream) = mux.streams.lock().unwrap().get(&id).cloned() else {
            continue;
        };
        match kind {
            DATA => stream.push(Out::Data(Bytes::from(payload))),
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
            Out::Data(message) => Poll::Ready(Some(Ok(message))),
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
        let address = request.remote_addr().map(|a| a.to_string()).unwrap_or_default();
        let mut inbound = request.into_inner();
        let shared = Arc::new(Shared::default());
        let id = mux.next.fetch_add(1, Ordering::Relaxed) + 1;
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
                                    Code::OutOfRange => Status::resource_exhausted(status.message()),
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
        let relay = Relay { mux, id, shared, inbound: task.abort_handle(), done: false };
        ready(Ok(tonic::Response::new(relay)))
    }
}

// ---- echo: hand the inbound stream back as the outbound stream ----

struct Echo;
impl tower::Service<tonic::Request<Streaming<Bytes>>> for Echo {
    type Response = tonic::Response<Streaming<Bytes>>;
    type Error = Status;
    type Future = Ready<Result<Self::Response, Status>>;
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }
    fn call(&mut self, request: tonic::Request<Streaming<Bytes>>) -> Self::Future {
        ready(Ok(tonic::Response::new(request.into_inner())))
    }
}

// ---- routing on the path ----

#[derive(Clone)]
struct Gateway {
    codec: BytesCodec,
    /// None: echo mode.
    mux: Option<Arc<Mux>>,
}

impl tower::Service<http::Request<Body>> for Gateway {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send>>;
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }
    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let codec = self.codec;
        match &self.mux {
            Some(mux) if request.uri().path() == CONNECT => {
                let connect = Connect(mux.clone());
                Box::pin(async move { Ok(grpc(codec).streaming(connect, request).await) })
            }
            Some(_) => Box::pin(async move {
                Ok(Status::unimplemented("the gateway trial relays bot streams only").into_http::<Body>())
            }),
            None if request.uri().path() == "/bench.Echo/Ping" => {
                Box::pin(async move { Ok(grpc(codec).streaming(Echo, request).await) })
            }
            None => Box::pin(async move { Ok(Status::unimplemented("").into_http::<Body>()) }),
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: gateway_trial_rs (-node SOCKET | -echo)");
    std::process::exit(2)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut node: Option<String> = None;
    let mut echo = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.trim_start_matches('-') {
            "node" if arg.starts_with('-') => node = Some(args.next().unwrap_or_else(|| usage())),
            flag if arg.starts_with('-') && flag.starts_with("node=") => node = Some(flag[5..].to_string()),
            "echo" | "echo=true" if arg.starts_with('-') => echo = true,
            "echo=false" if arg.starts_with('-') => echo = false,
            _ => usage(),
        }
    }

    let mux = if echo {
        None
    } else {
        let path = node.unwrap_or_default();
        let socket = match UnixStream::connect(&path).await {
            Ok(socket) => socket,
            Err(err) => {
                eprintln!("cannot reach the node at {path:?}: {err}");
                std::process::exit(2);
            }
        };
        let (read, write) = socket.into_split();
        let (send, frames) = mpsc::unbounded_channel();
        let mux = Arc::new(Mux { streams: Mutex::new(HashMap::new()), next: AtomicU32::new(0), send });
        tokio::spawn(writer(write, frames));
        tokio::spawn(reader(read, mux.clone()));
        Some(mux)
    };

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{port}").unwrap();
        out.flush().unwrap();
    }
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));

    // Every path reaches the gateway's own routing (tonic's router matches on service names).
    let gateway = Gateway { codec: BytesCodec(BufferSettings::new(CODEC_BUFFER, CODEC_YIELD)), mux };
    let router = axum::Router::new()
        .fallback_service(gateway.map_request(|r: http::Request<axum::body::Body>| r.map(Body::new)));
    let result = tonic::transport::Server::builder()
        .add_routes(tonic::service::Routes::from(router))
        .serve_with_incoming(incoming)
        .await;
    if let Err(err) = result {
        eprintln!("serve: {err}");
        std::process::exit(1);
    }
}
