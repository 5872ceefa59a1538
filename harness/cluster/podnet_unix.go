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
	return claimPodNetworkIn(filepath.Join(os.TempDir(), "kata-podnet"))
}

// claimPodNetworkIn is claimPodNetwork with its lock files in dir. A
// lock file this user may not open (another user's cluster made it) is
// a network taken.
func claimPodNetworkIn(dir string) (x int, release func(), err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, nil, fmt.Errorf("cluster: pod networks: %w", err)
	}
	var last error
	for x := podNetFirst; x >= podNetLast; x-- {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("127.%d.lock", x)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			last = err
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if !errors.Is(err, syscall.EWOULDBLOCK) {
				last = err
			}
			continue // another cluster's
		}
		return x, func() { f.Close() }, nil
	}
	msg := fmt.Sprintf("cluster: pod networks: every one of 127.%d.0.0/16 to 127.%d.0.0/16 is in use by another cluster on this machine", podNetLast, podNetFirst)
	if last != nil {
		return 0, nil, fmt.Errorf("%s (or its lock file in %s cannot be used: %w)", msg, dir, last)
	}
	return 0, nil, errors.New(msg)
}
