package servicestest

// The planted bugs of steps 01-05: each is the solution's allocator seen
// through a wrapper that breaks one rule of README steps 1-5 (it hands
// out an address it should not, renames an error, turns its values
// round so that the wrong band comes first, ...), never a second working
// allocator.

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/servicenet"
	sol "github.com/kubekata/kubekata/solutions/14-services"
)

// ipBug is the solution with each IP allocator wrapped by wrap.
func ipBug(wrap func(cidr string, a servicenet.Allocator) servicenet.Allocator) func() Impl {
	return func() Impl {
		i := solution()
		i.NewIPRange = func(cidr string) (servicenet.Allocator, error) {
			a, err := sol.NewIPRange(cidr)
			if err != nil {
				return nil, err
			}
			return wrap(cidr, a), nil
		}
		return i
	}
}

// portBug is the solution with each port allocator wrapped by wrap.
func portBug(wrap func(portRange string, a servicenet.Allocator) servicenet.Allocator) func() Impl {
	return func() Impl {
		i := solution()
		i.NewPortRange = func(portRange string) (servicenet.Allocator, error) {
			a, err := sol.NewPortRange(portRange)
			if err != nil {
				return nil, err
			}
			return wrap(portRange, a), nil
		}
		return i
	}
}

// mapErrors changes the errors of Allocate and, unless onlyAllocate,
// of AllocateNext.
type mapErrors struct {
	servicenet.Allocator
	f            func(v string, err error) error
	onlyAllocate bool
}

func (m mapErrors) Allocate(v string) error {
	if err := m.Allocator.Allocate(v); err != nil {
		return m.f(v, err)
	}
	return nil
}

func (m mapErrors) AllocateNext() (string, error) {
	v, err := m.Allocator.AllocateNext()
	if err != nil && !m.onlyAllocate {
		err = m.f(v, err)
	}
	return v, err
}

func mapError(from, to string) func(string, servicenet.Allocator) servicenet.Allocator {
	return func(_ string, a servicenet.Allocator) servicenet.Allocator {
		return mapErrors{a, func(_ string, err error) error {
			if strings.HasPrefix(err.Error(), from) {
				return errors.New(to)
			}
			return err
		}, false}
	}
}

// extra adds one value to the range: the network or the broadcast
// address.
type extra struct {
	servicenet.Allocator
	v     string
	mu    sync.Mutex
	taken bool
}

func (e *extra) Free() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.taken {
		return e.Allocator.Free()
	}
	return e.Allocator.Free() + 1
}

func (e *extra) AllocateNext() (string, error) {
	v, err := e.Allocator.AllocateNext()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil && !e.taken {
		e.taken = true
		return e.v, nil
	}
	return v, err
}

