package kubelets

import "syscall"

func readMachineInfo() MachineInfo {
	sysctl := func(name string) string {
		v, err := syscall.Sysctl(name)
		if err != nil {
			return ""
		}
		return v
	}
	return MachineInfo{
		MachineID:     sysctl("kern.uuid"),
		SystemUUID:    sysctl("kern.uuid"),
		BootID:        sysctl("kern.bootsessionuuid"),
		KernelVersion: sysctl("kern.osrelease"),
		OSImage:       sysctl("kern.ostype"),
	}
}
