package api

// The discovery.k8s.io/v1 kind EndpointSlice: the addresses behind a
// Service, written by the EndpointSlice controller, read by kube-proxy.

import "encoding/json"

// Labels of an EndpointSlice.
const (
	// LabelServiceName names the Service a slice belongs to.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelManagedBy names the controller that manages a slice.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
	// EndpointSliceControllerName is the upstream controller's value of
	// LabelManagedBy.
	EndpointSliceControllerName = "endpointslice-controller.k8s.io"
)

// EndpointSlice lists endpoints (pod addresses) and the ports they serve.
type EndpointSlice struct {
	TypeMeta    `json:",inline"`
	ObjectMeta  `json:"metadata,omitempty"`
	AddressType AddressType    `json:"addressType"`
	Endpoints   []Endpoint     `json:"endpoints"`
	Ports       []EndpointPort `json:"ports"`
}

// AddressType is the kind of address in a slice.
type AddressType string

const (
	AddressTypeIPv4 AddressType = "IPv4"
	AddressTypeIPv6 AddressType = "IPv6"
	AddressTypeFQDN AddressType = "FQDN"
)

// Endpoint is one backend, usually a pod.
type Endpoint struct {
	Addresses  []string           `json:"addresses"`
	Conditions EndpointConditions `json:"conditions,omitempty"`
	Hostname   *string            `json:"hostname,omitempty"`
	TargetRef  *ObjectReference   `json:"targetRef,omitempty"`
	NodeName   *string            `json:"nodeName,omitempty"`
	Zone       *string            `json:"zone,omitempty"`
	// DeprecatedTopology and Hints are kept so that real slices decode.
	DeprecatedTopology map[string]string `json:"deprecatedTopology,omitempty"`
	Hints              json.RawMessage   `json:"hints,omitempty"`
}

// EndpointConditions: ready (serving and not terminating), serving
// (passing readiness) and terminating. nil means unknown, read as true
// for ready and serving.
type EndpointConditions struct {
	Ready       *bool `json:"ready,omitempty"`
	Serving     *bool `json:"serving,omitempty"`
	Terminating *bool `json:"terminating,omitempty"`
}

// EndpointPort is one port the endpoints serve.
type EndpointPort struct {
	Name        *string   `json:"name,omitempty"`
	Protocol    *Protocol `json:"protocol,omitempty"`
	Port        *int32    `json:"port,omitempty"`
	AppProtocol *string   `json:"appProtocol,omitempty"`
}
