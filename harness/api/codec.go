package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// Codec reads and writes objects as Kubernetes JSON and YAML.
//
// The zero Codec is strict, like kubectl's default --validate=strict
// (fieldValidation=Strict): a field the kind does not have is an error
// that names the field ("strict decoding error: unknown field
// \"spec.replica\""), and so is a key repeated in one YAML mapping. Set
// AllowUnknownFields to drop unknown fields silently instead, as the API
// server does when a request asks for fieldValidation=Ignore.
type Codec struct {
	AllowUnknownFields bool
}

// Decode decodes every document of data with the strict Codec.
func Decode(data []byte) ([]Object, error) { return Codec{}.Decode(data) }

// DecodeInto decodes the single document of data into obj with the
// strict Codec.
func DecodeInto(data []byte, obj any) error { return Codec{}.DecodeInto(data, obj) }

// Decode decodes data, which is JSON (one object or a stream of them) or
// YAML with any number of documents separated by "---" lines, into typed
// objects. Empty documents are skipped. A document of kind List (or
// PodList, ...) contributes its items. Every document is decoded even
// when one fails: the result holds the objects that decoded, and the
// error joins one *DecodeError per document that did not.
func (c Codec) Decode(data []byte) ([]Object, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, err
	}
	var objs []Object
	var errs []error
	for _, d := range docs {
		got, err := c.decodeDocument(d)
		objs = append(objs, got...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return objs, errors.Join(errs...)
}

// DecodeInto decodes data, which must hold exactly one document, into
// obj, a pointer. If obj is a registered kind, the document's apiVersion
// and kind must be that kind's, or absent (then they are filled in).
// obj is reset before decoding.
func (c Codec) DecodeInto(data []byte, obj any) error {
	rv := reflect.ValueOf(obj)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("api: DecodeInto needs a non-nil pointer, got %T", obj)
	}
	docs, err := splitDocuments(data)
	if err != nil {
		return err
	}
	if len(docs) != 1 {
		return fmt.Errorf("api: expected exactly one document, found %d", len(docs))
	}
	d := docs[0]
	derr := &DecodeError{Document: d.index, Line: d.line}
	tree, err := c.parse(d, derr)
	if err != nil {
		return err
	}
	h := readHeader(tree, derr)
	if o, ok := obj.(Object); ok {
		if k, registered := KindOf(o); registered {
			if (h.apiVersion != "" && h.apiVersion != k.APIVersion()) || (h.kind != "" && h.kind != k.Kind) {
				derr.Err = fmt.Errorf("expected %s %s, got %s %s", k.APIVersion(), k.Kind, orUnset(h.apiVersion), orUnset(h.kind))
				return derr
			}
		}
	}
	rv.Elem().Set(reflect.Zero(rv.Elem().Type()))
	if err := c.decodeTree(tree, obj, derr); err != nil {
		return err
	}
	if o, ok := obj.(Object); ok {
		if tm := o.GetTypeMeta(); tm.APIVersion == "" && tm.Kind == "" {
			SetTypeMeta(o)
		}
	}
	return nil
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

// DecodeError says which document of the input failed and why. Error()
// reads like
//
//	document 2 (Deployment "web"): spec.replicas: cannot unmarshal string into int32
type DecodeError struct {
	// Document is the 1-based index of the document among the non-empty
	// documents of the input.
	Document int
	// Item is the 1-based index within a List document, or 0.
	Item int
	// Line is the line of the input where the document starts.
	Line int
	// Kind and Name identify the object when the document got that far.
	Kind, Name string
	// Field is the path of the offending field, such as
	// "spec.template.spec.containers[0].image", or empty.
	Field string
	// Err is the cause.
	Err error
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "document %d", e.Document)
	if e.Item > 0 {
		fmt.Fprintf(&b, ", item %d", e.Item)
	}
	switch {
	case e.Kind != "" && e.Name != "":
		fmt.Fprintf(&b, " (%s %q)", e.Kind, e.Name)
	case e.Kind != "":
		fmt.Fprintf(&b, " (%s)", e.Kind)
	case e.Name != "":
		fmt.Fprintf(&b, " (%q)", e.Name)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// UnknownFieldsError lists the fields of a document that its kind does
// not have, with upstream's wording.
type UnknownFieldsError struct {
	Fields []string
}

func (e *UnknownFieldsError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = fmt.Sprintf("unknown field %q", f)
	}
	return "strict decoding error: " + strings.Join(parts, ", ")
}

// NotRegisteredError is returned for an apiVersion/kind pair that is not
// in the registry.
type NotRegisteredError struct {
	APIVersion, Kind string
}

func (e *NotRegisteredError) Error() string {
	return fmt.Sprintf("no kind %q is registered for version %q", e.Kind, e.APIVersion)
}

// ---------------------------------------------------------------- documents

type document struct {
	index int    // 1-based among non-empty documents
	line  int    // 1-based line where it starts
	data  []byte // the document's text
	json  bool   // data is JSON, not YAML
}

// splitDocuments cuts data into its non-empty documents: a JSON stream
// when it starts with "{", else YAML documents separated by lines that
// begin with "---" (followed by nothing, blanks or a comment).
func splitDocuments(data []byte) ([]document, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		return splitJSON(data)
	}
	var docs []document
	var cur []string
	start := 1
	flush := func() {
		text := strings.Join(cur, "\n")
		if !blankYAML(text) {
			docs = append(docs, document{index: len(docs) + 1, line: start, data: []byte(text)})
		}
		cur = nil
	}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		l := strings.TrimSuffix(line, "\r")
		if rest, ok := strings.CutPrefix(l, "---"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			flush()
			start = i + 1
			if r := strings.TrimSpace(rest); r != "" && r[0] != '#' {
				// Content on the marker line belongs to the next document.
				cur = append(cur, r)
			} else {
				// Keep the line count: the marker line becomes blank.
				cur = append(cur, "")
			}
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return docs, nil
}

// blankYAML reports whether a YAML document has only blanks and comments.
func blankYAML(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t != "" && t[0] != '#' && t != "..." {
			return false
		}
	}
	return true
}

