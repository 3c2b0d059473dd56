// Command gateway_trial is a trial, not a transport: a gRPC front for the arena's bot streams, in Go,
// that hands every arena.v1.BotService/Connect stream to one node over one Unix socket
// (benchmarks/gateway_trial_node.py has the node's end and the frames), to measure what a front
// outside Python would save the node. It proxies no other RPC and has no TLS.
//
// With -echo it is instead a bare grpc-go echo server (/bench.Echo/Ping), the floor it is compared with.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// The frame kinds, both ways (see gateway_trial_node.py).
const (
	kindOpen      = 1
	kindData      = 2
	kindHalfClose = 3
	kindCancel    = 4
	kindEnd       = 5
)

// raw is a message passed on as it came: the gateway decodes nothing.
type raw struct{ b []byte }

type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.(*raw).b, nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	v.(*raw).b = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// stream is one bot stream's way back from the node.
type stream struct {
	out chan []byte
	end chan *status.Status
}

// mux holds the node's socket and the open streams.
type mux struct {
	mu      sync.Mutex
	streams map[uint32]*stream
	next    uint32
	send    chan []byte
}

func frame(kind byte, id uint32, payload []byte) []byte {
	b := make([]byte, 9+len(payload))
	binary.LittleEndian.PutUint32(b[0:], uint32(5+len(payload)))
	b[4] = kind
	binary.LittleEndian.PutUint32(b[5:], id)
	copy(b[9:], payload)
	return b
}

// writer sends the frames queued meanwhile in one write.
func (m *mux) writer(conn net.Conn) {
	w := bufio.NewWriterSize(conn, 64*1024)
	for f := range m.send {
		w.Write(f)
	more:
		for {
			select {
			case g := <-m.send:
				w.Write(g)
			default:
				break more
			}
		}
		if err := w.Flush(); err != nil {
			log.Fatalf("the node's socket: %v", err)
		}
	}
}

// reader hands the node's frames to their streams.
func (m *mux) reader(conn net.Conn) {
	r := bufio.NewReaderSize(conn, 64*1024)
	header := make([]byte, 9)
	for {
		if _, err := io.ReadFull(r, header); err != nil {
			log.Fatalf("the node's socket: %v", err)
		}
		payload := make([]byte, binary.LittleEndian.Uint32(header[0:])-5)
		if _, err := io.ReadFull(r, payload); err != nil {
			log.Fatalf("the node's socket: %v", err)
		}
		id := binary.LittleEndian.Uint32(header[5:])
		m.mu.Lock()
		s := m.streams[id]
		m.mu.Unlock()
		if s == nil {
			continue
		}
		switch header[4] {
		case kindData:
			s.out <- payload
		case kindEnd:
			s.end <- status.New(codes.Code(binary.LittleEndian.Uint32(payload)), string(payload[4:]))
		}
	}
}

// connect relays one bot stream: a goroutine reads the bot, this one writes to it.
func (m *mux) connect(ss grpc.ServerStream) error {
	p, _ := peer.FromContext(ss.Context())
	s := &stream{out: make(chan []byte, 16), end: make(chan *status.Status, 1)}
	m.mu.Lock()
	m.next++
	id := m.next
	m.streams[id] = s
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.streams, id)
		m.mu.Unlock()
	}()
	m.send <- frame(kindOpen, id, []byte(p.Addr.String()))
	go func() {
		for {
			var message raw
			if err := ss.RecvMsg(&message); err != nil {
				if err == io.EOF {
					m.send <- frame(kindHalfClose, id, nil)
				} else {
					m.send <- frame(kindCancel, id, nil)
				}
				return
			}
			m.send <- frame(kindData, id, message.b)
		}
	}()
	for {
		select {
		case b := <-s.out:
			if err := ss.SendMsg(&raw{b}); err != nil {
				return err
			}
		case st := <-s.end:
			for len(s.out) > 0 {
				if err := ss.SendMsg(&raw{<-s.out}); err != nil {
					return err
				}
			}
			return st.Err()
		case <-ss.Context().Done():
			return ss.Context().Err()
		}
	}
}

func echo(_ any, ss grpc.ServerStream) error {
	for {
		var message raw
		if err := ss.RecvMsg(&message); err != nil {
			return nil
		}
		if err := ss.SendMsg(&message); err != nil {
			return err
		}
	}
}

func main() {
	node := flag.String("node", "", "the node's Unix socket (gateway_trial_node.py)")
	echoOnly := flag.Bool("echo", false, "serve a bare echo (/bench.Echo/Ping) instead")
	flag.Parse()
	encoding.RegisterCodec(rawCodec{})
	handler := echo
	if !*echoOnly {
		conn, err := net.Dial("unix", *node)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cannot reach the node at %q: %v\n", *node, err)
			os.Exit(2)
		}
		m := &mux{streams: map[uint32]*stream{}, send: make(chan []byte, 4096)}
		go m.writer(conn)
		go m.reader(conn)
		handler = func(_ any, ss grpc.ServerStream) error {
			if method, _ := grpc.MethodFromServerStream(ss); method != "/arena.v1.BotService/Connect" {
				return status.Error(codes.Unimplemented, "the gateway trial relays bot streams only")
			}
			return m.connect(ss)
		}
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(listener.Addr().(*net.TCPAddr).Port)
	server := grpc.NewServer(grpc.UnknownServiceHandler(handler), grpc.SharedWriteBuffer(true),
		grpc.ReadBufferSize(4096), grpc.WriteBufferSize(4096), grpc.MaxRecvMsgSize(64*1024))
	log.Fatal(server.Serve(listener))
}
