package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
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
// kind gets defaultPrinter's Name and Age. The pods' and nodes' cells are
// yours; the other kinds' columns are given.
var printers = map[string]printer{
	"pods":  {columns: podColumns, cells: podCells},
	"nodes": {columns: nodeColumns, cells: nodeCells},
	"namespaces": {
		columns: []column{nameCol, col("Status", "string", 0, "The status of the namespace"), ageCol},
		cells: func(s *server, obj api.Object) []any {
			doc := docOf(obj)
			return []any{obj.GetObjectMeta().Name, str(doc, "status.phase"), s.age(obj.GetObjectMeta().CreationTimestamp)}
		},
	},
	"configmaps": {
		columns: []column{nameCol, col("Data", "integer", 0, "Data contains the configuration data."), ageCol},
		cells: func(s *server, obj api.Object) []any {
			doc := docOf(obj)
			return []any{obj.GetObjectMeta().Name, size(doc, "data") + size(doc, "binaryData"), s.age(obj.GetObjectMeta().CreationTimestamp)}
		},
	},
	"secrets": {
		columns: []column{nameCol, col("Type", "string", 0, "The type of secret"), col("Data", "integer", 0, "Data contains the secret data."), ageCol},
		cells: func(s *server, obj api.Object) []any {
			doc := docOf(obj)
			return []any{obj.GetObjectMeta().Name, str(doc, "type"), size(doc, "data"), s.age(obj.GetObjectMeta().CreationTimestamp)}
		},
	},
	"services": {
		columns: []column{nameCol, col("Type", "string", 0, "The type of the service."), col("Cluster-IP", "string", 0, "The cluster IP of the service."),
			col("External-IP", "string", 0, "The external IP of the service."), col("Port(s)", "string", 0, "The ports of the service."), ageCol,
			col("Selector", "string", 1, "The selector of the service.")},
		cells: func(s *server, obj api.Object) []any {
			doc := docOf(obj)
			var ports []string
			if ps, ok := lookup(doc, "spec.ports").([]any); ok {
				for _, p := range ps {
					pm, _ := p.(map[string]any)
					port := fmt.Sprint(pm["port"])
					if np, ok := pm["nodePort"]; ok {
						port += ":" + fmt.Sprint(np)
					}
					proto, _ := pm["protocol"].(string)
					if proto == "" {
						proto = "TCP"
					}
					ports = append(ports, port+"/"+proto)
				}
			}
			sel, _ := lookup(doc, "spec.selector").(map[string]any)
			return []any{obj.GetObjectMeta().Name, orDefault(str(doc, "spec.type"), "ClusterIP"), orNoneAngle(str(doc, "spec.clusterIP")),
				"<none>", orNoneAngle(strings.Join(ports, ",")), s.age(obj.GetObjectMeta().CreationTimestamp), orNoneAngle(labelString(sel))}
		},
	},
	"deployments": {
		columns: []column{nameCol, col("Ready", "string", 0, "Number of the pod with ready state"),
			col("Up-to-date", "integer", 0, "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
			col("Available", "integer", 0, "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."), ageCol},
		cells: func(s *server, obj api.Object) []any {
			doc := docOf(obj)
			return []any{obj.GetObjectMeta().Name, fmt.Sprintf("%d/%d", num(doc, "status.readyReplicas"), replicas(doc)),
				num(doc, "status.updatedReplicas"), num(doc, "status.availableReplicas"), s.age(obj.GetObjectMeta().CreationTimestamp)}
		},
	},
	"replicasets": {
		columns: []column{nameCol, col("Desired", "integer", 0, "Number of desired pods."), col("Current", "integer", 0, "Number of actual replicas."),
			col("Ready", "integer", 0, "Number of ready replicas."), ageCol},
		cells: func(s *server, obj api.Object) []any {
			doc := docOf(obj)
			return []any{obj.GetObjectMeta().Name, replicas(doc), num(doc, "status.replicas"), num(doc, "status.readyReplicas"), s.age(obj.GetObjectMeta().CreationTimestamp)}
		},
	},
	"jobs": {
		columns: []column{nameCol, col("Status", "string", 0, "Status of the job."), col("Completions", "string", 0, "The completion status of the job."),
			col("Duration", "string", 0, "Time required to complete the job."), ageCol},
		cells: func(s *server, obj api.Object) []any {
			doc := docOf(obj)
			completions := int64(1)
			if c, ok := lookup(doc, "spec.completions").(float64); ok {
				completions = int64(c)
			}
			st := "Running"
			if conds, ok := lookup(doc, "status.conditions").([]any); ok {
				for _, c := range conds {
					cm, _ := c.(map[string]any)
					if cm["status"] == "True" && (cm["type"] == "Complete" || cm["type"] == "Failed") {
						st = cm["type"].(string)
					}
				}
			}
			return []any{obj.GetObjectMeta().Name, st, fmt.Sprintf("%d/%d", num(doc, "status.succeeded"), completions), "", s.age(obj.GetObjectMeta().CreationTimestamp)}
		},
	},
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
	p := obj.(*api.Pod)
	ready, restarts := 0, int32(0)
	for _, c := range p.Status.ContainerStatuses {
		if c.Ready && c.State.Running != nil {
			ready++
		}
		restarts += c.RestartCount
	}
	return []any{p.Name, fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers)), podStatus(p),
		strconv.Itoa(int(restarts)), s.age(p.CreationTimestamp),
		orNoneAngle(p.Status.PodIP), orNoneAngle(p.Spec.NodeName), orNoneAngle(p.Status.NominatedNodeName), readinessGates(p)}
}

