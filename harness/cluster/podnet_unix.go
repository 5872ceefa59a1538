//go:build unix

package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// claimPodNetwork takes the first free pod network of this machine,
// 127.X.0.0/16 for X from podNetFirst down to podNetLast, so that two
// clusters running at once (two kata up, or scenarios side by side) never
// give two pods the same address: a network is taken with a lock on a
// file of the system's temporary directory, held until release or until
// the process ends (even by SIGKILL: the kernel drops the lock).
func claimPodNetwork() (x int, release func(), err error) {
	dir := filepath.Join(os.TempDir(), "kata-podnet")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, nil, fmt.Errorf("cluster: pod networks: %w", err)
	}
	for x := podNetFirst; x >= podNetLast; x-- {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("127.%d.lock", x)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return 0, nil, fmt.Errorf("cluster: pod networks: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue // another cluster's
			}
			return 0, nil, fmt.Errorf("cluster: pod networks: locking %s: %w", f.Name(), err)
		}
		return x, func() { f.Close() }, nil
	}
	return 0, nil, fmt.Errorf("cluster: pod networks: every one of 127.%d.0.0/16 to 127.%d.0.0/16 is in use by another cluster on this machine", podNetLast, podNetFirst)
}
