package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

// The runtime protocol: a cri.Runtime of the grader's (a suite's
// harness/cri/fake, whose Calls the suite judges, or a wrapper of it)
// used by the learner's kubelet in the program, as the client protocol
// (client.go) serves the grader's client. Every method of
// cri.RuntimeService and cri.ImageService is one call from the program
// back to the grader, as CRI's are gRPC calls from the kubelet to its
// runtime (staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto):
//
//   - arguments and results cross as the JSON of harness/cri's types,
//     times as RFC 3339 with nanoseconds (the instant to the nanosecond
//     and its offset; not a monotonic reading, which no result needs);
//     beside it, where the maps and slices are that are empty but not nil
//     (the JSON's omitempty would make them nil), so that nil and empty
//     stay apart both ways, and a nil result stays nil (ImageStatus of an
//     absent image); a result is the program's own copy, so nothing the
//     program changes reaches the grader's runtime but through a call;
//   - errors cross as the rest of the protocol's (wire.go): their text,
//     and cri.ErrNotFound and cri.ErrTimeout among the sentinels they
//     wrap, so that cri.IsNotFound and errors.Is keep working (a bare
//     sentinel comes back as itself);
//   - the request carries the program's deadline, and the end of the
//     program's ctx cancels the grader's call, as gRPC cancels a call
//     whose ctx ended: the grader's runtime sees its ctx end and its
//     answer (ctx.Err() from a call it cut short) is the program's. A
//     grader's runtime still in the call hangGrace after the program's
//     ctx ended is left to finish alone: the program's call returns
//     ctx.Err().
//
// The grader shares a runtime for the length of the call that hands it
// to the program, or for the life of the handle that holds it (the
// kubelet's New), through shareRuntime and unshareRuntime, as clients
// are shared;
// the program makes its side from the backRef (reachBackRuntime).
// After the sharing ended, the program's calls fail at once with an error
// that says so.

// shareRuntime serves rt to the program from the grader's back server
// (store.go) and returns its reference: the zero reference for a nil rt.
// The caller unshares it when the call that hands it to the program
// ended.
func (p *Program) shareRuntime(rt cri.Runtime) (backRef, error) {
	if rt == nil {
		return backRef{}, nil
	}
	return p.share(rt)
}

// unshareRuntime stops serving the runtime ref names; a second time is
// nothing.
func (p *Program) unshareRuntime(ref backRef) { p.unshare(ref) }

// sharedRuntime is the runtime id names.
func sharedRuntime(reg *shares, id int64) (cri.Runtime, error) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	rt, ok := reg.byID[id].(cri.Runtime)
	if !ok {
		return nil, fmt.Errorf("remote: no runtime %d here: the grader shares a runtime only while the call that handed it over lasts", id)
	}
	return rt, nil
}

// runtimeArgs are the arguments of every method: the runtime's number
// and those of the method's own; Empty are where the maps and slices
// among them are that are empty, not nil.
type runtimeArgs struct {
	ID              int64                 `json:"id"`
	PodSandboxID    string                `json:"podSandboxId,omitempty"`
	ContainerID     string                `json:"containerId,omitempty"`
	Timeout         time.Duration         `json:"timeout,omitempty"`
	Cmd             []string              `json:"cmd,omitempty"`
	Image           cri.ImageSpec         `json:"image,omitzero"`
	SandboxConfig   *cri.PodSandboxConfig `json:"sandboxConfig,omitempty"`
	Config          *cri.ContainerConfig  `json:"config,omitempty"`
	SandboxFilter   *cri.PodSandboxFilter `json:"sandboxFilter,omitempty"`
	ContainerFilter *cri.ContainerFilter  `json:"containerFilter,omitempty"`
	Empty           []path                `json:"empty,omitempty"`
}

// runtimeAnswer is every method's answer: its value (null for none, or
// for a nil one), where the maps and slices in it are that are empty,
// not nil, and its error.
type runtimeAnswer struct {
	Value json.RawMessage `json:"value"`
	Empty []path          `json:"empty,omitempty"`
	Err   *wireError      `json:"err,omitempty"`
}

// emptyAt says where in v the maps and slices are that are empty but not
// nil: their JSON with omitempty is no JSON at all, which decodes as nil.
func emptyAt(v any) []path {
	var out []path
	walk(reflect.ValueOf(v), func(v reflect.Value, at path) bool {
		switch v.Kind() {
		case reflect.Map, reflect.Slice:
			if !v.IsNil() && v.Len() == 0 {
				out = append(out, append(path{}, at...))
			}
		}
		return true
	})
	return out
}

// restoreEmpty makes the maps and slices at the paths in v (a pointer)
// empty where the JSON decoded left them nil.
func restoreEmpty(v any, at []path) {
	root := reflect.ValueOf(v)
	for _, p := range at {
		f, ok := find(root, p)
		for ok && f.Kind() == reflect.Pointer && !f.IsNil() {
			f = f.Elem()
		}
		if !ok || !f.CanSet() || !f.IsNil() {
			continue
		}
		switch f.Kind() {
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		}
	}
}

