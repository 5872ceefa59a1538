package trace

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var out []time.Duration
		for _, n := range ns {
			out = append(out, time.Duration(n)*time.Millisecond)
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[99-i] = i + 1 // descending: Percentile sorts
	}
	for _, c := range []struct {
		name string
		ds   []time.Duration
		p    float64
		want time.Duration
	}{
		{"none", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"two, p50", ms(9, 3), 50, 3 * time.Millisecond},
		{"two, p99", ms(9, 3), 99, 9 * time.Millisecond},
		{"1..100, p50", ms(hundred...), 50, 50 * time.Millisecond},
		{"1..100, p99", ms(hundred...), 99, 99 * time.Millisecond},
		{"1..100, p100", ms(hundred...), 100, 100 * time.Millisecond},
		{"1..100, p0", ms(hundred...), 0, 1 * time.Millisecond},
		{"50 values, p99 is the largest", ms(hundred[50:]...), 99, 50 * time.Millisecond},
	} {
		before := append([]time.Duration(nil), c.ds...)
		if got := Percentile(c.ds, c.p); got != c.want {
			t.Errorf("Percentile(%s, %v) = %v, want %v", c.name, c.p, got, c.want)
		}
		for i := range before {
			if before[i] != c.ds[i] {
				t.Errorf("Percentile(%s, %v) reordered its input", c.name, c.p)
				break
			}
		}
	}
}

func TestPodHops(t *testing.T) {
	hops := PodHops(Build(relay()))
	if len(hops) != 1 {
		t.Fatalf("PodHops(Build(relay())) = %d pods, want 1", len(hops))
	}
	h := hops[0]
	want := Hops{Pod: "web-abc-x1", Accepted: at(5), Bound: at(8), Started: at(15), ReadyAt: at(120)}
	if h != want {
		t.Errorf("PodHops(Build(relay()))[0] = %+v, want %+v (Started is the Event at +15ms, before the status at +20ms)", h, want)
	}
	d, ok := h.Latencies()
	wantD := [4]time.Duration{3 * time.Millisecond, 7 * time.Millisecond, 105 * time.Millisecond, 115 * time.Millisecond}
	if d != wantD || ok != [4]bool{true, true, true, true} {
		t.Errorf("Hops.Latencies() = %v %v, want %v all ok", d, ok, wantD)
	}
	// A pod not Ready yet has the hops it has.
	d, ok = Hops{Accepted: at(0), Bound: at(4)}.Latencies()
	if ok != [4]bool{true, false, false, false} || d[0] != 4*time.Millisecond {
		t.Errorf("Hops{accepted, bound}.Latencies() = %v %v, want 4ms and nothing else", d, ok)
	}
	stats := Summarize([]Hops{h, {Pod: "b", Accepted: at(0), Bound: at(10), Started: at(20), ReadyAt: at(300)}, {Pod: "c", Accepted: at(0)}})
	if len(stats) != 4 || stats[0].Hop != "accepted->bound" || stats[0].N != 2 || stats[0].P50 != 3*time.Millisecond || stats[0].P99 != 10*time.Millisecond ||
		stats[3].P99 != 300*time.Millisecond {
		t.Errorf("Summarize(3 pods, one only accepted) = %+v, want accepted->bound over 2 pods, p50 3ms, p99 10ms; accepted->ready p99 300ms", stats)
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	entries := Build(relay())
	if err := WriteText(&b, entries); err != nil {
		t.Fatalf("WriteText = %v", err)
	}
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(got) != len(entries)+1 || got[0] != Header {
		t.Fatalf("WriteText(%d entries) = %d lines, first %q; want the header and a line each", len(entries), len(got), got[0])
	}
	want := "+0.007s    kube-scheduler           request  pod/web-abc-x1                  create pods/default/web-abc-x1/binding 201"
	if got[7] != want {
		t.Errorf("WriteText line 7 =\n %q, want\n %q", got[7], want)
	}
}

// svgDoc is what the tests read of a picture.
type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	Version string   `xml:"version,attr"`
	Groups  []struct {
		Class string `xml:"class,attr"`
		Text  string `xml:"text"`
	} `xml:"g"`
	Lines []struct {
		Class  string `xml:"class,attr"`
		Marker string `xml:"marker-end,attr"`
	} `xml:"line"`
	Circles []struct {
		Title string `xml:"title"`
	} `xml:"circle"`
}

