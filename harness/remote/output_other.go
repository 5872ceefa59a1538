//go:build !unix

package remote

func (s *stream) wake() {}

// run reads the pipe until it is closed. Without non-blocking reads, a
// Sync releases at the next read, or its timeout.
func (s *stream) run() {
	defer close(s.done)
	defer s.out.add(s, nil, true)
	buf := make([]byte, 32<<10)
	for {
		n, err := s.f.Read(buf)
		if n > 0 {
			s.out.add(s, buf[:n], false)
		}
		for _, ch := range s.takeWaiters() {
			close(ch)
		}
		if err != nil {
			return
		}
	}
}
