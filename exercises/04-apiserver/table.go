package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// kubectl get asks for a Table: the server decides the columns, so that
// an old kubectl prints new kinds right. These are upstream's columns
// (pkg/printers/internalversion); priority 1 columns show with -o wide.

type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

type row struct {
	Cells  []any           `json:"cells"`
	Object json.RawMessage `json:"object,omitempty"`
}

type table struct {
	Kind              string       `json:"kind"`
	APIVersion        string       `json:"apiVersion"`
	Metadata          api.ListMeta `json:"metadata"`
	ColumnDefinitions []column     `json:"columnDefinitions"`
	Rows              []row        `json:"rows"`
}

// col makes a column definition.
func col(name, typ string, priority int32, desc string) column {
	c := column{Name: name, Type: typ, Priority: priority, Description: desc}
	if name == "Name" {
		c.Format = "name"
	}
	return c
}

var (
	nameCol = col("Name", "string", 0, "Name must be unique within a namespace.")
	ageCol  = col("Age", "string", 0, "CreationTimestamp is a timestamp representing the server time when this object was created.")
)

// printer is one kind's columns and how to fill them.
type printer struct {
	columns []column
	cells   func(s *server, obj api.Object) []any
}

// printers are the columns of the kinds that have their own; every other
// kind gets defaultPrinter's Name and Age.
var printers = map[string]printer{
	"pods":  {columns: podColumns, cells: podCells},
	"nodes": {columns: nodeColumns, cells: nodeCells},
}

var podColumns = []column{nameCol,
	col("Ready", "string", 0, "The aggregate readiness state of this pod for accepting traffic."),
	col("Status", "string", 0, "The aggregate status of the containers in this pod."),
	col("Restarts", "string", 0, "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
	ageCol,
	col("IP", "string", 1, "The IP address assigned to the pod"),
	col("Node", "string", 1, "The name of the node the pod is assigned to"),
	col("Nominated Node", "string", 1, "The name of the node the pod is nominated to"),
	col("Readiness Gates", "string", 1, "The readiness gates of the pod"),
}

var nodeColumns = []column{nameCol,
	col("Status", "string", 0, "The status of the node"),
	col("Roles", "string", 0, "The roles of the node"),
	ageCol,
	col("Version", "string", 0, "Kubelet Version reported by the node."),
	col("Internal-IP", "string", 1, "List of internal IPs for the node."),
	col("External-IP", "string", 1, "List of external IPs for this node."),
	col("OS-Image", "string", 1, "OS image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
	col("Kernel-Version", "string", 1, "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
	col("Container-Runtime", "string", 1, "Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2)."),
}

// podCells is one pod's row: Name, Ready, Status, Restarts, Age, then the
// -o wide columns.
func podCells(s *server, obj api.Object) []any {
	// TODO: return one pod's cells in podColumns' order.
	panic("not implemented: podCells")
}

// nodeCells is one node's row: Name, Status, Roles, Age, Version, then the
// -o wide columns.
func nodeCells(s *server, obj api.Object) []any {
	// TODO: return one node's cells in nodeColumns' order.
	panic("not implemented: nodeCells")
}

// defaultPrinter is for kinds without columns of their own.
var defaultPrinter = printer{
	columns: []column{nameCol, ageCol},
	cells: func(s *server, obj api.Object) []any {
		return []any{obj.GetObjectMeta().Name, s.age(obj.GetObjectMeta().CreationTimestamp)}
	},
}

// table is the Table of objs; rev and cont are the list's
// resourceVersion and continue token (0 and "" for one object).
func (s *server) table(r *http.Request, kind api.Kind, objs []api.Object, rev int64, cont string) *table {
	// TODO: build the Table of objs: the kind's printer columns, one row of cells per object, and each object's metadata beside its cells.
	panic("not implemented: table")
}

// age is how long ago t was, as kubectl prints it.
func (s *server) age(t api.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return humanDuration(s.now().Sub(t.Time))
}

// humanDuration prints an age the way kubectl does: 45s, 5m30s, 3h, 12d.
func humanDuration(d time.Duration) string {
	// TODO: print d the way kubectl prints an age: 45s, 5m30s, 3h, 12d.
	panic("not implemented: humanDuration")
}

// orNoneAngle is s, or "<none>" when it is empty.
func orNoneAngle(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// orUnknown is s, or "<unknown>" when it is empty.
func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// tableEvents is the ResponseWriter of a watch that asked for Tables
// (kubectl get -w): it turns the object of each event the watch writes
// into a Table of one row, with the column definitions in the first event
// only, as upstream's watch encoder does
// (k8s.io/apiserver/pkg/endpoints/handlers/response.go,
// watchEmbeddedEncoder). BOOKMARK and ERROR events, and objects that are
// already Tables, pass unchanged. It is given: it wraps your watch.
type tableEvents struct {
	http.ResponseWriter
	s       *server
	r       *http.Request
	kind    api.Kind
	pending []byte
	columns bool // the column definitions have been sent
}

func (t *tableEvents) Write(p []byte) (int, error) {
	t.pending = append(t.pending, p...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := t.tableLine(t.pending[:i])
		t.pending = t.pending[i+1:]
		if _, err := t.ResponseWriter.Write(append(line, '\n')); err != nil {
			return 0, err
		}
	}
}

// Flush sends what has been written: complete lines are written through
// at once, so there is nothing else to hold back.
func (t *tableEvents) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (t *tableEvents) Unwrap() http.ResponseWriter { return t.ResponseWriter }

func (t *tableEvents) tableLine(line []byte) []byte {
	var ev struct {
		Type   api.WatchEventType `json:"type"`
		Object json.RawMessage    `json:"object"`
	}
	if err := json.Unmarshal(line, &ev); err != nil || ev.Type == api.WatchBookmark || ev.Type == api.WatchError {
		return append([]byte(nil), line...)
	}
	var tm api.TypeMeta
	if err := json.Unmarshal(ev.Object, &tm); err != nil || tm.Kind == "Table" {
		t.columns = t.columns || err == nil
		return append([]byte(nil), line...)
	}
	obj := t.kind.New()
	if err := json.Unmarshal(ev.Object, obj); err != nil {
		return append([]byte(nil), line...)
	}
	tbl := t.s.table(t.r, t.kind, []api.Object{obj}, 0, "")
	if t.columns {
		tbl.ColumnDefinitions = nil
	}
	t.columns = true
	data, err := json.Marshal(map[string]any{"type": ev.Type, "object": tbl})
	if err != nil {
		return append([]byte(nil), line...)
	}
	return data
}
