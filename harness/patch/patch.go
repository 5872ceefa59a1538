package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Type is a patch's media type, as sent in the request's Content-Type.
type Type string

// The patch types an apiserver serves (server-side apply is not).
const (
	JSON      Type = "application/json-patch+json"
	Merge     Type = "application/merge-patch+json"
	Strategic Type = "application/strategic-merge-patch+json"
)

// Types are the patch media types, in the order upstream lists them in a
// 415 (k8s.io/apiserver/pkg/endpoints/installer.go, supportedTypes without
// apply).
var Types = []Type{JSON, Merge, Strategic}

// TypeOf returns the patch type of a media type (without parameters).
func TypeOf(mediaType string) (Type, bool) {
	for _, t := range Types {
		if string(t) == mediaType {
			return t, true
		}
	}
	return "", false
}

// MaxJSONPatchOperations is upstream's bound on the operations of one JSON
// patch (k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
const MaxJSONPatchOperations = 10000

// MaxCopyBytes bounds how much the copy operations of one JSON patch may
// add, as upstream's JSONPatchMaxCopyBytes (3 MiB,
// k8s.io/apiserver/pkg/server/config.go) sets json-patch's
// AccumulatedCopySizeLimit.
const MaxCopyBytes = 3 * 1024 * 1024

// Error is a patch that cannot be applied: Code is the HTTP status an
// apiserver answers with, Message says why.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return "patch: " + e.Message }

