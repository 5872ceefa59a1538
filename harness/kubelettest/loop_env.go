package kubelettest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 17: a container's environment and volumes (rule 10). The env
// list in order, each value from value ($(VAR) expanded, an undefined
// one left as it is, $$ a $), fieldRef, configMapKeyRef or secretKeyRef
// (read with Get; missing and optional: left out; missing and not
// optional: the container Waiting CreateContainerConfigError, started
// once what it needs exists), then envFrom's keys with their prefix, a
// name the env list gives left out (pkg/kubelet/kubelet_pods.go:
// makeEnvironmentVariables, podFieldSelectorRuntimeValue;
// third_party/forked/golang/expansion; kuberuntime_container.go:
// generateContainerConfig, whose failure is CreateContainerConfigError).
// emptyDir, configMap and secret volumes are directories
// RootDir/pods/UID/volumes/NAME, a file per key, mounted at each
// volumeMount's mountPath (kubelet_pods.go: makeMounts; the emptydir,
// configmap and secret volume plugins under pkg/volume).
//
// Where upstream and the contract's words part, the step follows
// upstream: envFrom is read first, so $(VAR) also expands envFrom's
// variables, and the env list wins over envFrom for a name both give.
// envFrom's keys come after the env list in any order (upstream's order
// is a map's).

// envVolTrue is a pointer to true (optional).
func envVolTrue() *bool { b := true; return &b }

// envVolCreateCalls are the successful CreateContainer calls of
// container name in pod "namespace/name".
func envVolCreateCalls(e *loopEnv, pod, name string) []envRTCall {
	var out []envRTCall
	for _, c := range envRTOnly(e.rts.calls(pod), "CreateContainer") {
		if c.Container == name && c.Err == nil {
			out = append(out, c)
		}
	}
	return out
}

// envVolDescribeEnv prints an environment.
func envVolDescribeEnv(kvs []cri.KeyValue) string {
	s := make([]string, len(kvs))
	for i, kv := range kvs {
		s[i] = fmt.Sprintf("%s=%q", kv.Key, kv.Value)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// envVolDescribeMounts prints mounts.
func envVolDescribeMounts(ms []cri.Mount) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = fmt.Sprintf("%s <- %s", m.ContainerPath, m.HostPath)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// envVolWaitConfigError waits until container name of pod is Waiting
// CreateContainerConfigError, and wants no container made for it.
func envVolWaitConfigError(e *loopEnv, pod, name, why string) {
	e.t.Helper()
	e.waitPod(pod, fmt.Sprintf("container %s Waiting CreateContainerConfigError: %s (rules 4, 10)", name, why), func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.ContainerStatuses, name)
		return s != nil && s.State.Waiting != nil && s.State.Waiting.Reason == "CreateContainerConfigError" && s.State.Waiting.Message != "", ""
	})
	if cs := envVolCreateCalls(e, envNamespace+"/"+pod, name); len(cs) > 0 {
		e.t.Errorf("pod %s, container %s: %s, want no container created: %s (rules 4, 10)", pod, name, envDescribeRT(cs), why)
	}
}

