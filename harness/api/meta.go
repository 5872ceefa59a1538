package api

// The shapes of k8s.io/apimachinery/pkg/apis/meta/v1 (metav1) that every
// kind shares: TypeMeta, ObjectMeta, ListMeta, LabelSelector, Status,
// Condition and the watch event envelope.

import (
	"encoding/json"
	"reflect"
)

// UID is an object's unique id (k8s.io/apimachinery/pkg/types.UID).
type UID string

// TypeMeta names the schema of a serialized object.
type TypeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// GetTypeMeta lets every kind that embeds TypeMeta satisfy Object.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata every persisted object carries.
type ObjectMeta struct {
	Name                       string            `json:"name,omitempty"`
	GenerateName               string            `json:"generateName,omitempty"`
	Namespace                  string            `json:"namespace,omitempty"`
	SelfLink                   string            `json:"selfLink,omitempty"`
	UID                        UID               `json:"uid,omitempty"`
	ResourceVersion            string            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitempty"`
	CreationTimestamp          Time              `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *Time             `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
	// ManagedFields is kept only so that objects exported from a real
	// cluster (kubectl get -o yaml) decode; nothing here maintains it.
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// GetObjectMeta lets every kind that embeds ObjectMeta satisfy Object.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// OwnerReference points from a dependent to its owner; the garbage
// collector deletes dependents whose owners are gone.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                UID    `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ManagedFieldsEntry is server-side apply bookkeeping, kept opaque.
type ManagedFieldsEntry struct {
	Manager     string          `json:"manager,omitempty"`
	Operation   string          `json:"operation,omitempty"`
	APIVersion  string          `json:"apiVersion,omitempty"`
	Time        *Time           `json:"time,omitempty"`
	FieldsType  string          `json:"fieldsType,omitempty"`
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string          `json:"subresource,omitempty"`
}

// ListMeta is the metadata of a list: the revision it was read at and
// where to continue a paginated read.
type ListMeta struct {
	SelfLink           string `json:"selfLink,omitempty"`
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// List is the shape of every list response (PodList, NodeList, ...):
// apiVersion, kind ("PodList"), metadata and items. Use
// List[json.RawMessage] to build a list of a kind known only at run time.
type List[T any] struct {
	TypeMeta `json:",inline"`
	Metadata ListMeta `json:"metadata"`
	Items    []T      `json:"items"`
}

// LabelSelector selects objects by labels. A nil *LabelSelector selects
// nothing, an empty one selects everything; the terms are ANDed.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one set-based term of a LabelSelector.
type LabelSelectorRequirement struct {
	Key      string                `json:"key"`
	Operator LabelSelectorOperator `json:"operator"`
	Values   []string              `json:"values,omitempty"`
}

// LabelSelectorOperator is the relation of a LabelSelectorRequirement.
type LabelSelectorOperator string

const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// ConditionStatus is the status of a condition: True, False or Unknown.
type ConditionStatus string

const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Condition is metav1.Condition, the generic condition shape (used by
// Service status). Kinds with their own condition type use that instead.
type Condition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty"`
	LastTransitionTime Time            `json:"lastTransitionTime"`
	Reason             string          `json:"reason"`
	Message            string          `json:"message"`
}

// Status is the body of every error response (and of some successful
// deletes): kind Status, apiVersion v1.
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Status is StatusSuccess or StatusFailure.
	Status  string         `json:"status,omitempty"`
	Message string         `json:"message,omitempty"`
	Reason  StatusReason   `json:"reason,omitempty"`
	Details *StatusDetails `json:"details,omitempty"`
	Code    int32          `json:"code,omitempty"`
}

// Error makes a *Status usable as an error, as upstream's StatusError is.
func (s *Status) Error() string { return s.Message }

// Values of Status.Status.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// StatusDetails says which object a Status is about and why, field by field.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               UID           `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason for a failure, usually one invalid field.
type StatusCause struct {
	Type    CauseType `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
	Field   string    `json:"field,omitempty"`
}

// StatusReason is the machine-readable reason of a failure; each maps to
// one HTTP status code (shown beside each constant).
type StatusReason string

const (
	StatusReasonUnknown               StatusReason = ""                      // 500
	StatusReasonUnauthorized          StatusReason = "Unauthorized"          // 401
	StatusReasonForbidden             StatusReason = "Forbidden"             // 403
	StatusReasonNotFound              StatusReason = "NotFound"              // 404
	StatusReasonAlreadyExists         StatusReason = "AlreadyExists"         // 409
	StatusReasonConflict              StatusReason = "Conflict"              // 409
	StatusReasonGone                  StatusReason = "Gone"                  // 410
	StatusReasonInvalid               StatusReason = "Invalid"               // 422
	StatusReasonServerTimeout         StatusReason = "ServerTimeout"         // 500
	StatusReasonTimeout               StatusReason = "Timeout"               // 504
	StatusReasonTooManyRequests       StatusReason = "TooManyRequests"       // 429
	StatusReasonBadRequest            StatusReason = "BadRequest"            // 400
	StatusReasonMethodNotAllowed      StatusReason = "MethodNotAllowed"      // 405
	StatusReasonNotAcceptable         StatusReason = "NotAcceptable"         // 406
	StatusReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge" // 413
	StatusReasonUnsupportedMediaType  StatusReason = "UnsupportedMediaType"  // 415
	StatusReasonInternalError         StatusReason = "InternalError"         // 500
	StatusReasonExpired               StatusReason = "Expired"               // 410
	StatusReasonServiceUnavailable    StatusReason = "ServiceUnavailable"    // 503
)

// CauseType is the machine-readable kind of a StatusCause.
type CauseType string

const (
	CauseTypeFieldValueNotFound       CauseType = "FieldValueNotFound"
	CauseTypeFieldValueRequired       CauseType = "FieldValueRequired"
	CauseTypeFieldValueDuplicate      CauseType = "FieldValueDuplicate"
	CauseTypeFieldValueInvalid        CauseType = "FieldValueInvalid"
	CauseTypeFieldValueNotSupported   CauseType = "FieldValueNotSupported"
	CauseTypeFieldValueForbidden      CauseType = "FieldValueForbidden"
	CauseTypeFieldValueTooLong        CauseType = "FieldValueTooLong"
	CauseTypeFieldValueTooMany        CauseType = "FieldValueTooMany"
	CauseTypeInternal                 CauseType = "InternalError"
	CauseTypeFieldValueTypeInvalid    CauseType = "FieldValueTypeInvalid"
	CauseTypeUnexpectedServerResponse CauseType = "UnexpectedServerResponse"
	CauseTypeFieldManagerConflict     CauseType = "FieldManagerConflict"
	CauseTypeResourceVersionTooLarge  CauseType = "ResourceVersionTooLarge"
)

// DeleteOptions is the optional body of a DELETE request.
type DeleteOptions struct {
	TypeMeta           `json:",inline"`
	GracePeriodSeconds *int64               `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *Preconditions       `json:"preconditions,omitempty"`
	PropagationPolicy  *DeletionPropagation `json:"propagationPolicy,omitempty"`
	DryRun             []string             `json:"dryRun,omitempty"`
}

// Preconditions must hold for a delete to happen.
type Preconditions struct {
	UID             *UID    `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// DeletionPropagation says whether and how the garbage collector deletes
// an object's dependents.
type DeletionPropagation string

const (
	DeletePropagationOrphan     DeletionPropagation = "Orphan"
	DeletePropagationBackground DeletionPropagation = "Background"
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// Well-known finalizers the garbage collector uses.
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// WatchEvent is one line of a watch stream: {"type":"ADDED","object":{...}}.
// For type ERROR the object is a Status.
type WatchEvent struct {
	Type   WatchEventType  `json:"type"`
	Object json.RawMessage `json:"object"`
}

// WatchEventType is the type of a WatchEvent.
type WatchEventType string

const (
	WatchAdded    WatchEventType = "ADDED"
	WatchModified WatchEventType = "MODIFIED"
	WatchDeleted  WatchEventType = "DELETED"
	WatchBookmark WatchEventType = "BOOKMARK"
	WatchError    WatchEventType = "ERROR"
)

// IsControlledBy reports whether obj has an owner reference to owner with
// controller set to true.
func IsControlledBy(obj, owner Object) bool {
	ref := GetControllerOf(obj)
	return ref != nil && ref.UID == owner.GetObjectMeta().UID
}

// GetControllerOf returns obj's controlling owner reference, or nil.
func GetControllerOf(obj Object) *OwnerReference {
	refs := obj.GetObjectMeta().OwnerReferences
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	return nil
}

// NewControllerRef returns an owner reference that makes owner the
// controller of a dependent (controller and blockOwnerDeletion true).
// owner's kind must be registered.
func NewControllerRef(owner Object) OwnerReference {
	k, _ := KindOf(owner)
	t := true
	m := owner.GetObjectMeta()
	return OwnerReference{
		APIVersion:         k.APIVersion(),
		Kind:               k.Kind,
		Name:               m.Name,
		UID:                m.UID,
		Controller:         &t,
		BlockOwnerDeletion: &t,
	}
}

// isNil reports whether v is nil or a nil pointer inside an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
