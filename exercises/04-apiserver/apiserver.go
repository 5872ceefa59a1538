// Package apiserver is your kube-apiserver: REST over the store, with
// watch, upstream errors, discovery and Table responses, so that every
// component, and a real kubectl, can talk to it.
//
// The apiserver is the only gate to the store: kubectl, the scheduler,
// the controllers and the kubelet all go through it, and nothing else
// touches etcd. Read README.md beside this file for the tasks.
package apiserver

import (
	"net/http"

	"github.com/kubekata/kubekata/harness/storage"
)

// New returns the apiserver's HTTP handler over store.
func New(store storage.Store) http.Handler {
	// TODO: return an http.Handler that serves the Kubernetes API (paths, JSON objects, Status errors, watch) over store.
	panic("not implemented: New")
}
