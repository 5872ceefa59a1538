package scenario

import (
	"strings"
	"testing"
)

// The cases follow upstream's k8s.io/client-go/util/jsonpath
// (jsonpath_test.go): fields, escaped dots, ['key'], indexes, [*], text
// around actions, several results joined by a space, maps as JSON.
func TestJSONPath(t *testing.T) {
	obj, err := decodeObject([]byte(`{
		"kind": "List",
		"metadata": {"resourceVersion": "12"},
		"items": [
			{"metadata": {"name": "a", "labels": {"app": "web", "app.kubernetes.io/name": "shop"}}, "spec": {"replicas": 3, "ok": true}},
			{"metadata": {"name": "b"}, "spec": {"replicas": 1000000}}
		]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	for tmpl, want := range map[string]string{
		"{.kind}":                         "List",
		"{$.kind}":                        "List",
		"{.items[*].metadata.name}":       "a b",
		"{.items[0].metadata.labels.app}": "web",
		"{.items[-1].metadata.name}":      "b",
		`{.items[0].metadata.labels.app\.kubernetes\.io/name}`:  "shop",
		"{.items[0].metadata.labels['app.kubernetes.io/name']}": "shop",
		"{.items[*].spec.replicas}":                             "3 1000000",
		"{.items[0].spec.ok}":                                   "true",
		"{.items[1].metadata.labels.app}":                       "",
		"{.nothing.at.all}":                                     "",
		"{.items[0].metadata.labels.*}":                         "web shop",
		"{.items[1].metadata}":                                  `{"name":"b"}`,
		"rv={.metadata.resourceVersion}!":                       "rv=12!",
		"{.kind}/{.items[0].metadata.name}":                     "List/a",
		"no actions":                                            "no actions",
	} {
		jp, err := parseJSONPath(tmpl)
		if err != nil {
			t.Errorf("parseJSONPath(%q) = %v", tmpl, err)
			continue
		}
		got, err := jp.execute(obj)
		if err != nil || got != want {
			t.Errorf("execute(%q) = %q, %v; want %q", tmpl, got, err, want)
		}
	}
	for tmpl, wantErr := range map[string]string{
		"{.kind":                 "unclosed action",
		"{..name}":               "recursive descent",
		`{.items[?(@.x=="y")]}`:  "filters",
		"{.items[0:1]}":          "slices and unions",
		"{.items[0,1]}":          "slices and unions",
		"{.items[x]}":            "invalid array index",
		"{range .items[*]}{end}": "unsupported action",
	} {
		if _, err := parseJSONPath(tmpl); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("parseJSONPath(%q) = %v, want an error containing %q", tmpl, err, wantErr)
		}
	}
	jp, _ := parseJSONPath("{.items[5].metadata.name}")
	if _, err := jp.execute(obj); err == nil || !strings.Contains(err.Error(), "array index out of bounds: index 5, length 2") {
		t.Errorf("execute({.items[5]...}) = %v, want upstream's out of bounds error", err)
	}
}
