package apiserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
)

// Validation runs before anything is stored and answers 422 with one
// cause per bad field, so that a client can point at the line to fix.

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	labelValueFmt       = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
	labelNameFmt        = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
)

var (
	dns1123Label     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123Subdomain = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	dns1035Label     = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	labelValue       = regexp.MustCompile("^" + labelValueFmt + "$")
	labelName        = regexp.MustCompile("^" + labelNameFmt + "$")
)

func required(field, detail string) fieldError {
	msg := "Required value"
	if detail != "" {
		msg += ": " + detail
	}
	return fieldError{api.CauseTypeFieldValueRequired, field, msg}
}

func invalidValue(field, value, detail string) fieldError {
	return fieldError{api.CauseTypeFieldValueInvalid, field, fmt.Sprintf("Invalid value: %q: %s", value, detail)}
}

func checkSubdomain(field, v string) []fieldError {
	if len(v) > 253 {
		return []fieldError{invalidValue(field, v, "must be no more than 253 characters")}
	}
	if !dns1123Subdomain.MatchString(v) {
		return []fieldError{invalidValue(field, v, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '"+dns1123SubdomainFmt+"')")}
	}
	return nil
}

func checkLabel1123(field, v string) []fieldError {
	if len(v) > 63 {
		return []fieldError{invalidValue(field, v, "must be no more than 63 characters")}
	}
	if !dns1123Label.MatchString(v) {
		return []fieldError{invalidValue(field, v, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '"+dns1123LabelFmt+"')")}
	}
	return nil
}

func checkLabel1035(field, v string) []fieldError {
	if len(v) > 63 {
		return []fieldError{invalidValue(field, v, "must be no more than 63 characters")}
	}
	if !dns1035Label.MatchString(v) {
		return []fieldError{invalidValue(field, v, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '"+dns1035LabelFmt+"')")}
	}
	return nil
}

func checkLabels(field string, labels map[string]string) []fieldError {
	var errs []fieldError
	for k, v := range labels {
		name := k
		if i := lastSlash(k); i >= 0 {
			errs = append(errs, checkSubdomain(field, k[:i])...)
			name = k[i+1:]
		}
		if len(name) > 63 || !labelName.MatchString(name) {
			errs = append(errs, invalidValue(field, k, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '"+labelNameFmt+"')"))
		}
		if len(v) > 63 || !labelValue.MatchString(v) {
			errs = append(errs, invalidValue(field, v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '"+labelValueFmt+"')"))
		}
	}
	return errs
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

func validate(kind api.Kind, obj api.Object) []fieldError {
	m := obj.GetObjectMeta()
	var errs []fieldError
	switch {
	case m.Name == "":
		errs = append(errs, required("metadata.name", "name or generateName is required"))
	case kind.Resource == "namespaces":
		errs = append(errs, checkLabel1123("metadata.name", m.Name)...)
	case kind.Resource == "services":
		errs = append(errs, checkLabel1035("metadata.name", m.Name)...)
	case kind.Group == api.GroupRBAC:
		// RBAC names are path segments, so "system:node" is one
		// (pkg/apis/rbac/validation/validation.go, ValidateRBACName;
		// k8s.io/apimachinery/pkg/api/validate/content/path.go).
		for _, bad := range []string{".", ".."} {
			if m.Name == bad {
				errs = append(errs, invalidValue("metadata.name", m.Name, "may not be '"+bad+"'"))
			}
		}
		for _, bad := range []string{"/", "%"} {
			if strings.Contains(m.Name, bad) {
				errs = append(errs, invalidValue("metadata.name", m.Name, "may not contain '"+bad+"'"))
			}
		}
	default:
		errs = append(errs, checkSubdomain("metadata.name", m.Name)...)
	}
	if kind.Namespaced {
		if m.Namespace == "" {
			errs = append(errs, required("metadata.namespace", ""))
		} else {
			errs = append(errs, checkLabel1123("metadata.namespace", m.Namespace)...)
		}
	}
	errs = append(errs, checkLabels("metadata.labels", m.Labels)...)
	switch o := obj.(type) {
	case *api.Pod:
		errs = append(errs, validatePodSpec(&o.Spec)...)
	case *api.Deployment:
		errs = append(errs, validateReplicated(o.Spec.Replicas, o.Spec.Selector, o.Spec.Template.Labels)...)
	case *api.ReplicaSet:
		errs = append(errs, validateReplicated(o.Spec.Replicas, o.Spec.Selector, o.Spec.Template.Labels)...)
	}
	return errs
}

// validateReplicated checks what Deployments and ReplicaSets share
// (pkg/apis/apps/validation/validation.go, ValidateDeploymentSpec and
// ValidateReplicaSetSpec): a count that is not negative, and a selector
// that selects the pods the template makes, or the controller would make
// pods forever.
func validateReplicated(replicas *int32, sel *api.LabelSelector, template map[string]string) []fieldError {
	var errs []fieldError
	if replicas != nil && *replicas < 0 {
		errs = append(errs, negative("spec.replicas", strconv.Itoa(int(*replicas))))
	}
	switch {
	case sel == nil:
		errs = append(errs, required("spec.selector", ""))
	case len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0:
		errs = append(errs, fieldError{api.CauseTypeFieldValueInvalid, "spec.selector", "Invalid value: {}: empty selector is invalid for deployment"})
	case !selectorMatches(sel, template):
		v, _ := json.Marshal(template)
		errs = append(errs, fieldError{api.CauseTypeFieldValueInvalid, "spec.template.metadata.labels",
			fmt.Sprintf("Invalid value: %s: `selector` does not match template `labels`", v)})
	}
	return errs
}

// negative is upstream's error for a number or quantity below zero
// (apimachinery's ValidateNonnegativeField and core's
// ValidateNonnegativeQuantity).
func negative(field, value string) fieldError {
	return fieldError{api.CauseTypeFieldValueInvalid, field, fmt.Sprintf("Invalid value: %s: must be greater than or equal to 0", value)}
}

// validateResources refuses negative requests and limits
// (pkg/apis/core/validation/validation.go, ValidateResourceRequirements).
func validateResources(field string, r api.ResourceRequirements) []fieldError {
	var errs []fieldError
	for _, part := range []struct {
		name string
		list api.ResourceList
	}{{"limits", r.Limits}, {"requests", r.Requests}} {
		names := make([]string, 0, len(part.list))
		for n := range part.list {
			names = append(names, string(n))
		}
		sort.Strings(names)
		for _, n := range names {
			if q := part.list[api.ResourceName(n)]; q.Sign() < 0 {
				errs = append(errs, negative(fmt.Sprintf("%s.%s[%s]", field, part.name, n), strconv.Quote(q.String())))
			}
		}
	}
	return errs
}

// podUpdatable is upstream's list of the pod spec fields an update may
// change (pkg/apis/core/validation/validation.go, ValidatePodUpdate).
const podUpdatable = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// validatePodUpdate refuses a change of a pod's spec beyond the fields
// upstream lets an update change: a pod is not edited in place, it is
// replaced.
func validatePodUpdate(old, pod *api.Pod) []fieldError {
	munged := pod.Spec
	munged.Containers = withImages(old.Spec.Containers, pod.Spec.Containers)
	munged.InitContainers = withImages(old.Spec.InitContainers, pod.Spec.InitContainers)
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	if len(pod.Spec.Tolerations) >= len(old.Spec.Tolerations) && jsonEqual(reflect.ValueOf(pod.Spec.Tolerations[:len(old.Spec.Tolerations)]), reflect.ValueOf(old.Spec.Tolerations)) {
		munged.Tolerations = old.Spec.Tolerations
	}
	if g := old.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 && pod.Spec.TerminationGracePeriodSeconds != nil && *pod.Spec.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = g
	}
	if jsonEqual(reflect.ValueOf(munged), reflect.ValueOf(old.Spec)) {
		return nil
	}
	return []fieldError{{api.CauseTypeFieldValueForbidden, "spec", "Forbidden: pod updates may not change fields other than " + podUpdatable}}
}

// withImages returns updated with the images of old's containers, so
// that a change of image, and only that, is forgiven.
func withImages(old, updated []api.Container) []api.Container {
	if len(old) != len(updated) {
		return updated
	}
	out := make([]api.Container, len(updated))
	copy(out, updated)
	for i := range out {
		out[i].Image = old[i].Image
	}
	return out
}

func validatePodSpec(spec *api.PodSpec) []fieldError {
	var errs []fieldError
	if len(spec.Containers) == 0 {
		errs = append(errs, required("spec.containers", ""))
	}
	seen := map[string]bool{}
	for i, c := range spec.Containers {
		f := fmt.Sprintf("spec.containers[%d]", i)
		switch {
		case c.Name == "":
			errs = append(errs, required(f+".name", ""))
		case seen[c.Name]:
			errs = append(errs, fieldError{api.CauseTypeFieldValueDuplicate, f + ".name", fmt.Sprintf("Duplicate value: %q", c.Name)})
		default:
			errs = append(errs, checkLabel1123(f+".name", c.Name)...)
		}
		seen[c.Name] = true
		if c.Image == "" {
			errs = append(errs, required(f+".image", ""))
		}
		errs = append(errs, validateResources(f+".resources", c.Resources)...)
	}
	return errs
}

// selectorMatches reports whether labels satisfy a LabelSelector: every
// matchLabels pair, and every matchExpressions requirement.
func selectorMatches(sel *api.LabelSelector, labels map[string]string) bool {
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range sel.MatchExpressions {
		v, ok := labels[r.Key]
		in := false
		for _, x := range r.Values {
			in = in || ok && x == v
		}
		switch r.Operator {
		case api.LabelSelectorOpIn:
			if !in {
				return false
			}
		case api.LabelSelectorOpNotIn:
			if in {
				return false
			}
		case api.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case api.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}
