package servicestest

// Steps 01-05: the allocators of the apiserver's service registry, read
// at Kubernetes 1.30-1.32:
//
//   - pkg/registry/core/service/allocator/bitmap.go: the bitmap, and
//     randomScanStrategyWithOffset, which scans the dynamic band
//     [offset, max) before the static band [0, offset);
//   - pkg/registry/core/service/ipallocator/bitmap.go (New,
//     calculateRangeOffset) and interfaces.go (the errors);
//   - pkg/registry/core/service/portallocator/allocator.go (New, its
//     calculateRangeOffset and errors);
//   - cmd/kube-apiserver/app/options/validation.go: a service CIDR has
//     at most 20 host bits.
//
// Upstream picks a random free value in a band; the kata keeps a cursor
// per band instead (README), so every expected value here is exact.

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/suite"
)

// Upstream's messages: ipallocator/interfaces.go and
// portallocator/allocator.go.
const (
	msgFull          = "range is full"
	msgIPAllocated   = "provided IP is already allocated"
	msgPortAllocated = "provided port is already allocated"
)

func msgIPNotInRange(ip, cidr string) string {
	return fmt.Sprintf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, cidr)
}

func msgPortNotInRange(portRange string) string {
	return "provided port is not in the valid range. The range of valid ports is " + portRange
}

// errText shows an error, or its absence, in a failure message.
func errText(err error) string {
	if err == nil {
		return "nil error"
	}
	return fmt.Sprintf("error %q", err.Error())
}

// result shows what AllocateNext returned.
func result(v string, err error) string {
	if err != nil {
		return errText(err)
	}
	return strconv.Quote(v)
}

func isErr(err error, msg string) bool { return err != nil && err.Error() == msg }

// newIPRange makes the Allocator of cidr, or stops the step.
func newIPRange(t *suite.T, impl Impl, cidr string) servicenet.Allocator {
	t.Helper()
	a, err := impl.NewIPRange(cidr)
	if err != nil {
		t.Fatalf("NewIPRange(%q) = %s, want an Allocator (rule 1.1)", cidr, errText(err))
	}
	if a == nil {
		t.Fatalf("NewIPRange(%q) = nil Allocator and nil error, want an Allocator (rule 1.1)", cidr)
	}
	return a
}

// newPortRange makes the Allocator of portRange, or stops the step.
func newPortRange(t *suite.T, impl Impl, portRange string) servicenet.Allocator {
	t.Helper()
	a, err := impl.NewPortRange(portRange)
	if err != nil {
		t.Fatalf("NewPortRange(%q) = %s, want an Allocator (rule 5.1)", portRange, errText(err))
	}
	if a == nil {
		t.Fatalf("NewPortRange(%q) = nil Allocator and nil error, want an Allocator (rule 5.1)", portRange)
	}
	return a
}

// ipAdd is ip plus n, as a string.
func ipAdd(ip string, n int) string {
	a := netip.MustParseAddr(ip).As4()
	u := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	u += uint32(n)
	return netip.AddrFrom4([4]byte{byte(u >> 24), byte(u >> 16), byte(u >> 8), byte(u)}).String()
}

// ipSub is a minus b, in addresses.
func ipSub(a, b string) int {
	u := func(s string) int {
		x := netip.MustParseAddr(s).As4()
		return int(x[0])<<24 | int(x[1])<<16 | int(x[2])<<8 | int(x[3])
	}
	return u(a) - u(b)
}

// ipValues says whether v is one of the values of cidr (rule 1.1), and if
// not, why.
func ipValues(cidr string) (first, last string, why func(v string) string) {
	p := netip.MustParsePrefix(cidr).Masked()
	size := 1 << (32 - p.Bits())
	network := p.Addr().String()
	broadcast := ipAdd(network, size-1)
	first, last = ipAdd(network, 1), ipAdd(network, size-2)
	return first, last, func(v string) string {
		a, err := netip.ParseAddr(v)
		switch {
		case v == network:
			return "the network address"
		case v == broadcast:
			return "the broadcast address"
		case err != nil || !p.Contains(a):
			return "not in " + cidr
		}
		return ""
	}
}

