package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/servicestest"
)

// Exercise 14 across the boundary:
//   - Slices, Rules, PartialRules, Lookup and Env are pure calls; what they changed in their
//     arguments comes back and is written over the caller's, so that the
//     suite sees a change to its input as it would in one process.
//   - NewIPRange and NewPortRange make a handle: the Allocator lives in
//     the program, each method a pure call there; the handle is freed
//     once the grader's Allocator is garbage. An error crosses as its
//     text, which is what the suite compares.
//   - New makes the EndpointSlice controller over the grader's client
//     (client.go), a handle whose Run is a call that stays open while
//     the grader's ctx lives, as the other controllers'.

type (
	slicesArgs struct {
		Svc      api.Service         `json:"svc"`
		Pods     []api.Pod           `json:"pods"`
		Existing []api.EndpointSlice `json:"existing"`
	}
	slicesResult struct {
		Changes servicenet.Changes `json:"changes"`
		Changed json.RawMessage    `json:"changed,omitempty"`
	}
	rulesArgs struct {
		Services []api.Service       `json:"services"`
		Slices   []api.EndpointSlice `json:"slices"`
	}
	rulesResult struct {
		Rules   string          `json:"rules"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	partialRulesArgs struct {
		Services []api.Service       `json:"services"`
		Slices   []api.EndpointSlice `json:"slices"`
		Changed  []string            `json:"changed"`
		Existing []string            `json:"existing"`
	}
	lookupArgs struct {
		Question servicenet.Question `json:"question"`
		Services []api.Service       `json:"services"`
		Slices   []api.EndpointSlice `json:"slices"`
	}
	lookupResult struct {
		Answer  servicenet.Answer `json:"answer"`
		Changed json.RawMessage   `json:"changed,omitempty"`
	}
	envArgs struct {
		Pod      api.Pod       `json:"pod"`
		Services []api.Service `json:"services"`
	}
	envResult struct {
		Env     []api.EnvVar    `json:"env"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	newRangeResult struct {
		ID  int64      `json:"id,omitempty"`
		Err *wireError `json:"err,omitempty"`
	}
	allocatorArgs struct {
		ID    int64  `json:"id"`
		Value string `json:"value,omitempty"`
	}
	allocatorResult struct {
		Value string     `json:"value,omitempty"`
		Has   bool       `json:"has,omitempty"`
		Free  int        `json:"free,omitempty"`
		Err   *wireError `json:"err,omitempty"`
	}
	sliceControllerArgs struct {
		ID      int64     `json:"id,omitempty"`
		Client  clientRef `json:"client,omitzero"`
		Workers int       `json:"workers,omitempty"`
	}
)

// servicesProgram is what one run of the learner's program keeps of
// exercise 14: its allocators and controllers, by handle.
type servicesProgram struct {
	backs backClients

	mu          sync.Mutex
	next        int64
	allocators  map[int64]servicenet.Allocator
	controllers loopTable
}

func (sp *servicesProgram) add(a servicenet.Allocator) int64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.next++
	sp.allocators[sp.next] = a
	return sp.next
}

func (sp *servicesProgram) allocatorOf(id int64) (servicenet.Allocator, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	a, ok := sp.allocators[id]
	if !ok {
		return nil, fmt.Errorf("remote: no allocator %d in this program", id)
	}
	return a, nil
}

