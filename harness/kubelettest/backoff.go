package kubelettest

import (
	"fmt"
	"time"

	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 04-backoff: BackoffNext rules 1-3 and InBackoff rules 1-3 of
// harness/kubelets, each case worked out by hand from client-go's
// util/flowcontrol/backoff.go (Next, IsInBackOffSince, hasExpired) as the
// kubelet builds it (pkg/kubelet/kubelet.go: NewBackOff(10s, 300s), no
// jitter; its HasExpiredFunc says 600s, which is 2×300s) and as
// kuberuntime_manager.go doBackOff calls it: eventTime is the FinishedAt
// of the container's newest exit; IsInBackOffSince first, and Next when
// the container may start.

// Upstream functions the cases name.
const (
	upBackoffNext = "client-go util/flowcontrol/backoff.go Next, hasExpired"
	upInBackoff   = "client-go util/flowcontrol/backoff.go IsInBackOffSince, hasExpired; kuberuntime_manager.go doBackOff"
)

// backoffT0 is the start of the cases' timeline.
var backoffT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// backoffAt is backoffT0 plus d.
func backoffAt(d time.Duration) time.Time { return backoffT0.Add(d) }

// backoffEntry is a fresh entry (each call gets its own, so that one that
// scribbles on it spoils no other case).
func backoffEntry(delay, lastUpdate time.Duration) *kubelets.Backoff {
	return &kubelets.Backoff{Delay: delay, LastUpdate: backoffAt(lastUpdate)}
}

// backoffTime prints a time of the timeline as t0+d.
func backoffTime(t time.Time) string { return "t0+" + t.Sub(backoffT0).String() }

// backoffDescribe prints an entry: {delay 20s, lastUpdate t0+13s}, or nil.
func backoffDescribe(b *kubelets.Backoff) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprintf("{delay %s, lastUpdate %s}", b.Delay, backoffTime(b.LastUpdate))
}

// callBackoffNext calls BackoffNext and fails the step when the call
// changed the entry it was given; call prints the call as it was made.
func callBackoffNext(t *suite.T, impl Impl, entry *kubelets.Backoff, eventTime, now time.Time) (got kubelets.Backoff, call string) {
	t.Helper()
	call, before := backoffNextCall(entry, eventTime, now), snapshot(entry)
	got = impl.BackoffNext(entry, eventTime, now)
	unchanged(t, call, before, snapshot(entry))
	return got, call
}

// callInBackoff calls InBackoff and fails the step when the call changed
// the entry it was given; call prints the call as it was made.
func callInBackoff(t *suite.T, impl Impl, entry *kubelets.Backoff, eventTime, now time.Time) (got bool, call string) {
	t.Helper()
	call, before := inBackoffCall(entry, eventTime, now), snapshot(entry)
	got = impl.InBackoff(entry, eventTime, now)
	unchanged(t, call, before, snapshot(entry))
	return got, call
}

func backoffNextCall(entry *kubelets.Backoff, eventTime, now time.Time) string {
	return fmt.Sprintf("BackoffNext(%s, exit %s, now %s)", backoffDescribe(entry), backoffTime(eventTime), backoffTime(now))
}

func inBackoffCall(entry *kubelets.Backoff, eventTime, now time.Time) string {
	return fmt.Sprintf("InBackoff(%s, exit %s, now %s)", backoffDescribe(entry), backoffTime(eventTime), backoffTime(now))
}

// backoffNextCase is one call of BackoffNext: entry, then the exit's
// eventTime and now, as offsets from backoffT0.
type backoffNextCase struct {
	rule  string
	why   string
	entry *kubelets.Backoff
	exit  time.Duration
	now   time.Duration
	want  kubelets.Backoff
}

// inBackoffCase is one call of InBackoff.
type inBackoffCase struct {
	rule  string
	why   string
	entry *kubelets.Backoff
	exit  time.Duration
	now   time.Duration
	want  bool
}

