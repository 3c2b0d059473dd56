//! The front's listener: its own accept loop, to cap the open connections, and each connection's
//! life, in a task of its own.
//!
//! - The handshake: TLS if the front serves it, then the HTTP/2 client preface, all within
//!   `--handshake-timeout-seconds`; a connection that has not sent them by then (or sent something
//!   else) is closed.
//! - HTTP/2 then, until the connection has had no call open for `--idle-connection-seconds`: it is
//!   sent a GOAWAY, and closed if it is still there, with no call open, the same time later. A call
//!   is open from its request until its response ends, a relayed bot stream as a proxied call; the
//!   keep-alive pings are no call.
//!
//! A connection counts against `--max-connections` from its accept to its close, handshake and all.

use crate::Front;
use bytes::Bytes;
use http_body::{Frame as BodyFrame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http2;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;
use tonic::Status;
use tonic::body::Body;

const BACKLOG: u32 = 1024;
/// What every HTTP/2 client sends first.
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The client of a call, in its request's extensions.
#[derive(Clone, Copy)]
pub struct Peer(pub SocketAddr);

/// What serving a client connection takes.
pub struct Serving {
    pub http2: http2::Builder<TokioExecutor>,
    pub handshake_timeout: Duration,
    pub idle_timeout: Duration,
    /// None: plain TCP.
    pub tls: Option<TlsAcceptor>,
    pub front: Front,
}

/// Binds `address` (`HOST:PORT`, `[V6]:PORT`; port 0 for any), SO_REUSEPORT if asked.
pub async fn bind(address: &str, reuse_port: bool) -> std::io::Result<TcpListener> {
    let resolved: SocketAddr = match address.parse() {
        Ok(resolved) => resolved,
        Err(_) => tokio::net::lookup_host(address)
            .await?
            .next()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no address"))?,
    };
    let socket = if resolved.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    if reuse_port {
        socket.set_reuseport(true)?;
    }
    socket.bind(resolved)?;
    socket.listen(BACKLOG)
}

/// One open client connection's share of the cap, given back when its task ends.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Accepts connections and serves each in its own task; one accepted while `max` are open is
/// closed at once.
pub async fn accept(listener: TcpListener, max: usize, serving: Arc<Serving>) {
    let open = Arc::new(AtomicUsize::new(0));
    loop {
        match listener.accept().await {
            Ok((io, peer)) => {
                if open.load(Ordering::Relaxed) >= max {
                    drop(io);
                    continue;
                }
                open.fetch_add(1, Ordering::Relaxed);
                let slot = Slot(open.clone());
                let _ = io.set_nodelay(true);
                tokio::spawn(connection(io, peer, slot, serving.clone()));
            }
            Err(err) => match err.kind() {
                std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::Interrupted => {}
                // Out of descriptors or memory: wait a little rather than spin.
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            },
        }
    }
}

/// One client connection, from its accept to its close (when its slot goes back).
async fn connection(io: TcpStream, peer: SocketAddr, _slot: Slot, serving: Arc<Serving>) {
    let within = serving.handshake_timeout;
    match &serving.tls {
        None => {
            let mut io = io;
            if let Ok(true) = tokio::time::timeout(within, preface(&mut io)).await {
                serve(io, peer, &serving).await;
            }
        }
        Some(acceptor) => {
            let handshake = async {
                // Boxed: inline, its 3.5 KiB would be in every connection's task, TLS or not.
                let mut io = Box::new(acceptor.accept(io).await.ok()?);
                preface(&mut io).await.then_some(io)
            };
            if let Ok(Some(io)) = tokio::time::timeout(within, handshake).await {
                serve(io, peer, &serving).await;
            }
        }
    }
}

/// Reads the client's first 24 bytes: whether they are the HTTP/2 preface.
async fn preface(io: &mut (impl AsyncRead + Unpin)) -> bool {
    let mut first = [0u8; PREFACE.len()];
    io.read_exact(&mut first).await.is_ok() && &first == PREFACE
}

/// Serves HTTP/2 on a connection whose preface was read, until it closes or has been idle long
/// enough.
async fn serve<S>(io: S, peer: SocketAddr, serving: &Serving)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let calls = Arc::new(Calls::default());
    let client = Client {
        front: serving.front.clone(),
        calls: calls.clone(),
        peer,
    };
    let io = TokioIo::new(Replayed::new(io));
    let mut conn = pin!(serving.http2.serve_connection(io, client));
    let mut going_away = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            () = calls.idle(serving.idle_timeout) => {
                if going_away {
                    // Its GOAWAY went unheeded (a client that never answers the ping after it).
                    return;
                }
                conn.as_mut().graceful_shutdown();
                calls.restart();
                going_away = true;
            }
        }
    }
}