// nodeCells is one node's row: Name, Status, Roles, Age, Version, then the
// -o wide columns.
func nodeCells(s *server, obj api.Object) []any {
	n := obj.(*api.Node)
	ip := func(t api.NodeAddressType) string {
		for _, a := range n.Status.Addresses {
			if a.Type == t {
				return a.Address
			}
		}
		return "<none>"
	}
	info := n.Status.NodeInfo
	return []any{n.Name, nodeStatus(n), nodeRoles(n.Labels), s.age(n.CreationTimestamp), info.KubeletVersion,
		ip(api.NodeInternalIP), ip(api.NodeExternalIP), orUnknown(info.OSImage), orUnknown(info.KernelVersion), orUnknown(info.ContainerRuntimeVersion)}
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
	p, ok := printers[kind.Resource]
	if !ok {
		p = defaultPrinter
	}
	t := &table{Kind: "Table", APIVersion: "meta.k8s.io/v1", ColumnDefinitions: p.columns, Rows: []row{}}
	if rev > 0 {
		t.Metadata.ResourceVersion = strconv.FormatInt(rev, 10)
	}
	t.Metadata.Continue = cont
	include := r.URL.Query().Get("includeObject")
	for _, obj := range objs {
		rw := row{Cells: p.cells(s, obj)}
		switch include {
		case "None":
		case "Object":
			rw.Object, _ = json.Marshal(obj)
		default:
			// kubectl needs the metadata (namespace, labels) beside the
			// cells: a PartialObjectMetadata.
			rw.Object, _ = json.Marshal(map[string]any{
				"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.GetObjectMeta(),
			})
		}
		t.Rows = append(t.Rows, rw)
	}
	return t
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
	if sec := int(d.Seconds()); sec < -1 {
		return "<invalid>"
	} else if sec < 0 {
		return "0s"
	} else if sec < 60*2 {
		return fmt.Sprintf("%ds", sec)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		if s := int(d/time.Second) % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", minutes, s)
		}
		return fmt.Sprintf("%dm", minutes)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := int(d/time.Minute) % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if dy := (hours / 24) % 365; dy != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, dy)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}

// podStatus is kubectl's STATUS column: the most telling reason among the
// pod's and its containers' states.
func podStatus(p *api.Pod) string {
	reason := string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	hasRunning := false
	for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
		c := p.Status.ContainerStatuses[i]
		switch {
		case c.State.Waiting != nil && c.State.Waiting.Reason != "":
			reason = c.State.Waiting.Reason
		case c.State.Terminated != nil && c.State.Terminated.Reason != "":
			reason = c.State.Terminated.Reason
		case c.State.Terminated != nil && c.State.Terminated.Signal != 0:
			reason = fmt.Sprintf("Signal:%d", c.State.Terminated.Signal)
		case c.State.Terminated != nil:
			reason = fmt.Sprintf("ExitCode:%d", c.State.Terminated.ExitCode)
		case c.Ready && c.State.Running != nil:
			hasRunning = true
		}
	}
	if reason == "Completed" && hasRunning {
		reason = "Running"
	}
	if p.DeletionTimestamp != nil {
		if p.Status.Reason == api.PodReasonNodeLost {
			return "Unknown"
		}
		return "Terminating"
	}
	if reason == "" {
		return "Pending"
	}
	return reason
}

func readinessGates(p *api.Pod) string {
	if len(p.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	ok := 0
	for _, g := range p.Spec.ReadinessGates {
		for _, c := range p.Status.Conditions {
			if string(c.Type) == string(g.ConditionType) && c.Status == api.ConditionTrue {
				ok++
			}
		}
	}
	return fmt.Sprintf("%d/%d", ok, len(p.Spec.ReadinessGates))
}

func nodeStatus(n *api.Node) string {
	st := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == api.NodeReady {
			switch c.Status {
			case api.ConditionTrue:
				st = "Ready"
			case api.ConditionFalse:
				st = "NotReady"
			}
		}
	}
	if n.Spec.Unschedulable {
		st += ",SchedulingDisabled"
	}
	return st
}

func nodeRoles(labels map[string]string) string {
	var roles []string
	for k, v := range labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if r := strings.TrimPrefix(k, "node-role.kubernetes.io/"); r != "" {
				roles = append(roles, r)
			}
		case k == "kubernetes.io/role" && v != "":
			roles = append(roles, v)
		}
	}
	if len(roles) == 0 {
		return "<none>"
	}
	sort.Strings(roles)
	return strings.Join(roles, ",")
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

// docOf is obj as decoded JSON, for the given printers to read fields by
// path.
func docOf(obj api.Object) map[string]any {
	raw, _ := json.Marshal(obj)
	var doc map[string]any
	_ = json.Unmarshal(raw, &doc)
	return doc
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func lookup(doc map[string]any, path string) any {
	var cur any = doc
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func str(doc map[string]any, path string) string {
	s, _ := lookup(doc, path).(string)
	return s
}

func num(doc map[string]any, path string) int64 {
	f, _ := lookup(doc, path).(float64)
	return int64(f)
}

func size(doc map[string]any, path string) int {
	m, _ := lookup(doc, path).(map[string]any)
	return len(m)
}

// replicas is spec.replicas, which defaults to 1.
func replicas(doc map[string]any) int64 {
	if f, ok := lookup(doc, "spec.replicas").(float64); ok {
		return int64(f)
	}
	return 1
}

func labelString(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, m[k])
	}
	return strings.Join(parts, ",")
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
