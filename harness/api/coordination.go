package api

// The coordination.k8s.io/v1 kind Lease: node heartbeats (one Lease per
// node in kube-node-lease) and leader election.

// Lease is a lock held by HolderIdentity and renewed at RenewTime.
type Lease struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       LeaseSpec `json:"spec,omitempty"`
}

// LeaseSpec is who holds a lease and until when.
type LeaseSpec struct {
	HolderIdentity       *string    `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32     `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *MicroTime `json:"acquireTime,omitempty"`
	RenewTime            *MicroTime `json:"renewTime,omitempty"`
	LeaseTransitions     *int32     `json:"leaseTransitions,omitempty"`
}
