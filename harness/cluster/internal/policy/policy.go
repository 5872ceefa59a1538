// Package policy knows the validating admission policies a cluster can
// turn on (kata up --admission-policy), so that kata, the program and
// the cluster refuse an unknown name with one message.
package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/pipeline"
)

// Known are the policies' names.
var Known = []string{pipeline.PolicyDenyLatestTag}

// Parse splits a comma-separated list of policy names, and refuses an
// unknown one, naming the known ones. Empty names are skipped; each name
// is kept once.
func Parse(list string) ([]string, error) {
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(out, n) {
			continue
		}
		if err := Check(n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// Check refuses a name that is not Known.
func Check(name string) error {
	if slices.Contains(Known, name) {
		return nil
	}
	return fmt.Errorf("unknown admission policy %q; the known ones are: %s", name, strings.Join(Known, ", "))
}
