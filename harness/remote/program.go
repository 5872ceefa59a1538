package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvImpl names the learner's program, for the grader's test binary.
const EnvImpl = "KATA_IMPL"

// Time limits of the grader's side.
const (
	// DefaultCallTimeout bounds one call of a pure function (Plan, Parse,
	// ...). They take no context, so a deadline of their own is the only
	// way to stop one that hangs; it is half the suite's step deadline
	// (suite.DefaultTimeout), so that the call fails with its own message
	// while its step can still report it, and it is thousands of times
	// what any of these calls needs.
	DefaultCallTimeout = 5 * time.Second
	// hangGrace is how long a call that takes a context may go on after
	// its context ended before the program is killed.
	hangGrace = 2 * time.Second
	// runGrace is hangGrace for a loop's Run (a scheduler's, a
	// controller's): as long as the longest wait of the suites' own check
	// that Run returns after its ctx ended (replicasettest's loopWait),
	// so that a Run that stops slowly on a loaded machine gets the same
	// verdict across the boundary as in one process, from the suite's
	// check, not from a kill. CI once saw 07's step 11-burst, which
	// passes in one process, killed at 2s through the boundary.
	runGrace = 10 * time.Second
	// exitWait bounds the wait for a program that broke a connection to
	// be seen exiting, and for its output to end after it exited.
	exitWait = 2 * time.Second
)

// Program is the learner's program as the grader sees it: started on the
// first call, started again after it died, killed and reaped by Close.
type Program struct {
	path string
	out  *output
	// CallTimeout bounds each call of a pure function; zero means
	// DefaultCallTimeout.
	CallTimeout time.Duration

	mu     sync.Mutex
	cur    *proc
	procs  []*proc
	closed bool
	back   *backServer // the grader's stores, served to the program
	nexts  *nextServer // the grader's next handlers (exercise 05)
}

// NewProgram returns the program at path, not started yet. What it prints
// goes to w, escaped and prefixed with OutputPrefix.
func NewProgram(path string, w io.Writer) *Program {
	return &Program{path: path, out: newOutput(w)}
}

// FromEnv is the program named by $KATA_IMPL, printing to the test
// binary's stderr; it is closed when t ends. t fails when the variable is
// not set.
func FromEnv(t testing.TB) *Program {
	t.Helper()
	path := os.Getenv(EnvImpl)
	if path == "" {
		t.Fatalf("remote: $%s is not set: this test grades a program built from the learner's package, and kata grade sets it", EnvImpl)
	}
	p := NewProgram(path, os.Stderr)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// Close kills every program started and waits for them and their output.
func (p *Program) Close() error {
	p.mu.Lock()
	p.closed = true
	procs := p.procs
	back, nexts := p.back, p.nexts
	p.back, p.nexts = nil, nil
	p.mu.Unlock()
	for _, pr := range procs {
		pr.kill("")
		<-pr.exited
	}
	if back != nil {
		back.close()
	}
	if nexts != nil {
		nexts.close()
	}
	return nil
}

func (p *Program) callTimeout() time.Duration {
	if p.CallTimeout > 0 {
		return p.CallTimeout
	}
	return DefaultCallTimeout
}

// proc returns the running program, starting one when none runs.
func (p *Program) proc() (*proc, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("remote: the program was closed")
	}
	if p.cur != nil {
		select {
		case <-p.cur.exited:
		default:
			return p.cur, nil
		}
	}
	pr, err := p.start()
	if err != nil {
		return nil, err
	}
	p.cur = pr
	p.procs = append(p.procs, pr)
	return pr, nil
}

// proc is one run of the program.
type proc struct {
	p        *Program
	dir      string
	rpcPath  string
	httpPath string
	cmd      *exec.Cmd
	stdin    *os.File
	streams  []*stream
	// startMark numbers the first line this run printed.
	startMark int

	mu         sync.Mutex
	killReason string

	exited  chan struct{}
	exitErr string // what the program's end looked like, set before exited closes
	http    *httpClient
	ep      *endpoint
}

