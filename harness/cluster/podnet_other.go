//go:build !unix

package cluster

// claimPodNetwork gives the first pod network: there is no process
// runtime here to use it (harness/cri/process needs a Unix system).
func claimPodNetwork() (x int, release func(), err error) {
	return podNetFirst, func() {}, nil
}

// claimServiceNetwork gives the network preferred, or the first.
func claimServiceNetwork(prefer int) (x int, release func(), err error) {
	if prefer <= serviceNetFirst && prefer >= serviceNetLast {
		return prefer, func() {}, nil
	}
	return serviceNetFirst, func() {}, nil
}