func (e *extra) Allocate(v string) error {
	if v != e.v {
		return e.Allocator.Allocate(v)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.taken {
		return errors.New("provided IP is already allocated")
	}
	e.taken = true
	return nil
}

func (e *extra) Release(v string) error {
	if v != e.v {
		return e.Allocator.Release(v)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.taken = false
	return nil
}

func (e *extra) Has(v string) bool {
	if v != e.v {
		return e.Allocator.Has(v)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.taken
}

// extraAddress adds the address at the given end of each CIDR.
func extraAddress(broadcast bool) func() Impl {
	return ipBug(func(cidr string, a servicenet.Allocator) servicenet.Allocator {
		p := netip.MustParsePrefix(cidr).Masked()
		v := p.Addr().String()
		if broadcast {
			v = ipAdd(v, 1<<(32-p.Bits())-1)
		}
		return &extra{Allocator: a, v: v}
	})
}

// values numbers the values of a range, as the solution does: the IPs of
// a CIDR from the network address plus one, the ports from the first.
type values struct {
	n     int
	value func(i int) string
	index func(v string) (int, bool)
}

func ipRange(cidr string) values {
	p := netip.MustParsePrefix(cidr).Masked()
	first := ipAdd(p.Addr().String(), 1)
	n := max(1<<(32-p.Bits())-2, 0)
	return values{n,
		func(i int) string { return ipAdd(first, i) },
		func(v string) (int, bool) {
			a, err := netip.ParseAddr(v)
			if err != nil || !a.Is4() || !p.Contains(a) {
				return 0, false
			}
			i := ipSub(v, first)
			return i, i >= 0 && i < n
		}}
}

func portRange(spec string) values {
	lo, hi, _ := strings.Cut(spec, "-")
	low, _ := strconv.Atoi(lo)
	high, _ := strconv.Atoi(hi)
	return values{high - low + 1,
		func(i int) string { return strconv.Itoa(low + i) },
		func(v string) (int, bool) {
			p, err := strconv.Atoi(v)
			return p - low, err == nil && strconv.Itoa(p) == v && p >= low && p <= high
		}}
}

// offset is upstream's calculateRangeOffset with the given constants.
func offset(size, lo, hi, step int) int {
	if size <= lo {
		return 0
	}
	return min(max(lo, size/step), hi)
}

func ipOffset(cidr string) int {
	return offset(1<<(32-netip.MustParsePrefix(cidr).Bits()), 16, 256, 16)
}

// stickyStatic, once AllocateNext has handed out a value of the static
// band, keeps taking the static band's free values, from a cursor of its
// own, before the dynamic band's: a dynamic value freed later waits
// until the static band is full.
type stickyStatic struct {
	servicenet.Allocator
	values
	offset int
	mu     sync.Mutex
	sticky bool
	next   int // the static cursor, once sticky
}

func (s *stickyStatic) AllocateNext() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sticky {
		for k := range s.offset {
			v := s.value((s.next + k) % s.offset)
			if !s.Has(v) && s.Allocate(v) == nil {
				i, _ := s.index(v)
				s.next = i + 1
				return v, nil
			}
		}
	}
	v, err := s.Allocator.AllocateNext()
	if i, ok := s.index(v); err == nil && ok && i < s.offset {
		s.sticky, s.next = true, i+1
	}
	return v, err
}

// cursorMover moves the cursor on Allocate too: the AllocateNext after a
// request starts its scan just after the requested value, within its
// band, as if the request had been handed out by the scan.
type cursorMover struct {
	servicenet.Allocator
	values
	offset  int
	mu      sync.Mutex
	pending int // 1 + the index of the last value requested; 0: none
}

func (c *cursorMover) Allocate(v string) error {
	err := c.Allocator.Allocate(v)
	if i, ok := c.index(v); err == nil && ok {
		c.mu.Lock()
		c.pending = i + 1
		c.mu.Unlock()
	}
	return err
}

func (c *cursorMover) AllocateNext() (string, error) {
	c.mu.Lock()
	start := c.pending
	c.pending = 0
	c.mu.Unlock()
	if start > 0 {
		lo, hi := c.offset, c.n // the band of the value requested
		if start-1 < c.offset {
			lo, hi = 0, c.offset
		}
		for k := range hi - lo {
			v := c.value(lo + (start-lo+k)%(hi-lo))
			if !c.Has(v) && c.Allocator.Allocate(v) == nil {
				return v, nil
			}
		}
	}
	return c.Allocator.AllocateNext()
}

// rotated turns the values of a range round by shift: where the
// solution hands out value i, it hands out value i-shift. Each value is
// still handed out once; only where the dynamic band starts moves.
type rotated struct {
	servicenet.Allocator
	values
	shift int
}

func (r rotated) turn(v string, by int) string {
	i, ok := r.index(v)
	if !ok || r.n == 0 {
		return v
	}
	return r.value(((i+by)%r.n + r.n) % r.n)
}

func (r rotated) AllocateNext() (string, error) {
	v, err := r.Allocator.AllocateNext()
	if err != nil {
		return v, err
	}
	return r.turn(v, -r.shift), nil
}

func (r rotated) Allocate(v string) error { return r.Allocator.Allocate(r.turn(v, r.shift)) }
func (r rotated) Release(v string) error  { return r.Allocator.Release(r.turn(v, r.shift)) }
func (r rotated) Has(v string) bool       { return r.Allocator.Has(r.turn(v, r.shift)) }

// reuse hands out the IP released last first, as an allocator that
// scans from the start of its band would.
type reuse struct {
	servicenet.Allocator
	mu   sync.Mutex
	last string
}

func (r *reuse) Release(v string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Allocator.Has(v) {
		r.last = v
	}
	return r.Allocator.Release(v)
}

func (r *reuse) AllocateNext() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v := r.last; v != "" {
		r.last = ""
		if r.Allocator.Allocate(v) == nil {
			return v, nil
		}
	}
	return r.Allocator.AllocateNext()
}

// phantom counts a release of a free IP as one more free IP.
type phantom struct {
	servicenet.Allocator
	extra atomic.Int64
}

func (p *phantom) Release(v string) error {
	if !p.Allocator.Has(v) {
		p.extra.Add(1)
	}
	return p.Allocator.Release(v)
}

func (p *phantom) Free() int { return p.Allocator.Free() + int(p.extra.Load()) }

// againWhenFull hands out the first IP again once the range is full.
type againWhenFull struct {
	servicenet.Allocator
	mu    sync.Mutex
	first string
}

func (a *againWhenFull) AllocateNext() (string, error) {
	v, err := a.Allocator.AllocateNext()
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil && a.first != "" {
		return a.first, nil
	}
	if a.first == "" {
		a.first = v
	}
	return v, err
}

// racy looks for a free IP and takes it in two steps, as an allocator
// without a lock does: a call that comes in between hands out the same
// IP. Its own state is atomic, so the race detector has nothing to
// report: the suite must see the IP handed out twice.
type racy struct {
	servicenet.Allocator
	busy    atomic.Bool
	last    atomic.Value
	visited atomic.Bool
	// inside counts the calls under way; concurrent is set once two were
	// at once, twice once a value was handed out twice, and waited is
	// how long the windows were held open, in all.
	inside     atomic.Int32
	concurrent atomic.Bool
	twice      atomic.Bool
	waited     atomic.Int64
}

func (r *racy) AllocateNext() (string, error) {
	if r.inside.Add(1) > 1 {
		r.concurrent.Store(true)
	}
	defer r.inside.Add(-1)
	runtime.Gosched() // let the other callers in
	if r.busy.Load() {
		if v, ok := r.last.Load().(string); ok {
			r.visited.Store(true)
			r.twice.Store(true)
			return v, nil
		}
	}
	r.busy.Store(true)
	defer r.busy.Store(false)
	v, err := r.Allocator.AllocateNext()
	if err == nil {
		r.last.Store(v)
	}
	// The window between looking and taking: once calls come at once,
	// held open until another call has come in, so that the step sees a
	// value handed out twice however the goroutines are scheduled (CI
	// once ran them so that none did); once that happened, or after 3s
	// in all, calls go through. Calls one after another never wait.
	r.visited.Store(false)
	start := time.Now()
	for r.concurrent.Load() && !r.twice.Load() && !r.visited.Load() && r.waited.Load()+int64(time.Since(start)) < int64(3*time.Second) {
		runtime.Gosched()
	}
	r.waited.Add(int64(time.Since(start)))
	return v, err
}

var allocBugs = map[string]bug{
	// Rule 1.1: the values of a CIDR.
	"network-address-handed-out": {
		impl: extraAddress(false),
		fail: []string{"01-allocate-next", "02-allocate-requested"},
		want: `Free() of a new 10.96.0.0/28 = 15, want 14`,
	},
	"broadcast-address-handed-out": {
		impl: extraAddress(true),
		fail: []string{"01-allocate-next", "02-allocate-requested"},
		want: `Allocate("10.96.0.255") on 10.96.0.0/24 = nil error, want error "the provided IP (10.96.0.255) is not in the valid range. The range of valid IPs is 10.96.0.0/24" (rule 2.3)`,
	},
	"ipv6-accepted": {
		impl: func() Impl {
			i := solution()
			i.NewIPRange = func(cidr string) (servicenet.Allocator, error) {
				if strings.Contains(cidr, ":") {
					return sol.NewIPRange("10.96.0.0/24")
				}
				return sol.NewIPRange(cidr)
			}
			return i
		},
		fail: []string{"01-allocate-next"},
		want: `NewIPRange("fd00::/108") = an Allocator and nil error, want an error starting "services: ": the kata allocates IPv4 only (rule 1.1)`,
	},
	"no-size-cap": {
		impl: func() Impl {
			i := solution()
			i.NewIPRange = func(cidr string) (servicenet.Allocator, error) {
				if p, err := netip.ParsePrefix(cidr); err == nil && p.Addr().Is4() && p.Bits() < 12 {
					cidr = netip.PrefixFrom(p.Addr(), 12).Masked().String()
				}
				return sol.NewIPRange(cidr)
			}
			return i
		},
		fail: []string{"01-allocate-next"},
		want: `NewIPRange("10.0.0.0/11") = an Allocator and nil error`,
	},
	"errors-without-prefix": {
		impl: func() Impl {
			strip := func(err error) error {
				if err != nil {
					return errors.New(strings.TrimPrefix(err.Error(), "services: "))
				}
				return nil
			}
			i := solution()
			i.NewIPRange = func(cidr string) (servicenet.Allocator, error) {
				a, err := sol.NewIPRange(cidr)
				return a, strip(err)
			}
			i.NewPortRange = func(r string) (servicenet.Allocator, error) {
				a, err := sol.NewPortRange(r)
				return a, strip(err)
			}
			return i
		},
		fail: []string{"01-allocate-next", "05-node-ports"},
		want: `want an error that starts "services: " and names "banana" (rule 1.1)`,
	},

	// Rule 1.2: each value once, then "range is full".
	"wrong-full-message": {
		impl: ipBug(mapError(msgFull, "no IP left in the range")),
		fail: []string{"01-allocate-next"},
		want: `AllocateNext() on 10.96.0.0/28 after 14 allocations = error "no IP left in the range", want error "range is full"`,
	},
	"taken-ip-handed-out-again": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return &againWhenFull{Allocator: a}
		}),
		fail: []string{"01-allocate-next"},
		want: `AllocateNext() on 10.96.0.0/28 after 14 allocations = "10.96.0.1", want error "range is full"`,
	},

	// Rule 2.1: requests.
	"taken-ip-allocated-twice": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return mapErrors{a, func(_ string, err error) error {
				if err.Error() == msgIPAllocated {
					return nil
				}
				return err
			}, true}
		}),
		fail: []string{"02-allocate-requested"},
		want: `Allocate("10.96.0.10") on 10.96.0.0/24 after Allocate("10.96.0.10") = nil error, want error "provided IP is already allocated" (rule 2.2)`,
	},
	"wrong-allocated-message": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return mapErrors{a, func(v string, err error) error {
				if err.Error() == msgIPAllocated {
					return fmt.Errorf("IP %s is already in use", v)
				}
				return err
			}, true}
		}),
		fail: []string{"02-allocate-requested"},
		want: `= error "IP 10.96.0.10 is already in use", want error "provided IP is already allocated" (rule 2.2)`,
	},
	"not-in-range-without-cidr": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return mapErrors{a, func(v string, err error) error {
				if strings.Contains(err.Error(), "not in the valid range") {
					return fmt.Errorf("the provided IP (%s) is not in the valid range", v)
				}
				return err
			}, true}
		}),
		fail: []string{"02-allocate-requested"},
		want: `Allocate("10.96.0.0") on 10.96.0.0/24 = error "the provided IP (10.96.0.0) is not in the valid range", want error "the provided IP (10.96.0.0) is not in the valid range. The range of valid IPs is 10.96.0.0/24" (rule 2.3)`,
	},
	"no-ip-says-so": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return mapErrors{a, func(v string, err error) error {
				if _, perr := netip.ParseAddr(v); perr != nil {
					return fmt.Errorf("services: %q is not an IP", v)
				}
				return err
			}, true}
		}),
		fail: []string{"02-allocate-requested"},
		want: `Allocate("banana") on 10.96.0.0/24 = error "services: \"banana\" is not an IP"`,
	},

	// Rule 3.1: the static band.
	"no-static-band": {
		// The dynamic band starts at the first IP: the static band's IPs
		// are handed out first.
		impl: ipBug(func(cidr string, a servicenet.Allocator) servicenet.Allocator {
			return rotated{a, ipRange(cidr), ipOffset(cidr)}
		}),
		fail: []string{"03-static-band"},
		want: `AllocateNext() #1 on a new 10.96.0.0/24 = "10.96.0.1", want "10.96.0.17": the static band is 10.96.0.1-10.96.0.16, offset min(max(16, 256/16), 256) = 16, used last (rule 3.1)`,
	},
	"offset-not-capped": {
		// min(max(16, size/16), 256) without the 256.
		impl: ipBug(func(cidr string, a servicenet.Allocator) servicenet.Allocator {
			size := 1 << (32 - netip.MustParsePrefix(cidr).Bits())
			return rotated{a, ipRange(cidr), ipOffset(cidr) - offset(size, 16, math.MaxInt, 16)}
		}),
		fail: []string{"03-static-band"},
		want: `AllocateNext() #1 on a new 10.96.0.0/16 = "10.96.16.1", want "10.96.1.1"`,
	},
	"static-band-sticky": {
		impl: ipBug(func(cidr string, a servicenet.Allocator) servicenet.Allocator {
			return &stickyStatic{Allocator: a, values: ipRange(cidr), offset: ipOffset(cidr)}
		}),
		fail: []string{"03-static-band"},
		want: `Release("10.96.0.100") = "10.96.0.7", want "10.96.0.100": the only free IP of the dynamic band comes before the static band (rule 3.1)`,
	},
	"static-band-not-requestable": {
		impl: ipBug(func(cidr string, a servicenet.Allocator) servicenet.Allocator {
			return staticRefused{a, ipRange(cidr), ipOffset(cidr), cidr}
		}),
		fail: []string{"02-allocate-requested", "03-static-band"},
		want: `Allocate("10.96.0.5") on 10.96.0.0/24 = error "the provided IP (10.96.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/24", want nil: a request may take an IP of either band (rule 3.1)`,
	},

	// Rule 4.1: the cursor.
	"ip-reused-at-once": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return &reuse{Allocator: a}
		}),
		fail: []string{"04-release"},
		want: `AllocateNext() #1 after Release("10.96.0.2") on 10.96.0.0/28 with .1-.3 taken = "10.96.0.2", want "10.96.0.4"`,
	},

	"request-moves-cursor": {
		impl: ipBug(func(cidr string, a servicenet.Allocator) servicenet.Allocator {
			return &cursorMover{Allocator: a, values: ipRange(cidr), offset: ipOffset(cidr)}
		}),
		fail: []string{"04-release"},
		want: `AllocateNext() #1 on a new 10.96.0.0/28 after Allocate("10.96.0.5") = "10.96.0.6", want "10.96.0.1": a request does not move the cursor`,
	},

	// Rule 4.2: Release.
	"release-keeps-ip": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return keep{a}
		}),
		fail: []string{"03-static-band", "04-release"},
		want: `after Release("10.96.0.2") on 10.96.0.0/28 with .1-.3 taken: Has("10.96.0.2") = true, Free() = 11; want false, 12: one more (rule 4.2)`,
	},
	"release-free-ip-fails": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return strictRelease{a}
		}),
		fail: []string{"04-release"},
		want: `Release("10.96.0.7"), an IP released already, on 10.96.0.0/28 = error "services: 10.96.0.7 is not allocated", want nil (rule 4.2)`,
	},
	"release-free-ip-counts": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return &phantom{Allocator: a}
		}),
		fail: []string{"04-release"},
		want: `after Release("10.96.0.7"), an IP released already, on 10.96.0.0/28: Free() = 15, Has("10.96.0.7") = false; want 14, false (rule 4.2)`,
	},

	// Rule 5.1: NodePorts.
	"port-offset-of-ips": {
		// The IP allocator's min(max(16, size/16), 256) for ports.
		impl: portBug(func(spec string, a servicenet.Allocator) servicenet.Allocator {
			r := portRange(spec)
			return rotated{a, r, offset(r.n, 16, 128, 32) - offset(r.n, 16, 256, 16)}
		}),
		fail: []string{"05-node-ports"},
		want: `AllocateNext() #1 on a new port range 30000-32767 = "30173", want "30086": ports 30000-30085 are the static band, offset min(max(16, 2768/32), 128) = 86, used last (rule 5.1)`,
	},
	"port-not-in-range-without-range": {
		impl: portBug(mapError("provided port is not in the valid range", "provided port is not in the valid range")),
		fail: []string{"05-node-ports"},
		want: `Allocate("29999") on port range 30000-32767`,
	},
	"port-allocated-says-ip": {
		impl: portBug(mapError(msgPortAllocated, msgIPAllocated)),
		fail: []string{"05-node-ports"},
		want: `= error "provided IP is already allocated", want error "provided port is already allocated" (rule 5.1)`,
	},
	"reversed-port-range-accepted": {
		impl: func() Impl {
			i := solution()
			i.NewPortRange = func(r string) (servicenet.Allocator, error) {
				if lo, hi, ok := strings.Cut(r, "-"); ok {
					if l, err1 := strconv.Atoi(lo); err1 == nil {
						if h, err2 := strconv.Atoi(hi); err2 == nil && h < l {
							r = hi + "-" + lo
						}
					}
				}
				return sol.NewPortRange(r)
			}
			return i
		},
		fail: []string{"05-node-ports"},
		want: `NewPortRange("32767-30000") = an Allocator and nil error`,
	},

	// Rule 1.3: concurrent use.
	"not-safe-for-concurrent-use": {
		impl: ipBug(func(_ string, a servicenet.Allocator) servicenet.Allocator {
			return &racy{Allocator: a}
		}),
		fail: []string{"01-allocate-next"},
		want: `handed out twice, want each IP once: an Allocator is safe for concurrent use (rule 1.3)`,
	},
}

// staticRefused refuses a request for an IP of the static band.
type staticRefused struct {
	servicenet.Allocator
	values
	offset int
	cidr   string
}

func (s staticRefused) Allocate(v string) error {
	if i, ok := s.index(v); ok && i < s.offset {
		return fmt.Errorf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", v, s.cidr)
	}
	return s.Allocator.Allocate(v)
}

// keep says it released an IP, and keeps it.
type keep struct{ servicenet.Allocator }

func (keep) Release(string) error { return nil }

// strictRelease fails to release an IP that is not taken.
type strictRelease struct{ servicenet.Allocator }

func (s strictRelease) Release(v string) error {
	if !s.Allocator.Has(v) {
		return fmt.Errorf("services: %s is not allocated", v)
	}
	return s.Allocator.Release(v)
}
