//go:build !unix

package cluster

// claimPodNetwork gives the first pod network: there is no process
// runtime here to use it (harness/cri/process needs a Unix system).
func claimPodNetwork() (x int, release func(), err error) {
	return podNetFirst, func() {}, nil
}