// portValues is ipValues for a port range.
func portValues(low, high int) func(v string) string {
	return func(v string) string {
		p, err := strconv.Atoi(v)
		if err != nil || strconv.Itoa(p) != v || p < low || p > high {
			return fmt.Sprintf("not a port of %d-%d", low, high)
		}
		return ""
	}
}

// drain calls AllocateNext on a new allocator of n values until they are
// all taken, and checks that each is handed out once, that each is one
// of the range's values (why says why not), and that the next call says
// "range is full". on names the range; rule is the rule the values
// follow.
func drain(t *suite.T, a servicenet.Allocator, on string, n int, why func(string) string, values, rule string) bool {
	t.Helper()
	if got := a.Free(); got != n {
		t.Errorf("Free() of a new %s = %d, want %d: the values are %s (%s)", on, got, n, values, rule)
		return false
	}
	seen := map[string]int{}
	for k := range n {
		v, err := a.AllocateNext()
		switch {
		case err != nil:
			t.Errorf("AllocateNext() on %s after %d allocations = %s, want a free value: %d of %d are left (rule 1.2)", on, k, errText(err), n-k, n)
			return false
		case why(v) != "":
			t.Errorf("AllocateNext() on %s after %d allocations = %q, %s; want one of %s (%s)", on, k, v, why(v), values, rule)
			return false
		case seen[v] > 0:
			t.Errorf("AllocateNext() on %s after %d allocations = %q, handed out already by call %d; want each value once (rule 1.2)", on, k, v, seen[v])
			return false
		case !a.Has(v):
			t.Errorf("Has(%q) on %s right after AllocateNext() returned it = false, want true (rule 1.2)", v, on)
			return false
		}
		seen[v] = k + 1
	}
	if got := a.Free(); got != 0 {
		t.Errorf("Free() on %s after its %d values were handed out = %d, want 0 (rule 1.2)", on, n, got)
		return false
	}
	if v, err := a.AllocateNext(); !isErr(err, msgFull) {
		t.Errorf("AllocateNext() on %s after %d allocations = %s, want error %q: every value is taken (rule 1.2)", on, n, result(v, err), msgFull)
		return false
	}
	return true
}

// badRange checks that make(input) fails with a message that starts
// with "services: " and names the input.
func badRange(t *suite.T, call, input, why, rule string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf(`%s(%q) = an Allocator and nil error, want an error starting "services: ": %s (%s)`, call, input, why, rule)
	case !strings.HasPrefix(err.Error(), "services: ") || !strings.Contains(err.Error(), input):
		t.Errorf(`%s(%q) = %s, want an error that starts "services: " and names %q (%s)`, call, input, errText(err), input, rule)
	}
}