func splitJSON(data []byte) ([]document, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []document
	for {
		// Skip to the next value to know its starting line.
		rest := data[dec.InputOffset():]
		off := int(dec.InputOffset()) + len(rest) - len(bytes.TrimLeft(rest, " \t\r\n"))
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, &DecodeError{Document: len(docs) + 1, Line: line, Err: err}
		}
		docs = append(docs, document{index: len(docs) + 1, line: line, data: raw, json: true})
	}
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// parse turns a document into a generic tree (numbers as json.Number).
func (c Codec) parse(d document, derr *DecodeError) (any, error) {
	j := d.data
	if !d.json {
		conv := yaml.YAMLToJSONStrict
		if c.AllowUnknownFields {
			conv = yaml.YAMLToJSON
		}
		var err error
		if j, err = conv(d.data); err != nil {
			// Report YAML lines relative to the whole input.
			msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
			msg = strings.ReplaceAll(msg, ":\n  ", ": ")
			msg = strings.ReplaceAll(msg, "\n  ", "; ")
			msg = yamlLineRE.ReplaceAllStringFunc(msg, func(m string) string {
				n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
				return "line " + strconv.Itoa(n+d.line-1)
			})
			derr.Err = errors.New(msg)
			return nil, derr
		}
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		derr.Err = err
		return nil, derr
	}
	if _, ok := tree.(map[string]any); !ok {
		derr.Err = fmt.Errorf("expected an object, got %s", jsonKind(tree))
		return nil, derr
	}
	return tree, nil
}

type header struct{ apiVersion, kind string }

// readHeader fills derr's kind and name from a tree, tolerating any shape.
func readHeader(tree any, derr *DecodeError) header {
	m, _ := tree.(map[string]any)
	var h header
	h.apiVersion, _ = m["apiVersion"].(string)
	h.kind, _ = m["kind"].(string)
	derr.Kind = h.kind
	if meta, ok := m["metadata"].(map[string]any); ok {
		derr.Name, _ = meta["name"].(string)
	}
	return h
}