func (p *Program) start() (*proc, error) {
	dir, err := socketDir()
	if err != nil {
		return nil, err
	}
	pr := &proc{p: p, dir: dir, rpcPath: socketName(dir, "rpc"), httpPath: socketName(dir, "http"), exited: make(chan struct{})}
	var closers []io.Closer
	cleanup := func() {
		for _, c := range closers {
			_ = c.Close()
		}
	}
	listen := func(path string) (*os.File, error) {
		l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			return nil, err
		}
		l.SetUnlinkOnClose(false)
		f, err := l.File()
		_ = l.Close()
		return f, err
	}
	rpcF, err := listen(pr.rpcPath)
	if err != nil {
		removeSocketDir(dir)
		return nil, fmt.Errorf("remote: %w", err)
	}
	closers = append(closers, rpcF)
	httpF, err := listen(pr.httpPath)
	if err != nil {
		cleanup()
		removeSocketDir(dir)
		return nil, fmt.Errorf("remote: %w", err)
	}
	closers = append(closers, httpF)
	inR, inW, err := os.Pipe()
	if err != nil {
		cleanup()
		removeSocketDir(dir)
		return nil, fmt.Errorf("remote: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cleanup()
		_ = inR.Close()
		_ = inW.Close()
		removeSocketDir(dir)
		return nil, fmt.Errorf("remote: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		cleanup()
		for _, f := range []*os.File{inR, inW, outR, outW} {
			_ = f.Close()
		}
		removeSocketDir(dir)
		return nil, fmt.Errorf("remote: %w", err)
	}
	cmd := exec.Command(p.path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.ExtraFiles = []*os.File{rpcF, httpF}
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		cleanup()
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			_ = f.Close()
		}
		removeSocketDir(dir)
		return nil, fmt.Errorf("remote: starting the implementation's program: %w", err)
	}
	cleanup()
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()
	pr.cmd, pr.stdin = cmd, inW
	pr.startMark = p.out.mark()
	pr.streams = []*stream{newStream(outR, p.out), newStream(errR, p.out)}
	pr.http = newHTTPClient(pr)
	pr.ep = &endpoint{pr: pr, path: pr.rpcPath}
	go pr.wait(outR, errR)
	return pr, nil
}

// wait reaps the program, waits for the end of its output (a little:
// a child of its own may hold the pipes open) and says how it ended.
func (pr *proc) wait(outR, errR *os.File) {
	err := pr.cmd.Wait()
	for _, s := range pr.streams {
		if !s.Wait(exitWait) {
			break
		}
	}
	_ = outR.Close()
	_ = errR.Close()
	_ = pr.stdin.Close()
	status := "exit status 0"
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		status = ee.ProcessState.String()
	} else if err != nil {
		status = err.Error()
	}
	msg := fmt.Sprintf("the implementation's program exited (%s)", status)
	pr.mu.Lock()
	if pr.killReason != "" {
		msg = fmt.Sprintf("the implementation's program was killed: %s", pr.killReason)
	}
	pr.mu.Unlock()
	if lines := pr.p.out.since(pr.startMark, exitLines); len(lines) > 0 {
		msg += "; the last lines it printed:" + quoteLines(lines)
	}
	pr.exitErr = msg
	pr.http.close()
	pr.ep.closeIdle()
	removeSocketDir(pr.dir)
	close(pr.exited)
}

func quoteLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("\n\t| ")
		b.WriteString(l)
	}
	return b.String()
}

// kill kills the program; reason, when not empty, is what its calls
// report.
func (pr *proc) kill(reason string) {
	pr.mu.Lock()
	if pr.killReason == "" {
		pr.killReason = reason
	}
	pr.mu.Unlock()
	_ = pr.cmd.Process.Kill()
}

// syncOutput waits until the output the program printed so far was read.
func (pr *proc) syncOutput() {
	for _, s := range pr.streams {
		s.Sync()
	}
}

// printed is what the program printed since mark, for a failure message.
func (pr *proc) printed(mark int) string {
	pr.syncOutput()
	lines := pr.p.out.since(mark, callLines)
	if len(lines) == 0 {
		return ""
	}
	return "\n\twhile it ran, the program printed:" + quoteLines(lines)
}

// broken explains a connection that failed during method: the program
// died, or it broke the protocol.
func (pr *proc) broken(method string, mark int, err error) error {
	if errors.Is(err, errGarbage) {
		return fmt.Errorf("remote: %s: the implementation's program broke the protocol: %v%s", method, err, pr.printed(mark))
	}
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-pr.exited:
		return fmt.Errorf("remote: %s: %s", method, pr.exitErr)
	case <-t.C:
	}
	return fmt.Errorf("remote: %s: the connection to the implementation's program broke: %v%s", method, err, pr.printed(mark))
}