// runtimeMethods serves the runtimes of reg: the grader's side.
func runtimeMethods(reg *shares) map[string]method {
	with := func(fn func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error)) method {
		return func(c *serverCall) *frame {
			var a runtimeArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreEmpty(&a, a.Empty)
			rt, err := sharedRuntime(reg, a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			v, err := fn(c.ctx, a, rt)
			data, merr := json.Marshal(v)
			if merr != nil {
				return &frame{Err: toWire(fmt.Errorf("remote: encoding the runtime's answer: %w", merr))}
			}
			return resultFrame(runtimeAnswer{Value: data, Empty: emptyAt(v), Err: toWire(err)}, nil)
		}
	}
	none := func(err error) (any, error) { return nil, err }
	return map[string]method{
		"runtime.Version": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.Version(ctx)
		}),
		"runtime.RunPodSandbox": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.RunPodSandbox(ctx, a.SandboxConfig)
		}),
		"runtime.StopPodSandbox": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return none(rt.StopPodSandbox(ctx, a.PodSandboxID))
		}),
		"runtime.RemovePodSandbox": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return none(rt.RemovePodSandbox(ctx, a.PodSandboxID))
		}),
		"runtime.PodSandboxStatus": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.PodSandboxStatus(ctx, a.PodSandboxID)
		}),
		"runtime.ListPodSandbox": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.ListPodSandbox(ctx, a.SandboxFilter)
		}),
		"runtime.CreateContainer": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.CreateContainer(ctx, a.PodSandboxID, a.Config, a.SandboxConfig)
		}),
		"runtime.StartContainer": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return none(rt.StartContainer(ctx, a.ContainerID))
		}),
		"runtime.StopContainer": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return none(rt.StopContainer(ctx, a.ContainerID, a.Timeout))
		}),
		"runtime.RemoveContainer": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return none(rt.RemoveContainer(ctx, a.ContainerID))
		}),
		"runtime.ListContainers": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.ListContainers(ctx, a.ContainerFilter)
		}),
		"runtime.ContainerStatus": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.ContainerStatus(ctx, a.ContainerID)
		}),
		"runtime.ExecSync": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.ExecSync(ctx, a.ContainerID, a.Cmd, a.Timeout)
		}),
		"runtime.PullImage": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.PullImage(ctx, a.Image)
		}),
		"runtime.ImageStatus": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.ImageStatus(ctx, a.Image)
		}),
		"runtime.ListImages": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return rt.ListImages(ctx)
		}),
		"runtime.RemoveImage": with(func(ctx context.Context, a runtimeArgs, rt cri.Runtime) (any, error) {
			return none(rt.RemoveImage(ctx, a.Image))
		}),
	}
}

// The program's side.

// reachBackRuntime is the program's cri.Runtime for the grader's runtime
// ref names: nil for the zero reference.
func (b *backClients) reachBackRuntime(ref backRef) cri.Runtime {
	if ref.ID == 0 {
		return nil
	}
	return &backRuntime{ep: b.endpoint(ref.Back), id: ref.ID}
}

// backRuntime is, in the program, a runtime of the grader's.
type backRuntime struct {
	ep *endpoint
	id int64
}

var _ cri.Runtime = (*backRuntime)(nil)

// runtimeCall calls method of the grader's runtime with a and answers
// its value and error.
func runtimeCall[T any](ctx context.Context, r *backRuntime, method string, a runtimeArgs) (T, error) {
	var v T
	a.ID = r.id
	a.Empty = emptyAt(a)
	var out runtimeAnswer
	if err := r.do(ctx, "runtime."+method, a, &out); err != nil {
		return v, err
	}
	if len(out.Value) > 0 {
		if err := json.Unmarshal(out.Value, &v); err != nil {
			return v, fmt.Errorf("remote: runtime.%s: the grader's answer does not decode: %w", method, err)
		}
		restoreEmpty(&v, out.Empty)
	}
	return v, fromWire(out.Err)
}

// do makes one call: the grader's answer, or ctx.Err() once the grader
// is still in the call hangGrace after ctx ended.
func (r *backRuntime) do(ctx context.Context, method string, args, reply any) error {
	cc, err := r.ep.open(ctx, method, args, 0, 0)
	if err != nil {
		return fmt.Errorf("%w (the grader serves a runtime only while the call that shared it lasts)", err)
	}
	defer cc.close()
	var (
		mu       sync.Mutex
		answered bool
		gaveUp   bool
		late     *time.Timer
	)
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if answered {
			return
		}
		late = time.AfterFunc(hangGrace, func() {
			mu.Lock()
			defer mu.Unlock()
			if !answered {
				gaveUp = true
				_ = cc.c.Close() // ends the wait below
			}
		})
	})
	f, err := cc.recv()
	stop()
	mu.Lock()
	answered = true
	if late != nil {
		late.Stop()
	}
	left := gaveUp
	mu.Unlock()
	if err != nil {
		if left {
			return ctx.Err()
		}
		return err
	}
	// A call cancelled on its way leaves its connection out of step.
	if !left && cc.settled() && !f.Goexit {
		cc.ep.put(cc.c)
		cc.c = nil
	}
	return cc.final(f, reply)
}

