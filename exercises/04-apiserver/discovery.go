package apiserver

import (
	"net/http"
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

// serveVersion answers /version (kubectl version asks it).
func (s *server) serveVersion(w http.ResponseWriter, r *http.Request) {
	// TODO: answer /version with the major, minor and gitVersion of this server.
	panic("not implemented: serveVersion")
}

// groupVersion is one version of a group, as discovery documents list it.
type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

// apiGroup is one entry of an APIGroupList (and, with Kind set, /apis/{group}).
type apiGroup struct {
	Kind             string         `json:"kind,omitempty"`
	APIVersion       string         `json:"apiVersion,omitempty"`
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

// apiResource is one entry of an APIResourceList.
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

// serveLegacyVersions answers /api: the versions of the core group.
func (s *server) serveLegacyVersions(w http.ResponseWriter, r *http.Request) {
	// TODO: answer /api with an APIVersions object that lists the core group's one version.
	panic("not implemented: serveLegacyVersions")
}

// groups lists the non-core groups, each with its one version.
func groups() []apiGroup {
	// TODO: return every non-core group in api.Kinds(), sorted by name, each with its one version.
	panic("not implemented: groups")
}

// serveGroupList answers /apis: every other group.
func (s *server) serveGroupList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"kind":       "APIGroupList",
		"apiVersion": "v1",
		"groups":     groups(),
	})
}

// serveGroup answers /apis/{group}: one group and its versions.
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

// serveResourceList answers /api/v1 and /apis/{group}/{version}: the
// resources of one group version, which is how kubectl turns "deploy" into
// a path.
func (s *server) serveResourceList(w http.ResponseWriter, r *http.Request, group, version string) {
	// TODO: answer /api/v1 or /apis/{group}/{version} with an APIResourceList of the kinds in that group version, each followed by its subresources as subresourceEntry gives them; 404 if there are none.
	panic("not implemented: serveResourceList")
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