// ServicesService serves exercise 14's contract, impl.
func ServicesService(impl servicestest.Impl) Service {
	sp := &servicesProgram{allocators: map[int64]servicenet.Allocator{}}
	sp.controllers = newLoopTable("EndpointSlice controller", &sp.mu, &sp.next)
	newRange := func(mk func(string) (servicenet.Allocator, error)) method {
		return func(c *serverCall) *frame {
			var r string
			if f := c.decode(&r); f != nil {
				return f
			}
			a, err := mk(r)
			res := newRangeResult{Err: toWire(err)}
			if a != nil {
				res.ID = sp.add(a)
			}
			return resultFrame(res, nil)
		}
	}
	onAllocator := func(fn func(a servicenet.Allocator, v string) allocatorResult) method {
		return func(c *serverCall) *frame {
			var args allocatorArgs
			if f := c.decode(&args); f != nil {
				return f
			}
			a, err := sp.allocatorOf(args.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return resultFrame(fn(a, args.Value), nil)
		}
	}
	methods := map[string]method{
		"services.NewIPRange": newRange(func(r string) (servicenet.Allocator, error) {
			return impl.NewIPRange(r)
		}),
		"services.NewPortRange": newRange(func(r string) (servicenet.Allocator, error) {
			return impl.NewPortRange(r)
		}),
		"allocator.Allocate": onAllocator(func(a servicenet.Allocator, v string) allocatorResult {
			return allocatorResult{Err: toWire(a.Allocate(v))}
		}),
		"allocator.AllocateNext": onAllocator(func(a servicenet.Allocator, _ string) allocatorResult {
			v, err := a.AllocateNext()
			return allocatorResult{Value: v, Err: toWire(err)}
		}),
		"allocator.Release": onAllocator(func(a servicenet.Allocator, v string) allocatorResult {
			return allocatorResult{Err: toWire(a.Release(v))}
		}),
		"allocator.Has": onAllocator(func(a servicenet.Allocator, v string) allocatorResult {
			return allocatorResult{Has: a.Has(v)}
		}),
		"allocator.Free": onAllocator(func(a servicenet.Allocator, _ string) allocatorResult {
			return allocatorResult{Free: a.Free()}
		}),
		"allocator.Drop": func(c *serverCall) *frame {
			var args allocatorArgs
			if f := c.decode(&args); f != nil {
				return f
			}
			sp.mu.Lock()
			delete(sp.allocators, args.ID)
			sp.mu.Unlock()
			return resultFrame(allocatorResult{}, nil)
		},
		"services.Slices": func(c *serverCall) *frame {
			var a slicesArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			res := slicesResult{Changes: impl.Slices(a.Svc, a.Pods, a.Existing)}
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"services.Rules": func(c *serverCall) *frame {
			var a rulesArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			res := rulesResult{Rules: impl.Rules(a.Services, a.Slices)}
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"services.PartialRules": func(c *serverCall) *frame {
			var a partialRulesArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			res := rulesResult{Rules: impl.PartialRules(a.Services, a.Slices, a.Changed, a.Existing)}
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"services.Lookup": func(c *serverCall) *frame {
			var a lookupArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			res := lookupResult{Answer: impl.Lookup(a.Question, a.Services, a.Slices)}
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"services.Env": func(c *serverCall) *frame {
			var a envArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			res := envResult{Env: impl.Env(a.Pod, a.Services)}
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"endpointslice.New": func(c *serverCall) *frame {
			var a sliceControllerArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			return sp.controllers.made(impl.New(sp.backs.reachBack(a.Client), servicenet.Options{Workers: a.Workers}), nil)
		},
	}
	addLoopMethods[sliceControllerArgs](methods, &sp.controllers, "endpointslice")
	return Service{exercise: "14-services", methods: methods}
}

// The grader's side.

// Services is a servicestest.Impl whose functions call the program's.
func Services(p *Program) servicestest.Impl {
	newRange := func(method string) func(string) (servicenet.Allocator, error) {
		return func(r string) (servicenet.Allocator, error) {
			var out newRangeResult
			pr := p.pureProc(method, r, &out)
			if out.ID == 0 {
				return nil, fromWire(out.Err)
			}
			a := &remoteAllocator{p: p, pr: pr, id: out.ID}
			runtime.AddCleanup(a, func(h handle) { h.free("allocator.Drop", allocatorArgs{ID: h.id}) }, handle{p: p, pr: pr, id: out.ID})
			return a, fromWire(out.Err)
		}
	}
	return servicestest.Impl{
		NewIPRange:   newRange("services.NewIPRange"),
		NewPortRange: newRange("services.NewPortRange"),
		Slices: func(svc api.Service, pods []api.Pod, existing []api.EndpointSlice) servicenet.Changes {
			var out slicesResult
			p.pure("services.Slices", slicesArgs{Svc: svc, Pods: pods, Existing: existing}, &out)
			if a, ok := changed[slicesArgs](out.Changed); ok {
				writeBackService(&svc, &a.Svc)
				copy(pods, a.Pods)
				copy(existing, a.Existing)
			}
			return out.Changes
		},
		New: func(c client.Interface, opts servicenet.Options) servicenet.Controller {
			ctrl := newRemoteLoop(p, "endpointslice", c, nil,
				func(cref clientRef, _ []backRef) any {
					return sliceControllerArgs{Client: cref, Workers: opts.Workers}
				},
				func(id int64) any { return sliceControllerArgs{ID: id} })
			if ctrl == nil {
				return nil
			}
			return ctrl
		},
		Rules: func(services []api.Service, slices []api.EndpointSlice) string {
			var out rulesResult
			p.pure("services.Rules", rulesArgs{Services: services, Slices: slices}, &out)
			if a, ok := changed[rulesArgs](out.Changed); ok {
				copy(services, a.Services)
				copy(slices, a.Slices)
			}
			return out.Rules
		},
		PartialRules: func(services []api.Service, slices []api.EndpointSlice, updated, existing []string) string {
			// updated is the contract's changed, renamed so as not to
			// hide the function changed.
			var out rulesResult
			p.pure("services.PartialRules", partialRulesArgs{Services: services, Slices: slices, Changed: updated, Existing: existing}, &out)
			if a, ok := changed[partialRulesArgs](out.Changed); ok {
				copy(services, a.Services)
				copy(slices, a.Slices)
				copy(updated, a.Changed)
				copy(existing, a.Existing)
			}
			return out.Rules
		},
		Lookup: func(q servicenet.Question, services []api.Service, slices []api.EndpointSlice) servicenet.Answer {
			var out lookupResult
			p.pure("services.Lookup", lookupArgs{Question: q, Services: services, Slices: slices}, &out)
			if a, ok := changed[lookupArgs](out.Changed); ok {
				copy(services, a.Services)
				copy(slices, a.Slices)
			}
			return out.Answer
		},
		Env: func(pod api.Pod, services []api.Service) []api.EnvVar {
			var out envResult
			p.pure("services.Env", envArgs{Pod: pod, Services: services}, &out)
			if a, ok := changed[envArgs](out.Changed); ok {
				writeBackPod(&pod, &a.Pod)
				copy(services, a.Services)
			}
			return out.Env
		},
	}
}

// writeBackService writes what a call changed in a Service it got by
// value over the caller's maps and slices, the parts the caller shares
// with it.
func writeBackService(dst, src *api.Service) {
	for _, m := range []struct{ dst, src map[string]string }{
		{dst.Labels, src.Labels}, {dst.Annotations, src.Annotations}, {dst.Spec.Selector, src.Spec.Selector},
	} {
		if m.dst != nil {
			clear(m.dst)
			maps.Copy(m.dst, m.src)
		}
	}
	copy(dst.Spec.Ports, src.Spec.Ports)
}

// remoteAllocator is an Allocator in the program: each method a pure
// call, with its own deadline.
type remoteAllocator struct {
	p  *Program
	pr *proc
	id int64
}

var _ servicenet.Allocator = (*remoteAllocator)(nil)

func (a *remoteAllocator) call(method, v string) allocatorResult {
	var out allocatorResult
	if err := a.pr.endpoint().call(context.Background(), method, allocatorArgs{ID: a.id, Value: v}, &out, a.p.callTimeout()); err != nil {
		var ce *callError
		if errors.As(err, &ce) {
			repanic(ce.msg)
		}
		repanic(err.Error())
	}
	return out
}

func (a *remoteAllocator) Allocate(v string) error {
	return fromWire(a.call("allocator.Allocate", v).Err)
}

func (a *remoteAllocator) AllocateNext() (string, error) {
	out := a.call("allocator.AllocateNext", "")
	return out.Value, fromWire(out.Err)
}

func (a *remoteAllocator) Release(v string) error {
	return fromWire(a.call("allocator.Release", v).Err)
}

func (a *remoteAllocator) Has(v string) bool { return a.call("allocator.Has", v).Has }

func (a *remoteAllocator) Free() int { return a.call("allocator.Free", "").Free }

// writeBackPod writes what a call changed in a pod it got by value over
// the parts the caller shares with it: its maps, its containers and the
// value of spec.enableServiceLinks.
func writeBackPod(dst, src *api.Pod) {
	for _, m := range []struct{ dst, src map[string]string }{
		{dst.Labels, src.Labels}, {dst.Annotations, src.Annotations},
	} {
		if m.dst != nil {
			clear(m.dst)
			maps.Copy(m.dst, m.src)
		}
	}
	copy(dst.Spec.Containers, src.Spec.Containers)
	if dst.Spec.EnableServiceLinks != nil && src.Spec.EnableServiceLinks != nil {
		*dst.Spec.EnableServiceLinks = *src.Spec.EnableServiceLinks
	}
}
