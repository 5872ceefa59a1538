package process

import (
	"context"
	"fmt"

	"github.com/kubekata/kubekata/harness/cri"
)

// RuntimeName and RuntimeVersion are what Version answers. The name is
// the one the kata's kubelet puts before its containers' ids
// (harness/kubelets.RuntimeName, "kata://ID"), as upstream's kubelet
// prefixes them with the name its runtime answered ("containerd://ID";
// pkg/kubelet/kuberuntime/kuberuntime_manager.go:
// NewKubeGenericRuntimeManager keeps VersionResponse.RuntimeName), so
// that `kubectl get nodes -o wide` shows CONTAINER-RUNTIME kata://0.1.0.
const (
	RuntimeName    = "kata"
	RuntimeVersion = "0.1.0"
)

// Version names the runtime. It needs no state, so it answers on every
// system (where New fails too) and after Close, as containerd answers
// Version whatever its containers do (internal/cri/server/version.go);
// only a done ctx fails it.
func (r *Runtime) Version(ctx context.Context) (*cri.VersionResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("process: version: %w", err)
	}
	return &cri.VersionResponse{Version: cri.KubeletAPIVersion, RuntimeName: RuntimeName,
		RuntimeVersion: RuntimeVersion, RuntimeAPIVersion: cri.CRIVersion}, nil
}
