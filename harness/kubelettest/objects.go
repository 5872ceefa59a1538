package kubelettest

import (
	"encoding/json"
	"fmt"

	"github.com/kubekata/kubekata/harness/suite"
)

// snapshot is v as JSON, to compare what a call was given before and
// after it.
func snapshot(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unencodable: %v", err)
	}
	return string(b)
}

// unchanged fails the step when a call changed its input: before and
// after are snapshots of everything the call was given.
func unchanged(t *suite.T, call, before, after string) {
	t.Helper()
	if before != after {
		t.Errorf("%s changed its input: before %s, after %s; want it unchanged (work on copies: the kubelet's pod and the runtime's state are shared)", call, before, after)
	}
}
