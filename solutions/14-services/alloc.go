package services

// The service registry's allocators (steps 1-5 of README.md): one bitmap
// per range, as upstream's pkg/registry/core/service/allocator/bitmap.go
// keeps it, with the IP lens of ipallocator/bitmap.go and the port lens
// of portallocator/allocator.go (read at Kubernetes 1.30-1.32, where both
// build it with NewAllocationMapWithOffset).

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"github.com/kubekata/kubekata/harness/servicenet"
)

// errFull is upstream's ErrFull, the same text in both allocators.
var errFull = errors.New("range is full")

// NewIPRange returns the Allocator of the service CIDR cidr, such as
// "10.96.0.0/24".
func NewIPRange(cidr string) (servicenet.Allocator, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("services: invalid service CIDR %q: want an IPv4 CIDR such as \"10.96.0.0/12\"", cidr)
	}
	if !prefix.Addr().Is4() {
		// Upstream takes IPv6 too, capping the bitmap at 65536 values.
		return nil, fmt.Errorf("services: service CIDR %q is not IPv4: the kata allocates IPv4 addresses only", cidr)
	}
	if prefix.Bits() < 12 {
		// cmd/kube-apiserver/app/options/validation.go: at most 20 host
		// bits (validateMaxCIDRRange).
		return nil, fmt.Errorf("services: service CIDR %q is too large; for 32-bit addresses, the mask must be >= 12", cidr)
	}
	prefix = prefix.Masked() // as ParseCIDRSloppy: 10.96.0.5/24 is 10.96.0.0/24
	size := 1 << (32 - prefix.Bits())
	// ipallocator.New: neither the network address nor the broadcast
	// address is a value (a /31 or /32 has none).
	n := max(size-2, 0)
	base := u32(prefix.Addr()) + 1
	spec := prefix.String()
	return newBitmap(n, rangeOffset(size, 16, 256, 16),
		func(i int) string { return ip4(base + uint32(i)).String() },
		func(v string) (int, bool) {
			a, err := netip.ParseAddr(v)
			if err != nil || !a.Is4() || !prefix.Contains(a) {
				return 0, false
			}
			i := int(u32(a)) - int(base)
			return i, i >= 0 && i < n
		},
		errors.New("provided IP is already allocated"),
		func(v string) error {
			// ipallocator/interfaces.go, ErrNotInRange.
			return fmt.Errorf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", v, spec)
		},
	), nil
}

// NewPortRange returns the Allocator of the port range portRange, such as
// "30000-32767".
func NewPortRange(portRange string) (servicenet.Allocator, error) {
	low, high, err := parsePortRange(portRange)
	if err != nil {
		return nil, err
	}
	size := high - low + 1
	spec := fmt.Sprintf("%d-%d", low, high)
	return newBitmap(size, rangeOffset(size, 16, 128, 32),
		func(i int) string { return strconv.Itoa(low + i) },
		func(v string) (int, bool) {
			p, err := strconv.Atoi(v)
			if err != nil || strconv.Itoa(p) != v {
				return 0, false
			}
			return p - low, p >= low && p <= high
		},
		errors.New("provided port is already allocated"),
		func(string) error {
			// portallocator/allocator.go, ErrNotInRange.
			return fmt.Errorf("provided port is not in the valid range. The range of valid ports is %s", spec)
		},
	), nil
}

// parsePortRange reads "min-max" as apimachinery's util/net.PortRange.Set
// does, with its messages.
func parsePortRange(s string) (low, high int, err error) {
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, fmt.Errorf("services: unable to parse port range %q: want min-max, such as \"30000-32767\"", s)
	}
	low, err1 := strconv.Atoi(lo)
	high, err2 := strconv.Atoi(hi)
	switch {
	case err1 != nil || err2 != nil || low < 0:
		return 0, 0, fmt.Errorf("services: unable to parse port range %q: want min-max, such as \"30000-32767\"", s)
	case low > 65535 || high > 65535:
		return 0, 0, fmt.Errorf("services: the port range cannot be greater than 65535: %q", s)
	case high < low:
		return 0, 0, fmt.Errorf("services: end port cannot be less than start port: %q", s)
	}
	return low, high, nil
}

// rangeOffset is upstream's calculateRangeOffset: the size of the static
// band, min(max(lo, size/step), hi), none for a range of lo or fewer.
// The IP allocator counts the whole CIDR (16, 256, 16); the port
// allocator the ports (16, 128, 32).
func rangeOffset(size, lo, hi, step int) int {
	if size <= lo {
		return 0
	}
	return min(max(lo, size/step), hi)
}

// bitmap is the allocation bitmap of n values, value i being value(i).
// AllocateNext scans the dynamic band [offset, n) first and the static
// band [0, offset) only when the dynamic one is full (upstream's
// randomScanStrategyWithOffset), so that a requested static value rarely
// collides with a dynamic one. Upstream starts each scan at a random
// value; here each band keeps a cursor, so that the choice is
// deterministic and a released value is not handed out again at once.
type bitmap struct {
	value     func(i int) string
	index     func(v string) (int, bool)
	allocated error
	notIn     func(v string) error

	mu     sync.Mutex
	taken  []bool
	offset int
	// free and next are per band: 0 dynamic, 1 static. next is where the
	// band's next scan starts.
	free [2]int
	next [2]int
}

func newBitmap(n, offset int, value func(int) string, index func(string) (int, bool), allocated error, notIn func(string) error) *bitmap {
	return &bitmap{
		value: value, index: index, allocated: allocated, notIn: notIn,
		taken:  make([]bool, n),
		offset: offset,
		free:   [2]int{n - offset, offset},
		next:   [2]int{offset, 0},
	}
}

// band says which band value i is in, and the band's bounds.
func (b *bitmap) band(i int) (band, lo, hi int) {
	if i >= b.offset {
		return 0, b.offset, len(b.taken)
	}
	return 1, 0, b.offset
}

func (b *bitmap) take(i int) {
	band, _, _ := b.band(i)
	b.taken[i] = true
	b.free[band]--
}

func (b *bitmap) Allocate(v string) error {
	i, ok := b.index(v)
	if !ok {
		return b.notIn(v)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken[i] {
		return b.allocated
	}
	b.take(i)
	return nil
}

func (b *bitmap) AllocateNext() (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, first := range []int{b.offset, 0} { // the dynamic band first
		band, lo, hi := b.band(first)
		if b.free[band] == 0 {
			continue
		}
		for k := range hi - lo {
			i := lo + (b.next[band]-lo+k)%(hi-lo)
			if !b.taken[i] {
				b.take(i)
				b.next[band] = lo + (i-lo+1)%(hi-lo)
				return b.value(i), nil
			}
		}
	}
	return "", errFull
}

// Release frees v; a free value, or one out of the range, is no error
// (bitmap.go's Release).
func (b *bitmap) Release(v string) error {
	i, ok := b.index(v)
	if !ok {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken[i] {
		band, _, _ := b.band(i)
		b.taken[i] = false
		b.free[band]++
	}
	return nil
}

func (b *bitmap) Has(v string) bool {
	i, ok := b.index(v)
	if !ok {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.taken[i]
}

func (b *bitmap) Free() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.free[0] + b.free[1]
}

func u32(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func ip4(n uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
}
