package apiserver

import (
	"net/http"
	"runtime"
	"sort"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
)

// Discovery tells clients which groups, versions and resources exist, so
// that kubectl can turn "kubectl get deploy" into /apis/apps/v1/...
// kubectl first asks for the aggregated form (Accept ...;as=
// APIGroupDiscoveryList); answering plain application/json makes it fall
// back to these legacy documents, which every version understands.

// Version is the Kubernetes version this apiserver speaks.
const (
	versionMajor = "1"
	versionMinor = "32"
	gitVersion   = "v1.32.0-kubekata"
)

func (s *server) serveVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{
		"major":        versionMajor,
		"minor":        versionMinor,
		"gitVersion":   gitVersion,
		"gitCommit":    "",
		"gitTreeState": "clean",
		"buildDate":    "",
		"goVersion":    runtime.Version(),
		"compiler":     runtime.Compiler,
		"platform":     runtime.GOOS + "/" + runtime.GOARCH,
	})
}

type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Kind             string         `json:"kind,omitempty"`
	APIVersion       string         `json:"apiVersion,omitempty"`
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
	Namespaced   bool     `json:"namespaced"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

func (s *server) serveLegacyVersions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"kind":     "APIVersions",
		"versions": []string{"v1"},
		"serverAddressByClientCIDRs": []map[string]string{
			{"clientCIDR": "0.0.0.0/0", "serverAddress": r.Host},
		},
	})
}

// groups lists the non-core groups, each with its one version.
func groups() []apiGroup {
	seen := map[string]bool{}
	var out []apiGroup
	for _, k := range api.Kinds() {
		if k.Group == "" || seen[k.Group] {
			continue
		}
		seen[k.Group] = true
		gv := groupVersion{GroupVersion: k.APIVersion(), Version: k.Version}
		out = append(out, apiGroup{Name: k.Group, Versions: []groupVersion{gv}, PreferredVersion: gv})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *server) serveGroupList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"kind":       "APIGroupList",
		"apiVersion": "v1",
		"groups":     groups(),
	})
}

func (s *server) serveGroup(w http.ResponseWriter, r *http.Request, name string) {
	for _, g := range groups() {
		if g.Name == name {
			g.Kind, g.APIVersion = "APIGroup", "v1"
			writeJSON(w, http.StatusOK, g)
			return
		}
	}
	writeStatus(w, notFoundPath())
}

func (s *server) serveResourceList(w http.ResponseWriter, r *http.Request, group, version string) {
	var res []apiResource
	for _, k := range api.Kinds() {
		if k.Group != group || k.Version != version {
			continue
		}
		res = append(res, apiResource{
			Name: k.Resource, SingularName: k.Singular, Namespaced: k.Namespaced, Kind: k.Kind,
			Verbs: k.Verbs, ShortNames: k.ShortNames, Categories: k.Categories,
		})
		for _, sub := range k.Subresources {
			res = append(res, subresourceEntry(k, sub))
		}
	}
	if res == nil {
		writeStatus(w, notFoundPath())
		return
	}
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"kind":         "APIResourceList",
		"apiVersion":   "v1",
		"groupVersion": gv,
		"resources":    res,
	})
}

// subresourceEntry is the APIResourceList entry of one subresource of k:
// "pods/status" (get, patch, update), "pods/binding" (a Binding, create
// only), "namespaces/finalize" (update), and "deployments/scale" (an
// autoscaling/v1 Scale: kubectl scale reads the group, version and kind
// of the scale from here, k8s.io/client-go/scale/util.go).
func subresourceEntry(k api.Kind, sub string) apiResource {
	sr := apiResource{Name: k.Resource + "/" + sub, Namespaced: k.Namespaced, Kind: k.Kind, Verbs: []string{"get", "patch", "update"}}
	switch sub {
	case "binding":
		sr.Kind, sr.Verbs = "Binding", []string{"create"}
	case "finalize":
		sr.Verbs = []string{"update"}
	case "scale":
		sr.Group, sr.Version, sr.Kind = "autoscaling", "v1", "Scale"
	}
	return sr
}

// wantsTable says the client asked for a Table (kubectl get does):
// Accept: application/json;as=Table;v=v1;g=meta.k8s.io.
func wantsTable(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		params := map[string]string{}
		for _, p := range strings.Split(part, ";")[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			params[k] = v
		}
		if params["as"] == "Table" && params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1") {
			return true
		}
	}
	return false
}