func badRequest(format string, args ...any) *Error {
	return &Error{Code: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func unprocessable(err error) *Error {
	return &Error{Code: http.StatusUnprocessableEntity, Message: err.Error()}
}

// Apply applies patch p of type t to the JSON document doc and returns the
// patched document. Neither input is changed.
func Apply(t Type, doc, p []byte) ([]byte, error) {
	var d any
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, badRequest("decoding the object: %v", err)
	}
	var out any
	switch t {
	case JSON:
		var ops []map[string]any
		if err := json.Unmarshal(p, &ops); err != nil {
			return nil, badRequest("error decoding patch: %v", err)
		}
		if len(ops) > MaxJSONPatchOperations {
			return nil, &Error{Code: http.StatusRequestEntityTooLarge,
				Message: fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", MaxJSONPatchOperations, len(ops))}
		}
		var err error
		if out, err = applyJSON(d, ops); err != nil {
			return nil, unprocessable(err)
		}
	case Merge, Strategic:
		var pm any
		if err := json.Unmarshal(p, &pm); err != nil {
			return nil, badRequest("error decoding patch: %v", err)
		}
		if _, ok := pm.(map[string]any); !ok {
			return nil, badRequest("error decoding patch: the patch is not a JSON object")
		}
		if t == Merge {
			out = mergePatch(d, pm)
		} else {
			var err error
			if out, err = strategicMerge(d, pm); err != nil {
				return nil, badRequest("%v", err)
			}
		}
	default:
		return nil, &Error{Code: http.StatusUnsupportedMediaType, Message: fmt.Sprintf("unknown patch type %q", string(t))}
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, unprocessable(err)
	}
	return data, nil
}

// ---------------------------------------------------------------- merge

// mergePatch is RFC 7386: maps merge, null deletes, the rest replaces.
func mergePatch(doc, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	dm, ok := doc.(map[string]any)
	if !ok {
		dm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(dm, k)
			continue
		}
		dm[k] = mergePatch(dm[k], v)
	}
	return dm
}

// ---------------------------------------------------------------- strategic

// mergeKeys are the strategic merge keys of the kata's list fields, from
// the patchMergeKey struct tags of k8s.io/api (core/v1/types.go and
// meta/v1/types.go). A field with two keys takes the first one the
// patch's elements carry (containerPort in a container's ports, port in a
// Service's).
var mergeKeys = map[string][]string{
	"containers":                {"name"},
	"initContainers":            {"name"},
	"env":                       {"name"},
	"volumes":                   {"name"},
	"volumeMounts":              {"mountPath"},
	"ports":                     {"containerPort", "port"},
	"conditions":                {"type"},
	"imagePullSecrets":          {"name"},
	"ownerReferences":           {"uid"},
	"hostAliases":               {"ip"},
	"topologySpreadConstraints": {"topologyKey"},
}

// The errors of strategicpatch's directives, with upstream's messages
// (k8s.io/apimachinery/pkg/util/mergepatch/errors.go).
var (
	errRetainKeys      = errors.New("invalid patch format of retainKeys")
	errSetElementOrder = errors.New("invalid patch format of setElementOrder list")
)

// primitiveMergeLists are the lists of scalars that merge as sets
// (patchStrategy "merge" without a merge key): a patch adds its items to
// them, and $deleteFromPrimitiveList removes some.
var primitiveMergeLists = map[string]bool{"finalizers": true}

// mergePrimitives is the union of a stored list of scalars and a patch's,
// in the patch's order (strategicpatch/patch.go, mergeSlice).
func mergePrimitives(cur, patch []any) []any {
	merged := append([]any(nil), cur...)
	for _, p := range patch {
		if !containsJSON(merged, p) {
			merged = append(merged, p)
		}
	}
	return normalizeOrder(merged, patch, cur, keyOf(""))
}

// keyOf says what identifies a list element: its merge key, or the
// element itself for scalars.
func keyOf(mk string) func(any) any {
	if mk == "" {
		return func(v any) any { return v }
	}
	return func(v any) any {
		m, _ := v.(map[string]any)
		return m[mk]
	}
}

// normalizeOrder is upstream's normalizeElementOrder: the elements of
// merged that order names come in order's order, the others (the
// server's) keep their stored order, and the two are interleaved by the
// positions in original.
func normalizeOrder(merged, order, original []any, key func(any) any) []any {
	index := func(list []any, v any) int {
		for i, x := range list {
			if equalJSON(key(x), key(v)) {
				return i
			}
		}
		return -1
	}
	var patchItems, serverOnly []any
	for _, v := range merged {
		if index(order, v) >= 0 {
			patchItems = append(patchItems, v)
		} else {
			serverOnly = append(serverOnly, v)
		}
	}
	byIndex := func(l, in []any) func(i, j int) bool {
		return func(i, j int) bool {
			a, b := index(in, l[i]), index(in, l[j])
			return a >= 0 && b >= 0 && a < b
		}
	}
	sort.SliceStable(patchItems, byIndex(patchItems, order))
	sort.SliceStable(serverOnly, byIndex(serverOnly, original))
	// mergeSortedSlice: a server-only element goes before a patch
	// element when it came before it in the stored list.
	out := make([]any, 0, len(merged))
	i, j := 0, 0
	for i < len(serverOnly) || j < len(patchItems) {
		switch {
		case j >= len(patchItems):
			out = append(out, serverOnly[i])
			i++
		case i >= len(serverOnly):
			out = append(out, patchItems[j])
			j++
		default:
			a, b := index(original, serverOnly[i]), index(original, patchItems[j])
			if a >= 0 && b >= 0 && a < b {
				out = append(out, serverOnly[i])
				i++
			} else {
				out = append(out, patchItems[j])
				j++
			}
		}
	}
	return out
}

func strategicMerge(doc, patch any) (any, error) {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch, nil
	}
	if pm["$patch"] == "replace" {
		delete(pm, "$patch")
		return stripMap(pm)
	}
	if pm["$patch"] == "delete" {
		return nil, nil
	}
	dm, ok := doc.(map[string]any)
	if !ok {
		dm = map[string]any{}
	}
	// The lists as stored, which $setElementOrder orders against.
	before := map[string][]any{}
	for k := range pm {
		if name, ok := strings.CutPrefix(k, "$setElementOrder/"); ok {
			before[name], _ = dm[name].([]any)
		}
	}
	if rk, ok := pm["$retainKeys"]; ok {
		// The fields of a union (a Deployment's strategy): those not
		// listed are cleared, so that changing the type drops the
		// settings of the old one (strategicpatch/patch.go,
		// applyRetainKeysDirective). Every field the patch sets must be
		// listed.
		keep, ok := rk.([]any)
		if !ok {
			return nil, errRetainKeys
		}
		for k, v := range pm {
			if v != nil && !strings.HasPrefix(k, "$") && !containsJSON(keep, k) {
				return nil, errRetainKeys
			}
		}
		for k := range dm {
			if !containsJSON(keep, k) {
				delete(dm, k)
			}
		}
	}
	// Deletions from primitive lists first, then the fields in a fixed
	// order.
	keys := make([]string, 0, len(pm))
	for k := range pm {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		di, dj := strings.HasPrefix(keys[i], "$deleteFromPrimitiveList/"), strings.HasPrefix(keys[j], "$deleteFromPrimitiveList/")
		if di != dj {
			return di
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		v := pm[k]
		switch {
		case k == "$patch" || k == "$retainKeys" || strings.HasPrefix(k, "$setElementOrder/"):
			continue
		case strings.HasPrefix(k, "$deleteFromPrimitiveList/"):
			name := strings.TrimPrefix(k, "$deleteFromPrimitiveList/")
			del, _ := v.([]any)
			cur, _ := dm[name].([]any)
			keep := []any{}
			for _, x := range cur {
				if !containsJSON(del, x) {
					keep = append(keep, x)
				}
			}
			dm[name] = keep
			continue
		case v == nil:
			delete(dm, k)
			continue
		}
		if pl, ok := v.([]any); ok {
			var err error
			if cur, ok := dm[k].([]any); ok {
				if mk := mergeKeyOf(k, pl); mk != "" {
					if dm[k], err = mergeList(cur, pl, mk); err != nil {
						return nil, err
					}
					continue
				}
				if primitiveMergeLists[k] {
					dm[k] = mergePrimitives(cur, pl)
					continue
				}
			}
			if dm[k], err = stripList(pl); err != nil {
				return nil, err
			}
			continue
		}
		r, err := strategicMerge(dm[k], v)
		if err != nil {
			return nil, err
		}
		if r != nil {
			dm[k] = r
		} else {
			delete(dm, k)
		}
	}
	for _, k := range keys {
		name, ok := strings.CutPrefix(k, "$setElementOrder/")
		if !ok {
			continue
		}
		order, ok := pm[k].([]any)
		if !ok {
			return nil, errSetElementOrder
		}
		if cur, ok := dm[name].([]any); ok {
			dm[name] = normalizeOrder(cur, order, before[name], keyOf(mergeKeyOf(name, order)))
		}
	}
	return dm, nil
}

// mergeKeyOf picks the merge key of a list field: the first listed key
// that the patch's elements carry.
func mergeKeyOf(field string, patch []any) string {
	for _, mk := range mergeKeys[field] {
		for _, e := range patch {
			if m, ok := e.(map[string]any); ok {
				if _, ok := m[mk]; ok {
					return mk
				}
			}
		}
	}
	return ""
}

func mergeList(cur, patch []any, mk string) ([]any, error) {
	out := append([]any(nil), cur...)
	for _, pe := range patch {
		pm, ok := pe.(map[string]any)
		if !ok {
			continue
		}
		idx := -1
		for i, ce := range out {
			if cm, ok := ce.(map[string]any); ok && equalJSON(cm[mk], pm[mk]) {
				idx = i
				break
			}
		}
		if pm["$patch"] == "delete" {
			if idx >= 0 {
				out = append(out[:idx], out[idx+1:]...)
			}
			continue
		}
		var err error
		if idx >= 0 {
			out[idx], err = strategicMerge(out[idx], pm)
		} else {
			var m map[string]any
			m, err = stripMap(pm)
			out = append(out, m)
		}
		if err != nil {
			return nil, err
		}
	}
	var order []any
	for _, pe := range patch {
		if pm, ok := pe.(map[string]any); ok && pm["$patch"] != "delete" {
			order = append(order, pe)
		}
	}
	return normalizeOrder(out, order, cur, keyOf(mk)), nil
}

// stripList and stripMap drop the directives from a value that replaces
// what was there.
func stripList(l []any) ([]any, error) {
	out := make([]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			if m["$patch"] == "delete" {
				continue
			}
			var err error
			if e, err = stripMap(m); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}

func stripMap(m map[string]any) (map[string]any, error) {
	out, err := strategicMerge(map[string]any{}, m)
	if err != nil {
		return nil, err
	}
	om, _ := out.(map[string]any)
	return om, nil
}

// equalJSON compares decoded JSON values (== would panic on maps).
func equalJSON(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && string(x) == string(y)
}

func containsJSON(list []any, x any) bool {
	for _, e := range list {
		if equalJSON(e, x) {
			return true
		}
	}
	return false
}
