package patch

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// applyJSON applies RFC 6902 operations in order; the first that fails
// fails the patch. As in evanphx/json-patch (patch.go), a copy is a deep
// copy, and the copies of one patch may add at most MaxCopyBytes.
func applyJSON(doc any, ops []map[string]any) (any, error) {
	copied := 0
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
			if v, err = pointerGet(doc, path); err == nil && !equalJSON(v, op["value"]) {
				err = fmt.Errorf("testing value %s failed", path)
			}
		case "move":
			from, _ := op["from"].(string)
			if from != path && strings.HasPrefix(path, from+"/") {
				err = fmt.Errorf("cannot move %s into its own child %s", from, path)
				break
			}
			var v any
			if v, err = pointerGet(doc, from); err == nil {
				if doc, err = pointerRemove(doc, from); err == nil {
					doc, err = pointerSet(doc, path, v, true)
				}
			}
		case "copy":
			from, _ := op["from"].(string)
			var v any
			if v, err = pointerGet(doc, from); err == nil {
				// A deep copy: the new value shares nothing with the
				// old one, even when it is copied into itself.
				var data []byte
				if data, err = json.Marshal(v); err == nil {
					copied += len(data)
					if copied > MaxCopyBytes {
						err = fmt.Errorf("Unable to complete the copy, the accumulated size increase of copy is %d, exceeding the limit %d", copied, MaxCopyBytes)
						break
					}
					var c any
					if err = json.Unmarshal(data, &c); err == nil {
						doc, err = pointerSet(doc, path, c, true)
					}
				}
			}
		default:
			err = fmt.Errorf("unexpected operation %q", kind)
		}
		if err != nil {
			return nil, fmt.Errorf("the JSON patch's operation %d (%s): %w", i, kind, err)
		}
	}
	return doc, nil
}

// splitPointer splits a JSON pointer (RFC 6901) into its unescaped parts.
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

func joinPointer(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return "/" + strings.Join(out, "/")
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
			i, err := listIndex(p, len(c), false)
			if err != nil {
				return nil, fmt.Errorf("path %s: %w", path, err)
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
	parentPath := joinPointer(parts[:len(parts)-1])
	parent, err := pointerGet(doc, parentPath)
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
		if last != "-" || !insert {
			if i, err = listIndex(last, len(c), insert); err != nil {
				return nil, fmt.Errorf("path %s: %w", path, err)
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
		return pointerSet(doc, parentPath, out, false)
	}
	return nil, fmt.Errorf("path %s does not exist", path)
}

func pointerRemove(doc any, path string) (any, error) {
	parts, err := splitPointer(path)
	if err != nil || len(parts) == 0 {
		return nil, fmt.Errorf("cannot remove %q", path)
	}
	parentPath := joinPointer(parts[:len(parts)-1])
	parent, err := pointerGet(doc, parentPath)
	if err != nil {
		return nil, err
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
		i, err := listIndex(last, len(c), false)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", path, err)
		}
		out := append(append([]any{}, c[:i]...), c[i+1:]...)
		return pointerSet(doc, parentPath, out, false)
	}
	return nil, fmt.Errorf("path %s does not exist", path)
}

// listIndex reads a list index of a pointer for a list of n elements: at
// most n for an insert, below n otherwise. As evanphx/json-patch does by
// default (SupportNegativeIndices), a negative index counts from the end.
func listIndex(p string, n int, insert bool) (int, error) {
	i, err := strconv.Atoi(p)
	if err != nil {
		return 0, fmt.Errorf("value was not a proper array index: %q", p)
	}
	size := n
	if insert {
		size = n + 1
	}
	if i < 0 {
		if i < -size {
			return 0, fmt.Errorf("Unable to access invalid index: %d", i)
		}
		i += size
	}
	if i >= size {
		return 0, fmt.Errorf("Unable to access invalid index: %d", i)
	}
	return i, nil
}
