package critest

import "regexp"

// semver is what a runtime version must look like: api.proto's
// VersionResponse wants runtime_version "semver-compatible", and
// upstream's kubelet parses it (pkg/kubelet/kuberuntime/
// kuberuntime_manager.go: newRuntimeVersion, utilversion.ParseSemantic,
// then ParseGeneric) before it shows it on the Node: major.minor, a
// patch, an optional leading "v" and an optional pre-release or build.
var semver = regexp.MustCompile(`^v?[0-9]+\.[0-9]+(\.[0-9]+)?([-+][0-9A-Za-z.+-]*)?$`)

// version: Version names the runtime: a runtime_name that is not empty
// and a semver-compatible runtime_version. api.proto: VersionResponse
// "Name of the container runtime", "Version of the container runtime.
// The string must be semver-compatible"; cri-tools' critest asks it
// (pkg/validate/runtime_info.go: TestGetVersion); the kubelet shows
// NAME://VERSION as its Node's containerRuntimeVersion
// (pkg/kubelet/nodestatus/setters.go: VersionInfo).
func version(c *check) {
	v, err := c.rt.Version(c.ctx)
	if err != nil || v == nil {
		c.Fatalf("Version() = %+v, %v; want a VersionResponse, nil", v, err)
	}
	if v.RuntimeName == "" {
		c.Errorf("Version() = runtimeName \"\", want the runtime's name (api.proto VersionResponse.runtime_name)")
	}
	if !semver.MatchString(v.RuntimeVersion) {
		c.Errorf("Version() = runtimeVersion %q, want a semver-compatible version such as \"1.7.22\" (api.proto VersionResponse.runtime_version)", v.RuntimeVersion)
	}
}
