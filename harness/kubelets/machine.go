package kubelets

import (
	"strings"
	"sync"
)

// MachineInfo is what a Node's status.nodeInfo says of its machine, as
// upstream's kubelet reads it from cAdvisor (pkg/kubelet/nodestatus/
// setters.go: MachineInfo copies machineID, systemUUID and bootID from
// cAdvisor's MachineInfo, VersionInfo kernelVersion and osImage from its
// VersionInfo). The kubelet copies it; the rest of nodeInfo (versions,
// operating system, architecture) is the kubelet's own.
//
// The machine is read by the harness, not by the learner's kubelet:
// Options carries it (ReadMachineInfo by default), so that the kubelet's
// code stays the same on every system and a test can see that it copied
// what it was given, as upstream's setters take cAdvisor's answers as
// functions.
type MachineInfo struct {
	MachineID     string `json:"machineID,omitempty"`
	SystemUUID    string `json:"systemUUID,omitempty"`
	BootID        string `json:"bootID,omitempty"`
	KernelVersion string `json:"kernelVersion,omitempty"`
	OSImage       string `json:"osImage,omitempty"`
}

// ReadMachineInfo reads this machine's MachineInfo once (it does not
// change while a process runs), with what the system gives without
// privileges, as cAdvisor does (github.com/google/cadvisor machine/
// info.go and operatingsystem_unix.go). On Linux: /etc/machine-id (or
// /var/lib/dbus/machine-id), /sys/class/dmi/id/product_uuid (often
// readable by root only), /proc/sys/kernel/random/boot_id,
// /proc/sys/kernel/osrelease (uname -r) and /etc/os-release's
// PRETTY_NAME ("Linux" when it has none). On macOS: the kernel's
// release and "Darwin" (cAdvisor's uname sysname) and the sysctls
// kern.uuid and kern.bootsessionuuid. Elsewhere, and for what cannot be
// read: empty strings.
func ReadMachineInfo() MachineInfo { return machineOnce() }

var machineOnce = sync.OnceValue(readMachineInfo)

// osReleasePrettyName is the PRETTY_NAME of an os-release file, unquoted;
// "Linux" when there is none (cAdvisor's getOperatingSystem).
func osReleasePrettyName(data string) string {
	for line := range strings.SplitSeq(data, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return "Linux"
}
