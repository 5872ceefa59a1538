//go:build unix

package process

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

// maxLogLine is the longest message one log line holds; longer lines
// are cut into parts tagged P. containerd's default
// max_container_log_line_size is 16 KiB (internal/cri/config), applied
// by redirectLogs in internal/cri/io/logger.go.
const maxLogLine = 16 * 1024

// logFile is a container's log file, shared by its two streams; each
// line is one write.
type logFile struct {
	mu sync.Mutex
	f  *os.File
}

func (l *logFile) writeLine(stream string, partial bool, msg []byte) {
	line := cri.LogLine{Time: time.Now(), Stream: stream, Partial: partial, Message: string(msg)}.Format()
	l.mu.Lock()
	defer l.mu.Unlock()
	// A write error (disk full) is dropped: the container's output is
	// still drained, as containerd does.
	_, _ = l.f.WriteString(line)
}

func (l *logFile) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// copyLog reads one stream until it ends and writes it to the log in
// CRI's format: a line per line read (without "\n" or "\r\n"), lines
// over maxLogLine cut into P parts, and output that ends without a
// newline written as a P line, as containerd's redirectLogs.
func copyLog(r io.Reader, stream string, l *logFile) {
	br := bufio.NewReaderSize(r, 4096)
	var pending []byte
	for {
		chunk, err := br.ReadSlice('\n')
		whole := err == nil // chunk ends with '\n'
		if whole {
			chunk = chunk[:len(chunk)-1]
		}
		pending = append(pending, chunk...)
		if whole {
			pending = bytes.TrimSuffix(pending, []byte("\r"))
		}
		for len(pending) > maxLogLine {
			l.writeLine(stream, true, pending[:maxLogLine])
			pending = append(pending[:0], pending[maxLogLine:]...)
		}
		switch {
		case whole:
			l.writeLine(stream, false, pending)
			pending = pending[:0]
		case err == bufio.ErrBufferFull:
			// more of the same line follows
		default: // io.EOF, or the read end was closed
			if len(pending) > 0 {
				l.writeLine(stream, true, pending)
			}
			return
		}
	}
}
