package framework

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

func TestCodeNames(t *testing.T) {
	for c, want := range map[Code]string{Success: "Success", Unschedulable: "Unschedulable", UnschedulableAndUnresolvable: "UnschedulableAndUnresolvable", Skip: "Skip", Code(42): "Code(42)"} {
		if got := c.String(); got != want {
			t.Errorf("Code(%d).String() = %q, want %q", int(c), got, want)
		}
	}
}

func TestStatus(t *testing.T) {
	var nilStatus *Status
	if !nilStatus.IsSuccess() || nilStatus.Message() != "" {
		t.Errorf("nil Status: IsSuccess() = %v, Message() = %q; want true, \"\"", nilStatus.IsSuccess(), nilStatus.Message())
	}
	s := NewStatus(Unschedulable, "Insufficient cpu", "Insufficient memory").WithPlugin("NodeResourcesFit")
	if s.IsSuccess() {
		t.Errorf("%+v.IsSuccess() = true, want false", s)
	}
	if got, want := s.Message(), "Insufficient cpu, Insufficient memory"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	if s.Plugin != "NodeResourcesFit" {
		t.Errorf("WithPlugin: Plugin = %q, want NodeResourcesFit", s.Plugin)
	}
	if !NewStatus(Success).IsSuccess() {
		t.Error("NewStatus(Success).IsSuccess() = false, want true")
	}
}

// The contract crosses a process boundary as JSON (rule 9): every shape
// must come back equal.
func TestJSONRoundTrip(t *testing.T) {
	ni := NodeInfo{
		Node:             &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}},
		Pods:             []*api.Pod{{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}}},
		Requested:        Resource{MilliCPU: 100, Memory: 1 << 20},
		NonZeroRequested: Resource{MilliCPU: 100, Memory: 200 << 20},
		Allocatable:      Resource{MilliCPU: 4000, Memory: 32 << 30, AllowedPodNumber: 110},
		UsedPorts:        []HostPort{{IP: "0.0.0.0", Protocol: "TCP", Port: 80}},
	}
	fe := FitError{Pod: "default/web", NumAllNodes: 3, Diagnosis: Diagnosis{NodeToStatus: map[string]*Status{"node-1": NewStatus(Unschedulable, "Insufficient cpu").WithPlugin("NodeResourcesFit")}, PostFilterMsg: "preemption: x"}, Message: "0/3 nodes are available"}
	qi := QueuedPodInfo{Pod: ni.Pods[0], Timestamp: time.Unix(100, 0).UTC(), Attempts: 2, UnschedulablePlugins: []string{"NodeAffinity"}}
	for _, v := range []any{&ni, &fe, &qi} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("Marshal(%T) = %v", v, err)
		}
		b2, err := json.Marshal(roundTrip(t, b, v))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != string(b2) {
			t.Errorf("%T round trip:\n got %s\nwant %s", v, b2, b)
		}
	}
	if fe.Error() != fe.Message {
		t.Errorf("FitError.Error() = %q, want the Message %q", fe.Error(), fe.Message)
	}
}

func roundTrip(t *testing.T, b []byte, like any) any {
	t.Helper()
	var out any
	switch like.(type) {
	case *NodeInfo:
		out = new(NodeInfo)
	case *FitError:
		out = new(FitError)
	case *QueuedPodInfo:
		out = new(QueuedPodInfo)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("Unmarshal(%s) = %v", b, err)
	}
	return out
}
