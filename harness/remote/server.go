package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
)

// Service is what a learner's program serves: the methods of one
// exercise's contract, and for a contract that is HTTP, its handlers.
type Service struct {
	exercise string
	methods  map[string]method
	handlers *handlers // nil unless the contract is served over HTTP
}

// method serves one call. It runs guarded: a panic or runtime.Goexit in
// it becomes the call's answer.
type method func(c *serverCall) *frame

// serverCall is one call as the server sees it.
type serverCall struct {
	ctx  context.Context
	conn *conn
	args json.RawMessage
	// in has the frames the caller sends after its request (a watch's
	// credit, a restore's bytes); it is closed when the caller hangs up.
	in <-chan *frame
}

func (c *serverCall) decode(v any) *frame {
	if err := json.Unmarshal(c.args, v); err != nil {
		return &frame{Err: toWire(fmt.Errorf("remote: arguments that do not decode: %w", err))}
	}
	return nil
}

// The learner's program is given its listeners as inherited files.
const (
	rpcFD  = 3
	httpFD = 4
)

// Serve serves svc in the learner's program, on the connections the
// grader makes, until the grader goes away (its end of stdin closes):
// then the program exits at once, as if killed. It never returns.
func Serve(svc Service) {
	rpcL, err := net.FileListener(os.NewFile(rpcFD, "rpc"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "remote: this program serves the %s contract to kata grade, which starts it: %v\n", svc.exercise, err)
		os.Exit(2)
	}
	httpL, err := net.FileListener(os.NewFile(httpFD, "http"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "remote: this program serves the %s contract to kata grade, which starts it: %v\n", svc.exercise, err)
		os.Exit(2)
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	if svc.handlers != nil {
		go func() { _ = http.Serve(httpL, svc.handlers) }()
	}
	serve(rpcL, svc.methods)
	os.Exit(4)
}

// serve accepts connections on l and serves methods on each one, until
// l is closed.
func serve(l net.Listener, methods map[string]method) {
	for {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		go serveConn(newConn(nc), methods)
	}
}

func serveConn(c *conn, methods map[string]method) {
	defer c.Close()
	req, err := c.read()
	if err != nil {
		return
	}
	m, ok := methods[req.Method]
	if !ok {
		_ = c.write(&frame{Err: toWire(fmt.Errorf("remote: no method %q here", req.Method))})
		return
	}
	ctx, cancel := requestContext(req)
	defer cancel()
	in := make(chan *frame)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(in)
		defer cancel()
		for {
			f, err := c.read()
			if err != nil {
				return
			}
			select {
			case in <- f:
			case <-done:
				return
			}
		}
	}()
	sc := &serverCall{ctx: ctx, conn: c, args: req.Args, in: in}
	_ = c.write(guard(func() *frame { return m(sc) }))
}

// handlers are the HTTP handlers a program made (the apiserver's), found
// by the header the grader's proxy sets.
type handlers struct {
	mu     sync.Mutex
	next   int64
	byID   map[int64]http.Handler
	active map[string]chan struct{} // requests being served, by id
}
