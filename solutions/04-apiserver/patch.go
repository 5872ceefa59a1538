package apiserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// PATCH is what kubectl apply sends after reading the live object. Three
// kinds are served (server-side apply is not):
//
//   - JSON merge patch (RFC 7386): maps merge, null deletes, lists are
//     replaced whole.
//   - Strategic merge patch: like a merge patch, except that lists of
//     objects with a merge key (containers by name, ports by
//     containerPort, ...) are merged element by element. Upstream reads the
//     keys from the Go struct tags; here the few lists our kinds have are
//     listed by field name. Directives ($patch, $setElementOrder,
//     $retainKeys, $deleteFromPrimitiveList) are honoured as far as our
//     kinds need them, and dropped otherwise.
//   - JSON patch (RFC 6902), for kubectl patch --type=json.

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

// mergeKeys are the strategic merge keys of the lists our kinds have.
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
	"tolerations":               {"key"},
	"hostAliases":               {"ip"},
	"readinessGates":            {"conditionType"},
	"topologySpreadConstraints": {"topologyKey"},
}

func strategicMerge(doc, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	if pm["$patch"] == "replace" {
		delete(pm, "$patch")
		return pm
	}
	dm, ok := doc.(map[string]any)
	if !ok {
		dm = map[string]any{}
	}
	for k, v := range pm {
		switch {
		case k == "$patch" || k == "$retainKeys" || strings.HasPrefix(k, "$setElementOrder/"):
			continue
		case strings.HasPrefix(k, "$deleteFromPrimitiveList/"):
			name := strings.TrimPrefix(k, "$deleteFromPrimitiveList/")
			del, _ := v.([]any)
			cur, _ := dm[name].([]any)
			var keep []any
			for _, x := range cur {
				if !containsAny(del, x) {
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
			if cur, ok := dm[k].([]any); ok {
				if mk := mergeKeyOf(k, pl); mk != "" {
					dm[k] = mergeList(cur, pl, mk)
					continue
				}
			}
			dm[k] = stripDirectives(pl)
			continue
		}
		dm[k] = strategicMerge(dm[k], v)
	}
	return dm
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

func mergeList(cur, patch []any, mk string) []any {
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
		if idx >= 0 {
			out[idx] = strategicMerge(out[idx], pm)
		} else {
			out = append(out, strategicMerge(map[string]any{}, pm))
		}
	}
	return out
}

func stripDirectives(l []any) []any {
	out := make([]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			if m["$patch"] == "delete" {
				continue
			}
			e = strategicMerge(map[string]any{}, m)
		}
		out = append(out, e)
	}
	return out
}

// equalJSON compares decoded JSON values; == would panic on maps.
func equalJSON(a, b any) bool { return reflectDeepEqual(a, b) }

func containsAny(list []any, x any) bool {
	for _, e := range list {
		if equalJSON(e, x) {
			return true
		}
	}
	return false
}

// jsonPatch applies an RFC 6902 JSON patch (kubectl patch --type=json):
// a list of {op, path, value, from} with op add, remove, replace, move,
// copy or test, paths being JSON pointers.
func jsonPatch(doc any, ops []map[string]any) (any, error) {
	for i, op := range ops {
		kind, _ := op["op"].(string)
		path, _ := op["path"].(string)
		var err error
		switch kind {
		case "add":
			doc, err = pointerSet(doc, path, op["value"], true)
		case "replace":
			if _, err = pointerGet(doc, path); err == nil {
				doc, err = pointerSet(doc, path, op["value"], false)
			}
		case "remove":
			doc, err = pointerRemove(doc, path)
		case "test":
			var v any
			if v, err = pointerGet(doc, path); err == nil && !reflectDeepEqual(v, op["value"]) {
				err = fmt.Errorf("testing value %s failed", path)
			}
		case "move", "copy":
			from, _ := op["from"].(string)
			var v any
			if v, err = pointerGet(doc, from); err == nil {
				if kind == "move" {
					doc, err = pointerRemove(doc, from)
				}
				if err == nil {
					doc, err = pointerSet(doc, path, v, true)
				}
			}
		default:
			err = fmt.Errorf("unexpected operation %q", kind)
		}
		if err != nil {
			return nil, fmt.Errorf("the JSON patch's operation %d: %w", i, err)
		}
	}
	return doc, nil
}

func splitPointer(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("path %q must start with /", path)
	}
	parts := strings.Split(path[1:], "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

func pointerGet(doc any, path string) (any, error) {
	parts, err := splitPointer(path)
	if err != nil {
		return nil, err
	}
	cur := doc
	for _, p := range parts {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				return nil, fmt.Errorf("path %s does not exist", path)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("path %s: no index %q", path, p)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("path %s does not exist", path)
		}
	}
	return cur, nil
}

// pointerSet sets (or, in a list with insert, inserts) the value at path
// and returns the new document.
func pointerSet(doc any, path string, value any, insert bool) (any, error) {
	parts, err := splitPointer(path)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return value, nil
	}
	parent, err := pointerGet(doc, "/"+strings.Join(escapeAll(parts[:len(parts)-1]), "/"))
	if len(parts) == 1 {
		parent, err = doc, nil
	}
	if err != nil {
		return nil, err
	}
	last := parts[len(parts)-1]
	switch c := parent.(type) {
	case map[string]any:
		c[last] = value
		return doc, nil
	case []any:
		i := len(c)
		if last != "-" {
			if i, err = strconv.Atoi(last); err != nil || i < 0 || i > len(c) || (!insert && i == len(c)) {
				return nil, fmt.Errorf("path %s: no index %q", path, last)
			}
		}
		var out []any
		if insert {
			out = append(append(append([]any{}, c[:i]...), value), c[i:]...)
		} else {
			out = append([]any{}, c...)
			out[i] = value
		}
		// A list is a value: put the new one where the old one was.
		return pointerSet(doc, "/"+strings.Join(escapeAll(parts[:len(parts)-1]), "/"), out, false)
	}
	return nil, fmt.Errorf("path %s does not exist", path)
}

func pointerRemove(doc any, path string) (any, error) {
	parts, err := splitPointer(path)
	if err != nil || len(parts) == 0 {
		return nil, fmt.Errorf("cannot remove %q", path)
	}
	parentPath := "/" + strings.Join(escapeAll(parts[:len(parts)-1]), "/")
	parent := doc
	if len(parts) > 1 {
		if parent, err = pointerGet(doc, parentPath); err != nil {
			return nil, err
		}
	}
	last := parts[len(parts)-1]
	switch c := parent.(type) {
	case map[string]any:
		if _, ok := c[last]; !ok {
			return nil, fmt.Errorf("path %s does not exist", path)
		}
		delete(c, last)
		return doc, nil
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(c) {
			return nil, fmt.Errorf("path %s: no index %q", path, last)
		}
		out := append(append([]any{}, c[:i]...), c[i+1:]...)
		if len(parts) == 1 {
			return out, nil
		}
		return pointerSet(doc, parentPath, out, false)
	}
	return nil, fmt.Errorf("path %s does not exist", path)
}

func escapeAll(parts []string) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return out
}

func reflectDeepEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
