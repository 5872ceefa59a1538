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

// serveConn serves the calls that come on c, one after the other: a
// caller that got its answer may send the next request on the same
// connection.
func serveConn(c *conn, methods map[string]method) {
	defer c.Close()
	frames := make(chan *frame)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(frames)
		for {
			f, err := c.read()
			if err != nil {
				return
			}
			select {
			case frames <- f:
			case <-stop:
				return
			}
		}
	}()
	for {
		req, ok := <-frames
		if !ok || !serveCall(c, methods, req, frames) {
			return
		}
	}
}

// serveCall serves one request; false when the connection is done: the
// caller hung up (which cancels the call's context) or a write failed.
func serveCall(c *conn, methods map[string]method, req *frame, frames <-chan *frame) bool {
	m, ok := methods[req.Method]
	if !ok {
		return c.write(&frame{Err: toWire(fmt.Errorf("remote: no method %q here", req.Method))}) == nil
	}
	ctx, cancel := requestContext(req)
	defer cancel()
	in := make(chan *frame)
	callDone := make(chan struct{})
	alive := make(chan bool, 1)
	go func() {
		for {
			select {
			case f, ok := <-frames:
				if !ok {
					cancel()
					close(in)
					alive <- false
					return
				}
				select {
				case in <- f:
				case <-callDone:
					alive <- false // a frame the call did not take: out of step
					return
				}
			case <-callDone:
				alive <- true
				return
			}
		}
	}()
	sc := &serverCall{ctx: ctx, conn: c, args: req.Args, in: in}
	answer := func(res *frame) bool {
		close(callDone)
		ok := <-alive
		return c.write(res) == nil && ok
	}
	// The call runs on this goroutine, whose stack has grown already: a
	// goroutine per call costs more than the call. A runtime.Goexit in it
	// ends this goroutine, and with it the connection, once the answer
	// saying so is written.
	returned := false
	var res *frame
	defer func() {
		if !returned && res == nil {
			answer(&frame{Goexit: true})
		}
	}()
	res = func() (f *frame) {
		defer func() {
			if r := recover(); r != nil {
				f = panicFrame(r)
			}
		}()
		return m(sc)
	}()
	returned = true
	return answer(res)
}

// handlers are the HTTP handlers a program made (the apiserver's), found
// by the header the grader's proxy sets.
type handlers struct {
	mu     sync.Mutex
	next   int64
	byID   map[int64]http.Handler
	active map[string]chan struct{} // requests being served, by id
}
