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
	if pod, ok := obj.(*api.Pod); ok {
		errs = append(errs, validatePodSpec(&pod.Spec)...)
	}
	return errs
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
	}
	return errs
}
