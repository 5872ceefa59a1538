package services

import "github.com/kubekata/kubekata/harness/servicenet"

// NewIPRange returns the Allocator of the service CIDR cidr, such as
// "10.96.0.0/24".
func NewIPRange(cidr string) (servicenet.Allocator, error) {
	// TODO: parse the IPv4 CIDR and return an allocator of its addresses but the network and broadcast ones, dynamic band first, each band with a cursor (README tasks 1-4).
	panic("not implemented: NewIPRange")
}

// NewPortRange returns the Allocator of the port range portRange, such as
// "30000-32767".
func NewPortRange(portRange string) (servicenet.Allocator, error) {
	// TODO: parse "min-max" and return an allocator of its ports with the port allocator's band offset and messages (README task 5).
	panic("not implemented: NewPortRange")
}