func (c Codec) decodeDocument(d document) ([]Object, error) {
	derr := &DecodeError{Document: d.index, Line: d.line}
	tree, err := c.parse(d, derr)
	if err != nil {
		return nil, err
	}
	h := readHeader(tree, derr)
	if elem, isList := listElementKind(h); isList {
		return c.decodeList(tree, h, elem, derr)
	}
	obj, err := c.decodeObject(tree, h, derr)
	if err != nil {
		return nil, err
	}
	return []Object{obj}, nil
}

// listElementKind reports whether h is a list (kind List, or XList for a
// registered X) and, for XList, the items' kind.
func listElementKind(h header) (Kind, bool) {
	if h.kind == "List" {
		return Kind{}, true
	}
	if base, ok := strings.CutSuffix(h.kind, "List"); ok {
		if k, ok := LookupKind(h.apiVersion, base); ok {
			return k, true
		}
	}
	return Kind{}, false
}

type listEnvelope struct {
	TypeMeta `json:",inline"`
	Metadata ListMeta `json:"metadata"`
	Items    []any    `json:"items"`
}

func (c Codec) decodeList(tree any, h header, elem Kind, derr *DecodeError) ([]Object, error) {
	derr.Name = ""
	var env listEnvelope
	if err := c.decodeTree(tree, &env, derr); err != nil {
		return nil, err
	}
	var objs []Object
	var errs []error
	for i, item := range env.Items {
		ierr := &DecodeError{Document: derr.Document, Item: i + 1, Line: derr.Line}
		m, ok := item.(map[string]any)
		if !ok {
			ierr.Err = fmt.Errorf("expected an object, got %s", jsonKind(item))
			errs = append(errs, ierr)
			continue
		}
		ih := readHeader(m, ierr)
		// Items of a PodList from the API carry no apiVersion/kind.
		if ih.apiVersion == "" && ih.kind == "" && elem.Kind != "" {
			ih = header{elem.APIVersion(), elem.Kind}
			ierr.Kind = elem.Kind
		}
		obj, err := c.decodeObject(m, ih, ierr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objs = append(objs, obj)
	}
	return objs, errors.Join(errs...)
}

func (c Codec) decodeObject(tree any, h header, derr *DecodeError) (Object, error) {
	var missing []string
	if h.apiVersion == "" {
		missing = append(missing, "apiVersion not set")
	}
	if h.kind == "" {
		missing = append(missing, "kind not set")
	}
	if len(missing) > 0 {
		derr.Err = errors.New(strings.Join(missing, ", "))
		return nil, derr
	}
	k, ok := LookupKind(h.apiVersion, h.kind)
	if !ok {
		derr.Err = &NotRegisteredError{APIVersion: h.apiVersion, Kind: h.kind}
		return nil, derr
	}
	obj := k.New()
	if err := c.decodeTree(tree, obj, derr); err != nil {
		return nil, err
	}
	return obj, nil
}

// decodeTree checks tree against into's Go type (field names and JSON
// types, with exact paths), then decodes it.
func (c Codec) decodeTree(tree any, into any, derr *DecodeError) error {
	w := walker{strict: !c.AllowUnknownFields}
	if fe := w.walk(tree, reflect.TypeOf(into), ""); fe != nil {
		derr.Field, derr.Err = fe.field, fe.err
		return derr
	}
	if len(w.unknown) > 0 {
		derr.Err = &UnknownFieldsError{Fields: w.unknown}
		return derr
	}
	j, err := json.Marshal(tree)
	if err == nil {
		err = json.Unmarshal(j, into)
	}
	if err != nil {
		derr.Err = err
		return derr
	}
	return nil
}

// ---------------------------------------------------------------- the walker

type fieldError struct {
	field string
	err   error
}

// walker compares a generic JSON tree with a Go type, the way
// encoding/json would decode it, and reports the first type mismatch or
// bad custom value (a Quantity, a Time) with its full path, and every
// unknown field.
type walker struct {
	strict  bool
	unknown []string
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
)

func (w *walker) walk(v any, t reflect.Type, path string) *fieldError {
	for t.Kind() == reflect.Pointer {
		if v == nil {
			return nil
		}
		t = t.Elem()
	}
	if t == rawMessageType {
		return nil
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		b, err := json.Marshal(v)
		if err == nil {
			err = reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(b)
		}
		if err != nil {
			return &fieldError{path, err}
		}
		return nil
	}
	if v == nil {
		return nil // null leaves the zero value, as in encoding/json
	}
	mismatch := func(want string) *fieldError {
		return &fieldError{path, fmt.Errorf("cannot unmarshal %s into %s", jsonKind(v), want)}
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch("object")
		}
		fields := fieldsOf(t)
		for _, k := range sortedKeys(m) {
			ft, ok := fields[k]
			if !ok {
				if w.strict {
					w.unknown = append(w.unknown, joinPath(path, k))
				}
				// Drop it, so that encoding/json's case-insensitive
				// matching cannot put "Replicas" into replicas:
				// field names are case-sensitive, as upstream.
				delete(m, k)
				continue
			}
			if fe := w.walk(m[k], ft, joinPath(path, k)); fe != nil {
				return fe
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch("object")
		}
		for _, k := range sortedKeys(m) {
			if fe := w.walk(m[k], t.Elem(), path+"["+k+"]"); fe != nil {
				return fe
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			s, ok := v.(string)
			if !ok {
				return mismatch("base64 string")
			}
			if _, err := base64.StdEncoding.DecodeString(s); err != nil {
				return &fieldError{path, err}
			}
			return nil
		}
		a, ok := v.([]any)
		if !ok {
			return mismatch("array")
		}
		for i, e := range a {
			if fe := w.walk(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); fe != nil {
				return fe
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return mismatch("string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return mismatch("bool")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch(t.Kind().String())
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			return &fieldError{path, fmt.Errorf("cannot unmarshal number %s into %s", n, t.Kind())}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch(t.Kind().String())
		}
		if _, err := strconv.ParseUint(string(n), 10, t.Bits()); err != nil {
			return &fieldError{path, fmt.Errorf("cannot unmarshal number %s into %s", n, t.Kind())}
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return mismatch(t.Kind().String())
		}
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number, float64:
		return "number"
	case []any:
		return "array"
	default:
		return "object"
	}
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// fieldsOf maps the JSON names of a struct's fields to their types,
// flattening embedded structs without a name (TypeMeta, ObjectMeta's
// inline cousins) as encoding/json does.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range fieldsOf(ft) {
					if _, shadowed := fields[k]; !shadowed {
						fields[k] = v
					}
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fields[name] = sf.Type
	}
	fieldCache.Store(t, fields)
	return fields
}

// ---------------------------------------------------------------- encoding

// Encode returns v as JSON. If v is a registered Object whose TypeMeta is
// empty, the output carries its apiVersion and kind anyway (v itself is
// not changed).
func Encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("api: encode %T: %w", v, err)
	}
	o, ok := v.(Object)
	if !ok || isNil(o) {
		return b, nil
	}
	if tm := o.GetTypeMeta(); tm.APIVersion != "" || tm.Kind != "" {
		return b, nil
	}
	k, ok := KindOf(o)
	if !ok || len(b) < 2 || b[0] != '{' {
		return b, nil
	}
	head, _ := json.Marshal(TypeMeta{APIVersion: k.APIVersion(), Kind: k.Kind})
	out := append([]byte{}, head[:len(head)-1]...)
	if string(b) != "{}" {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// EncodeYAML returns v as YAML (keys sorted, as kubectl -o yaml prints).
func EncodeYAML(v any) ([]byte, error) {
	j, err := Encode(v)
	if err != nil {
		return nil, err
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return nil, fmt.Errorf("api: encode %T as YAML: %w", v, err)
	}
	return y, nil
}

// EncodeYAMLDocuments returns objs as one multi-document YAML stream,
// separated by "---" lines, which Decode reads back.
func EncodeYAMLDocuments(objs []Object) ([]byte, error) {
	var buf bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		y, err := EncodeYAML(o)
		if err != nil {
			return nil, err
		}
		buf.Write(y)
	}
	return buf.Bytes(), nil
}
