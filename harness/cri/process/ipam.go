//go:build unix

package process

import (
	"encoding/binary"
	"fmt"
	"net"
)

// ipPool hands out IPv4 addresses of a CIDR round-robin, the strategy
// of CNI's host-local IPAM
// (containernetworking/plugins plugins/ipam/host-local/backend/allocator/allocator.go,
// GetIter): each search starts after the last address given, so that
// a released address is given again only after the whole range.
type ipPool struct {
	cidr        string
	first, last uint32 // inclusive
	lastGiven   uint32 // 0: none yet
	used        map[uint32]bool
}

func newIPPool(cidr string) (*ipPool, error) {
	_, n, err := net.ParseCIDR(cidr)
	if err != nil {
		return nil, fmt.Errorf("process: pod CIDR %q: %v", cidr, err)
	}
	ip4 := n.IP.To4()
	ones, bits := n.Mask.Size()
	if ip4 == nil || bits != 32 {
		return nil, fmt.Errorf("process: pod CIDR %q: want an IPv4 network", cidr)
	}
	// host-local's range.go refuses networks with no room (/31, /32);
	// with .1 kept back as it does for the gateway, /30 has one address.
	if ones > 30 {
		return nil, fmt.Errorf("process: pod CIDR %q: too small, want /30 or larger", cidr)
	}
	network := binary.BigEndian.Uint32(ip4)
	broadcast := network | ^binary.BigEndian.Uint32(net.IP(n.Mask).To4())
	return &ipPool{
		cidr:  n.String(),
		first: network + 2, // not the network address, not .1 (host-local's gateway)
		last:  broadcast - 1,
		used:  map[uint32]bool{},
	}, nil
}

func (p *ipPool) firstIP() string { return u32ToIP(p.first) }

// alloc returns a free address, the next one after the last given.
func (p *ipPool) alloc() (string, error) {
	size := p.last - p.first + 1
	start := p.first
	if p.lastGiven >= p.first && p.lastGiven < p.last {
		start = p.lastGiven + 1
	}
	for i := uint32(0); i < size; i++ {
		a := start + i
		if a > p.last {
			a -= size
		}
		if !p.used[a] {
			p.used[a] = true
			p.lastGiven = a
			return u32ToIP(a), nil
		}
	}
	return "", fmt.Errorf("process: no free pod IP in %s (%d sandboxes hold them all)", p.cidr, size)
}

// release frees an address given by alloc; others are ignored.
func (p *ipPool) release(ip string) {
	if a := net.ParseIP(ip).To4(); a != nil {
		delete(p.used, binary.BigEndian.Uint32(a))
	}
}

func u32ToIP(a uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], a)
	return net.IP(b[:]).String()
}
