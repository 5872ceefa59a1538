package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// canon re-encodes JSON so that two documents compare by value.
func canon(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("test JSON %s: %v", s, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

type applyCase struct {
	name       string
	typ        Type
	doc, patch string
	want       string // JSON, when the patch applies
	code       int    // the Error's Code, when it does not
}

func runCases(t *testing.T, cases []applyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := []byte(c.doc)
			got, err := Apply(c.typ, doc, []byte(c.patch))
			if string(doc) != c.doc {
				t.Errorf("Apply changed its input document to %s", doc)
			}
			if c.code != 0 {
				var pe *Error
				if !errors.As(err, &pe) || pe.Code != c.code {
					t.Fatalf("Apply(%s, %s, %s) = %s, %v, want an *Error with code %d", c.typ, c.doc, c.patch, got, err, c.code)
				}
				if !strings.HasPrefix(err.Error(), "patch: ") {
					t.Errorf("Apply error %q, want the prefix %q", err, "patch: ")
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%s, %s, %s) = %v, want %s", c.typ, c.doc, c.patch, err, c.want)
			}
			if g, w := canon(t, string(got)), canon(t, c.want); g != w {
				t.Fatalf("Apply(%s, %s, %s) = %s, want %s", c.typ, c.doc, c.patch, g, w)
			}
		})
	}
}

// TestMerge checks RFC 7386 (gopkg.in/evanphx/json-patch merge.go, which
// upstream's patch handler calls for merge-patch+json).
func TestMerge(t *testing.T) {
	runCases(t, []applyCase{
		{"adds a key", Merge, `{"a":1}`, `{"b":2}`, `{"a":1,"b":2}`, 0},
		{"replaces a value", Merge, `{"a":1}`, `{"a":"x"}`, `{"a":"x"}`, 0},
		{"null deletes", Merge, `{"a":1,"b":2}`, `{"a":null}`, `{"b":2}`, 0},
		{"nested maps merge", Merge, `{"m":{"a":1,"b":2}}`, `{"m":{"b":3,"c":4}}`, `{"m":{"a":1,"b":3,"c":4}}`, 0},
		{"lists are replaced whole", Merge, `{"l":[{"name":"a","x":1},{"name":"b"}]}`, `{"l":[{"name":"a"}]}`, `{"l":[{"name":"a"}]}`, 0},
		{"a map replaces a scalar", Merge, `{"a":1}`, `{"a":{"b":null,"c":2}}`, `{"a":{"c":2}}`, 0},
		{"a patch that is not JSON", Merge, `{}`, `{`, "", http.StatusBadRequest},
		{"a patch that is not an object", Merge, `{}`, `[1]`, "", http.StatusBadRequest},
	})
}