// endpoint is one side's way to reach the other: the grader's to the
// learner's program (pr set), or the program's back to the grader's
// stores.
type endpoint struct {
	pr   *proc
	path string

	mu   sync.Mutex
	idle []*conn // connections whose last call ended cleanly
}

func (pr *proc) endpoint() *endpoint { return pr.ep }

// maxIdle bounds the connections an endpoint keeps for reuse.
const maxIdle = 64

func (ep *endpoint) get() *conn {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if n := len(ep.idle); n > 0 {
		c := ep.idle[n-1]
		ep.idle = ep.idle[:n-1]
		return c
	}
	return nil
}

func (ep *endpoint) put(c *conn) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if len(ep.idle) < maxIdle {
		ep.idle = append(ep.idle, c)
		return
	}
	_ = c.Close()
}

// closeIdle closes the connections kept for reuse.
func (ep *endpoint) closeIdle() {
	ep.mu.Lock()
	idle := ep.idle
	ep.idle = nil
	ep.mu.Unlock()
	for _, c := range idle {
		_ = c.Close()
	}
}

// clientCall is one call or stream on its own connection.
type clientCall struct {
	ep     *endpoint
	c      *conn
	method string
	mark   int

	mu       sync.Mutex
	finished bool
	grace    *time.Timer
	stopCtx  func() bool
	timer    *time.Timer
	timedOut bool
}

// open connects and sends the request. When ctx ends before the call
// does, the server's context is cancelled, and a program that does not
// answer within grace is killed. A timeout above zero kills the
// program when the call takes longer.
func (ep *endpoint) open(ctx context.Context, method string, args any, timeout, grace time.Duration) (*clientCall, error) {
	cc := &clientCall{ep: ep, method: method}
	if ep.pr != nil {
		cc.mark = ep.pr.p.out.mark()
		select {
		case <-ep.pr.exited:
			return nil, fmt.Errorf("remote: %s: %s", method, ep.pr.exitErr)
		default:
		}
	}
	cc.c = ep.get()
	if cc.c == nil {
		// Not DialContext: a call whose context is already done still
		// reaches the implementation, whose answer to it is graded.
		nc, err := net.DialTimeout("unix", ep.path, exitWait)
		if err != nil {
			if ep.pr != nil {
				return nil, ep.pr.broken(method, cc.mark, err)
			}
			return nil, fmt.Errorf("remote: %s: %w", method, err)
		}
		cc.c = newConn(nc)
	}
	data, err := json.Marshal(args)
	if err != nil {
		_ = cc.c.Close()
		return nil, fmt.Errorf("remote: %s: encoding the arguments: %w", method, err)
	}
	if err := cc.c.write(&frame{Method: method, Deadline: deadlineOf(ctx), Args: data}); err != nil {
		_ = cc.c.Close()
		if ep.pr != nil {
			return nil, ep.pr.broken(method, cc.mark, err)
		}
		return nil, fmt.Errorf("remote: %s: %w", method, err)
	}
	if timeout > 0 && ep.pr != nil {
		cc.timer = time.AfterFunc(timeout, func() {
			cc.mu.Lock()
			cc.timedOut = true
			cc.mu.Unlock()
			ep.pr.kill(fmt.Sprintf("%s did not return within %v", method, timeout))
		})
	}
	cc.stopCtx = context.AfterFunc(ctx, func() {
		cc.cancel()
		if ep.pr == nil {
			return
		}
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if !cc.finished {
			cc.grace = time.AfterFunc(grace, func() {
				ep.pr.kill(fmt.Sprintf("%s did not return within %v after its context ended", method, grace))
			})
		}
	})
	return cc, nil
}

// cancel tells the server the caller is gone: it cancels the call's
// context there, while the answer may still come back.
func (cc *clientCall) cancel() {
	if uc, ok := cc.c.c.(*net.UnixConn); ok {
		_ = uc.CloseWrite()
	}
}

