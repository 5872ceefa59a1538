package kubelets

import (
	"os"
	"strings"
)

func readMachineInfo() MachineInfo {
	first := func(paths ...string) string {
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				if s := strings.TrimSpace(string(b)); s != "" {
					return s
				}
			}
		}
		return ""
	}
	m := MachineInfo{
		MachineID:     first("/etc/machine-id", "/var/lib/dbus/machine-id"),
		SystemUUID:    first("/sys/class/dmi/id/product_uuid"),
		BootID:        first("/proc/sys/kernel/random/boot_id"),
		KernelVersion: first("/proc/sys/kernel/osrelease"),
	}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		m.OSImage = osReleasePrettyName(string(b))
	} else if b, err := os.ReadFile("/usr/lib/os-release"); err == nil {
		m.OSImage = osReleasePrettyName(string(b))
	}
	return m
}