// backoffStep is 04-backoff: BackoffNext rules 1-3, InBackoff rules 1-3.
func backoffStep(t *suite.T, impl Impl) {
	need(t, "BackoffNext", impl.BackoffNext)
	need(t, "InBackoff", impl.InBackoff)
	s := time.Second
	ns := time.Nanosecond
	want := func(delay, lastUpdate time.Duration) kubelets.Backoff {
		return kubelets.Backoff{Delay: delay, LastUpdate: backoffAt(lastUpdate)}
	}

	// A crash loop on a fake timeline: the container starts at t0, and
	// each time exits 1s after it was started; the kubelet's sync that
	// finds the back-off over starts it again, and moves the entry on.
	// Each row starts from the entry the row before wants:
	//
	//	exit      start again    entry after
	//	t0+1s     t0+2s          10s   (first exit: no entry yet)
	//	t0+3s     t0+13s         20s
	//	t0+14s    t0+34s         40s
	//	t0+35s    t0+75s         80s
	//	t0+76s    t0+156s        160s
	//	t0+157s   t0+317s        300s  (320s, capped)
	//	t0+318s   t0+618s        300s
	//	t0+1818s  t0+1820s       10s   (it ran 20 minutes: forgotten)
	nexts := []backoffNextCase{
		{rule: "1", why: "the first exit: no entry yet, so the initial 10s (BackoffInitial), LastUpdate now", entry: nil, exit: 1 * s, now: 2 * s, want: want(10*s, 2*s)},
		{rule: "3", why: "the second exit, 1s after its start: the delay doubles to 20s, LastUpdate now (not the exit)", entry: backoffEntry(10*s, 2*s), exit: 3 * s, now: 13 * s, want: want(20*s, 13*s)},
		{rule: "3", why: "the third exit: 40s", entry: backoffEntry(20*s, 13*s), exit: 14 * s, now: 34 * s, want: want(40*s, 34*s)},
		{rule: "3", why: "the fourth exit: 80s", entry: backoffEntry(40*s, 34*s), exit: 35 * s, now: 75 * s, want: want(80*s, 75*s)},
		{rule: "3", why: "the fifth exit: 160s", entry: backoffEntry(80*s, 75*s), exit: 76 * s, now: 156 * s, want: want(160*s, 156*s)},
		{rule: "3", why: "the sixth exit: 2×160s is 320s, capped at 300s (BackoffMax)", entry: backoffEntry(160*s, 156*s), exit: 157 * s, now: 317 * s, want: want(300*s, 317*s)},
		{rule: "3", why: "the seventh exit: 300s stays 300s", entry: backoffEntry(300*s, 317*s), exit: 318 * s, now: 618 * s, want: want(300*s, 618*s)},
		{rule: "2", why: "after a good run of 20 minutes (exit 1200s after LastUpdate, more than 2×300s) the entry is forgotten: 10s again", entry: backoffEntry(300*s, 618*s), exit: 1818 * s, now: 1820 * s, want: want(10*s, 1820*s)},

		{rule: "3", why: "the delay doubles from what the entry holds, whatever it is: 7s gives 14s", entry: backoffEntry(7*s, 100*s), exit: 101 * s, now: 110 * s, want: want(14*s, 110*s)},
		{rule: "3", why: "150s doubles to exactly 300s", entry: backoffEntry(150*s, 100*s), exit: 101 * s, now: 260 * s, want: want(300*s, 260*s)},
		{rule: "2, 3", why: "the exit exactly 2×300s after LastUpdate: not expired (hasExpired wants more than 2×max), so 40s doubles", entry: backoffEntry(40*s, 34*s), exit: 634 * s, now: 640 * s, want: want(80*s, 640*s)},
		{rule: "2", why: "the exit 1ns past 2×300s after LastUpdate: expired, 10s again", entry: backoffEntry(40*s, 34*s), exit: 634*s + ns, now: 640 * s, want: want(10*s, 640*s)},
		{rule: "2, 3", why: "expiry is measured from the exit (eventTime), not from now: a quick crash found late (now 700s after LastUpdate) still doubles", entry: backoffEntry(40*s, 34*s), exit: 35 * s, now: 734 * s, want: want(80*s, 734*s)},
		{rule: "2", why: "an expired entry at 300s starts over at 10s too, not at the maximum", entry: backoffEntry(300*s, 0), exit: 900 * s, now: 905 * s, want: want(10*s, 905*s)},
	}
	for _, c := range nexts {
		eventTime, now := backoffAt(c.exit), backoffAt(c.now)
		got, call := callBackoffNext(t, impl, c.entry, eventTime, now)
		if !got.LastUpdate.Equal(c.want.LastUpdate) || got.Delay != c.want.Delay {
			t.Errorf("%s = %s, want %s: BackoffNext rule %s (%s): %s", call, backoffDescribe(&got), backoffDescribe(&c.want), c.rule, upBackoffNext, c.why)
		}
	}

	// The same crash loop, asked at each sync whether the container must
	// still wait: now - exit < Delay.
	ins := []inBackoffCase{
		{rule: "1", why: "no entry: nothing to wait for", entry: nil, exit: 1 * s, now: 1*s + ns, want: false},
		{rule: "3", why: "just after the exit: waiting (0s < 10s)", entry: backoffEntry(10*s, 2*s), exit: 3 * s, now: 3 * s, want: true},
		{rule: "3", why: "1ns before the 10s are up: still waiting", entry: backoffEntry(10*s, 2*s), exit: 3 * s, now: 13*s - ns, want: true},
		{rule: "3", why: "exactly 10s after the exit: not waiting any more (strictly less than Delay)", entry: backoffEntry(10*s, 2*s), exit: 3 * s, now: 13 * s, want: false},
		{rule: "3", why: "well past the 10s: not waiting", entry: backoffEntry(10*s, 2*s), exit: 3 * s, now: 20 * s, want: false},
		{rule: "3", why: "the wait is counted from the exit, not from LastUpdate: 19.5s after the exit, 20.5s after LastUpdate, Delay 20s", entry: backoffEntry(20*s, 13*s), exit: 14 * s, now: 33*s + 500*time.Millisecond, want: true},
		{rule: "3", why: "at 300s: 1ns before the 300s are up, still waiting", entry: backoffEntry(300*s, 317*s), exit: 318 * s, now: 618*s - ns, want: true},
		{rule: "3", why: "at 300s: exactly 300s after the exit, not waiting", entry: backoffEntry(300*s, 317*s), exit: 318 * s, now: 618 * s, want: false},
		{rule: "2", why: "an exit more than 2×300s after LastUpdate: the entry expired, so no wait, though 1s < 300s", entry: backoffEntry(300*s, 618*s), exit: 1818 * s, now: 1819 * s, want: false},
		{rule: "2, 3", why: "an exit exactly 2×300s after LastUpdate: not expired, 1s < 300s, waiting", entry: backoffEntry(300*s, 618*s), exit: 1218 * s, now: 1219 * s, want: true},
		{rule: "2", why: "an exit 1ns past 2×300s after LastUpdate: expired, no wait", entry: backoffEntry(300*s, 618*s), exit: 1218*s + ns, now: 1219 * s, want: false},
		{rule: "2, 3", why: "expiry is measured from the exit, not from now: exit 382s after LastUpdate, now 632s after it, 250s < 300s: waiting", entry: backoffEntry(300*s, 618*s), exit: 1000 * s, now: 1250 * s, want: true},
	}
	for _, c := range ins {
		eventTime, now := backoffAt(c.exit), backoffAt(c.now)
		if got, call := callInBackoff(t, impl, c.entry, eventTime, now); got != c.want {
			t.Errorf("%s = %t, want %t: InBackoff rule %s (%s): %s", call, got, c.want, c.rule, upInBackoff, c.why)
		}
	}
}
