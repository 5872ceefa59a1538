// Package labels validates labels and evaluates label selectors, the way
// Kubernetes does: labels are data attached to objects, and a selector is
// a query over that data.
package labels

import (
	"fmt"
	"regexp"
	"strings"
)

// The name part of a key and a non-empty value share one grammar: an
// alphanumeric at each end and [-_.] allowed inside. Upstream prints the
// regular expression in its messages, so we keep it as a string too.
const (
	nameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	nameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	nameMaxLen = 63

	valueFmt    = "(" + nameFmt + ")?"
	valueErrMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	valueMaxLen = 63

	// The prefix is a DNS subdomain: lowercase labels joined by dots,
	// because it names the organisation that owns the key
	// (app.kubernetes.io/name).
	dnsLabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	subdomainFmt    = dnsLabelFmt + "(\\." + dnsLabelFmt + ")*"
	subdomainErrMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	subdomainMaxLen = 253
)

var (
	nameRegexp      = regexp.MustCompile("^" + nameFmt + "$")
	valueRegexp     = regexp.MustCompile("^" + valueFmt + "$")
	subdomainRegexp = regexp.MustCompile("^" + subdomainFmt + "$")
)

// IsLabelKey returns what is wrong with a label key, or nil if it is
// valid. A key is an optional DNS subdomain prefix and "/", then a name.
func IsLabelKey(key string) []string {
	var errs []string
	var name string
	switch parts := strings.Split(key, "/"); len(parts) {
	case 1:
		name = parts[0]
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, msg := range isDNS1123Subdomain(prefix) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	default:
		// More than one slash: say what a key looks like as a whole,
		// since no part can be judged on its own.
		return []string{"a valid label key " + regexError(nameErrMsg, nameFmt, "MyName", "my.name", "123-abc") +
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	}
	// Upstream reports every problem it finds, not just the first, so an
	// empty name gets both "non-empty" and the pattern message.
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > nameMaxLen {
		errs = append(errs, "name part "+maxLenError(nameMaxLen))
	}
	if !nameRegexp.MatchString(name) {
		errs = append(errs, "name part "+regexError(nameErrMsg, nameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsLabelValue returns what is wrong with a label value, or nil if it is
// valid. The empty value is valid: "a label that is set to nothing" is
// still a label that exists.
func IsLabelValue(value string) []string {
	var errs []string
	if len(value) > valueMaxLen {
		errs = append(errs, maxLenError(valueMaxLen))
	}
	if !valueRegexp.MatchString(value) {
		errs = append(errs, regexError(valueErrMsg, valueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

func isDNS1123Subdomain(s string) []string {
	var errs []string
	if len(s) > subdomainMaxLen {
		errs = append(errs, maxLenError(subdomainMaxLen))
	}
	if !subdomainRegexp.MatchString(s) {
		errs = append(errs, regexError(subdomainErrMsg, subdomainFmt, "example.com"))
	}
	return errs
}

// maxLenError counts bytes, not characters, as upstream does: the limits
// protect storage and headers, which count bytes.
func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d bytes", n) }

// regexError is upstream's wording, double spaces included, so that our
// messages read exactly like a real apiserver's.
func regexError(msg, re string, examples ...string) string {
	msg += " (e.g. "
	for i, ex := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + ex + "', "
	}
	return msg + "regex used for validation is '" + re + "')"
}
