package kubelet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
)

// Env and volumes (rule 10): a container's environment
// (pkg/kubelet/kubelet_pods.go: makeEnvironmentVariables,
// podFieldSelectorRuntimeValue; third_party/forked/golang/expansion for
// $(VAR)) and its mounts (kubelet_pods.go: makeMounts; the emptyDir,
// configMap and secret volume plugins under pkg/volume).

// makeEnv is container c's environment in pod, whose IP is podIP: its
// env, in order, then envFrom's keys (by source, each source's keys in
// order), a name already given by env left out, as upstream lets env
// win. $(VAR) expands from envFrom's variables and the env before it,
// as upstream reads envFrom first. A ConfigMap, a Secret or a key that is
// missing and not optional is an error: CreateContainerConfigError.
func (k *kubelet) makeEnv(ctx context.Context, pod *api.Pod, c api.Container, podIP string) ([]cri.KeyValue, error) {
	var from []cri.KeyValue
	for _, src := range c.EnvFrom {
		var data map[string]string
		switch {
		case src.ConfigMapRef != nil:
			cm, err := k.configMap(ctx, pod.Namespace, src.ConfigMapRef.Name)
			if err != nil {
				if client.IsNotFound(err) && isTrue(src.ConfigMapRef.Optional) {
					continue
				}
				return nil, fmt.Errorf("couldn't get configMap %s/%s: %w", pod.Namespace, src.ConfigMapRef.Name, err)
			}
			data = cm.Data
		case src.SecretRef != nil:
			s, err := k.secret(ctx, pod.Namespace, src.SecretRef.Name)
			if err != nil {
				if client.IsNotFound(err) && isTrue(src.SecretRef.Optional) {
					continue
				}
				return nil, fmt.Errorf("couldn't get secret %s/%s: %w", pod.Namespace, src.SecretRef.Name, err)
			}
			data = secretData(s)
		}
		for _, key := range sortedKeys(data) {
			from = setEnv(from, src.Prefix+key, data[key])
		}
	}
	vars := map[string]string{}
	for _, kv := range from {
		vars[kv.Key] = kv.Value
	}
	var env []cri.KeyValue
	for _, e := range c.Env {
		value := e.Value
		switch {
		case value != "":
			value = expand(value, vars)
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			v, err := k.fieldValue(pod, e.ValueFrom.FieldRef.FieldPath, podIP)
			if err != nil {
				return nil, err
			}
			value = v
		case e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			cm, err := k.configMap(ctx, pod.Namespace, ref.Name)
			if err != nil {
				if client.IsNotFound(err) && isTrue(ref.Optional) {
					continue
				}
				return nil, fmt.Errorf("couldn't get configMap %s/%s: %w", pod.Namespace, ref.Name, err)
			}
			v, ok := cm.Data[ref.Key]
			if !ok {
				if isTrue(ref.Optional) {
					continue
				}
				return nil, fmt.Errorf("couldn't find key %s in ConfigMap %s/%s", ref.Key, pod.Namespace, ref.Name)
			}
			value = v
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			s, err := k.secret(ctx, pod.Namespace, ref.Name)
			if err != nil {
				if client.IsNotFound(err) && isTrue(ref.Optional) {
					continue
				}
				return nil, fmt.Errorf("couldn't get secret %s/%s: %w", pod.Namespace, ref.Name, err)
			}
			v, ok := secretData(s)[ref.Key]
			if !ok {
				if isTrue(ref.Optional) {
					continue
				}
				return nil, fmt.Errorf("couldn't find key %s in Secret %s/%s", ref.Key, pod.Namespace, ref.Name)
			}
			value = v
		}
		vars[e.Name] = value
		env = setEnv(env, e.Name, value)
	}
	for _, kv := range from {
		if !hasEnv(env, kv.Key) {
			env = append(env, kv)
		}
	}
	return env, nil
}

// setEnv sets name to value in env, in place when it is there.
func setEnv(env []cri.KeyValue, name, value string) []cri.KeyValue {
	for i := range env {
		if env[i].Key == name {
			env[i].Value = value
			return env
		}
	}
	return append(env, cri.KeyValue{Key: name, Value: value})
}

func hasEnv(env []cri.KeyValue, name string) bool {
	for _, kv := range env {
		if kv.Key == name {
			return true
		}
	}
	return false
}

func isTrue(b *bool) bool { return b != nil && *b }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

