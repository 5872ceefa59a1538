package services

import "github.com/kubekata/kubekata/harness/api"

// Env gives the service environment variables of pod's containers, as
// the kubelet computes them before it starts a container, sorted by
// name.
func Env(pod api.Pod, services []api.Service) []api.EnvVar {
	// TODO: give the WEB_SERVICE_HOST, WEB_SERVICE_PORT and Docker-link variables of the Services this pod hears of (README task 23).
	panic("not implemented: Env")
}