/// A connection's IO with the preface read off it, which it gives hyper first; its writes gathered.
///
/// h2 copies a DATA frame's payload into its frame buffer only when the payload is under 1 KiB and
/// the IO says it takes no vectored writes; else it keeps the payload apart, and writes (and
/// flushes) the buffer and that one payload before it takes the next frame. Decision requests are a
/// few hundred bytes, so with the vectored writes it was one system call a message, where the bots
/// of one process share one connection and many of their messages are ready at once (a third of
/// the front's CPU, and one `writev` a decision under `strace`). So this IO says it takes no
/// vectored writes, and holds what h2 writes until the next write or the flush: a buffer of small
/// frames leaves in one write at the flush, and a buffer followed by a payload kept apart leaves
/// with it in one vectored write, as before.
struct Replayed<S> {
    io: S,
    replayed: u8,
    /// Written by h2, not yet sent: sent with the next write, or at the flush.
    held: Vec<u8>,
}

impl<S> Replayed<S> {
    fn new(io: S) -> Self {
        Replayed {
            io,
            replayed: 0,
            held: Vec::new(),
        }
    }
}

/// The most a write held back may be: h2's frame buffer (16 KiB) and the head of a frame.
const HELD_MOST: usize = 17 * 1024;
/// A held buffer's capacity kept between flushes; a larger one is freed (idle connections stay small).
const HELD_KEPT: usize = 1024;

impl<S: AsyncRead + Unpin> AsyncRead for Replayed<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let rest = &PREFACE[usize::from(this.replayed)..];
        if rest.is_empty() {
            return Pin::new(&mut this.io).poll_read(cx, buf);
        }
        let n = rest.len().min(buf.remaining());
        buf.put_slice(&rest[..n]);
        this.replayed += n as u8;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> Replayed<S> {
    /// Send what is held (a partial write leaves the rest held).
    fn poll_send_held(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while !self.held.is_empty() {
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, &self.held))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            self.held.drain(..n);
        }
        if self.held.capacity() > HELD_KEPT {
            self.held = Vec::new();
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Replayed<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        while !this.held.is_empty() {
            // What is held leaves with this write, in one system call.
            let both = [
                std::io::IoSlice::new(&this.held),
                std::io::IoSlice::new(buf),
            ];
            let n = ready!(Pin::new(&mut this.io).poll_write_vectored(cx, &both))?;
            if n == 0 {
                return Poll::Ready(Ok(0));
            }
            if n > this.held.len() {
                let sent = n - this.held.len();
                this.held.clear();
                return Poll::Ready(Ok(sent));
            }
            this.held.drain(..n);
        }
        if buf.len() > HELD_MOST {
            return Pin::new(&mut this.io).poll_write(cx, buf);
        }
        this.held.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn is_write_vectored(&self) -> bool {
        false // h2 gathers small payloads into its buffer (above)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_send_held(cx))?;
        Pin::new(&mut this.io).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_send_held(cx))?;
        Pin::new(&mut this.io).poll_shutdown(cx)
    }
}

// ---- the calls open on a connection ----

/// The calls open on one connection, and since when it has had none.
struct Calls {
    state: Mutex<Open>,
    /// Told when the last open call ends.
    ended: Notify,
}

struct Open {
    calls: usize,
    /// When the last call ended (or the connection was served, or sent its GOAWAY).
    since: Instant,
}

impl Default for Calls {
    fn default() -> Self {
        Calls {
            state: Mutex::new(Open {
                calls: 0,
                since: Instant::now(),
            }),
            ended: Notify::new(),
        }
    }
}

impl Calls {
    fn open(self: &Arc<Self>) -> Call {
        self.state.lock().unwrap().calls += 1;
        Call(self.clone())
    }

    /// Starts the idle time again from now.
    fn restart(&self) {
        self.state.lock().unwrap().since = Instant::now();
    }