func TestWriteSVG(t *testing.T) {
	entries := Build(relay())
	var b bytes.Buffer
	if err := WriteSVG(&b, entries); err != nil {
		t.Fatalf("WriteSVG = %v", err)
	}
	// Well-formed XML all the way through, not only what svgDoc reads.
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("WriteSVG wrote XML that does not parse: %v\n%s", err, b.String())
		}
	}
	var doc svgDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("xml.Unmarshal(WriteSVG) = %v", err)
	}
	if doc.XMLName.Space != "http://www.w3.org/2000/svg" || doc.Version != "1.1" {
		t.Errorf("WriteSVG's root = %v version %q, want svg in the SVG namespace, version 1.1", doc.XMLName, doc.Version)
	}
	var lanes []string
	for _, g := range doc.Groups {
		if g.Class == "lane" {
			lanes = append(lanes, g.Text)
		}
	}
	if got, want := strings.Join(lanes, ","), "admin,kube-controller-manager,kube-scheduler,node-1"; got != want {
		t.Errorf("WriteSVG(relay) lanes = %s, want %s (in the order each first acts)", got, want)
	}
	arrows := 0
	for _, l := range doc.Lines {
		if l.Class == "handoff" {
			arrows++
			if l.Marker != "url(#arrow)" {
				t.Errorf("WriteSVG: a handoff line has marker-end %q, want url(#arrow)", l.Marker)
			}
		}
	}
	// admin's create -> the controller manager's Event about it and its
	// ReplicaSet; the pod from the controller manager to the scheduler
	// (binding) to node-1 (kubelet).
	if arrows != 4 {
		t.Errorf("WriteSVG(relay) drew %d handoffs, want 4: %v", arrows, Handoffs(entries))
	}
	if len(doc.Circles) != len(entries) {
		t.Errorf("WriteSVG(%d entries) drew %d dots, want one each", len(entries), len(doc.Circles))
	}
	if len(doc.Circles) > 0 && !strings.Contains(doc.Circles[0].Title, "create deployments/default/web 201") {
		t.Errorf("WriteSVG: the first dot's title = %q, want its entry's text", doc.Circles[0].Title)
	}
}

func TestHandoffs(t *testing.T) {
	entries := Build(relay())
	var got []string
	for _, h := range Handoffs(entries) {
		got = append(got, entries[h.From].Component+"->"+entries[h.To].Component+" "+entries[h.To].Object)
	}
	want := []string{
		"admin->kube-controller-manager deployment/web",
		"admin->kube-controller-manager replicaset/web-abc",
		"kube-controller-manager->kube-scheduler pod/web-abc-x1",
		"kube-scheduler->node-1 pod/web-abc-x1",
	}
	diffLines(t, "Handoffs(Build(relay()))", got, want)
}

// Text with markup in it stays text in the picture.
func TestWriteSVGEscapes(t *testing.T) {
	entries := []Entry{{Time: t0, Component: "a<b>&", Kind: EventKind, Object: "pod/x", Text: `"quoted" <tag> & more`}}
	var b bytes.Buffer
	if err := WriteSVG(&b, entries); err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("xml.Unmarshal(WriteSVG(markup in the text)) = %v\n%s", err, b.String())
	}
	if len(doc.Circles) != 1 || !strings.Contains(doc.Circles[0].Title, `"quoted" <tag> & more`) {
		t.Errorf("WriteSVG(markup in the text): titles %+v, want the text as it was", doc.Circles)
	}
	b.Reset()
	if err := WriteSVG(&b, nil); err != nil || xml.Unmarshal(b.Bytes(), &doc) != nil {
		t.Errorf("WriteSVG(no entries) = %v, want an empty picture that parses", err)
	}
}