func allocateNext(t *suite.T, impl Impl) {
	need(t, "NewIPRange", impl.NewIPRange)
	// ipallocator/bitmap.go (New): the values of a CIDR are its
	// addresses but the network address and, for IPv4, the broadcast
	// address; a /31 and a /32 have none.
	for _, c := range []struct {
		cidr string
		n    int
	}{
		{"10.96.0.0/28", 14},
		{"192.168.7.8/29", 6},
		{"10.0.0.0/30", 2},
		{"10.96.0.0/24", 254},
		{"10.96.0.0/31", 0},
		{"10.96.0.0/32", 0},
	} {
		first, last, why := ipValues(c.cidr)
		values := first + "-" + last
		if c.n == 0 {
			values = "none: a /31 or /32 has no address but the network and broadcast ones"
		}
		drain(t, newIPRange(t, impl, c.cidr), c.cidr, c.n, why, values, "rule 1.1")
	}
	// The apiserver takes a service CIDR of up to 20 host bits
	// (validateMaxCIDRRange): a /12 is the largest.
	if got, want := newIPRange(t, impl, "10.96.0.0/12").Free(), 1<<20-2; got != want {
		t.Errorf("Free() of a new 10.96.0.0/12 = %d, want %d: 2^20 addresses but the network and broadcast ones (rule 1.1)", got, want)
	}
	for _, c := range []struct{ cidr, why string }{
		{"fd00::/108", "the kata allocates IPv4 only"},
		{"10.0.0.0/11", "a service CIDR has at most 20 host bits (the mask must be >= 12)"},
		{"10.96.0.0", "a CIDR needs a prefix length"},
		{"10.96.0.0/33", "an IPv4 prefix length is at most 32"},
		{"10.96.0/24", "not a CIDR"},
		{"banana", "not a CIDR"},
	} {
		_, err := impl.NewIPRange(c.cidr)
		badRange(t, "NewIPRange", c.cidr, c.why, "rule 1.1", err)
	}
	concurrent(t, newIPRange(t, impl, "10.96.0.0/24"), "10.96.0.0/24", 254)
}