func envVolumesStep(t *suite.T, impl Impl) {
	e := newEnv(t, impl, fake.Options{})
	defer e.finish()
	e.opts.Address = "192.168.7.7"
	e.start()

	envCreate(e, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "app-config", Namespace: envNamespace},
		Data: map[string]string{"mode": "fast", "level": "3"}})
	envCreate(e, &api.Secret{ObjectMeta: api.ObjectMeta{Name: "app-secret", Namespace: envNamespace},
		Data: map[string][]byte{"token": []byte("s3cr3t")}})

	field := func(name, path string) api.EnvVar {
		return api.EnvVar{Name: name, ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: path}}}
	}
	cmKey := func(name, cm, key string, optional bool) api.EnvVar {
		ref := &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: cm}, Key: key}
		if optional {
			ref.Optional = envVolTrue()
		}
		return api.EnvVar{Name: name, ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: ref}}
	}
	web := e.pod("env-web", envContainer("app", "kata/sleep:1.0"))
	web.Spec.ServiceAccountName = "builder"
	app := &web.Spec.Containers[0]
	app.Env = []api.EnvVar{
		{Name: "A", Value: "alpha"},
		{Name: "B", Value: "$(A)-beta"},
		{Name: "C", Value: "$(LATER)/$(NOPE)/$$(A)"},
		{Name: "FROM_CFG", Value: "$(CFG_mode)!"},
		field("POD_NAME", "metadata.name"),
		field("POD_NAMESPACE", "metadata.namespace"),
		field("POD_UID", "metadata.uid"),
		field("NODE_NAME", "spec.nodeName"),
		field("SA", "spec.serviceAccountName"),
		field("POD_IP", "status.podIP"),
		field("HOST_IP", "status.hostIP"),
		cmKey("MODE", "app-config", "mode", false),
		{Name: "TOKEN", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "app-secret"}, Key: "token"}}},
		cmKey("MAYBE", "missing-config", "x", true),
		cmKey("MAYBE_KEY", "app-config", "nokey", true),
		{Name: "CFG_level", Value: "override"},
		{Name: "LATER", Value: "later"},
	}
	app.EnvFrom = []api.EnvFromSource{
		{Prefix: "CFG_", ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "app-config"}}},
		{SecretRef: &api.SecretEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "app-secret"}}},
		{Prefix: "GONE_", ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "missing-config"}, Optional: envVolTrue()}},
	}
	web.Spec.Volumes = []api.Volume{
		{Name: "scratch", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}},
		{Name: "conf", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "app-config"}}}},
		{Name: "creds", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "app-secret"}}},
		{Name: "maybe", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "missing-config"}, Optional: envVolTrue()}}},
	}
	app.VolumeMounts = []api.VolumeMount{
		{Name: "scratch", MountPath: "/scratch"},
		{Name: "conf", MountPath: "/etc/conf", ReadOnly: true},
		{Name: "creds", MountPath: "/etc/creds"},
	}
	web = e.create(web)

	// A key missing from a ConfigMap, and a ConfigMap missing, neither
	// optional.
	noKey := e.pod("env-nokey", envContainer("app", "kata/sleep:1.0"))
	noKey.Spec.Containers[0].Env = []api.EnvVar{cmKey("LATE", "app-config", "late", false)}
	noCM := e.pod("env-nocm", envContainer("app", "kata/sleep:1.0"))
	noCM.Spec.Containers[0].EnvFrom = []api.EnvFromSource{{ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "late-config"}}}}
	e.create(noKey)
	e.create(noCM)

	// ---- env-web: its environment and mounts.
	var calls []envRTCall
	e.waitFor("pod env-web: CreateContainer of container app (rules 4, 10)", func() (bool, string) {
		calls = envVolCreateCalls(e, "default/env-web", "app")
		return len(calls) > 0, "the pod: " + envDescribePod(e.getPod("env-web")) + "; the runtime calls: " + envDescribeRT(e.rts.calls("default/env-web"))
	})
	cfg := calls[0].Config
	podIP := ""
	for _, c := range envRTOnly(e.rts.calls("default/env-web"), "RunPodSandbox") {
		if c.Err == nil {
			st, err := e.rt.PodSandboxStatus(e.ctx, c.ID)
			if err != nil {
				t.Fatalf("kubelettest: reading sandbox %s in the fake runtime: %v", c.ID, err)
			}
			podIP = st.IP
		}
	}
	want := []cri.KeyValue{
		{Key: "A", Value: "alpha"},
		{Key: "B", Value: "alpha-beta"},
		{Key: "C", Value: "$(LATER)/$(NOPE)/$(A)"},
		{Key: "FROM_CFG", Value: "fast!"},
		{Key: "POD_NAME", Value: "env-web"},
		{Key: "POD_NAMESPACE", Value: envNamespace},
		{Key: "POD_UID", Value: string(web.UID)},
		{Key: "NODE_NAME", Value: envNode},
		{Key: "SA", Value: "builder"},
		{Key: "POD_IP", Value: podIP},
		{Key: "HOST_IP", Value: "192.168.7.7"},
		{Key: "MODE", Value: "fast"},
		{Key: "TOKEN", Value: "s3cr3t"},
		{Key: "CFG_level", Value: "override"},
		{Key: "LATER", Value: "later"},
	}
	wantFrom := []cri.KeyValue{{Key: "CFG_mode", Value: "fast"}, {Key: "token", Value: "s3cr3t"}}
	got := cfg.Envs
	head := got[:min(len(want), len(got))]
	tail := slices.Clone(got[len(head):])
	slices.SortFunc(tail, func(a, b cri.KeyValue) int { return strings.Compare(a.Key, b.Key) })
	if !slices.Equal(head, want) || !slices.Equal(tail, wantFrom) {
		t.Errorf("pod env-web (uid %s, podIP %s, Options.Address 192.168.7.7), container app: CreateContainer's envs %s,\nwant %s\nthen, in any order, %s:\n"+
			"the env list in order; value with $(VAR) expanded from envFrom's variables and the env before it, one undefined (or defined later) left as it is, $$ a $; "+
			"fieldRef metadata.name, metadata.namespace, metadata.uid, spec.nodeName, spec.serviceAccountName, status.podIP (the sandbox's IP), status.hostIP (Options.Address); "+
			"configMapKeyRef and secretKeyRef read with Get, optional and missing (a ConfigMap or a key) left out; then envFrom's keys with their prefix, a name the env list gives (CFG_level) left out, an optional source missing skipped (rule 10; kubelet_pods.go makeEnvironmentVariables)",
			web.UID, podIP, envVolDescribeEnv(got), envVolDescribeEnv(want), envVolDescribeEnv(wantFrom))
	}

	vol := func(name string) string {
		return filepath.Join(e.opts.RootDir, "pods", string(web.UID), "volumes", name)
	}
	wantMounts := []cri.Mount{{ContainerPath: "/scratch", HostPath: vol("scratch")}, {ContainerPath: "/etc/conf", HostPath: vol("conf")}, {ContainerPath: "/etc/creds", HostPath: vol("creds")}}
	gotMounts := make([]cri.Mount, len(cfg.Mounts))
	for i, m := range cfg.Mounts {
		gotMounts[i] = cri.Mount{ContainerPath: m.ContainerPath, HostPath: filepath.Clean(m.HostPath)}
	}
	if !slices.Equal(gotMounts, wantMounts) {
		t.Errorf("pod env-web (uid %s), container app: CreateContainer's mounts %s, want %s: each volumeMount, in order, at its mountPath from the volume's directory RootDir/pods/UID/volumes/NAME (rule 10; kubelet_pods.go makeMounts)",
			web.UID, envVolDescribeMounts(cfg.Mounts), envVolDescribeMounts(wantMounts))
	}
	for _, f := range []struct{ file, content string }{
		{"conf/mode", "fast"}, {"conf/level", "3"}, {"creds/token", "s3cr3t"},
	} {
		data, err := os.ReadFile(vol(f.file))
		if err != nil || string(data) != f.content {
			t.Errorf("pod env-web, volume file %s: read %q (error %v), want %q: a configMap or secret volume is a file per key (rule 10)", vol(f.file), data, err, f.content)
		}
	}
	for _, d := range []string{"scratch", "maybe"} {
		if fi, err := os.Stat(vol(d)); err != nil || !fi.IsDir() {
			t.Errorf("pod env-web, volume %s: os.Stat(%s) error %v, want a directory: an emptyDir, or an optional configMap that is missing, is an empty directory (rule 10)", d, vol(d), err)
		}
	}
	if entries, err := os.ReadDir(vol("scratch")); err == nil && len(entries) > 0 {
		t.Errorf("pod env-web, emptyDir volume scratch: %d entries in %s, want it empty (rule 10)", len(entries), vol("scratch"))
	}
	e.waitPod("env-web", "phase Running, container app running (rules 4, 7)", func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.ContainerStatuses, "app")
		return p.Status.Phase == api.PodRunning && s != nil && s.State.Running != nil, ""
	})

	// ---- a missing key, a missing ConfigMap: CreateContainerConfigError
	// until they exist.
	envVolWaitConfigError(e, "env-nokey", "app", "its env LATE reads key late of ConfigMap app-config, which has none, and is not optional")
	envVolWaitConfigError(e, "env-nocm", "app", "its envFrom reads ConfigMap late-config, which does not exist, and is not optional")
	cms := client.For[*api.ConfigMap](e.fake)
	cm, err := cms.Get(e.ctx, envNamespace, "app-config")
	if err != nil {
		t.Fatalf("kubelettest: reading ConfigMap app-config from the fake: %v", err)
	}
	cm.Data["late"] = "now"
	if _, err := cms.Update(e.ctx, cm); err != nil {
		t.Fatalf("kubelettest: updating ConfigMap app-config in the fake: %v", err)
	}
	envCreate(e, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "late-config", Namespace: envNamespace}, Data: map[string]string{"ready": "yes"}})
	for _, c := range []struct {
		pod  string
		want cri.KeyValue
	}{{"env-nokey", cri.KeyValue{Key: "LATE", Value: "now"}}, {"env-nocm", cri.KeyValue{Key: "ready", Value: "yes"}}} {
		var calls []envRTCall
		e.waitFor(fmt.Sprintf("pod %s: container app created once what its env reads exists, with %s=%q (rules 4, 10: a later sync tries again)", c.pod, c.want.Key, c.want.Value), func() (bool, string) {
			calls = envVolCreateCalls(e, envNamespace+"/"+c.pod, "app")
			return len(calls) > 0, "the pod: " + envDescribePod(e.getPod(c.pod))
		})
		if envs := calls[0].Config.Envs; !slices.Contains(envs, c.want) {
			t.Errorf("pod %s, container app: CreateContainer's envs %s, want %s=%q (rule 10)", c.pod, envVolDescribeEnv(envs), c.want.Key, c.want.Value)
		}
	}
}