// TestStrategic checks strategic merge patch
// (k8s.io/apimachinery/pkg/util/strategicpatch/patch.go) on the lists the
// kata's kinds have.
func TestStrategic(t *testing.T) {
	pod := `{"metadata":{"labels":{"app":"web"},"finalizers":["a","b"]},"spec":{"containers":[{"name":"web","image":"nginx:1.26","ports":[{"containerPort":80}]},{"name":"log","image":"busybox"}]}}`
	runCases(t, []applyCase{
		{"a label is added and the rest kept", Strategic, pod, `{"metadata":{"labels":{"tier":"front"}}}`,
			strings.Replace(pod, `{"app":"web"}`, `{"app":"web","tier":"front"}`, 1), 0},
		{"containers merge by name", Strategic, pod, `{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}`,
			strings.Replace(pod, "nginx:1.26", "nginx:1.27", 1), 0},
		// The patch's elements come first unless the stored order puts a
		// server-only element before them (strategicpatch/patch.go,
		// normalizeElementOrder and mergeSortedSlice): a new container
		// goes first.
		{"a new container goes first", Strategic, pod, `{"spec":{"containers":[{"name":"side","image":"envoy"}]}}`,
			strings.Replace(pod, `"containers":[`, `"containers":[{"name":"side","image":"envoy"},`, 1), 0},
		{"a merged container keeps its place", Strategic, pod, `{"spec":{"containers":[{"name":"log","image":"busybox:2"}]}}`,
			strings.Replace(pod, `"busybox"`, `"busybox:2"`, 1), 0},
		{"$setElementOrder orders the list", Strategic, pod,
			`{"spec":{"$setElementOrder/containers":[{"name":"log"},{"name":"side"},{"name":"web"}],"containers":[{"name":"side","image":"envoy"}]}}`,
			strings.Replace(pod, `"containers":[{"name":"web","image":"nginx:1.26","ports":[{"containerPort":80}]},{"name":"log","image":"busybox"}]`,
				`"containers":[{"name":"log","image":"busybox"},{"name":"side","image":"envoy"},{"name":"web","image":"nginx:1.26","ports":[{"containerPort":80}]}]`, 1), 0},
		{"finalizers merge as a set", Strategic, pod, `{"metadata":{"finalizers":["b","c"]}}`, strings.Replace(pod, `["a","b"]`, `["a","b","c"]`, 1), 0},
		{"$setElementOrder that is not a list", Strategic, pod, `{"spec":{"$setElementOrder/containers":{"name":"web"}}}`, "", http.StatusBadRequest},
		{"$patch delete removes an element", Strategic, pod, `{"spec":{"containers":[{"name":"log","$patch":"delete"}]}}`,
			strings.Replace(pod, `,{"name":"log","image":"busybox"}`, ``, 1), 0},
		{"$patch replace replaces a map", Strategic, pod, `{"metadata":{"labels":{"$patch":"replace","x":"y"}}}`,
			strings.Replace(pod, `{"app":"web"}`, `{"x":"y"}`, 1), 0},
		{"$deleteFromPrimitiveList", Strategic, pod, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}}`,
			strings.Replace(pod, `["a","b"]`, `["b"]`, 1), 0},
		{"$setElementOrder is not copied into the object", Strategic, pod,
			`{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"log"}],"containers":[{"name":"web","image":"nginx:1.27"}]}}`,
			strings.Replace(pod, "nginx:1.26", "nginx:1.27", 1), 0},
		{"null deletes", Strategic, pod, `{"metadata":{"finalizers":null}}`, strings.Replace(pod, `,"finalizers":["a","b"]`, ``, 1), 0},
		{"a list without a merge key is replaced", Strategic, `{"spec":{"args":["a","b"]}}`, `{"spec":{"args":["c"]}}`, `{"spec":{"args":["c"]}}`, 0},
		{"ports merge by containerPort", Strategic, pod, `{"spec":{"containers":[{"name":"web","ports":[{"containerPort":443}]}]}}`,
			strings.Replace(pod, `[{"containerPort":80}]`, `[{"containerPort":443},{"containerPort":80}]`, 1), 0},
		{"$retainKeys clears the fields of a union not listed", Strategic,
			`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}}`,
			`{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`, `{"spec":{"strategy":{"type":"Recreate"}}}`, 0},
		{"$retainKeys that is not a list", Strategic, `{"spec":{}}`, `{"spec":{"strategy":{"$retainKeys":"type","type":"Recreate"}}}`, "", http.StatusBadRequest},
		{"$retainKeys without a field the patch sets", Strategic, `{"spec":{}}`, `{"spec":{"strategy":{"$retainKeys":["rollingUpdate"],"type":"Recreate"}}}`, "", http.StatusBadRequest},
		{"a patch that is not JSON", Strategic, pod, `{"spec":`, "", http.StatusBadRequest},
	})
}

// TestJSON checks RFC 6902 as gopkg.in/evanphx/json-patch (patch.go)
// applies it, with upstream's bounds (k8s.io/apiserver/pkg/endpoints/
// handlers/patch.go: maxJSONPatchOperations; pkg/server/config.go:
// JSONPatchMaxCopyBytes).
func TestJSON(t *testing.T) {
	doc := `{"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"l":[1,2,3]}}`
	runCases(t, []applyCase{
		{"add to a map", JSON, doc, `[{"op":"add","path":"/metadata/labels/tier","value":"front"}]`,
			strings.Replace(doc, `{"app":"web"}`, `{"app":"web","tier":"front"}`, 1), 0},
		{"add inserts into a list", JSON, doc, `[{"op":"add","path":"/spec/l/1","value":9}]`, strings.Replace(doc, "[1,2,3]", "[1,9,2,3]", 1), 0},
		{"add appends with -", JSON, doc, `[{"op":"add","path":"/spec/l/-","value":9}]`, strings.Replace(doc, "[1,2,3]", "[1,2,3,9]", 1), 0},
		{"remove from a list", JSON, doc, `[{"op":"remove","path":"/spec/l/0"}]`, strings.Replace(doc, "[1,2,3]", "[2,3]", 1), 0},
		{"a negative index counts from the end", JSON, doc, `[{"op":"remove","path":"/spec/l/-1"},{"op":"replace","path":"/spec/l/-2","value":7}]`,
			strings.Replace(doc, "[1,2,3]", "[7,2]", 1), 0},
		{"add at a negative index", JSON, doc, `[{"op":"add","path":"/spec/l/-1","value":9}]`, strings.Replace(doc, "[1,2,3]", "[1,2,3,9]", 1), 0},
		{"a negative index past the start", JSON, doc, `[{"op":"remove","path":"/spec/l/-4"}]`, "", http.StatusUnprocessableEntity},
		{"add past the end", JSON, doc, `[{"op":"add","path":"/spec/l/4","value":9}]`, "", http.StatusUnprocessableEntity},
		{"replace at the end", JSON, doc, `[{"op":"replace","path":"/spec/l/3","value":9}]`, "", http.StatusUnprocessableEntity},
		{"- is no index to replace", JSON, doc, `[{"op":"replace","path":"/spec/l/-","value":9}]`, "", http.StatusUnprocessableEntity},
		{"replace", JSON, doc, `[{"op":"replace","path":"/metadata/name","value":"x"}]`, strings.Replace(doc, `"name":"web"`, `"name":"x"`, 1), 0},
		{"an escaped pointer", JSON, `{"a":{"x/y~z":1}}`, `[{"op":"replace","path":"/a/x~1y~0z","value":2}]`, `{"a":{"x/y~z":2}}`, 0},
		{"move", JSON, doc, `[{"op":"move","from":"/metadata/labels","path":"/spec/labels"}]`,
			`{"metadata":{"name":"web"},"spec":{"l":[1,2,3],"labels":{"app":"web"}}}`, 0},
		{"test then replace", JSON, doc, `[{"op":"test","path":"/metadata/name","value":"web"},{"op":"replace","path":"/metadata/name","value":"x"}]`,
			strings.Replace(doc, `"name":"web"`, `"name":"x"`, 1), 0},
		{"a failing test fails the patch", JSON, doc, `[{"op":"test","path":"/metadata/name","value":"db"}]`, "", http.StatusUnprocessableEntity},
		{"replace of a missing path", JSON, doc, `[{"op":"replace","path":"/metadata/nope","value":1}]`, "", http.StatusUnprocessableEntity},
		{"remove of a missing path", JSON, doc, `[{"op":"remove","path":"/spec/l/7"}]`, "", http.StatusUnprocessableEntity},
		{"move into its own child", JSON, doc, `[{"op":"move","from":"/metadata","path":"/metadata/x"}]`, "", http.StatusUnprocessableEntity},
		{"an unknown operation", JSON, doc, `[{"op":"frob","path":"/a"}]`, "", http.StatusUnprocessableEntity},
		{"a patch that is not a list", JSON, doc, `{"op":"add"}`, "", http.StatusBadRequest},
		{"too many operations", JSON, doc, "[" + strings.Repeat(`{"op":"test","path":"/metadata/name","value":"web"},`, MaxJSONPatchOperations) + `{"op":"test","path":"/metadata/name","value":"web"}]`,
			"", http.StatusRequestEntityTooLarge},
	})
}

// TestJSONCopyIsDeep reproduces the 500 of issue 8: copying a map into
// itself made the map contain itself, and encoding the result failed. As
// in evanphx/json-patch, the copy is a deep copy, so that the result is
// a tree and later operations on the copy leave the original alone.
func TestJSONCopyIsDeep(t *testing.T) {
	doc := `{"metadata":{"name":"web","labels":{"app":"web"}}}`
	runCases(t, []applyCase{
		{"copy a map into itself", JSON, doc, `[{"op":"copy","from":"/metadata","path":"/metadata/copy"}]`,
			`{"metadata":{"name":"web","labels":{"app":"web"},"copy":{"name":"web","labels":{"app":"web"}}}}`, 0},
		{"change the copy, not the original", JSON, doc,
			`[{"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"},{"op":"add","path":"/metadata/annotations/note","value":"x"}]`,
			`{"metadata":{"name":"web","labels":{"app":"web"},"annotations":{"app":"web","note":"x"}}}`, 0},
		{"copy into a list", JSON, `{"l":[{"a":1}]}`, `[{"op":"copy","from":"/l/0","path":"/l/-"},{"op":"replace","path":"/l/1/a","value":2}]`,
			`{"l":[{"a":1},{"a":2}]}`, 0},
	})
}

// TestJSONCopyBound checks that copies cannot grow a document without
// bound: doubling a 1 KiB value 13 times passes 3 MiB.
func TestJSONCopyBound(t *testing.T) {
	doc := fmt.Sprintf(`{"a":{"x":%q}}`, strings.Repeat("x", 1024))
	var ops []string
	for i := 0; i < 13; i++ {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/a","path":"/a/c%d"}`, i))
	}
	_, err := Apply(JSON, []byte(doc), []byte("["+strings.Join(ops, ",")+"]"))
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != http.StatusUnprocessableEntity || !strings.Contains(pe.Message, "exceeding the limit 3145728") {
		t.Fatalf("Apply(13 doubling copies of 1 KiB) = %v, want a 422 *Error saying the copies exceed the limit 3145728", err)
	}
	ops = ops[:10] // 1 KiB * (2^10 - 1) < 3 MiB
	if _, err := Apply(JSON, []byte(doc), []byte("["+strings.Join(ops, ",")+"]")); err != nil {
		t.Fatalf("Apply(10 doubling copies of 1 KiB) = %v, want no error", err)
	}
}

func TestTypeOf(t *testing.T) {
	for _, ct := range []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"} {
		if typ, ok := TypeOf(ct); !ok || string(typ) != ct {
			t.Errorf("TypeOf(%q) = %q, %v, want %q, true", ct, typ, ok, ct)
		}
	}
	for _, ct := range []string{"application/json", "application/apply-patch+yaml", "text/plain", ""} {
		if typ, ok := TypeOf(ct); ok {
			t.Errorf("TypeOf(%q) = %q, true, want false", ct, typ)
		}
	}
}