// concurrent calls AllocateNext on a from 8 goroutines at once, more
// times than there are values, and checks that each value is handed out
// once and the calls left over say "range is full" (rule 1.3). Under -race
// the race detector checks the allocator's memory too.
func concurrent(t *suite.T, a servicenet.Allocator, on string, n int) {
	t.Helper()
	const workers, calls = 8, 32
	var (
		wg       sync.WaitGroup
		start    = make(chan struct{})
		got      = make([][]string, workers)
		errs     = make([][]error, workers)
		panicked = make([]any, workers)
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic here would end the whole test binary: report it.
			defer func() { panicked[w] = recover() }()
			<-start
			for range calls {
				v, err := a.AllocateNext()
				if err != nil {
					errs[w] = append(errs[w], err)
				} else {
					got[w] = append(got[w], v)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	what := fmt.Sprintf("%d goroutines calling AllocateNext() on %s at once, %d calls each", workers, on, calls)
	seen := map[string]bool{}
	ok, full := 0, 0
	for w := range workers {
		if panicked[w] != nil {
			t.Errorf("%s: a call panicked: %v (rule 1.3)", what, panicked[w])
			return
		}
		for _, v := range got[w] {
			if seen[v] {
				t.Errorf("%s: %q handed out twice, want each IP once: an Allocator is safe for concurrent use (rule 1.3)", what, v)
				return
			}
			seen[v] = true
			ok++
		}
		for _, err := range errs[w] {
			if !isErr(err, msgFull) {
				t.Errorf("%s: a call returned %s, want %d IPs and then error %q (rule 1.3)", what, errText(err), n, msgFull)
				return
			}
			full++
		}
	}
	if ok != n || full != workers*calls-n {
		t.Errorf("%s: %d IPs and %d %q, want %d IPs and %d %q (rule 1.3)", what, ok, full, msgFull, n, workers*calls-n, msgFull)
	}
}

func allocateRequested(t *suite.T, impl Impl) {
	need(t, "NewIPRange", impl.NewIPRange)
	// ipallocator/bitmap.go (Allocate, contains): a requested IP is taken
	// if it is one of the range's values and free.
	for _, c := range []struct {
		cidr   string
		before []string // requests that succeed first
		ip     string
		want   string // the error, "" for none
	}{
		{"10.96.0.0/24", nil, "10.96.0.10", ""},
		{"10.96.0.0/24", nil, "10.96.0.1", ""},
		{"10.96.0.0/24", nil, "10.96.0.254", ""},
		{"10.96.0.0/24", []string{"10.96.0.10"}, "10.96.0.10", msgIPAllocated},
		{"10.96.0.0/24", []string{"10.96.0.10", "10.96.0.200"}, "10.96.0.200", msgIPAllocated},
		{"10.96.0.0/24", []string{"10.96.0.10"}, "10.96.0.11", ""},
		{"10.96.0.0/24", nil, "10.96.0.0", msgIPNotInRange("10.96.0.0", "10.96.0.0/24")},
		{"10.96.0.0/24", nil, "10.96.0.255", msgIPNotInRange("10.96.0.255", "10.96.0.0/24")},
		{"10.96.0.0/24", nil, "10.96.1.10", msgIPNotInRange("10.96.1.10", "10.96.0.0/24")},
		{"10.96.0.0/24", nil, "192.168.0.10", msgIPNotInRange("192.168.0.10", "10.96.0.0/24")},
		{"10.96.0.0/24", nil, "fd00::10", msgIPNotInRange("fd00::10", "10.96.0.0/24")},
		{"10.96.0.0/24", nil, "banana", msgIPNotInRange("banana", "10.96.0.0/24")},
		{"10.96.0.0/28", nil, "10.96.0.14", ""},
		{"10.96.0.0/28", []string{"10.96.0.14"}, "10.96.0.14", msgIPAllocated},
		{"10.96.0.0/28", nil, "10.96.0.15", msgIPNotInRange("10.96.0.15", "10.96.0.0/28")},
		{"10.96.0.0/28", nil, "10.96.0.16", msgIPNotInRange("10.96.0.16", "10.96.0.0/28")},
	} {
		a := newIPRange(t, impl, c.cidr)
		on := c.cidr
		for _, ip := range c.before {
			if err := a.Allocate(ip); err != nil {
				t.Errorf("Allocate(%q) on a new %s = %s, want nil: it is one of the range's free IPs (rule 2.1)", ip, c.cidr, errText(err))
			}
			on += fmt.Sprintf(" after Allocate(%q)", ip)
		}
		free := a.Free()
		err := a.Allocate(c.ip)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Allocate(%q) on %s = %s, want nil: it is one of the range's free IPs (rule 2.1)", c.ip, on, errText(err))
		case c.want != "" && !isErr(err, c.want):
			rule := "2.3"
			if c.want == msgIPAllocated {
				rule = "2.2"
			}
			t.Errorf("Allocate(%q) on %s = %s, want error %q (rule %s)", c.ip, on, errText(err), c.want, rule)
		case c.want == "" && !a.Has(c.ip):
			t.Errorf("Has(%q) on %s after Allocate(%q) = false, want true (rule 2.1)", c.ip, on, c.ip)
		case c.want == "" && a.Free() != free-1:
			t.Errorf("Free() on %s after Allocate(%q) = %d, want %d: one less (rule 2.1)", on, c.ip, a.Free(), free-1)
		case c.want != "" && a.Free() != free:
			t.Errorf("Free() on %s after a failed Allocate(%q) = %d, want %d: a failed request takes nothing (rule 2.4)", on, c.ip, a.Free(), free)
		}
	}
	// An IP that AllocateNext handed out is taken as well, and an IP that
	// was requested is never handed out.
	a := newIPRange(t, impl, "10.96.0.0/28")
	if v, err := a.AllocateNext(); err != nil {
		t.Errorf("AllocateNext() on a new 10.96.0.0/28 = %s, want a free IP (rule 1.2)", errText(err))
	} else if err := a.Allocate(v); !isErr(err, msgIPAllocated) {
		t.Errorf("Allocate(%q) on 10.96.0.0/28 after AllocateNext() returned it = %s, want error %q (rule 2.2)", v, errText(err), msgIPAllocated)
	}
	a = newIPRange(t, impl, "10.96.0.0/28")
	for _, ip := range []string{"10.96.0.2", "10.96.0.9"} {
		if err := a.Allocate(ip); err != nil {
			t.Errorf("Allocate(%q) on 10.96.0.0/28 = %s, want nil (rule 2.1)", ip, errText(err))
		}
	}
	for k := range 12 {
		v, err := a.AllocateNext()
		if v == "10.96.0.2" || v == "10.96.0.9" || err != nil {
			t.Errorf(`AllocateNext() on 10.96.0.0/28 after Allocate("10.96.0.2"), Allocate("10.96.0.9") and %d allocations = %s, want one of the 12 IPs left (rule 2.1)`, k, result(v, err))
			break
		}
	}
}

func staticBand(t *suite.T, impl Impl) {
	need(t, "NewIPRange", impl.NewIPRange)
	// ipallocator/bitmap.go (calculateRangeOffset): the static band is
	// the first min(max(16, size/16), 256) values, where size counts the
	// CIDR's addresses, and none when size <= 16. allocator/bitmap.go
	// (randomScanStrategyWithOffset): AllocateNext takes from the band
	// above it first.
	for _, c := range []struct {
		cidr   string
		size   int // addresses in the CIDR
		offset int
		want   []string // the first values AllocateNext hands out
	}{
		{"10.96.0.0/28", 16, 0, []string{"10.96.0.1", "10.96.0.2", "10.96.0.3"}},
		{"10.96.0.0/27", 32, 16, []string{"10.96.0.17", "10.96.0.18"}},
		{"10.96.0.0/25", 128, 16, []string{"10.96.0.17"}},
		{"10.96.0.0/24", 256, 16, []string{"10.96.0.17", "10.96.0.18", "10.96.0.19"}},
		{"10.96.0.0/23", 512, 32, []string{"10.96.0.33"}},
		{"10.96.0.0/22", 1024, 64, []string{"10.96.0.65"}},
		{"10.96.0.0/21", 2048, 128, []string{"10.96.0.129"}},
		{"10.96.0.0/20", 4096, 256, []string{"10.96.1.1"}},
		{"10.96.0.0/16", 65536, 256, []string{"10.96.1.1", "10.96.1.2"}},
		{"10.96.0.0/12", 1 << 20, 256, []string{"10.96.1.1"}},
	} {
		a := newIPRange(t, impl, c.cidr)
		band := "no static band: a CIDR of 16 addresses or fewer has none"
		if c.offset > 0 {
			first := ipAdd(netip.MustParsePrefix(c.cidr).Addr().String(), 1)
			band = fmt.Sprintf("the static band is %s-%s, offset min(max(16, %d/16), 256) = %d, used last",
				first, ipAdd(first, c.offset-1), c.size, c.offset)
		}
		for k, want := range c.want {
			if v, err := a.AllocateNext(); v != want || err != nil {
				t.Errorf("AllocateNext() #%d on a new %s = %s, want %q: %s (rule 3.1)", k+1, c.cidr, result(v, err), want, band)
				break
			}
		}
	}

	// The dynamic band 10.96.0.17-10.96.0.30 of a /27 first, then the
	// static band from its first value.
	a := newIPRange(t, impl, "10.96.0.0/27")
	for k := range 16 {
		want := ipAdd("10.96.0.17", k)
		if k >= 14 {
			want = ipAdd("10.96.0.1", k-14)
		}
		if v, err := a.AllocateNext(); v != want || err != nil {
			t.Errorf("AllocateNext() #%d on a new 10.96.0.0/27 = %s, want %q: the dynamic band 10.96.0.17-10.96.0.30 first, then the static band 10.96.0.1-10.96.0.16 (rule 3.1)", k+1, result(v, err), want)
			break
		}
	}

	// A request may take an IP of either band; AllocateNext turns to the
	// static band only when the dynamic one is full, and back to the
	// dynamic one as soon as an IP of it is free.
	a = newIPRange(t, impl, "10.96.0.0/24")
	for _, ip := range []string{"10.96.0.1", "10.96.0.5", "10.96.0.100"} {
		if err := a.Allocate(ip); err != nil {
			t.Errorf("Allocate(%q) on 10.96.0.0/24 = %s, want nil: a request may take an IP of either band (rule 3.1)", ip, errText(err))
		}
	}
	_, _, why := ipValues("10.96.0.0/24")
	for k := range 237 {
		v, err := a.AllocateNext()
		if err != nil || why(v) != "" || ipSub(v, "10.96.0.17") < 0 {
			t.Errorf(`AllocateNext() on 10.96.0.0/24 after Allocate("10.96.0.1"), Allocate("10.96.0.5"), Allocate("10.96.0.100") and %d allocations = %s, want an IP of the dynamic band 10.96.0.17-10.96.0.254: %d of them are free (rule 3.1)`, k, result(v, err), 237-k)
			return
		}
	}
	on := `10.96.0.0/24 with its dynamic band full and 10.96.0.1, 10.96.0.5 requested`
	for _, want := range []string{"10.96.0.2", "10.96.0.3", "10.96.0.4", "10.96.0.6"} {
		if v, err := a.AllocateNext(); v != want || err != nil {
			t.Errorf("AllocateNext() on %s = %s, want %q: the static band from its first free IP (rule 3.1)", on, result(v, err), want)
			return
		}
		on += ", " + want + " handed out"
	}
	if err := a.Release("10.96.0.100"); err != nil {
		t.Errorf("Release(%q) on %s = %s, want nil (rule 4.2)", "10.96.0.100", on, errText(err))
	}
	if v, err := a.AllocateNext(); v != "10.96.0.100" || err != nil {
		t.Errorf(`AllocateNext() on %s, then Release("10.96.0.100") = %s, want "10.96.0.100": the only free IP of the dynamic band comes before the static band (rule 3.1)`, on, result(v, err))
	}
}

func release(t *suite.T, impl Impl) {
	need(t, "NewIPRange", impl.NewIPRange)
	// The kata's cursor (README rule 4.1): upstream starts each scan at a
	// random value (allocator/bitmap.go), so a released IP rarely comes
	// back soon; here it comes back only when the cursor comes around.
	a := newIPRange(t, impl, "10.96.0.0/28")
	for k := range 3 {
		want := ipAdd("10.96.0.1", k)
		if v, err := a.AllocateNext(); v != want || err != nil {
			t.Errorf("AllocateNext() #%d on a new 10.96.0.0/28 = %s, want %q: the band's cursor starts at its first IP and moves past each IP it hands out (rule 4.1)", k+1, result(v, err), want)
			return
		}
	}
	free := a.Free()
	if err := a.Release("10.96.0.2"); err != nil {
		t.Errorf(`Release("10.96.0.2") on 10.96.0.0/28 = %s, want nil (rule 4.2)`, errText(err))
	}
	if a.Has("10.96.0.2") || a.Free() != free+1 {
		t.Errorf(`after Release("10.96.0.2") on 10.96.0.0/28 with .1-.3 taken: Has("10.96.0.2") = %t, Free() = %d; want false, %d: one more (rule 4.2)`, a.Has("10.96.0.2"), a.Free(), free+1)
	}
	for k := range 12 {
		want := ipAdd("10.96.0.4", k)
		if k == 11 {
			want = "10.96.0.2"
		}
		if v, err := a.AllocateNext(); v != want || err != nil {
			t.Errorf(`AllocateNext() #%d after Release("10.96.0.2") on 10.96.0.0/28 with .1-.3 taken = %s, want %q: a released IP is handed out again only when the cursor comes around to it (rule 4.1)`, k+1, result(v, err), want)
			break
		}
	}

	// A request does not move the cursor; AllocateNext steps over the
	// IP it took.
	a = newIPRange(t, impl, "10.96.0.0/28")
	if err := a.Allocate("10.96.0.5"); err != nil {
		t.Errorf(`Allocate("10.96.0.5") on a new 10.96.0.0/28 = %s, want nil (rule 2.1)`, errText(err))
	}
	for k, want := range []string{"10.96.0.1", "10.96.0.2", "10.96.0.3", "10.96.0.4", "10.96.0.6"} {
		if v, err := a.AllocateNext(); v != want || err != nil {
			t.Errorf(`AllocateNext() #%d on a new 10.96.0.0/28 after Allocate("10.96.0.5") = %s, want %q: a request does not move the cursor, and the cursor steps over a taken IP (rule 4.1)`, k+1, result(v, err), want)
			break
		}
	}

	// The static band keeps its own cursor.
	a = newIPRange(t, impl, "10.96.0.0/24")
	for k := range 238 {
		if _, err := a.AllocateNext(); err != nil {
			t.Errorf("AllocateNext() on 10.96.0.0/24 after %d allocations = %s, want an IP (rule 1.2)", k, errText(err))
			return
		}
	}
	s1, err1 := a.AllocateNext()
	s2, err2 := a.AllocateNext()
	if err1 != nil || err2 != nil {
		t.Errorf("AllocateNext() twice on 10.96.0.0/24 after 238 allocations = %s, %s; want two IPs (rule 3.1)", result(s1, err1), result(s2, err2))
		return
	}
	if err := a.Release(s1); err != nil {
		t.Errorf("Release(%q) on 10.96.0.0/24 = %s, want nil (rule 4.2)", s1, errText(err))
	}
	if v, err := a.AllocateNext(); v != ipAdd(s2, 1) || err != nil {
		t.Errorf("AllocateNext() on 10.96.0.0/24 after 240 allocations, the last two %q and %q, then Release(%q) = %s, want %q: a released IP is handed out again only when the cursor comes around to it (rule 4.1)",
			s1, s2, s1, result(v, err), ipAdd(s2, 1))
	}

	// upstream's Release (allocator/bitmap.go, ipallocator/bitmap.go):
	// freeing a free IP, or one out of the range, is no error and
	// changes nothing.
	a = newIPRange(t, impl, "10.96.0.0/28")
	if err := a.Allocate("10.96.0.7"); err != nil {
		t.Errorf(`Allocate("10.96.0.7") on a new 10.96.0.0/28 = %s, want nil (rule 2.1)`, errText(err))
	}
	for _, c := range []struct {
		ip    string
		freed int // how much Release(ip) adds to Free()
		what  string
	}{
		{"10.96.0.7", 1, "a requested IP"},
		{"10.96.0.7", 0, "an IP released already"},
		{"10.96.0.9", 0, "a free IP"},
		{"10.96.0.0", 0, "the network address"},
		{"10.96.0.15", 0, "the broadcast address"},
		{"10.96.1.1", 0, "an IP out of the range"},
		{"banana", 0, "no IP at all"},
	} {
		free := a.Free()
		if err := a.Release(c.ip); err != nil {
			t.Errorf("Release(%q), %s, on 10.96.0.0/28 = %s, want nil (rule 4.2)", c.ip, c.what, errText(err))
		}
		if got := a.Free(); got != free+c.freed || a.Has(c.ip) {
			t.Errorf("after Release(%q), %s, on 10.96.0.0/28: Free() = %d, Has(%q) = %t; want %d, false (rule 4.2)", c.ip, c.what, got, c.ip, a.Has(c.ip), free+c.freed)
		}
	}
	if err := a.Allocate("10.96.0.7"); err != nil {
		t.Errorf(`Allocate("10.96.0.7") on 10.96.0.0/28 after Release("10.96.0.7") = %s, want nil: it is free again (rule 4.2)`, errText(err))
	}
}

func nodePorts(t *suite.T, impl Impl) {
	need(t, "NewPortRange", impl.NewPortRange)
	// portallocator/allocator.go: the ports of the range, as the IPs of
	// a CIDR, with its own calculateRangeOffset: min(max(16, size/32),
	// 128), none when size <= 16.
	for _, c := range []struct {
		portRange    string
		size, offset int
		want         []string
	}{
		{"30000-32767", 2768, 86, []string{"30086", "30087"}},
		{"30000-30009", 10, 0, []string{"30000", "30001"}},
		{"30000-30016", 17, 16, []string{"30016"}},
		{"30000-30099", 100, 16, []string{"30016"}},
		{"1000-5095", 4096, 128, []string{"1128"}},
		{"20000-29999", 10000, 128, []string{"20128"}},
	} {
		a := newPortRange(t, impl, c.portRange)
		if got := a.Free(); got != c.size {
			t.Errorf("Free() of a new port range %s = %d, want %d (rule 5.1)", c.portRange, got, c.size)
		}
		low, _ := strconv.Atoi(strings.Split(c.portRange, "-")[0])
		band := "no static band: a range of 16 ports or fewer has none"
		if c.offset > 0 {
			band = fmt.Sprintf("ports %d-%d are the static band, offset min(max(16, %d/32), 128) = %d, used last", low, low+c.offset-1, c.size, c.offset)
		}
		for k, want := range c.want {
			if v, err := a.AllocateNext(); v != want || err != nil {
				t.Errorf("AllocateNext() #%d on a new port range %s = %s, want %q: %s (rule 5.1)", k+1, c.portRange, result(v, err), want, band)
				break
			}
		}
	}
	drain(t, newPortRange(t, impl, "30000-30009"), "port range 30000-30009", 10, portValues(30000, 30009), "30000-30009", "rule 5.1")

	a := newPortRange(t, impl, "30000-32767")
	on := "port range 30000-32767"
	notIn := msgPortNotInRange("30000-32767")
	for _, c := range []struct{ port, want string }{
		{"30000", ""},
		{"30000", msgPortAllocated},
		{"32767", ""},
		{"31000", ""},
		{"31000", msgPortAllocated},
		{"29999", notIn},
		{"32768", notIn},
		{"80", notIn},
		{"banana", notIn},
	} {
		err := a.Allocate(c.port)
		if c.want == "" && err != nil || c.want != "" && !isErr(err, c.want) {
			want := "nil"
			if c.want != "" {
				want = fmt.Sprintf("error %q", c.want)
			}
			t.Errorf("Allocate(%q) on %s = %s, want %s (rule 5.1)", c.port, on, errText(err), want)
		}
		if c.want == "" {
			on += fmt.Sprintf(" after Allocate(%q)", c.port)
		}
	}
	if got := a.Free(); got != 2768-3 {
		t.Errorf("Free() on %s = %d, want %d (rule 5.1)", on, got, 2768-3)
	}
	v1, err1 := a.AllocateNext()
	if v1 != "30086" || err1 != nil {
		t.Errorf("AllocateNext() on %s = %s, want %q (rule 5.1)", on, result(v1, err1), "30086")
		return
	}
	if err := a.Release("30086"); err != nil || a.Has("30086") {
		t.Errorf(`Release("30086") on %s = %s, then Has("30086") = %t; want nil, false (rule 5.1)`, on, errText(err), a.Has("30086"))
	}
	if v, err := a.AllocateNext(); v != "30087" || err != nil {
		t.Errorf(`AllocateNext() on %s after AllocateNext() = "30086" and Release("30086") = %s, want "30087": a released port waits for the cursor to come around, as an IP does (rule 5.1)`, on, result(v, err))
	}

	for _, c := range []struct{ portRange, why string }{
		{"banana", "not min-max"},
		{"30000:32767", "not min-max"},
		{"30000-", "no max"},
		{"-32767", "no min"},
		{"30000-32767-1", "not min-max"},
		{"32767-30000", "the end port is less than the start port"},
		{"30000-70000", "a port is at most 65535"},
	} {
		_, err := impl.NewPortRange(c.portRange)
		badRange(t, "NewPortRange", c.portRange, c.why, "rule 5.1", err)
	}
}
