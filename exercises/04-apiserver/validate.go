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
	// TODO: check obj's name, namespace and labels (and a pod's spec with validatePodSpec), returning one fieldError per bad field.
	panic("not implemented: validate")
}

// validatePodSpec checks what a pod needs to run.
func validatePodSpec(spec *api.PodSpec) []fieldError {
	// TODO: check that the pod has containers, and that each has a unique, valid name and an image.
	panic("not implemented: validatePodSpec")
}
