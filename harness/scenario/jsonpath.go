package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A small subset of kubectl's JSONPath templates, as parsed and printed by
// upstream's k8s.io/client-go/util/jsonpath (parser.go, jsonpath.go):
//
//   - text outside {...} is printed as is;
//   - inside {...}: an optional leading $ or @, then fields (.name, with
//     \. escaping a dot inside a key: .metadata.labels.app\.kubernetes\.io/name),
//     ['key'], an index [N] (negative counts from the end), [*] and .*
//     for every element;
//   - the values an action finds are printed separated by one space;
//     strings and numbers as text, maps and lists as compact JSON;
//   - a key that is missing prints nothing, as `kubectl get -o jsonpath`
//     does by default (--allow-missing-template-keys=true).
//
// Left out: filters [?(@.x=="y")], recursive descent (..), unions [a,b],
// slices [a:b:c], range/end, and literals inside actions.

// jsonPath is a parsed template: literal text and actions in order.
type jsonPath struct {
	parts []pathPart
}

// pathPart is a literal (when steps is nil and action false) or an action.
type pathPart struct {
	text   string
	action bool
	steps  []pathStep
}

// pathStep is one selection inside an action.
type pathStep struct {
	field string // a map key
	index int    // with isIndex
	// isIndex selects one element; all selects every element (or value).
	isIndex bool
	all     bool
}

// parseJSONPath parses a template such as {.items[*].metadata.name}.
func parseJSONPath(text string) (*jsonPath, error) {
	jp := &jsonPath{}
	for len(text) > 0 {
		open := strings.IndexByte(text, '{')
		if open < 0 {
			jp.parts = append(jp.parts, pathPart{text: text})
			break
		}
		if open > 0 {
			jp.parts = append(jp.parts, pathPart{text: text[:open]})
		}
		end := strings.IndexByte(text[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("scenario: jsonpath %q: unclosed action", text)
		}
		steps, err := parseAction(text[open+1 : open+end])
		if err != nil {
			return nil, fmt.Errorf("scenario: jsonpath %q: %w", text, err)
		}
		jp.parts = append(jp.parts, pathPart{action: true, steps: steps})
		text = text[open+end+1:]
	}
	return jp, nil
}

// parseAction parses what is between { and }.
func parseAction(s string) ([]pathStep, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "$") || strings.HasPrefix(s, "@") {
		s = s[1:]
	}
	var steps []pathStep
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, ".."):
			return nil, fmt.Errorf("recursive descent (..) is not supported")
		case s[0] == '.':
			var b strings.Builder
			i := 1
			for ; i < len(s); i++ {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					i++
					b.WriteByte(s[i])
					continue
				}
				if c == '.' || c == '[' || c == ']' || c == ' ' {
					break
				}
				b.WriteByte(c)
			}
			name := b.String()
			switch name {
			case "":
				if i == 1 && len(s) == 1 {
					// "{.}" is the whole object.
					s = s[1:]
					continue
				}
				return nil, fmt.Errorf("empty field name")
			case "*":
				steps = append(steps, pathStep{all: true})
			default:
				steps = append(steps, pathStep{field: name})
			}
			s = s[i:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("unterminated array")
			}
			inner := strings.TrimSpace(s[1:end])
			switch {
			case inner == "*":
				steps = append(steps, pathStep{all: true})
			case len(inner) >= 2 && inner[0] == '\'' && inner[len(inner)-1] == '\'':
				steps = append(steps, pathStep{field: inner[1 : len(inner)-1]})
			case strings.HasPrefix(inner, "?("):
				return nil, fmt.Errorf("filters [?(...)] are not supported")
			case strings.ContainsAny(inner, ":,"):
				return nil, fmt.Errorf("slices and unions [%s] are not supported", inner)
			default:
				n, err := strconv.Atoi(inner)
				if err != nil {
					return nil, fmt.Errorf("invalid array index %s", inner)
				}
				steps = append(steps, pathStep{isIndex: true, index: n})
			}
			s = s[end+1:]
		default:
			return nil, fmt.Errorf("unsupported action %q (only fields, [N], [*] and ['key'])", s)
		}
	}
	return steps, nil
}

// find returns the values an action selects from v.
func find(v any, steps []pathStep) ([]any, error) {
	cur := []any{v}
	for _, st := range steps {
		var next []any
		for _, c := range cur {
			switch {
			case st.all:
				switch c := c.(type) {
				case []any:
					next = append(next, c...)
				case map[string]any:
					for _, k := range sortedKeys(c) {
						next = append(next, c[k])
					}
				}
			case st.isIndex:
				list, ok := c.([]any)
				if !ok {
					if c == nil {
						continue
					}
					return nil, fmt.Errorf("scenario: jsonpath: [%d] on a %s, not a list", st.index, typeName(c))
				}
				i := st.index
				if i < 0 {
					i += len(list)
				}
				if i < 0 || i >= len(list) {
					return nil, fmt.Errorf("scenario: jsonpath: array index out of bounds: index %d, length %d", st.index, len(list))
				}
				next = append(next, list[i])
			default:
				m, ok := c.(map[string]any)
				if !ok {
					continue
				}
				if x, ok := m[st.field]; ok {
					next = append(next, x)
				}
			}
		}
		cur = next
	}
	return cur, nil
}

// execute prints the template against v (decoded with UseNumber).
func (jp *jsonPath) execute(v any) (string, error) {
	var out strings.Builder
	for _, p := range jp.parts {
		if !p.action {
			out.WriteString(p.text)
			continue
		}
		vals, err := find(v, p.steps)
		if err != nil {
			return "", err
		}
		for i, x := range vals {
			if i > 0 {
				out.WriteByte(' ')
			}
			out.WriteString(valueText(x))
		}
	}
	return out.String(), nil
}

// valueText prints one value as upstream's PrintResults does: maps and
// lists as compact JSON, the rest as text.
func valueText(x any) string {
	switch x := x.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return "<nil>"
	case map[string]any, []any:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		return strings.TrimSuffix(b.String(), "\n")
	default:
		return fmt.Sprint(x)
	}
}

func typeName(x any) string {
	switch x.(type) {
	case map[string]any:
		return "map"
	case []any:
		return "list"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	}
	return fmt.Sprintf("%T", x)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Go's map order is random; upstream's too, but a test wants one.
	slices.Sort(keys)
	return keys
}
