//go:build unix

package cluster

import "testing"

// Two clusters at once get two networks; one released is free again.
func TestClaimPodNetwork(t *testing.T) {
	dir := t.TempDir()
	x1, release1, err := claimPodNetworkIn(dir)
	if err != nil || x1 != podNetFirst {
		t.Fatalf("claimPodNetworkIn (first) = %d, %v; want %d", x1, err, podNetFirst)
	}
	x2, release2, err := claimPodNetworkIn(dir)
	if err != nil || x2 != podNetFirst-1 {
		t.Fatalf("claimPodNetworkIn (second, the first held) = %d, %v; want %d", x2, err, podNetFirst-1)
	}
	defer release2()
	release1()
	x3, release3, err := claimPodNetworkIn(dir)
	if err != nil || x3 != podNetFirst {
		t.Fatalf("claimPodNetworkIn (the first released) = %d, %v; want %d again", x3, err, podNetFirst)
	}
	release3()
}
