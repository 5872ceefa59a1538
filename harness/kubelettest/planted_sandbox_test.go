package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(sandboxBugs) }

// sandboxBugs break SandboxChanged's rules 1-5 and "changes nothing it
// is given" (sandbox.go), each an edit of the reference's source. Actions
// asks SandboxChanged first, so these bugs may fail 03-actions too.
var sandboxBugs = map[string]planted.Bug{
	// Rule 1: the first sandbox is numbered 1.
	"sandbox-first-attempt-1": edit("sandbox.go",
		"return kubelets.Sandbox{Create: true, Attempt: 0}", "return kubelets.Sandbox{Create: true, Attempt: 1}", "01-sandbox", "03-actions"),
	// Rule 1: a pod with no sandbox is left without one.
	"sandbox-none-not-created": edit("sandbox.go",
		"return kubelets.Sandbox{Create: true, Attempt: 0}", "return kubelets.Sandbox{}", "01-sandbox", "03-actions"),
	// Rule 2: several Ready sandboxes are kept.
	"sandbox-several-ready-kept": edit("sandbox.go",
		"case ready > 1:", "case false:", "01-sandbox"),
	// Rule 2: only the two newest sandboxes are counted.
	"sandbox-ready-counted-in-two-newest": edit("sandbox.go",
		"for _, s := range rt.Sandboxes {\n\t\tif s.State == cri.SandboxReady {", "for i, s := range rt.Sandboxes {\n\t\tif s.State == cri.SandboxReady && i < 2 {", "01-sandbox"),
	// Rule 3: a newest sandbox that is not Ready is kept while an older
	// one is Ready (any Ready sandbox will do).
	"sandbox-any-ready-will-do": edit("sandbox.go",
		"case newest.State != cri.SandboxReady:", "case ready == 0:", "01-sandbox"),
	// Rule 3: the oldest sandbox is taken for the newest.
	"sandbox-oldest-for-newest": edit("sandbox.go",
		"newest := rt.Sandboxes[0]", "newest := rt.Sandboxes[len(rt.Sandboxes)-1]", "01-sandbox", "03-actions"),
	// Rule 4: a Ready sandbox without an IP is kept.
	"sandbox-no-ip-kept": edit("sandbox.go",
		"case newest.IP == \"\" && !pod.Spec.HostNetwork:", "case false:", "01-sandbox"),
	// Rule 4: a hostNetwork pod's sandbox without an IP is replaced.
	"sandbox-no-ip-replaced-for-host-network": edit("sandbox.go",
		"case newest.IP == \"\" && !pod.Spec.HostNetwork:", "case newest.IP == \"\":", "01-sandbox"),
	// Rules 2-5: the attempt is the newest's, not the highest of all.
	"sandbox-attempt-of-newest": edit("sandbox.go",
		"attempt = max(attempt, s.Metadata.Attempt)", "attempt = rt.Sandboxes[0].Metadata.Attempt", "01-sandbox"),
	// Rules 2-4: the new sandbox gets the same attempt as the last.
	"sandbox-create-same-attempt": edit("sandbox.go",
		"Attempt: attempt + 1, ID: newest.ID}", "Attempt: attempt, ID: newest.ID}", "01-sandbox", "03-actions"),
	// Rules 2-4: the newest sandbox's ID is not given with a new one.
	"sandbox-create-without-id": edit("sandbox.go",
		"Attempt: attempt + 1, ID: newest.ID}", "Attempt: attempt + 1}", "01-sandbox", "03-actions"),
	// Rule 5: the kept sandbox's ID is not given.
	"sandbox-keep-without-id": edit("sandbox.go",
		"return kubelets.Sandbox{Attempt: attempt, ID: newest.ID}", "return kubelets.Sandbox{Attempt: attempt}", "01-sandbox", "03-actions"),
	// Rule 5: the kept sandbox's attempt is not given.
	"sandbox-keep-attempt-0": edit("sandbox.go",
		"return kubelets.Sandbox{Attempt: attempt, ID: newest.ID}", "return kubelets.Sandbox{ID: newest.ID}", "01-sandbox", "03-actions"),
	// Changes nothing it is given: the sandboxes are turned oldest first
	// in place, once read (the answer is right).
	"sandbox-changes-its-input": {Edits: []planted.Edit{
		{File: "sandbox.go", Old: "import (\n", New: "import (\n\t\"slices\"\n\n"},
		{File: "sandbox.go", Old: "newest := rt.Sandboxes[0]\n", New: "newest := rt.Sandboxes[0]\n\tslices.Reverse(rt.Sandboxes)\n"},
	}, Fails: []string{"01-sandbox", "03-actions"}},
}
