package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A changeSource tells kata watch that a .go file in the watched directory
// was saved. Bursts of changes (an editor writing a temporary file and
// renaming it, a formatter rewriting on save) arrive as one signal.
type changeSource interface {
	Changes() <-chan struct{}
	Close() error
}

const (
	// debounceQuiet is how long the files must stay quiet after a change
	// before the tests run.
	debounceQuiet = 150 * time.Millisecond
	// pollInterval is how often the polling fallback scans the directory.
	pollInterval = 500 * time.Millisecond
)

// watchDir starts watching dir with file notifications, falling back to
// polling where they cannot be set up (some network and container file
// systems, or the inotify limit reached). fallback says which one runs.
func watchDir(ctx context.Context, dir string) (src changeSource, fallback bool) {
	if s, err := newNotifySource(ctx, dir); err == nil {
		return s, false
	}
	return pollDir(ctx, dir)
}

// pollDir watches dir by polling only.
func pollDir(ctx context.Context, dir string) (src changeSource, polling bool) {
	t := time.NewTicker(pollInterval)
	return newPollSource(ctx, dir, t.C, t.Stop), true
}

// notifySource watches with fsnotify.
type notifySource struct {
	w      *fsnotify.Watcher
	out    chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

func newNotifySource(ctx context.Context, dir string) (*notifySource, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &notifySource{w: w, out: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	raw := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		debounce(ctx, raw, s.out, func() <-chan time.Time { return time.After(debounceQuiet) })
	}()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if isGoSource(ev.Name) && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) != 0 {
					poke(raw)
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				// An overflow loses events, not the need to re-run.
				poke(raw)
			}
		}
	}()
	go func() {
		wg.Wait()
		close(s.done)
	}()
	return s, nil
}

func (s *notifySource) Changes() <-chan struct{} { return s.out }

func (s *notifySource) Close() error {
	s.cancel()
	err := s.w.Close()
	<-s.done
	return err
}

// pollSource scans the directory on every tick and signals when a .go
// file's name, size or modification time changed since the last scan.
type pollSource struct {
	out    chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

func newPollSource(ctx context.Context, dir string, tick <-chan time.Time, stop func()) *pollSource {
	ctx, cancel := context.WithCancel(ctx)
	s := &pollSource{out: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	p := newPoller(dir)
	go func() {
		defer close(s.done)
		if stop != nil {
			defer stop()
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick:
				if p.changed() {
					poke(s.out)
				}
			}
		}
	}()
	return s
}

func (s *pollSource) Changes() <-chan struct{} { return s.out }

func (s *pollSource) Close() error {
	s.cancel()
	<-s.done
	return nil
}

// poller remembers a directory's .go files between scans.
type poller struct {
	dir  string
	last string
}

func newPoller(dir string) *poller { return &poller{dir: dir, last: scanGoFiles(dir)} }

// changed scans again and says whether anything changed since the last
// scan.
func (p *poller) changed() bool {
	now := scanGoFiles(p.dir)
	if now == p.last {
		return false
	}
	p.last = now
	return true
}

// scanGoFiles summarises the .go files of dir as one comparable string.
func scanGoFiles(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, e := range entries {
		if !isGoSource(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		b.WriteString(e.Name())
		b.WriteByte(' ')
		b.WriteString(fi.ModTime().Format(time.RFC3339Nano))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(fi.Size(), 10))
		b.WriteByte('\n')
	}
	return b.String()
}

// isGoSource says whether name is a Go file an editor saved, not one of
// its temporary or lock files.
func isGoSource(name string) bool {
	base := filepath.Base(name)
	return strings.HasSuffix(base, ".go") && !strings.HasPrefix(base, ".") && !strings.HasPrefix(base, "#")
}

// poke sends on a one-slot channel without blocking: a pending signal
// already says "something changed".
func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// debounce forwards a signal from in to out once in has been quiet for
// the duration after() waits, so a burst of saves runs the tests once.
func debounce(ctx context.Context, in <-chan struct{}, out chan struct{}, after func() <-chan time.Time) {
	var quiet <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-in:
			quiet = after()
		case <-quiet:
			quiet = nil
			poke(out)
		}
	}
}
