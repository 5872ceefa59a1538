package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/images"
)

// recordingRuntime keeps the config of the last CreateContainer.
type recordingRuntime struct {
	cri.Runtime
	got *cri.ContainerConfig
}

func (r *recordingRuntime) CreateContainer(_ context.Context, _ string, c *cri.ContainerConfig, _ *cri.PodSandboxConfig) (string, error) {
	r.got = c
	return "c1", nil
}

// testEnv is a small Env: one variable per Service of the pod's
// namespace, none when the pod turns links off.
func testEnv(pod api.Pod, svcs []api.Service) []api.EnvVar {
	if pod.Spec.EnableServiceLinks != nil && !*pod.Spec.EnableServiceLinks {
		return nil
	}
	var out []api.EnvVar
	for _, s := range svcs {
		if s.Namespace == pod.Namespace {
			out = append(out, api.EnvVar{Name: strings.ToUpper(s.Name) + "_SERVICE_HOST", Value: s.Spec.ClusterIP})
		}
	}
	return out
}

func startPodEnv(t *testing.T, c client.Interface, env func(api.Pod, []api.Service) []api.EnvVar) (*podEnv, *recordingRuntime) {
	t.Helper()
	rt := &recordingRuntime{}
	pe := newPodEnv(rt, c, env, "exercises/14-services", "127.96.0.10:1053")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	done, err := pe.start(ctx)
	t.Cleanup(func() { cancel(); <-done })
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return pe, rt
}

func TestPodEnvAddsServiceVariablesAndDNS(t *testing.T) {
	c := client.NewFake()
	ctx := context.Background()
	off := false
	for _, o := range []api.Object{
		&api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: api.ServiceSpec{ClusterIP: "127.96.0.12"}},
		&api.Service{ObjectMeta: api.ObjectMeta{Namespace: "other", Name: "db"}, Spec: api.ServiceSpec{ClusterIP: "127.96.0.13"}},
		&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "quiet"}, Spec: api.PodSpec{EnableServiceLinks: &off}},
	} {
		if _, err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	pe, rt := startPodEnv(t, c, testEnv)
	sandbox := &cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Namespace: "shop", Name: "client", UID: "u1"}}
	config := &cri.ContainerConfig{
		Args: []string{"-url", "http://$(WEB_SERVICE_HOST):80/", "$(NOPE)"},
		Envs: []cri.KeyValue{{Key: "WEB_SERVICE_HOST", Value: "mine"}, {Key: "URL", Value: "$(WEB_SERVICE_HOST)"}},
	}
	if _, err := pe.CreateContainer(ctx, "s1", config, sandbox); err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}
	want := []cri.KeyValue{
		{Key: images.EnvDNSServer, Value: "127.96.0.10:1053"},
		{Key: images.EnvDNSSearch, Value: "shop.svc.cluster.local svc.cluster.local cluster.local"},
		{Key: images.EnvDNSNdots, Value: "5"},
		{Key: "WEB_SERVICE_HOST", Value: "127.96.0.12"},
		// The container's own come last, so that they win.
		{Key: "WEB_SERVICE_HOST", Value: "mine"},
		{Key: "URL", Value: "127.96.0.12"},
	}
	if !slices.Equal(rt.got.Envs, want) {
		t.Errorf("CreateContainer(pod shop/client) envs = %v, want %v", rt.got.Envs, want)
	}
	if wantArgs := []string{"-url", "http://127.96.0.12:80/", "$(NOPE)"}; !slices.Equal(rt.got.Args, wantArgs) {
		t.Errorf("CreateContainer(pod shop/client) args = %q, want %q", rt.got.Args, wantArgs)
	}
	if config.Envs[1].Value != "$(WEB_SERVICE_HOST)" || config.Args[1] != "http://$(WEB_SERVICE_HOST):80/" {
		t.Errorf("CreateContainer changed the caller's config: %+v", config)
	}

	// The pod from the apiserver: enableServiceLinks false.
	sandbox.Metadata.Name = "quiet"
	if _, err := pe.CreateContainer(ctx, "s1", &cri.ContainerConfig{}, sandbox); err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}
	if got := len(rt.got.Envs); got != 3 {
		t.Errorf("CreateContainer(pod shop/quiet, enableServiceLinks false) envs = %v, want the 3 DNS variables only", rt.got.Envs)
	}
}

func TestPodEnvPanickingEnvFailsTheContainerOnly(t *testing.T) {
	c := client.NewFake()
	pe, _ := startPodEnv(t, c, func(api.Pod, []api.Service) []api.EnvVar { panic("not implemented: Env") })
	sandbox := &cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Namespace: "default", Name: "p"}}
	_, err := pe.CreateContainer(context.Background(), "s1", &cri.ContainerConfig{}, sandbox)
	if err == nil || !strings.Contains(err.Error(), "exercises/14-services: Env(pod default/p) panicked: not implemented: Env") {
		t.Errorf("CreateContainer with a panicking Env = %v, want the panic as an error", err)
	}
}

func TestExpandVars(t *testing.T) {
	vars := []cri.KeyValue{{Key: "A", Value: "1"}, {Key: "B", Value: "2"}}
	for in, want := range map[string]string{
		"":              "",
		"$(A)-$(B)":     "1-2",
		"$(C)$(A)":      "$(C)1",
		"x$(A":          "x$(A",
		"$A $(A) $((A)": "$A 1 $((A)",
	} {
		if got := expandVars(in, vars); got != want {
			t.Errorf("expandVars(%q) = %q, want %q", in, got, want)
		}
	}
}
