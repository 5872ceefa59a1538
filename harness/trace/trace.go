package trace

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Kind is what an Entry records.
type Kind string

const (
	// Request is a request to the apiserver, from the audit log.
	Request Kind = "request"
	// EventKind is a core/v1 Event a component reported.
	EventKind Kind = "event"
	// Status is a change seen between two versions of an object.
	Status Kind = "status"
)

// Milestones of a pod, the ends of its hops.
const (
	Accepted = "accepted"
	Bound    = "bound"
	Started  = "started"
	Ready    = "ready"
)

// Entry is one line of a timeline.
type Entry struct {
	Time time.Time
	// Offset is the time since the timeline's first entry.
	Offset time.Duration
	// Component is who acted: kube-scheduler, kube-controller-manager,
	// node-1 (its kubelet), admin, learner, ...
	Component string
	Kind      Kind
	// Object is what it was about, as kubectl names it: pod/web-abc,
	// replicaset/web-7f8, deployment/web.
	Object string
	// Owner is the Object of Object's controller (a pod's ReplicaSet, a
	// ReplicaSet's Deployment) when it is in the timeline.
	Owner string
	// Text says what happened, in one line: `create pods/default/web
	// 201`, `Scheduled: Successfully assigned default/web to node-1`,
	// `phase Pending -> Running`, `Ready True`.
	Text string
	// Milestone is the pod milestone this entry is, if any (Accepted,
	// Bound, Started, Ready); Creation marks an object's creation.
	Milestone string
	Creation  bool
	// Estimated says the time is no record's (an audited request's, an
	// Event's) but when a live watch saw the change, or the seconds the
	// object carries: the audit log does not show the write, or not yet.
	Estimated bool
}

// Version is one version of a pod, ReplicaSet or Deployment as a watch
// delivered it (api.Pod, api.ReplicaSet, api.Deployment pointers).
type Version struct {
	Type   api.WatchEventType
	Object api.Object
	// Seen is when a live watch delivered it; zero for history replayed
	// from a resourceVersion.
	Seen time.Time
	// Initial marks the first version found of an object that was not
	// its creation (a list, or a watch history that starts after a
	// compaction): the baseline that later versions are compared with.
	Initial bool
}

// Input is what a timeline is built from.
type Input struct {
	// Resource is "pods" or "deployments"; Namespace and Name the object.
	Resource, Namespace, Name string
	// Audit is the audit log, in any order.
	Audit []AuditEvent
	// Events are core/v1 Events of the namespace (any involvedObject).
	Events []*api.Event
	// Versions are the versions of the namespace's pods, ReplicaSets and
	// Deployments, each object's in the order they were written.
	Versions []Version
}

// object is one object of the timeline and its versions.
type object struct {
	resource, name string
	uids           map[api.UID]bool
	owner          string // owner key
	versions       []Version
	created        *AuditEvent // its create in the audit log
}

func key(resource, name string) string { return resource + "/" + name }

// display is the kubectl name of a key: pods/web -> pod/web.
func display(k string) string {
	r, n, _ := strings.Cut(k, "/")
	return strings.TrimSuffix(r, "s") + "/" + n
}

func resourceOf(o api.Object) string {
	switch o.(type) {
	case *api.Pod:
		return "pods"
	case *api.ReplicaSet:
		return "replicasets"
	case *api.Deployment:
		return "deployments"
	}
	return ""
}

var kindResource = map[string]string{"Pod": "pods", "ReplicaSet": "replicasets", "Deployment": "deployments"}

// Build builds the timeline of in's object: sorted by time (at one
// instant a request, then the changes it made, then Events; else in the
// order found), offsets from the first.
// It never fails: what it cannot date or attribute is left out or marked
// "unknown".
func Build(in Input) []Entry {
	b := &builder{in: in, objs: map[string]*object{}}
	b.collect()
	related := b.related()
	b.linkCreates()
	b.versions(related)
	b.requests(related)
	b.events(related)
	return finish(b.out)
}

type builder struct {
	in    Input
	objs  map[string]*object
	order []string
	used  map[int]bool // audit events that dated a version
	out   []Entry
}

