//go:build unix

package remote

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// wake interrupts a read that waits for more output, so that run looks
// at the pipe and its waiters again.
func (s *stream) wake() { _ = s.f.SetReadDeadline(time.Unix(1, 0)) }

// run reads the pipe until it is closed. It reads without blocking and,
// each time the pipe is empty, releases the Sync calls that were waiting
// before that empty read began; only then does it wait for more.
func (s *stream) run() {
	defer close(s.done)
	defer s.out.add(s, nil, true)
	rc, err := s.f.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 32<<10)
	for {
		_ = s.f.SetReadDeadline(time.Time{})
		eof := false
		err := rc.Read(func(fd uintptr) bool {
			for {
				pending := s.takeWaiters()
				n, rerr := syscall.Read(int(fd), buf)
				switch {
				case n > 0:
					s.out.add(s, buf[:n], false)
					s.putBack(pending)
					continue
				case rerr == syscall.EINTR:
					s.putBack(pending)
					continue
				case rerr == syscall.EAGAIN:
					for _, ch := range pending {
						close(ch)
					}
					s.mu.Lock()
					more := len(s.waiters) > 0
					s.mu.Unlock()
					if more {
						continue
					}
					return false
				default: // 0 bytes: end of file; or an error
					s.putBack(pending)
					eof = true
					return true
				}
			}
		})
		if eof {
			return
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return
		}
	}
}

// putBack returns waiters taken before a read that found bytes: they are
// released at the next empty read.
func (s *stream) putBack(w []chan struct{}) {
	if len(w) == 0 {
		return
	}
	s.mu.Lock()
	s.waiters = append(w, s.waiters...)
	s.mu.Unlock()
}
