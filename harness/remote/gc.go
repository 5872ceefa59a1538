package remote

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/gctest"
)

// Exercise 08's contract crosses the boundary in two parts:
//
//   - Classify and Decide are pure calls: their arguments and results
//     cross as JSON, with the exact times the JSON cuts (exact.go), and
//     Classify's classes with the memory they share with the item (a
//     Solid that is the item's own OwnerReferences). Both take their
//     arguments by value, so a change the call made comes back only
//     through the memory the caller shares with them (writeThrough): the
//     items' maps, the elements of their slices, what their pointers
//     point at, as in one process; a field of the item itself stays the
//     caller's.
//   - New makes a handle over the grader's client (client.go), with the
//     kinds as the resources they name, Workers as a number and the
//     grader's Clock reached back (reachback.go: a nil Clock stays nil, and
//     the program's collector then reads the system clock). Run is a call
//     that stays open while the grader's ctx lives, as the ReplicaSet
//     controller's (runLoop).

// The arguments and answers of exercise 08's methods.
type (
	classifyArgs struct {
		Item   gc.Item    `json:"item"`
		Owners []*gc.Item `json:"owners"` // no omitempty: nil and empty stay apart
		Times  []timeAt   `json:"times,omitempty"`
	}
	classifyResult struct {
		Classes gc.Classes      `json:"classes"`
		Aliases []alias         `json:"aliases,omitempty"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	decideArgs struct {
		In    gc.Input `json:"in"`
		Times []timeAt `json:"times,omitempty"`
	}
	decideResult struct {
		Action  gc.Action       `json:"action"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	gcArgs struct {
		ID      int64      `json:"id,omitempty"`
		Client  clientRef  `json:"client,omitzero"`
		Kinds   []wireKind `json:"kinds"` // nil and empty stay apart
		Clock   backRef    `json:"clock,omitzero"`
		Workers int        `json:"workers,omitempty"`
	}
)

// gcProgram is what one run of the learner's program keeps of exercise
// 08: its collectors, by handle.
type gcProgram struct {
	impl  gctest.Impl
	backs backClients

	mu         sync.Mutex
	next       int64
	collectors loopTable
}

// handles counts the collectors the program holds (for the tests).
func (gp *gcProgram) handles() int {
	gp.mu.Lock()
	defer gp.mu.Unlock()
	return gp.collectors.len()
}

// GCService serves exercise 08's contract, impl: Classify and Decide, and
// collectors over the grader's client and clock.
func GCService(impl gctest.Impl) Service {
	return newGCProgram(impl).service()
}

func newGCProgram(impl gctest.Impl) *gcProgram {
	gp := &gcProgram{impl: impl}
	gp.collectors = newLoopTable("garbage collector", &gp.mu, &gp.next)
	return gp
}

func (gp *gcProgram) service() Service {
	impl := gp.impl
	methods := map[string]method{
		"gc.Classify": func(c *serverCall) *frame {
			var a classifyArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			res := classifyResult{Classes: impl.Classify(a.Item, a.Owners)}
			res.Aliases = aliases(&res.Classes, &a)
			a.Times = nil
			a.Times = exactTimes(&a)
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"gc.Decide": func(c *serverCall) *frame {
			var a decideArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			action := impl.Decide(a.In)
			a.Times = nil
			a.Times = exactTimes(&a)
			return resultFrame(decideResult{Action: action, Changed: changedArgs(c, &a)}, nil)
		},
		"gc.New": func(c *serverCall) *frame {
			var a gcArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			opts := gc.Options{Workers: a.Workers}
			if a.Kinds != nil {
				opts.Kinds = make([]api.Kind, len(a.Kinds))
				for i, wk := range a.Kinds {
					k, err := wk.kind()
					if err != nil {
						return &frame{Err: toWire(err)}
					}
					opts.Kinds[i] = k
				}
			}
			ck := gp.backs.clock(a.Clock)
			if ck != nil {
				opts.Clock = ck // a nil *backClock would be a Clock that is not nil
			}
			return gp.collectors.made(impl.New(gp.backs.reachBack(a.Client), opts), ck)
		},
	}
	addLoopMethods[gcArgs](methods, &gp.collectors, "gc")
	return Service{exercise: "08-garbagecollector", methods: methods}
}

// The grader's side.

// GC is a gctest.Impl whose functions call the program's: Classify and
// Decide as pure calls, and collectors as handles in the program that
// runs when they are made.
func GC(p *Program) gctest.Impl {
	return gctest.Impl{
		Classify: func(item gc.Item, owners []*gc.Item) gc.Classes {
			args := classifyArgs{Item: item, Owners: owners}
			args.Times = exactTimes(&args)
			var out classifyResult
			p.pure("gc.Classify", args, &out)
			if a, ok := changed[classifyArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				writeThrough(&args.Item, &a.Item)
				writeThrough(&args.Owners, &a.Owners)
			}
			share(&out.Classes, &args, out.Aliases)
			return out.Classes
		},
		Decide: func(in gc.Input) gc.Action {
			args := decideArgs{In: in}
			args.Times = exactTimes(&args)
			var out decideResult
			p.pure("gc.Decide", args, &out)
			if a, ok := changed[decideArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				writeThrough(&args.In, &a.In)
			}
			return out.Action
		},
		New: func(c client.Interface, opts gc.Options) gc.Controller {
			a := gcArgs{Workers: opts.Workers}
			if opts.Kinds != nil {
				a.Kinds = make([]wireKind, len(opts.Kinds))
				for i, k := range opts.Kinds {
					a.Kinds[i] = toWireKind(k)
				}
			}
			ctrl := newRemoteLoop(p, "gc", c,
				[]func() (backRef, error){func() (backRef, error) { return p.shareClock(opts.Clock) }},
				func(cref clientRef, refs []backRef) any {
					a.Client, a.Clock = cref, refs[0]
					return a
				},
				func(id int64) any { return gcArgs{ID: id} })
			if ctrl == nil {
				return nil
			}
			return ctrl
		},
	}
}

// writeThrough writes what a call in the program left in *src over *dst,
// the grader's copy of the arguments it passed by value, through the
// memory that copy shares with the caller's: where both sides hold a
// map, a slice or a pointer, it writes into what they refer to rather
// than replacing the reference, so the caller sees the change as it
// would have in process (a sorted OwnerReferences, an owner's label, a
// dependent's name), while a field of the copy itself (the item's name)
// changes only the copy, as in process; elements the call moved are moved
// (writeElems). It cannot tell a map or slice the call changed from one
// it replaced by an equal new one: either way the caller sees the change.
// Nil and empty maps and slices are alike (their JSON is).
func writeThrough[T any](dst, src *T) {
	if dst == nil || src == nil {
		return
	}
	writeValue(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem())
}

func writeValue(dst, src reflect.Value) {
	switch dst.Kind() {
	case reflect.Pointer:
		if dst.IsNil() || src.IsNil() {
			if dst.IsNil() != src.IsNil() {
				dst.Set(src)
			}
			return
		}
		writeValue(dst.Elem(), src.Elem())
	case reflect.Struct:
		if !allExported(dst.Type()) { // time.Time: a value, whole
			if !reflect.DeepEqual(dst.Interface(), src.Interface()) {
				dst.Set(src)
			}
			return
		}
		for i := range dst.NumField() {
			writeValue(dst.Field(i), src.Field(i))
		}
	case reflect.Map:
		if dst.Len() == 0 && src.Len() == 0 {
			return
		}
		if dst.IsNil() || src.IsNil() {
			dst.Set(src) // only the reference to a map that was or is now empty
			return
		}
		for _, k := range dst.MapKeys() {
			if !src.MapIndex(k).IsValid() {
				dst.SetMapIndex(k, reflect.Value{})
			}
		}
		for it := src.MapRange(); it.Next(); {
			if cur := dst.MapIndex(it.Key()); !cur.IsValid() || !reflect.DeepEqual(cur.Interface(), it.Value().Interface()) {
				dst.SetMapIndex(it.Key(), it.Value())
			}
		}
	case reflect.Slice:
		if dst.Len() == 0 && src.Len() == 0 {
			return
		}
		writeElems(dst, src)
		if dst.Len() != src.Len() {
			dst.Set(src) // a new slice where the reference is
		}
	case reflect.Array:
		for i := range dst.Len() {
			writeValue(dst.Index(i), src.Index(i))
		}
	default:
		if !reflect.DeepEqual(dst.Interface(), src.Interface()) {
			dst.Set(src)
		}
	}
}

// writeElems writes src's elements over dst's, as far as both go. An
// element the call left is left; one that is another of dst's elements
// as it was (the call sorted or reversed them) gets that element, its
// pointers and maps with it, as a permutation in process would move
// them; any other is written through its own pointers and maps, unless
// the call moved its element elsewhere, where it is set whole.
func writeElems(dst, src reflect.Value) {
	n := min(dst.Len(), src.Len())
	orig := make([]reflect.Value, dst.Len())
	was := make([]string, dst.Len())
	for i := range orig {
		orig[i] = reflect.New(dst.Type().Elem()).Elem()
		orig[i].Set(dst.Index(i))
		was[i] = jsonOf(orig[i])
	}
	from := make([]int, n) // the element of orig that src[i] is, or -1
	taken := make([]bool, len(orig))
	now := make([]string, n)
	for i := range n {
		now[i], from[i] = jsonOf(src.Index(i)), -1
		if now[i] == was[i] {
			from[i], taken[i] = i, true
		}
	}
	for i := range n {
		for j := 0; from[i] < 0 && j < len(orig); j++ {
			if !taken[j] && now[i] == was[j] {
				from[i], taken[j] = j, true
			}
		}
	}
	for i := range n {
		switch {
		case from[i] == i:
		case from[i] >= 0:
			dst.Index(i).Set(orig[from[i]])
		case taken[i]:
			dst.Index(i).Set(src.Index(i))
		default:
			writeValue(dst.Index(i), src.Index(i))
		}
	}
}

// jsonOf is v's JSON, to tell elements apart as the wire does.
func jsonOf(v reflect.Value) string {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return "!" + err.Error()
	}
	return string(b)
}

// allExported reports whether every field of struct type t is exported,
// so that writeValue can go field by field.
func allExported(t reflect.Type) bool {
	for i := range t.NumField() {
		if !t.Field(i).IsExported() {
			return false
		}
	}
	return true
}
