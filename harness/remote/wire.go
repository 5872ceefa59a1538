package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/selector"
	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/suite"
)

// maxFrame bounds one message: a program that sends more is broken or
// hostile, and the call fails instead of the grader buffering it.
const maxFrame = 64 << 20

// frame is every message of the protocol; which fields are set depends on
// its place in the exchange (see doc.go, responsibility 2).
type frame struct {
	// A request: the method, its arguments and the caller's deadline.
	Method   string          `json:"method,omitempty"`
	Deadline int64           `json:"deadline,omitempty"` // Unix nanoseconds, 0 for none
	Args     json.RawMessage `json:"-"`                  // the payload, when HasArgs
	HasArgs  bool            `json:"args,omitempty"`

	// The final answer of a call: exactly one of Result, Err, Panic and
	// Goexit (a call that returns no value answers Result "null").
	Result    json.RawMessage `json:"-"` // the payload, when HasResult
	HasResult bool            `json:"result,omitempty"`
	Err       *wireError      `json:"err,omitempty"`
	Panic     *wirePanic      `json:"panic,omitempty"`
	Goexit    bool            `json:"goexit,omitempty"`

	// Streams: a watch that started, its events and its end (with Err,
	// nil when the watch ended without one), the grader's credit for more
	// events, and the bytes of a snapshot or restore with their end; a
	// handle that started (exercise 05's authorizer or gate: Started with
	// its number as Result) and its End once the caller hung up.
	Started bool            `json:"started,omitempty"`
	Events  []storage.Event `json:"events,omitempty"`
	End     bool            `json:"end,omitempty"`
	Credit  int             `json:"credit,omitempty"`
	Data    []byte          `json:"-"` // the payload, raw, when HasData
	HasData bool            `json:"data,omitempty"`
	EOF     bool            `json:"eof,omitempty"`
}

// wirePanic is a panic in the implementation: its value as text and the
// line of the exercise or solution file it came from.
type wirePanic struct {
	Value string `json:"value"`
	Where string `json:"where,omitempty"`
}

// Panic is what a client panics with when the implementation panicked in
// its own program: it prints as the value did there, with the line it
// came from, so the suite reports it as it would in one process.
type Panic struct {
	Value string
	Where string
}

func (p *Panic) String() string {
	if p.Where == "" {
		return p.Value
	}
	return p.Value + "\n\tat " + p.Where
}

// goexitMessage is how a call that ended through runtime.Goexit fails.
const goexitMessage = "the implementation called runtime.Goexit"

// wireError is an error crossing the boundary: its text, the sentinels
// it wraps (by name, so errors.Is still works on the other side), a
// *selector.ParseError and an apiserver's *api.Status it carries (so that
// client.IsNotFound, IsConflict, ... still work) and a scheduler's
// *framework.FitError (errors.As finds it, with all its fields).
type wireError struct {
	Msg    string               `json:"msg"`
	Is     []string             `json:"is,omitempty"`
	Parse  *selector.ParseError `json:"parse,omitempty"`
	Status *api.Status          `json:"status,omitempty"`
	Fit    *framework.FitError  `json:"fit,omitempty"`
}

// sentinels are the errors whose identity crosses the boundary.
var sentinels = map[string]error{
	"cri.ErrNotFound":           cri.ErrNotFound,
	"cri.ErrTimeout":            cri.ErrTimeout,
	"storage.ErrNotFound":       storage.ErrNotFound,
	"storage.ErrExists":         storage.ErrExists,
	"storage.ErrConflict":       storage.ErrConflict,
	"storage.ErrCompacted":      storage.ErrCompacted,
	"storage.ErrFutureRevision": storage.ErrFutureRevision,
	"storage.ErrClosed":         storage.ErrClosed,
	"storage.ErrEmptyKey":       storage.ErrEmptyKey,
	"storage.ErrInvalidRange":   storage.ErrInvalidRange,
	"storage.ErrInvalidTxn":     storage.ErrInvalidTxn,
	"storage.ErrSlowWatcher":    storage.ErrSlowWatcher,
	"storage.ErrNotEmpty":       storage.ErrNotEmpty,
	"storage.ErrCorrupt":        storage.ErrCorrupt,
	"context.Canceled":          context.Canceled,
	"context.DeadlineExceeded":  context.DeadlineExceeded,
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Msg: err.Error()}
	for name, s := range sentinels {
		if errors.Is(err, s) {
			w.Is = append(w.Is, name)
		}
	}
	var pe *selector.ParseError
	if errors.As(err, &pe) && pe != nil {
		w.Parse = pe
	}
	var st *api.Status
	if errors.As(err, &st) && st != nil {
		w.Status = st
	}
	var fe *framework.FitError
	if errors.As(err, &fe) && fe != nil {
		w.Fit = fe
	}
	return w
}

// remoteError is an error that came from the other side.
type remoteError struct {
	msg  string
	errs []error
}

func (e *remoteError) Error() string   { return e.msg }
func (e *remoteError) Unwrap() []error { return e.errs }

