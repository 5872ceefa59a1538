package kubelet

import (
	"context"
	"sort"

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
	// TODO: envFrom's keys (prefix, sorted per source), then env in order: value with $(VAR) expanded, fieldRef, configMapKeyRef, secretKeyRef (missing and not optional: an error); the result is env then envFrom's keys env did not name (task 17; rule 10).
	// Until task 17: no env (startContainer, task 11, calls this).
	return nil, nil
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
	// TODO: metadata.name, metadata.namespace, metadata.uid, spec.nodeName, spec.serviceAccountName, status.podIP, status.hostIP (task 17; rule 10).
	panic("not implemented: fieldValue")
}

// expand replaces each $(NAME) of s defined in vars with its value;
// $$ is a $, and an undefined $(NAME) stays as it is (expansion.Expand).
func expand(s string, vars map[string]string) string {
	// TODO: replace $(NAME) defined in vars, $$ with $, leave others as they are (task 17; rule 10).
	panic("not implemented: expand")
}

// makeMounts makes pod's volumes (each a directory
// RootDir/pods/UID/volumes/NAME: emptyDir empty, configMap and secret a
// file per key) and returns container c's mounts. A volume of another
// kind, or any without a RootDir, is an error.
func (k *kubelet) makeMounts(ctx context.Context, pod *api.Pod, c api.Container) ([]cri.Mount, error) {
	// TODO: setUpVolume every volume of the pod, then a Mount per volumeMount: mountPath, the volume's directory, readOnly (task 17; rule 10).
	// Until task 17: no mounts (startContainer, task 11, calls this).
	return nil, nil
}

// setUpVolume makes volume v's directory and writes its files.
func (k *kubelet) setUpVolume(ctx context.Context, pod *api.Pod, v api.Volume) (string, error) {
	// TODO: emptyDir, configMap or secret only, and only with a RootDir: make RootDir/pods/UID/volumes/NAME and write a file per key (task 17; rule 10).
	panic("not implemented: setUpVolume")
}

// project is data as files: every key, or only items' keys at their
// paths (the configMap and secret volumes' items).
func project(data map[string]string, items []api.KeyToPath) map[string]string {
	// TODO: every key, or only items' keys at their paths (task 17).
	panic("not implemented: project")
}