// secretData is a Secret's data as strings, StringData over Data as
// the apiserver merges them.
func secretData(s *api.Secret) map[string]string {
	out := make(map[string]string, len(s.Data)+len(s.StringData))
	for key, v := range s.Data {
		out[key] = string(v)
	}
	for key, v := range s.StringData {
		out[key] = v
	}
	return out
}

func (k *kubelet) configMap(ctx context.Context, namespace, name string) (*api.ConfigMap, error) {
	return client.For[*api.ConfigMap](k.c).Get(ctx, namespace, name)
}

func (k *kubelet) secret(ctx context.Context, namespace, name string) (*api.Secret, error) {
	return client.For[*api.Secret](k.c).Get(ctx, namespace, name)
}

// fieldValue is the value of a fieldRef (podFieldSelectorRuntimeValue).
func (k *kubelet) fieldValue(pod *api.Pod, path, podIP string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.podIP":
		return podIP, nil
	case "status.hostIP":
		return k.opts.Address, nil
	}
	return "", fmt.Errorf("unsupported fieldPath: %s", path)
}

// expand replaces each $(NAME) of s defined in vars with its value;
// $$ is a $, and an undefined $(NAME) stays as it is (expansion.Expand).
func expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// makeMounts makes pod's volumes (each a directory
// RootDir/pods/UID/volumes/NAME: emptyDir empty, configMap and secret a
// file per key) and returns container c's mounts. A volume of another
// kind, or any without a RootDir, is an error.
func (k *kubelet) makeMounts(ctx context.Context, pod *api.Pod, c api.Container) ([]cri.Mount, error) {
	if len(c.VolumeMounts) == 0 {
		return nil, nil
	}
	dirs := map[string]string{}
	for _, v := range pod.Spec.Volumes {
		dir, err := k.setUpVolume(ctx, pod, v)
		if err != nil {
			return nil, fmt.Errorf("MountVolume.SetUp failed for volume %q: %w", v.Name, err)
		}
		dirs[v.Name] = dir
	}
	var mounts []cri.Mount
	for _, m := range c.VolumeMounts {
		dir, ok := dirs[m.Name]
		if !ok {
			return nil, fmt.Errorf("cannot find volume %q to mount into container %q", m.Name, c.Name)
		}
		host := dir
		if m.SubPath != "" {
			host = filepath.Join(dir, m.SubPath)
		}
		mounts = append(mounts, cri.Mount{ContainerPath: m.MountPath, HostPath: host, Readonly: m.ReadOnly})
	}
	return mounts, nil
}

// setUpVolume makes volume v's directory and writes its files.
func (k *kubelet) setUpVolume(ctx context.Context, pod *api.Pod, v api.Volume) (string, error) {
	var files map[string]string
	switch {
	case v.EmptyDir != nil:
	case v.ConfigMap != nil:
		cm, err := k.configMap(ctx, pod.Namespace, v.ConfigMap.Name)
		switch {
		case client.IsNotFound(err) && isTrue(v.ConfigMap.Optional):
		case err != nil:
			return "", err
		default:
			files = project(cm.Data, v.ConfigMap.Items)
		}
	case v.Secret != nil:
		s, err := k.secret(ctx, pod.Namespace, v.Secret.SecretName)
		switch {
		case client.IsNotFound(err) && isTrue(v.Secret.Optional):
		case err != nil:
			return "", err
		default:
			files = project(secretData(s), v.Secret.Items)
		}
	default:
		return "", fmt.Errorf("kubelet: volume %q: only emptyDir, configMap and secret volumes are supported", v.Name)
	}
	if k.opts.RootDir == "" {
		return "", fmt.Errorf("kubelet: volume %q: no Options.RootDir to make it in", v.Name)
	}
	dir := filepath.Join(k.opts.RootDir, "pods", string(pod.UID), "volumes", v.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("kubelet: volume %q: %w", v.Name, err)
	}
	for _, name := range sortedKeys(files) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", fmt.Errorf("kubelet: volume %q: %w", v.Name, err)
		}
		if err := os.WriteFile(path, []byte(files[name]), 0o644); err != nil {
			return "", fmt.Errorf("kubelet: volume %q: %w", v.Name, err)
		}
	}
	return dir, nil
}

// project is data as files: every key, or only items' keys at their
// paths (the configMap and secret volumes' items).
func project(data map[string]string, items []api.KeyToPath) map[string]string {
	if len(items) == 0 {
		return data
	}
	out := map[string]string{}
	for _, it := range items {
		if v, ok := data[it.Key]; ok {
			out[it.Path] = v
		}
	}
	return out
}