// collect groups the versions by object.
func (b *builder) collect() {
	for _, v := range b.in.Versions {
		if v.Object == nil {
			continue
		}
		m := v.Object.GetObjectMeta()
		if m.Namespace != "" && b.in.Namespace != "" && m.Namespace != b.in.Namespace {
			continue
		}
		r := resourceOf(v.Object)
		if r == "" {
			continue
		}
		k := key(r, m.Name)
		o := b.objs[k]
		if o == nil {
			o = &object{resource: r, name: m.Name, uids: map[api.UID]bool{}}
			b.objs[k] = o
			b.order = append(b.order, k)
		}
		if m.UID != "" {
			o.uids[m.UID] = true
		}
		for _, ref := range m.OwnerReferences {
			if ref.Controller != nil && *ref.Controller && kindResource[ref.Kind] != "" {
				o.owner = key(kindResource[ref.Kind], ref.Name)
			}
		}
		o.versions = append(o.versions, v)
	}
}

// related are the keys of the target and, for a Deployment, its
// ReplicaSets and their pods: target first, then in the order found.
func (b *builder) related() []string {
	target := key(b.in.Resource, b.in.Name)
	in := map[string]bool{target: true}
	out := []string{target}
	if _, ok := b.objs[target]; !ok {
		b.objs[target] = &object{resource: b.in.Resource, name: b.in.Name, uids: map[api.UID]bool{}}
	}
	// Owners come before dependents in two passes: ReplicaSets, then pods.
	for pass := 0; pass < 2; pass++ {
		for _, k := range b.order {
			o := b.objs[k]
			if !in[k] && o.owner != "" && in[o.owner] {
				in[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// creates are the successful creates of a resource in the namespace
// that name no object (the name comes from the body), by Done.
func (b *builder) creates(resource string) []int {
	var idx []int
	for i, a := range b.in.Audit {
		if a.Verb == "create" && a.Resource == resource && a.Subresource == "" && a.Name == "" && a.OK() &&
			(b.in.Namespace == "" || a.Namespace == b.in.Namespace) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(x, y int) bool { return b.in.Audit[idx[x]].Done.Before(b.in.Audit[idx[y]].Done) })
	return idx
}

// linkCreates matches the creates the audit log has with the objects
// whose creation a watch saw, from the newest back (the two may start at
// different points: a rotated log, a compacted history), while each
// create's time agrees with the object's creationTimestamp (seconds).
func (b *builder) linkCreates() {
	for _, r := range []string{"pods", "replicasets", "deployments"} {
		var born []*object
		for _, k := range b.order {
			o := b.objs[k]
			if o.resource != r || len(o.versions) == 0 {
				continue
			}
			for _, v := range o.versions {
				if v.Type == api.WatchAdded && !v.Initial {
					born = append(born, o)
					break
				}
			}
		}
		// A name in the audit log (a client that sent it in the path is
		// not a create, but a learner's apiserver may record one) links
		// directly.
		for i, a := range b.in.Audit {
			if a.Verb == "create" && a.Resource == r && a.Subresource == "" && a.Name != "" && a.OK() &&
				(b.in.Namespace == "" || a.Namespace == b.in.Namespace) {
				if o := b.objs[key(r, a.Name)]; o != nil && o.created == nil {
					o.created = &b.in.Audit[i]
				}
			}
		}
		creates := b.creates(r)
		for i, j := len(born)-1, len(creates)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
			o, a := born[i], &b.in.Audit[creates[j]]
			ct := o.versions[0].Object.GetObjectMeta().CreationTimestamp.Time
			if !ct.IsZero() && (a.Done.Before(ct.Truncate(time.Second)) || !a.Done.Before(ct.Add(2*time.Second))) {
				break
			}
			if o.created == nil {
				o.created = a
			}
		}
	}
}

// writeClass is which kind of write can have made a version: binding,
// status, delete, or "" (an update of the object itself).
func writeClass(a AuditEvent) string {
	switch {
	case a.Subresource == "binding":
		return "binding"
	case a.Subresource == "status":
		return "status"
	case a.Verb == "delete":
		return "delete"
	case a.Subresource == "" && (a.Verb == "update" || a.Verb == "patch"):
		return ""
	}
	return "-"
}

// writes are the successful writes naming o, by Done.
func (b *builder) writes(o *object) []int {
	var idx []int
	for i, a := range b.in.Audit {
		if a.Resource == o.resource && a.Name == o.name && a.OK() && (b.in.Namespace == "" || a.Namespace == b.in.Namespace) && writeClass(a) != "-" {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(x, y int) bool { return b.in.Audit[idx[x]].Done.Before(b.in.Audit[idx[y]].Done) })
	return idx
}

// step is one version of one object in the order the store wrote it.
type step struct {
	o *object
	i int
}

// steps are the versions of every object (related or not: each dated
// write bounds the others), in resourceVersion order when every
// resourceVersion is a number (the store's global revision, as the
// kata apiserver's are), else object by object.
func (b *builder) steps() []step {
	var out []step
	numeric := true
	rv := map[step]int64{}
	for _, k := range b.order {
		o := b.objs[k]
		for i, v := range o.versions {
			st := step{o, i}
			out = append(out, st)
			n, err := strconv.ParseInt(v.Object.GetObjectMeta().ResourceVersion, 10, 64)
			if err != nil {
				numeric = false
			}
			rv[st] = n
		}
	}
	if numeric {
		sort.SliceStable(out, func(i, j int) bool { return rv[out[i]] < rv[out[j]] })
	}
	return out
}

// versions dates every version of every object and adds the entries of
// the related ones: each object's creation and the changes between its
// versions.
func (b *builder) versions(related []string) {
	isRelated := map[*object]bool{}
	for _, k := range related {
		isRelated[b.objs[k]] = true
	}
	b.used = map[int]bool{}
	writes := map[*object][]int{}
	prev := map[*object]api.Object{}
	last := map[*object]time.Time{}
	// floor: a version cannot have been written before a write that
	// was received before an earlier revision was committed; the
	// newest such receipt bounds every later version from below, across
	// objects (a ReplicaSet's readyReplicas after its pod's Ready).
	var floor time.Time
	for _, st := range b.steps() {
		o, i := st.o, st.i
		v := o.versions[i]
		if _, ok := writes[o]; !ok {
			writes[o] = b.writes(o)
		}
		k := key(o.resource, o.name)
		owner := ""
		if o.owner != "" {
			owner = display(o.owner)
		}
		var out []Entry
		m := v.Object.GetObjectMeta()
		if i == 0 && (v.Initial || v.Type != api.WatchAdded) {
			prev[o], last[o] = v.Object, v.Seen
			continue
		}
		creator, guessed := "", false
		if v.Type == api.WatchAdded {
			// A creation (again, for an object recreated with its name).
			prev[o] = nil
			t, comp, kind, text := m.CreationTimestamp.Time, guessCreator(o), Status, "created"
			if !v.Seen.IsZero() {
				t = v.Seen
			}
			if a := o.created; a != nil && i == firstAdded(o) {
				t, comp = a.Done, Component(a.Actor())
				kind, text = Request, fmt.Sprintf("create %s/%s/%s %d", o.resource, a.Namespace, o.name, a.Code)
				// Not a floor: creates made at once (a ReplicaSet's
				// batch) may be linked to each other's, and a floor
				// too high would push every later version past its
				// write.
			}
			e := Entry{Time: t, Component: comp, Kind: kind, Object: display(k), Owner: owner, Text: text, Creation: true, Estimated: kind != Request}
			if o.resource == "pods" {
				e.Milestone = Accepted
			}
			out = append(out, e)
			last[o], creator, guessed = t, comp, e.Estimated
		}
		changes, class := diff(prev[o], v)
		prev[o] = v.Object
		var t time.Time
		comp, estimated := "", false
		switch {
		case v.Type == api.WatchAdded:
			// What the object was created with: the creator's doing.
			t, comp = last[o], creator
			estimated = guessed
		default:
			// The earliest unused write of its class that can have
			// made it: not before the version before it, nor before the
			// floor, nor before the object's own timestamps (seconds),
			// which skips writes that changed nothing (the apiserver
			// makes no version of those).
			own := later(last[o], evidence(v.Object).Truncate(time.Second))
			j := b.match(writes[o], class, later(own, floor))
			if j < 0 {
				// None past the floor: the floor is only as good as the
				// matches it came from; the object's own bounds remain.
				j = b.match(writes[o], class, own)
			}
			if j >= 0 {
				a := b.in.Audit[j]
				b.used[j] = true
				t, comp = a.Done, Component(a.Actor())
				floor = later(floor, a.Received)
			}
		}
		if t.IsZero() {
			comp, estimated = guessWriter(o, v.Object, class), true
			if !v.Seen.IsZero() {
				t = v.Seen
			} else {
				t = later(evidence(v.Object), last[o])
			}
		}
		last[o] = t
		for _, c := range changes {
			out = append(out, Entry{Time: t, Component: comp, Kind: Status, Object: display(k), Owner: owner, Text: c.text, Milestone: c.milestone, Estimated: estimated})
		}
		if isRelated[o] {
			b.out = append(b.out, out...)
		}
	}
}

// match is the earliest unused write among writes of class done at or
// after min; -1 for none.
func (b *builder) match(writes []int, class string, min time.Time) int {
	for _, j := range writes {
		a := b.in.Audit[j]
		if !b.used[j] && writeClass(a) == class && !a.Done.Before(min) {
			return j
		}
	}
	return -1
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func firstAdded(o *object) int {
	for i, v := range o.versions {
		if v.Type == api.WatchAdded && !v.Initial {
			return i
		}
	}
	return -1
}

// guessCreator is who created an object the audit log does not show:
// a controller's dependent was made by the controller manager.
func guessCreator(o *object) string {
	if o.owner != "" {
		return "kube-controller-manager"
	}
	return "unknown"
}

// guessWriter is who wrote a version the audit log does not show, from
// who does that upstream: the scheduler binds, a pod's kubelet writes its
// status, the controller manager a ReplicaSet's or Deployment's.
func guessWriter(o *object, obj api.Object, class string) string {
	switch {
	case o.resource == "pods" && class == "binding":
		return "kube-scheduler"
	case o.resource == "pods" && class == "status":
		if p, ok := obj.(*api.Pod); ok && p.Spec.NodeName != "" {
			return p.Spec.NodeName
		}
	case o.resource != "pods" && class == "status":
		return "kube-controller-manager"
	}
	return "unknown"
}

// evidence is the newest time an object carries about its state: its
// conditions' transitions, its containers' starts and ends; seconds
// only.
func evidence(obj api.Object) time.Time {
	var t time.Time
	later := func(u time.Time) {
		if u.After(t) {
			t = u
		}
	}
	// Not the deletionTimestamp: the apiserver sets it to when the
	// grace period ends, in the future of the write
	// (pkg/registry/rest/delete.go, BeforeDelete).
	later(obj.GetObjectMeta().CreationTimestamp.Time)
	switch o := obj.(type) {
	case *api.Pod:
		for _, c := range o.Status.Conditions {
			later(c.LastTransitionTime.Time)
		}
		for _, cs := range o.Status.ContainerStatuses {
			if r := cs.State.Running; r != nil {
				later(r.StartedAt.Time)
			}
			if x := cs.State.Terminated; x != nil {
				later(x.FinishedAt.Time)
			}
		}
	case *api.Deployment:
		for _, c := range o.Status.Conditions {
			later(c.LastUpdateTime.Time)
		}
	}
	return t
}

type change struct{ text, milestone string }

// diff is what changed from prev (nil: nothing before) to v, and the
// class of write that makes such a change: any change of the status,
// shown or not (observedGeneration, conditions of a ReplicaSet), is a
// status write, so that dating versions by writes stays in step.
func diff(prev api.Object, v Version) ([]change, string) {
	var out []change
	add := func(milestone, format string, args ...any) {
		out = append(out, change{fmt.Sprintf(format, args...), milestone})
	}
	pm := api.ObjectMeta{}
	if prev != nil {
		pm = *prev.GetObjectMeta()
	}
	m := v.Object.GetObjectMeta()
	class := ""
	if v.Type == api.WatchDeleted {
		add("", "deleted")
		return out, "delete"
	}
	if m.DeletionTimestamp != nil && pm.DeletionTimestamp == nil {
		grace := ""
		if m.DeletionGracePeriodSeconds != nil {
			grace = fmt.Sprintf(" (grace %ds)", *m.DeletionGracePeriodSeconds)
		}
		add("", "deletion requested%s", grace)
		class = "delete"
	}
	switch o := v.Object.(type) {
	case *api.Pod:
		var p api.Pod
		if pp, ok := prev.(*api.Pod); ok {
			p = *pp
		}
		if o.Spec.NodeName != p.Spec.NodeName {
			add(Bound, "nodeName %s", o.Spec.NodeName)
			if class == "" {
				class = "binding"
			}
		}
		n := len(out)
		if o.Status.Phase != p.Status.Phase {
			if p.Status.Phase == "" {
				add("", "phase %s", o.Status.Phase)
			} else {
				add("", "phase %s -> %s", p.Status.Phase, o.Status.Phase)
			}
		}
		for _, c := range o.Status.Conditions {
			was := api.ConditionStatus("")
			for _, pc := range p.Status.Conditions {
				if pc.Type == c.Type {
					was = pc.Status
				}
			}
			if c.Status != was {
				ms := ""
				if c.Type == api.PodReady && c.Status == api.ConditionTrue {
					ms = Ready
				}
				add(ms, "%s %s", c.Type, c.Status)
			}
		}
		for _, cs := range o.Status.ContainerStatuses {
			var was api.ContainerStatus
			found := false
			for _, pc := range p.Status.ContainerStatuses {
				if pc.Name == cs.Name {
					was, found = pc, true
				}
			}
			if now, before := stateText(cs.State), stateText(was.State); now != before || !found {
				ms := ""
				if cs.State.Running != nil {
					ms = Started
				}
				add(ms, "container %s %s", cs.Name, now)
			}
			if found && cs.Ready != was.Ready {
				if cs.Ready {
					add("", "container %s ready", cs.Name)
				} else {
					add("", "container %s not ready", cs.Name)
				}
			}
			if cs.RestartCount != was.RestartCount {
				add("", "container %s restartCount %d", cs.Name, cs.RestartCount)
			}
		}
		if class == "" && (len(out) > n || !reflect.DeepEqual(p.Status, o.Status)) {
			class = "status"
		}
	case *api.ReplicaSet:
		var p api.ReplicaSetStatus
		if pp, ok := prev.(*api.ReplicaSet); ok {
			p = pp.Status
		}
		n := len(out)
		counts(add, []string{"replicas", "readyReplicas", "availableReplicas"},
			[]int32{p.Replicas, p.ReadyReplicas, p.AvailableReplicas}, []int32{o.Status.Replicas, o.Status.ReadyReplicas, o.Status.AvailableReplicas})
		if class == "" && (len(out) > n || !reflect.DeepEqual(p, o.Status)) {
			class = "status"
		}
	case *api.Deployment:
		var p api.DeploymentStatus
		if pp, ok := prev.(*api.Deployment); ok {
			p = pp.Status
		}
		n := len(out)
		counts(add, []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"},
			[]int32{p.Replicas, p.UpdatedReplicas, p.ReadyReplicas, p.AvailableReplicas},
			[]int32{o.Status.Replicas, o.Status.UpdatedReplicas, o.Status.ReadyReplicas, o.Status.AvailableReplicas})
		if class == "" && (len(out) > n || !reflect.DeepEqual(p, o.Status)) {
			class = "status"
		}
	}
	return out, class
}

func counts(add func(string, string, ...any), names []string, was, now []int32) {
	for i := range names {
		if was[i] != now[i] {
			add("", "%s %d -> %d", names[i], was[i], now[i])
		}
	}
}

// stateText is a container state as kubectl describe says it.
func stateText(s api.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running"
	case s.Terminated != nil:
		if s.Terminated.Reason != "" {
			return "terminated " + s.Terminated.Reason
		}
		return fmt.Sprintf("terminated exit %d", s.Terminated.ExitCode)
	case s.Waiting != nil:
		if s.Waiting.Reason != "" {
			return "waiting " + s.Waiting.Reason
		}
		return "waiting"
	}
	return "unknown"
}

// requests adds the audited requests that name a related object, other
// than the creates linkCreates already turned into entries.
func (b *builder) requests(related []string) {
	in := map[string]string{}
	for _, k := range related {
		in[k] = ""
		if o := b.objs[k]; o != nil && o.owner != "" {
			in[k] = display(o.owner)
		}
	}
	for i, a := range b.in.Audit {
		if a.Name == "" || (b.in.Namespace != "" && a.Namespace != b.in.Namespace) {
			continue
		}
		switch a.Verb {
		case "get", "list", "watch":
			// Reads change nothing in the relay.
			continue
		}
		k := key(a.Resource, a.Name)
		owner, ok := in[k]
		if !ok {
			continue
		}
		if o := b.objs[k]; o != nil && o.created == &b.in.Audit[i] {
			// Its creation entry says it already.
			continue
		}
		path := fmt.Sprintf("%s/%s/%s", a.Resource, a.Namespace, a.Name)
		if a.Subresource != "" {
			path += "/" + a.Subresource
		}
		e := Entry{Time: a.Done, Component: Component(a.Actor()), Kind: Request, Object: display(k), Owner: owner,
			Text: fmt.Sprintf("%s %s %d", a.Verb, path, a.Code)}
		if a.Resource == "pods" && a.Subresource == "binding" && a.OK() {
			e.Milestone = Bound
		}
		b.out = append(b.out, e)
	}
}

// events adds the Events whose involvedObject is a related object.
func (b *builder) events(related []string) {
	in := map[string]string{}
	for _, k := range related {
		in[k] = ""
		if o := b.objs[k]; o != nil && o.owner != "" {
			in[k] = display(o.owner)
		}
	}
	for _, ev := range latestEvents(b.in.Events) {
		ref := ev.InvolvedObject
		r := kindResource[ref.Kind]
		if r == "" || (b.in.Namespace != "" && ref.Namespace != "" && ref.Namespace != b.in.Namespace) {
			continue
		}
		k := key(r, ref.Name)
		owner, ok := in[k]
		if !ok {
			continue
		}
		if o := b.objs[k]; o != nil && ref.UID != "" && len(o.uids) > 0 && !o.uids[ref.UID] {
			// An Event about another object of the same name.
			continue
		}
		t := ev.EventTime.Time
		if t.IsZero() {
			t = ev.FirstTimestamp.Time
		}
		if t.IsZero() {
			t = ev.CreationTimestamp.Time
		}
		text := ev.Reason + ": " + ev.Message
		if ev.Count > 1 {
			text += fmt.Sprintf(" (x%d)", ev.Count)
		}
		e := Entry{Time: t, Component: EventComponent(ev), Kind: EventKind, Object: display(k), Owner: owner, Text: text}
		// The kubelet's reasons are upstream's (pkg/kubelet/events/event.go:
		// Pulling, Pulled, Created, Started, Killing); Started is the
		// container running.
		if r == "pods" && ev.Reason == "Started" {
			e.Milestone = Started
		}
		b.out = append(b.out, e)
	}
}

// latestEvents keeps the last version of each Event (by namespace and
// name), where the first stood: a watch delivers an Event again each
// time its count goes up (upstream's EventCorrelator,
// staging/src/k8s.io/client-go/tools/record/events_cache.go).
func latestEvents(evs []*api.Event) []*api.Event {
	at := map[string]int{}
	var out []*api.Event
	for _, ev := range evs {
		if ev == nil {
			continue
		}
		if ev.Name == "" {
			out = append(out, ev)
			continue
		}
		k := ev.Namespace + "/" + ev.Name
		if i, ok := at[k]; ok {
			out[i] = ev
			continue
		}
		at[k] = len(out)
		out = append(out, ev)
	}
	return out
}

// EventComponent names who reported an Event: the kubelet as its node
// (source.host, or reportingInstance: cmd/kubelet/app/server.go,
// makeEventRecorder, reports as component kubelet on host NODE), the
// scheduler (a profile reports under its scheduler name,
// default-scheduler; pkg/scheduler/profile/profile.go) as
// kube-scheduler, a controller (deployment-controller,
// replicaset-controller, ...) as the kube-controller-manager it runs in.
func EventComponent(ev *api.Event) string {
	c := ev.Source.Component
	if c == "" {
		c = ev.ReportingController
	}
	switch {
	case c == "kubelet":
		if ev.Source.Host != "" {
			return ev.Source.Host
		}
		if ev.ReportingInstance != "" {
			return ev.ReportingInstance
		}
		return "kubelet"
	case c == "default-scheduler" || c == "kube-scheduler":
		return "kube-scheduler"
	case strings.HasSuffix(c, "-controller") || c == "kube-controller-manager":
		return "kube-controller-manager"
	case c == "":
		return "unknown"
	}
	return c
}

// finish sorts entries by time (stable: the order found breaks ties)
// and sets their offsets from the first.
func finish(out []Entry) []Entry {
	var keep []Entry
	for _, e := range out {
		if !e.Time.IsZero() {
			keep = append(keep, e)
		}
	}
	// At one instant the request comes before what it changed, and both
	// before an Event about it.
	rank := map[Kind]int{Request: 0, Status: 1, EventKind: 2}
	sort.SliceStable(keep, func(i, j int) bool {
		if !keep[i].Time.Equal(keep[j].Time) {
			return keep[i].Time.Before(keep[j].Time)
		}
		return rank[keep[i].Kind] < rank[keep[j].Kind]
	})
	for i := range keep {
		keep[i].Offset = keep[i].Time.Sub(keep[0].Time)
	}
	return keep
}
