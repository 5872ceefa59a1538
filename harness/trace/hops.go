package trace

import (
	"math"
	"sort"
	"strings"
	"time"
)

// Hops are the milestones of one pod's relay; a zero time is a milestone
// the timeline does not show (yet).
type Hops struct {
	Pod                               string
	Accepted, Bound, Started, ReadyAt time.Time
}

// Hop names, in the relay's order.
var HopNames = []string{"accepted->bound", "bound->started", "started->ready", "accepted->ready"}

// Latencies are the hops' durations in HopNames' order; ok[i] is false
// where either end is missing or the end is before the start.
func (h Hops) Latencies() (d [4]time.Duration, ok [4]bool) {
	pairs := [4][2]time.Time{{h.Accepted, h.Bound}, {h.Bound, h.Started}, {h.Started, h.ReadyAt}, {h.Accepted, h.ReadyAt}}
	for i, p := range pairs {
		if !p[0].IsZero() && !p[1].IsZero() && !p[1].Before(p[0]) {
			d[i], ok[i] = p[1].Sub(p[0]), true
		}
	}
	return d, ok
}

// PodHops are the hops of every pod in a timeline, by pod name: for each
// milestone its earliest entry (the binding request or nodeName set,
// whichever came first; the Started Event or a container running).
func PodHops(entries []Entry) []Hops {
	byPod := map[string]*Hops{}
	var names []string
	for _, e := range entries {
		if e.Milestone == "" || !strings.HasPrefix(e.Object, "pod/") {
			continue
		}
		h := byPod[e.Object]
		if h == nil {
			h = &Hops{Pod: strings.TrimPrefix(e.Object, "pod/")}
			byPod[e.Object] = h
			names = append(names, e.Object)
		}
		var at *time.Time
		switch e.Milestone {
		case Accepted:
			at = &h.Accepted
		case Bound:
			at = &h.Bound
		case Started:
			at = &h.Started
		case Ready:
			at = &h.ReadyAt
		default:
			continue
		}
		if at.IsZero() || e.Time.Before(*at) {
			*at = e.Time
		}
	}
	sort.Strings(names)
	out := make([]Hops, 0, len(names))
	for _, n := range names {
		out = append(out, *byPod[n])
	}
	return out
}

// HopStat is one hop's figures over many pods.
type HopStat struct {
	Hop      string
	N        int
	P50, P99 time.Duration
	Max      time.Duration
}

// Summarize gives p50, p99 and the maximum of each hop over the pods
// that have both its ends.
func Summarize(hops []Hops) []HopStat {
	var ds [4][]time.Duration
	for _, h := range hops {
		d, ok := h.Latencies()
		for i := range d {
			if ok[i] {
				ds[i] = append(ds[i], d[i])
			}
		}
	}
	out := make([]HopStat, len(HopNames))
	for i, name := range HopNames {
		out[i] = HopStat{Hop: name, N: len(ds[i]), P50: Percentile(ds[i], 50), P99: Percentile(ds[i], 99), Max: Percentile(ds[i], 100)}
	}
	return out
}

// Percentile is the p-th percentile of ds by nearest rank: the smallest
// value with at least p% of the values at or below it (the
// ceil(p/100*n)-th smallest). Zero for no values; ds is not changed.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}