func (r *backRuntime) Version(ctx context.Context) (*cri.VersionResponse, error) {
	return runtimeCall[*cri.VersionResponse](ctx, r, "Version", runtimeArgs{})
}

func (r *backRuntime) RunPodSandbox(ctx context.Context, config *cri.PodSandboxConfig) (string, error) {
	return runtimeCall[string](ctx, r, "RunPodSandbox", runtimeArgs{SandboxConfig: config})
}

func (r *backRuntime) StopPodSandbox(ctx context.Context, podSandboxID string) error {
	_, err := runtimeCall[struct{}](ctx, r, "StopPodSandbox", runtimeArgs{PodSandboxID: podSandboxID})
	return err
}

func (r *backRuntime) RemovePodSandbox(ctx context.Context, podSandboxID string) error {
	_, err := runtimeCall[struct{}](ctx, r, "RemovePodSandbox", runtimeArgs{PodSandboxID: podSandboxID})
	return err
}

func (r *backRuntime) PodSandboxStatus(ctx context.Context, podSandboxID string) (*cri.PodSandboxStatus, error) {
	return runtimeCall[*cri.PodSandboxStatus](ctx, r, "PodSandboxStatus", runtimeArgs{PodSandboxID: podSandboxID})
}

func (r *backRuntime) ListPodSandbox(ctx context.Context, filter *cri.PodSandboxFilter) ([]*cri.PodSandbox, error) {
	return runtimeCall[[]*cri.PodSandbox](ctx, r, "ListPodSandbox", runtimeArgs{SandboxFilter: filter})
}

func (r *backRuntime) CreateContainer(ctx context.Context, podSandboxID string, config *cri.ContainerConfig, sandboxConfig *cri.PodSandboxConfig) (string, error) {
	return runtimeCall[string](ctx, r, "CreateContainer", runtimeArgs{PodSandboxID: podSandboxID, Config: config, SandboxConfig: sandboxConfig})
}

func (r *backRuntime) StartContainer(ctx context.Context, containerID string) error {
	_, err := runtimeCall[struct{}](ctx, r, "StartContainer", runtimeArgs{ContainerID: containerID})
	return err
}

func (r *backRuntime) StopContainer(ctx context.Context, containerID string, timeout time.Duration) error {
	_, err := runtimeCall[struct{}](ctx, r, "StopContainer", runtimeArgs{ContainerID: containerID, Timeout: timeout})
	return err
}

func (r *backRuntime) RemoveContainer(ctx context.Context, containerID string) error {
	_, err := runtimeCall[struct{}](ctx, r, "RemoveContainer", runtimeArgs{ContainerID: containerID})
	return err
}

func (r *backRuntime) ListContainers(ctx context.Context, filter *cri.ContainerFilter) ([]*cri.Container, error) {
	return runtimeCall[[]*cri.Container](ctx, r, "ListContainers", runtimeArgs{ContainerFilter: filter})
}

func (r *backRuntime) ContainerStatus(ctx context.Context, containerID string) (*cri.ContainerStatus, error) {
	return runtimeCall[*cri.ContainerStatus](ctx, r, "ContainerStatus", runtimeArgs{ContainerID: containerID})
}

func (r *backRuntime) ExecSync(ctx context.Context, containerID string, cmd []string, timeout time.Duration) (*cri.ExecResult, error) {
	return runtimeCall[*cri.ExecResult](ctx, r, "ExecSync", runtimeArgs{ContainerID: containerID, Cmd: cmd, Timeout: timeout})
}

func (r *backRuntime) PullImage(ctx context.Context, image cri.ImageSpec) (string, error) {
	return runtimeCall[string](ctx, r, "PullImage", runtimeArgs{Image: image})
}

func (r *backRuntime) ImageStatus(ctx context.Context, image cri.ImageSpec) (*cri.Image, error) {
	return runtimeCall[*cri.Image](ctx, r, "ImageStatus", runtimeArgs{Image: image})
}

func (r *backRuntime) ListImages(ctx context.Context) ([]*cri.Image, error) {
	return runtimeCall[[]*cri.Image](ctx, r, "ListImages", runtimeArgs{})
}

func (r *backRuntime) RemoveImage(ctx context.Context, image cri.ImageSpec) error {
	_, err := runtimeCall[struct{}](ctx, r, "RemoveImage", runtimeArgs{Image: image})
	return err
}
