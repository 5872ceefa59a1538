package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(backoffBugs) }

// backoffBugs break the rules of BackoffNext (1-3) and InBackoff (1-3),
// and "changes nothing it is given" (backoff.go).
var backoffBugs = map[string]planted.Bug{
	// BackoffNext rule 1: the first exit gets no delay at all.
	"backoff-next-first-exit-no-delay": edit("backoff.go",
		"\tif entry == nil || expired(*entry, eventTime) {\n\t\treturn kubelets.Backoff{Delay: kubelets.BackoffInitial, LastUpdate: now}",
		"\tif entry == nil {\n\t\treturn kubelets.Backoff{LastUpdate: now}\n\t}\n\tif expired(*entry, eventTime) {\n\t\treturn kubelets.Backoff{Delay: kubelets.BackoffInitial, LastUpdate: now}",
		"04-backoff"),
	// BackoffNext rule 2: an entry is never forgotten, however long the
	// container ran.
	"backoff-next-never-expires": edit("backoff.go",
		"if entry == nil || expired(*entry, eventTime) {\n\t\treturn kubelets.Backoff{",
		"if entry == nil {\n\t\treturn kubelets.Backoff{", "04-backoff"),
	// BackoffNext rule 2: expiry measured from now, not from the exit.
	"backoff-next-expiry-from-now": edit("backoff.go",
		"if entry == nil || expired(*entry, eventTime) {\n\t\treturn kubelets.Backoff{",
		"if entry == nil || expired(*entry, now) {\n\t\treturn kubelets.Backoff{", "04-backoff"),
	// Rule 2 of both: exactly 2×BackoffMax counts as expired.
	"backoff-expired-at-exactly-twice-max": edit("backoff.go",
		"eventTime.Sub(entry.LastUpdate) > 2*kubelets.BackoffMax",
		"eventTime.Sub(entry.LastUpdate) >= 2*kubelets.BackoffMax", "04-backoff"),
	// Rule 2 of both: forgotten after BackoffMax, not twice it.
	"backoff-expires-after-max": edit("backoff.go",
		"eventTime.Sub(entry.LastUpdate) > 2*kubelets.BackoffMax",
		"eventTime.Sub(entry.LastUpdate) > kubelets.BackoffMax", "04-backoff"),
	// BackoffNext rule 3: no cap at BackoffMax.
	"backoff-next-no-cap": edit("backoff.go",
		"Delay: min(2*entry.Delay, kubelets.BackoffMax)",
		"Delay: 2 * entry.Delay", "04-backoff"),
	// BackoffNext rule 3: the delay grows by the initial step instead of
	// doubling.
	"backoff-next-adds-instead-of-doubling": edit("backoff.go",
		"Delay: min(2*entry.Delay, kubelets.BackoffMax)",
		"Delay: min(entry.Delay+kubelets.BackoffInitial, kubelets.BackoffMax)", "04-backoff"),
	// BackoffNext rule 3: LastUpdate becomes the exit, not now.
	"backoff-next-last-update-is-exit": edit("backoff.go",
		"Delay: min(2*entry.Delay, kubelets.BackoffMax), LastUpdate: now}",
		"Delay: min(2*entry.Delay, kubelets.BackoffMax), LastUpdate: eventTime}", "04-backoff"),
	// BackoffNext: moves the caller's entry on in place.
	"backoff-next-changes-its-input": edit("backoff.go",
		"\treturn kubelets.Backoff{Delay: min(2*entry.Delay, kubelets.BackoffMax), LastUpdate: now}",
		"\tentry.Delay, entry.LastUpdate = min(2*entry.Delay, kubelets.BackoffMax), now\n\treturn *entry", "04-backoff"),
	// InBackoff rule 1: no entry means waiting the initial delay.
	"backoff-in-no-entry-waits": edit("backoff.go",
		"\tif entry == nil || expired(*entry, eventTime) {\n\t\treturn false\n\t}",
		"\tif entry == nil {\n\t\treturn now.Sub(eventTime) < kubelets.BackoffInitial\n\t}\n\tif expired(*entry, eventTime) {\n\t\treturn false\n\t}",
		"04-backoff"),
	// InBackoff rule 2: an expired entry still holds the container back.
	"backoff-in-never-expires": edit("backoff.go",
		"if entry == nil || expired(*entry, eventTime) {\n\t\treturn false",
		"if entry == nil {\n\t\treturn false", "04-backoff"),
	// InBackoff rule 2: expiry measured from now, not from the exit.
	"backoff-in-expiry-from-now": edit("backoff.go",
		"if entry == nil || expired(*entry, eventTime) {\n\t\treturn false",
		"if entry == nil || expired(*entry, now) {\n\t\treturn false", "04-backoff"),
	// InBackoff rule 3: still waiting at exactly Delay.
	"backoff-in-waits-at-delay": edit("backoff.go",
		"return now.Sub(eventTime) < entry.Delay",
		"return now.Sub(eventTime) <= entry.Delay", "04-backoff"),
	// InBackoff rule 3: the wait counted from LastUpdate, not the exit.
	"backoff-in-from-last-update": edit("backoff.go",
		"return now.Sub(eventTime) < entry.Delay",
		"return now.Sub(entry.LastUpdate) < entry.Delay", "04-backoff"),
}
