//go:build unix

package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

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

// A service network: the one preferred when free, else the first free;
// one held by another cluster is skipped.
func TestClaimServiceNetwork(t *testing.T) {
	dir := t.TempDir()
	x1, release1, err := claimNetworkIn(dir, "service networks", serviceNetFirst, serviceNetLast, 0)
	if err != nil || x1 != serviceNetFirst {
		t.Fatalf("claimNetworkIn (first, no preference) = %d, %v; want %d", x1, err, serviceNetFirst)
	}
	defer release1()
	x2, release2, err := claimNetworkIn(dir, "service networks", serviceNetFirst, serviceNetLast, serviceNetFirst)
	if err != nil || x2 != serviceNetFirst-1 {
		t.Fatalf("claimNetworkIn (preferring the held one) = %d, %v; want %d", x2, err, serviceNetFirst-1)
	}
	defer release2()
	x3, release3, err := claimNetworkIn(dir, "service networks", serviceNetFirst, serviceNetLast, 70)
	if err != nil || x3 != 70 {
		t.Fatalf("claimNetworkIn (preferring 70) = %d, %v; want 70", x3, err)
	}
	release3()
	if _, _, err := claimNetworkIn(dir, "service networks", 96, 95, 0); err == nil || err.Error() != "cluster: service networks: every one of 127.95.0.0/16 to 127.96.0.0/16 is in use by another cluster on this machine" {
		t.Errorf("claimNetworkIn with 96 and 95 held = %v, want every one in use", err)
	}
}

// A lock file this user may only read (another user's cluster made it:
// kata grade as root runs the learner's clusters as nobody) still takes
// its lock, and the claims' directory is open to every user, as /tmp is.
func TestClaimWithReadOnlyLockFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "claims")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, fmt.Sprintf("127.%d.lock", podNetFirst))
	if err := os.WriteFile(lock, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	x1, release1, err := claimPodNetworkIn(dir)
	if err != nil || x1 != podNetFirst {
		t.Fatalf("claimPodNetworkIn (its lock file read-only) = %d, %v; want %d", x1, err, podNetFirst)
	}
	defer release1()
	x2, release2, err := claimPodNetworkIn(dir)
	if err != nil || x2 != podNetFirst-1 {
		t.Fatalf("claimPodNetworkIn (second, the read-only one held) = %d, %v; want %d", x2, err, podNetFirst-1)
	}
	release2()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := os.ModeSticky | 0o777; fi.Mode()&(os.ModeSticky|os.ModePerm) != want {
		t.Errorf("claims directory mode = %v, want %v (every user's clusters lock files there)", fi.Mode(), want)
	}
	if claimsDir != "/tmp" {
		t.Errorf("claimsDir = %q, want /tmp: whatever TMPDIR says, every cluster on the machine must look in one place", claimsDir)
	}
}
