package remote

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// OutputPrefix starts every line the learner's program printed, as the
// grader's test binary shows it on its stderr.
const OutputPrefix = "program| "

// Escape makes b safe to show anywhere: printable text, tabs and spaces
// stay, every other byte or rune (control characters such as test2json's
// \x16 framing byte and ANSI's ESC, carriage returns, invalid UTF-8,
// Unicode line separators) is written as a Go escape.
func Escape(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		case r == '\t' || (r != '\\' && unicode.IsPrint(r)):
			sb.Write(b[:size])
		case r == '\\':
			sb.WriteString(`\\`)
		case r < utf8.RuneSelf:
			fmt.Fprintf(&sb, `\x%02x`, r)
		default:
			fmt.Fprintf(&sb, `\u%04x`, r)
		}
		b = b[size:]
	}
	return sb.String()
}

// Limits of what the grader keeps of a program's output.
const (
	keepLines    = 200  // the last lines kept, for failure messages
	maxLineBytes = 4096 // a longer line is cut into pieces
	callLines    = 20   // at most this many lines in one call's failure
	exitLines    = 10   // the last lines shown when the program exits
	// maxForward bounds what is forwarded of one program's output (all
	// its runs): a program that prints in a loop must not fill the
	// grader's log. Failure messages still get their last lines.
	maxForward = 1 << 20
)

// output collects the lines a program prints on stdout and stderr: it
// forwards each one, escaped and prefixed, to w, and keeps the last ones
// numbered, so a failing call can say what was printed while it ran.
type output struct {
	w io.Writer

	mu        sync.Mutex
	lines     []string // the last keepLines lines
	next      int      // the number the next line gets
	partial   map[*stream][]byte
	forwarded int // bytes written to w

}

func newOutput(w io.Writer) *output {
	return &output{w: w, partial: map[*stream][]byte{}}
}

// mark is the number of the next line: lines printed from now on have a
// number at least mark.
func (o *output) mark() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.next
}

// since returns the lines numbered from mark on, at most n of them (the
// last ones), and after them what was printed of a line not ended yet.
func (o *output) since(mark, n int) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	first := max(mark, o.next-len(o.lines), o.next-n)
	lines := append([]string(nil), o.lines[len(o.lines)-(o.next-first):]...)
	for _, p := range o.partial {
		if len(p) > 0 {
			lines = append(lines, Escape(p))
		}
	}
	return lines
}

// add takes bytes s read; eof ends a line that has no newline.
func (o *output) add(s *stream, data []byte, eof bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	buf := append(o.partial[s], data...)
	for {
		i := strings.IndexByte(string(buf), '\n')
		if i < 0 && len(buf) >= maxLineBytes {
			i = maxLineBytes
		}
		if i < 0 {
			break
		}
		o.line(buf[:i])
		if i < len(buf) && buf[i] == '\n' {
			i++
		}
		buf = buf[i:]
	}
	if eof && len(buf) > 0 {
		o.line(buf)
		buf = nil
	}
	o.partial[s] = append([]byte(nil), buf...)
}

func (o *output) line(b []byte) {
	l := Escape(b)
	switch {
	case o.forwarded+len(l) <= maxForward:
		fmt.Fprintf(o.w, "%s%s\n", OutputPrefix, l)
		o.forwarded += len(l)
	case o.forwarded <= maxForward:
		fmt.Fprintf(o.w, "%s(the rest of the program's output is not shown: it printed more than %d bytes)\n", OutputPrefix, maxForward)
		o.forwarded = maxForward + 1
	}
	o.lines = append(o.lines, l)
	if len(o.lines) > keepLines {
		o.lines = o.lines[len(o.lines)-keepLines:]
	}
	o.next++
}

// stream reads one pipe of a program (stdout or stderr) into an output.
// Sync waits until everything the program wrote into the pipe before the
// call to Sync has been read.
type stream struct {
	f   *os.File
	out *output

	mu      sync.Mutex
	waiters []chan struct{}
	done    chan struct{}
}

func newStream(f *os.File, out *output) *stream {
	s := &stream{f: f, out: out, done: make(chan struct{})}
	go s.run()
	return s
}

// syncTimeout bounds a Sync: output that a program keeps writing
// faster than it is read must not stall a call's failure.
const syncTimeout = 2 * time.Second

// Sync waits until the stream has read what was in its pipe when Sync
// was called, or the pipe is closed, or syncTimeout passed.
func (s *stream) Sync() {
	ch := make(chan struct{})
	s.mu.Lock()
	s.waiters = append(s.waiters, ch)
	s.mu.Unlock()
	s.wake()
	t := time.NewTimer(syncTimeout)
	defer t.Stop()
	select {
	case <-ch:
	case <-s.done:
	case <-t.C:
	}
}

// Wait waits until the pipe is closed or d passed.
func (s *stream) Wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

// takeWaiters returns the waiters to release once the pipe is found
// empty.
func (s *stream) takeWaiters() []chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.waiters
	s.waiters = nil
	return w
}
