// Package labels validates labels and evaluates label selectors, the way
// Kubernetes does: labels are data attached to objects, and a selector is
// a query over that data. README.md says what to build, step by step.
package labels

// IsLabelKey returns what is wrong with a label key, or nil if it is
// valid. A key is an optional DNS subdomain prefix and "/", then a name:
// "app" or "app.kubernetes.io/name".
func IsLabelKey(key string) []string {
	// TODO: check the prefix and the name part and return upstream's messages (README step 1).
	panic("not implemented: IsLabelKey")
}

// IsLabelValue returns what is wrong with a label value, or nil if it is
// valid. The empty value is valid.
func IsLabelValue(value string) []string {
	// TODO: check the length and the characters and return upstream's messages (README step 2).
	panic("not implemented: IsLabelValue")
}