    /// Returns once the connection has had no call open for `timeout`.
    async fn idle(&self, timeout: Duration) {
        loop {
            let (calls, since) = {
                let state = self.state.lock().unwrap();
                (state.calls, state.since)
            };
            if calls > 0 {
                // A permit left by an earlier end only makes this loop once more.
                self.ended.notified().await;
                continue;
            }
            let Some(deadline) = since.checked_add(timeout) else {
                return std::future::pending().await; // a timeout past the end of time
            };
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// One open call: from its request until its response is dropped (ended, or reset).
struct Call(Arc<Calls>);

impl Drop for Call {
    fn drop(&mut self) {
        let mut state = self.0.state.lock().unwrap();
        state.calls -= 1;
        if state.calls == 0 {
            state.since = Instant::now();
            drop(state);
            self.0.ended.notify_one();
        }
    }
}

/// One connection's service: the front's, with each call counted and its client named.
struct Client {
    front: Front,
    calls: Arc<Calls>,
    peer: SocketAddr,
}

impl hyper::service::Service<http::Request<Incoming>> for Client {
    type Response = http::Response<Counted>;
    type Error = Infallible;
    type Future = Counting;

    fn call(&self, mut request: http::Request<Incoming>) -> Counting {
        request.extensions_mut().insert(Peer(self.peer));
        Counting {
            call: Some(self.calls.open()),
            response: self.front.route(request.map(Body::new)),
        }
    }
}

/// A call's response, on its way.
pub type Routed = Pin<Box<dyn Future<Output = http::Response<Body>> + Send>>;

/// A call's response on its way, its call open.
struct Counting {
    response: Routed,
    call: Option<Call>,
}

impl Future for Counting {
    type Output = Result<http::Response<Counted>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let response = ready!(this.response.as_mut().poll(cx));
        let call = this
            .call
            .take()
            .expect("a call's response is returned once");
        Poll::Ready(Ok(response.map(|body| Counted { body, _call: call })))
    }
}

/// A response's body, its call open until hyper drops it.
struct Counted {
    body: Body,
    _call: Call,
}

impl http_body::Body for Counted {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<BodyFrame<Bytes>, Status>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }
    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }
    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::IoSlice;
    use std::sync::{Arc, Mutex};

    /// An IO that records each system call a write would be, and takes at most `room` bytes a call.
    #[derive(Clone)]
    struct Wire {
        sent: Arc<Mutex<Vec<Vec<u8>>>>,
        room: usize,
    }

    impl AsyncRead for Wire {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            Poll::Pending
        }
    }

    impl AsyncWrite for Wire {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            let n = buf.len().min(self.room);
            self.sent.lock().unwrap().push(buf[..n].to_vec());
            Poll::Ready(Ok(n))
        }
        fn poll_write_vectored(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            bufs: &[IoSlice<'_>],
        ) -> Poll<std::io::Result<usize>> {
            let all: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
            let n = all.len().min(self.room);
            self.sent.lock().unwrap().push(all[..n].to_vec());
            Poll::Ready(Ok(n))
        }
        fn is_write_vectored(&self) -> bool {
            true
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn replayed(room: usize) -> (Replayed<Wire>, Arc<Mutex<Vec<Vec<u8>>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        (
            Replayed::new(Wire {
                sent: sent.clone(),
                room,
            }),
            sent,
        )
    }

    async fn write_all(io: &mut Replayed<Wire>, mut buf: &[u8]) {
        while !buf.is_empty() {
            let n = std::future::poll_fn(|cx| Pin::new(&mut *io).poll_write(cx, buf))
                .await
                .unwrap();
            assert!(n > 0);
            buf = &buf[n..];
        }
    }

    async fn flush(io: &mut Replayed<Wire>) {
        std::future::poll_fn(|cx| Pin::new(&mut *io).poll_flush(cx))
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_buffer_of_frames_leaves_in_one_write_at_the_flush() {
        let (mut io, sent) = replayed(usize::MAX);
        assert!(
            !io.is_write_vectored(),
            "h2 copies small payloads into its buffer only then"
        );
        write_all(&mut io, b"many frames").await;
        assert!(sent.lock().unwrap().is_empty(), "held until the flush");
        flush(&mut io).await;
        assert_eq!(*sent.lock().unwrap(), vec![b"many frames".to_vec()]);
    }

    #[tokio::test]
    async fn a_buffer_and_the_payload_after_it_leave_in_one_write() {
        let (mut io, sent) = replayed(usize::MAX);
        write_all(&mut io, b"head").await;
        write_all(&mut io, b"payload").await;
        flush(&mut io).await;
        assert_eq!(*sent.lock().unwrap(), vec![b"headpayload".to_vec()]);
    }

    #[tokio::test]
    async fn partial_writes_send_every_byte_once_in_order() {
        let (mut io, sent) = replayed(3);
        write_all(&mut io, b"head").await;
        write_all(&mut io, b"payload").await;
        write_all(&mut io, b"tail").await;
        flush(&mut io).await;
        let all: Vec<u8> = sent.lock().unwrap().concat();
        assert_eq!(all, b"headpayloadtail".to_vec());
        assert!(io.held.is_empty());
    }

    #[tokio::test]
    async fn a_write_larger_than_what_may_be_held_is_not_copied() {
        let (mut io, sent) = replayed(usize::MAX);
        let big = vec![7u8; HELD_MOST + 1];
        write_all(&mut io, &big).await;
        assert_eq!(sent.lock().unwrap().len(), 1, "sent at once");
        flush(&mut io).await;
        assert_eq!(sent.lock().unwrap().concat(), big);
    }

    #[tokio::test]
    async fn a_large_held_buffer_is_freed_after_the_flush() {
        let (mut io, _) = replayed(usize::MAX);
        write_all(&mut io, &vec![1u8; 16 * 1024]).await;
        flush(&mut io).await;
        assert_eq!(io.held.capacity(), 0);
    }
}