func fromWire(w *wireError) error {
	if w == nil {
		return nil
	}
	if w.Parse != nil && len(w.Is) == 0 && w.Parse.Error() == w.Msg {
		return w.Parse
	}
	if w.Status != nil && w.Parse == nil && w.Fit == nil && len(w.Is) == 0 && w.Status.Error() == w.Msg {
		return w.Status
	}
	if w.Fit != nil && w.Parse == nil && w.Status == nil && len(w.Is) == 0 && w.Fit.Error() == w.Msg {
		return w.Fit
	}
	if len(w.Is) == 1 && w.Parse == nil && w.Status == nil && w.Fit == nil {
		if s, ok := sentinels[w.Is[0]]; ok && s.Error() == w.Msg {
			return s // the sentinel itself: err == context.Canceled holds too
		}
	}
	e := &remoteError{msg: w.Msg}
	for _, name := range w.Is {
		if s, ok := sentinels[name]; ok {
			e.errs = append(e.errs, s)
		}
	}
	if w.Parse != nil {
		e.errs = append(e.errs, w.Parse)
	}
	if w.Status != nil {
		e.errs = append(e.errs, w.Status)
	}
	if w.Fit != nil {
		e.errs = append(e.errs, w.Fit)
	}
	return e
}

// conn is one connection of the protocol: length-prefixed JSON frames.
// Writes may come from several goroutines; reads from one.
type conn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex
}

func newConn(c net.Conn) *conn { return &conn{c: c, r: bufio.NewReader(c)} }

// A frame on the wire is its length (4 bytes, big-endian), the length
// of its header (4 bytes), the header as JSON, and the payload: the
// arguments or the result (JSON too), or the bytes of a snapshot or
// restore, kept out of the header so that neither side encodes or scans
// them twice.
func (c *conn) write(f *frame) error {
	f.HasArgs, f.HasResult, f.HasData = f.Args != nil, f.Result != nil, f.Data != nil
	var payload []byte
	n := 0
	for _, p := range [][]byte{f.Args, f.Result, f.Data} {
		if p != nil {
			payload = p
			n++
		}
	}
	if n > 1 {
		return errors.New("remote: a frame with more than one payload")
	}
	header, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("remote: encoding a message: %w", err)
	}
	buf := make([]byte, 8, 8+len(header)+len(payload))
	binary.BigEndian.PutUint32(buf, uint32(4+len(header)+len(payload)))
	binary.BigEndian.PutUint32(buf[4:], uint32(len(header)))
	buf = append(append(buf, header...), payload...)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.c.Write(buf)
	return err
}

// errGarbage marks a message that is not one of the protocol's.
var errGarbage = errors.New("remote: garbled protocol message")

func (c *conn) read() (*frame, error) {
	var n [4]byte
	if _, err := io.ReadFull(c.r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxFrame || size < 4 {
		return nil, fmt.Errorf("%w: a frame of %d bytes (from 4 to %d)", errGarbage, size, maxFrame)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(c.r, data); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	hlen := binary.BigEndian.Uint32(data)
	if hlen > size-4 {
		return nil, fmt.Errorf("%w: a header of %d bytes in a frame of %d", errGarbage, hlen, size)
	}
	header, payload := data[4:4+hlen], data[4+hlen:]
	var f frame
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", errGarbage, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one header", errGarbage)
	}
	switch {
	case btoi(f.HasArgs)+btoi(f.HasResult)+btoi(f.HasData) > 1:
		return nil, fmt.Errorf("%w: more than one payload", errGarbage)
	case f.HasArgs:
		f.Args = payload
	case f.HasResult:
		f.Result = payload
	case f.HasData:
		f.Data = payload
	case len(payload) > 0:
		return nil, fmt.Errorf("%w: %d bytes after the header of a frame with no payload", errGarbage, len(payload))
	}
	return &f, nil
}

func (c *conn) Close() error { return c.c.Close() }

// deadlineOf is the deadline a request carries.
func deadlineOf(ctx context.Context) int64 {
	if d, ok := ctx.Deadline(); ok {
		return d.UnixNano()
	}
	return 0
}

// requestContext is the server's context of a call: it has the caller's
// deadline and ends when the caller hangs up.
func requestContext(f *frame) (context.Context, context.CancelFunc) {
	if f.Deadline != 0 {
		return context.WithDeadline(context.Background(), time.Unix(0, f.Deadline))
	}
	return context.WithCancel(context.Background())
}

// guard runs fn, turning a panic or a runtime.Goexit into the frame that
// reports it; fn's own frame otherwise.
func guard(fn func() *frame) (f *frame) {
	done := make(chan *frame, 1)
	go func() {
		returned := false
		defer func() {
			if r := recover(); r != nil {
				done <- panicFrame(r)
				return
			}
			if !returned {
				done <- &frame{Goexit: true}
			}
		}()
		res := fn()
		returned = true
		done <- res
	}()
	return <-done
}

// panicFrame reports a panic with value r, recovered just now: the stack
// still shows where it came from.
func panicFrame(r any) *frame {
	return &frame{Panic: &wirePanic{Value: fmt.Sprint(r), Where: suite.ImplementationFrame(string(debug.Stack()))}}
}

// resultFrame encodes a call's value and error as its final frame.
func resultFrame(v any, err error) *frame {
	if err != nil {
		return &frame{Err: toWire(err)}
	}
	data, merr := json.Marshal(v)
	if merr != nil {
		return &frame{Err: toWire(fmt.Errorf("remote: encoding the result: %w", merr))}
	}
	return &frame{Result: data}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
