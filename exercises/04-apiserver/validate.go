package apiserver

import (
	"fmt"
	"regexp"

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

// required is the cause for a missing field.
func required(field, detail string) fieldError {
	msg := "Required value"
	if detail != "" {
		msg += ": " + detail
	}
	return fieldError{api.CauseTypeFieldValueRequired, field, msg}
}

// invalidValue is the cause for a field whose value breaks a rule.
func invalidValue(field, value, detail string) fieldError {
	return fieldError{api.CauseTypeFieldValueInvalid, field, fmt.Sprintf("Invalid value: %q: %s", value, detail)}
}

// checkSubdomain checks a DNS-1123 subdomain (most names).
func checkSubdomain(field, v string) []fieldError {
	if len(v) > 253 {
		return []fieldError{invalidValue(field, v, "must be no more than 253 characters")}
	}
	if !dns1123Subdomain.MatchString(v) {
		return []fieldError{invalidValue(field, v, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '"+dns1123SubdomainFmt+"')")}
	}
	return nil
}

// checkLabel1123 checks a DNS-1123 label (namespaces, container names).
func checkLabel1123(field, v string) []fieldError {
	if len(v) > 63 {
		return []fieldError{invalidValue(field, v, "must be no more than 63 characters")}
	}
	if !dns1123Label.MatchString(v) {
		return []fieldError{invalidValue(field, v, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '"+dns1123LabelFmt+"')")}
	}
	return nil
}

// checkLabel1035 checks a DNS-1035 label (services).
func checkLabel1035(field, v string) []fieldError {
	if len(v) > 63 {
		return []fieldError{invalidValue(field, v, "must be no more than 63 characters")}
	}
	if !dns1035Label.MatchString(v) {
		return []fieldError{invalidValue(field, v, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '"+dns1035LabelFmt+"')")}
	}
	return nil
}

// checkLabels checks label keys (an optional prefix/ and a name) and
// values.
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

// lastSlash is the index of the last '/' in s, or -1.
func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// validate checks obj before it is stored and returns every problem.
func validate(kind api.Kind, obj api.Object) []fieldError {
	// TODO: check obj's name, namespace and labels (and a pod's spec with validatePodSpec, a Deployment's or ReplicaSet's with validateReplicated), returning one fieldError per bad field.
	panic("not implemented: validate")
}

// validatePodSpec checks what a pod needs to run.
func validatePodSpec(spec *api.PodSpec) []fieldError {
	// TODO: check that the pod has containers, and that each has a unique, valid name, an image and no negative resources (validateResources).
	panic("not implemented: validatePodSpec")
}

// validateReplicated checks what Deployments and ReplicaSets share
// (pkg/apis/apps/validation/validation.go, ValidateDeploymentSpec and
// ValidateReplicaSetSpec): a count that is not negative, and a selector
// that selects the pods the template makes, or the controller would make
// pods forever.
func validateReplicated(replicas *int32, sel *api.LabelSelector, template map[string]string) []fieldError {
	// TODO: return the errors of a Deployment's or ReplicaSet's replicas (not negative: negative) and selector (required, not empty, and selecting the template's labels: selectorMatches), with upstream's messages.
	panic("not implemented: validateReplicated")
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
	// TODO: return one negative error per request or limit below zero, in the order limits then requests, by resource name, at field.limits[name] or field.requests[name].
	panic("not implemented: validateResources")
}

// podUpdatable is upstream's list of the pod spec fields an update may
// change (pkg/apis/core/validation/validation.go, ValidatePodUpdate).
const podUpdatable = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// validatePodUpdate refuses a change of a pod's spec beyond the fields
// upstream lets an update change: a pod is not edited in place, it is
// replaced.
func validatePodUpdate(old, pod *api.Pod) []fieldError {
	// TODO: return a 422 Forbidden error on spec, with upstream's message and podUpdatable, when pod's spec differs from old's in more than the fields podUpdatable names (withImages forgives image changes).
	panic("not implemented: validatePodUpdate")
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