// settled stops the call's timers: an answer came. It reports whether
// the connection is still in step, neither cancelled nor timed out.
func (cc *clientCall) settled() bool {
	cc.mu.Lock()
	cc.finished = true
	if cc.grace != nil {
		cc.grace.Stop()
	}
	cc.mu.Unlock()
	clean := true
	if cc.timer != nil {
		clean = cc.timer.Stop()
	}
	return cc.stopCtx() && clean
}

func (cc *clientCall) close() {
	cc.settled()
	if cc.c != nil {
		_ = cc.c.Close()
	}
}

// recv reads the next frame; a broken connection becomes the error that
// explains it.
func (cc *clientCall) recv() (*frame, error) {
	f, err := cc.c.read()
	if err == nil {
		return f, nil
	}
	cc.mu.Lock()
	timedOut := cc.timedOut
	cc.mu.Unlock()
	if cc.ep.pr == nil {
		return nil, fmt.Errorf("remote: %s: %w", cc.method, err)
	}
	if timedOut {
		<-cc.ep.pr.exited
		return nil, fmt.Errorf("remote: %s did not return within %v: killed the implementation's program%s", cc.method, cc.timerDuration(), cc.ep.pr.printed(cc.mark))
	}
	return nil, cc.ep.pr.broken(cc.method, cc.mark, err)
}

func (cc *clientCall) timerDuration() time.Duration {
	if cc.ep.pr != nil {
		return cc.ep.pr.p.callTimeout()
	}
	return 0
}

// final interprets the last frame of a call: the result into reply, an
// error, or (for a panic in the implementation) a panic here.
func (cc *clientCall) final(f *frame, reply any) error {
	switch {
	case f.Panic != nil:
		p := &Panic{Value: f.Panic.Value, Where: f.Panic.Where}
		if cc.ep.pr != nil {
			p.Value += cc.ep.pr.printed(cc.mark)
		}
		repanic(p)
	case f.Goexit:
		return &callError{msg: "remote: " + cc.method + ": " + goexitMessage + cc.printed()}
	case f.Err != nil:
		return fromWire(f.Err)
	case f.Result != nil:
		if err := json.Unmarshal(f.Result, reply); err != nil {
			return &callError{msg: fmt.Sprintf("remote: %s: the implementation's program broke the protocol: its answer does not decode: %v%s", cc.method, err, cc.printed())}
		}
		return nil
	}
	return &callError{msg: fmt.Sprintf("remote: %s: the implementation's program broke the protocol: an answer with no result%s", cc.method, cc.printed())}
}

func (cc *clientCall) printed() string {
	if cc.ep.pr == nil {
		return ""
	}
	return cc.ep.pr.printed(cc.mark)
}

// callError is a call that failed for a reason other than the error the
// implementation returned: its program died, hung or broke the protocol.
type callError struct{ msg string }

func (e *callError) Error() string { return e.msg }

// call makes one call and waits for its answer; a program still in the
// call hangGrace after ctx ended is killed.
func (ep *endpoint) call(ctx context.Context, method string, args, reply any, timeout time.Duration) error {
	return ep.callGrace(ctx, method, args, reply, timeout, hangGrace)
}

// callGrace is call with a grace of its own.
func (ep *endpoint) callGrace(ctx context.Context, method string, args, reply any, timeout, grace time.Duration) error {
	cc, err := ep.open(ctx, method, args, timeout, grace)
	if err != nil {
		return &callError{msg: err.Error()}
	}
	defer cc.close()
	f, err := cc.recv()
	if err != nil {
		return &callError{msg: err.Error()}
	}
	// After a Goexit the server's side of the connection is gone.
	if cc.settled() && !f.Goexit {
		cc.ep.put(cc.c)
		cc.c = nil
	}
	return cc.final(f, reply)
}

// pure calls a pure function in the program: one with no context and no
// error, so every failure is a panic, as the suite expects of a function
// that cannot return one.
func (p *Program) pure(method string, args, reply any) {
	p.pureProc(method, args, reply)
}

// pureProc is pure, and returns the program that answered (where a
// handle the call made lives).
func (p *Program) pureProc(method string, args, reply any) *proc {
	pr, err := p.proc()
	if err != nil {
		repanic(err.Error())
	}
	if err := pr.endpoint().call(context.Background(), method, args, reply, p.callTimeout()); err != nil {
		var ce *callError
		if errors.As(err, &ce) {
			repanic(ce.msg)
		}
		repanic(err.Error())
	}
	return pr
}
