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
	return claimPodNetworkIn(filepath.Join(claimsDir, "kata-podnet"))
}

// claimsDir is where the claims of every cluster on the machine meet:
// /tmp itself, whatever TMPDIR says and whoever runs the cluster. A test
// script, and kata grade's scenario grader, give each run a TMPDIR of its
// own, and two clusters that looked for locks in different directories
// took the same networks: the second's DNS server then failed on the
// first's address.
const claimsDir = "/tmp"

// claimPodNetworkIn is claimPodNetwork with its lock files in dir. A
// lock file this user may not open (another user's cluster made it) is
// a network taken.
func claimPodNetworkIn(dir string) (x int, release func(), err error) {
	return claimNetworkIn(dir, "pod networks", podNetFirst, podNetLast, 0)
}

// claimServiceNetwork takes a service network of this machine as
// claimPodNetwork takes a pod network, 127.X.0.0/16 for X from
// serviceNetFirst down to serviceNetLast, trying prefer first (the one
// the cluster's data was made with) when it is one of them: two
// clusters' kube-proxies on one loopback must not listen on the same
// Service address.
func claimServiceNetwork(prefer int) (x int, release func(), err error) {
	return claimNetworkIn(filepath.Join(claimsDir, "kata-servicenet"), "service networks", serviceNetFirst, serviceNetLast, prefer)
}

// claimNetworkIn takes the first free 127.X.0.0/16 of first down to
// last (prefer first, if in range), locking dir/127.X.lock; what names
// the networks in errors.
func claimNetworkIn(dir, what string, first, last, prefer int) (x int, release func(), err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, nil, fmt.Errorf("cluster: %s: %w", what, err)
	}
	// Every user's clusters lock files here (kata grade as root runs the
	// learner's as nobody): the directory is open to all, as /tmp is,
	// when this user made it; a lock is taken on a read-only descriptor,
	// so another user's lock file serves as well as one's own.
	_ = os.Chmod(dir, os.ModeSticky|0o777)
	order := make([]int, 0, first-last+2)
	if prefer <= first && prefer >= last {
		order = append(order, prefer)
	}
	for x := first; x >= last; x-- {
		if x != prefer {
			order = append(order, x)
		}
	}
	var lastErr error
	for _, x := range order {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("127.%d.lock", x)), os.O_CREATE|os.O_RDONLY, 0o644)
		if err != nil {
			lastErr = err
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if !errors.Is(err, syscall.EWOULDBLOCK) {
				lastErr = err
			}
			continue // another cluster's
		}
		return x, func() { f.Close() }, nil
	}
	msg := fmt.Sprintf("cluster: %s: every one of 127.%d.0.0/16 to 127.%d.0.0/16 is in use by another cluster on this machine", what, last, first)
	if lastErr != nil {
		return 0, nil, fmt.Errorf("%s (or its lock file in %s cannot be used: %w)", msg, dir, lastErr)
	}
	return 0, nil, errors.New(msg)
}
