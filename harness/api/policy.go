package api

// The core/v1 kinds that bound what a namespace may use: LimitRange
// (defaults and bounds per container or pod, applied by the LimitRanger
// admission plugin) and ResourceQuota (totals per namespace, enforced by
// the ResourceQuota admission plugin, which keeps the usage in the
// quota's status). Upstream: k8s.io/api/core/v1/types.go.

// LimitType is what a LimitRangeItem bounds.
type LimitType string

// The limit types the kata serves.
const (
	LimitTypePod       LimitType = "Pod"
	LimitTypeContainer LimitType = "Container"
)

// LimitRange sets defaults and bounds for the containers and pods of its
// namespace.
type LimitRange struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       LimitRangeSpec `json:"spec,omitempty"`
}

// LimitRangeSpec lists the limits.
type LimitRangeSpec struct {
	Limits []LimitRangeItem `json:"limits"`
}

// LimitRangeItem bounds one type of object: Max and Min per resource,
// Default (a container's limits when it sets none), DefaultRequest (its
// requests when it sets none) and MaxLimitRequestRatio.
type LimitRangeItem struct {
	Type                 LimitType    `json:"type"`
	Max                  ResourceList `json:"max,omitempty"`
	Min                  ResourceList `json:"min,omitempty"`
	Default              ResourceList `json:"default,omitempty"`
	DefaultRequest       ResourceList `json:"defaultRequest,omitempty"`
	MaxLimitRequestRatio ResourceList `json:"maxLimitRequestRatio,omitempty"`
}

// ResourceQuota caps what a namespace may use in total: "pods",
// "requests.cpu", "limits.memory", "count/configmaps", ...
type ResourceQuota struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ResourceQuotaSpec   `json:"spec,omitempty"`
	Status     ResourceQuotaStatus `json:"status,omitempty"`
}

// ResourceQuotaSpec is the hard limit per resource name.
type ResourceQuotaSpec struct {
	Hard ResourceList `json:"hard,omitempty"`
}

// ResourceQuotaStatus is the enforced hard limit and the usage so far.
type ResourceQuotaStatus struct {
	Hard ResourceList `json:"hard,omitempty"`
	Used ResourceList `json:"used,omitempty"`
}
