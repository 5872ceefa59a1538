package kubelets

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestOSReleasePrettyName(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n", "Debian GNU/Linux 12 (bookworm)"},
		{"PRETTY_NAME='Alpine Linux v3.20'", "Alpine Linux v3.20"},
		{"  PRETTY_NAME=Plain\n", "Plain"},
		{"NAME=Nothing\n", "Linux"},
		{"", "Linux"},
	} {
		if got := osReleasePrettyName(tc.data); got != tc.want {
			t.Errorf("osReleasePrettyName(%q) = %q, want %q", tc.data, got, tc.want)
		}
	}
}

// On Linux the machine's kernel version is /proc's, and Options'
// defaults carry what ReadMachineInfo read.
func TestReadMachineInfo(t *testing.T) {
	m := ReadMachineInfo()
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile("/proc/sys/kernel/osrelease")
		if err != nil {
			t.Skipf("no /proc here: %v", err)
		}
		if want := strings.TrimSpace(string(b)); m.KernelVersion != want {
			t.Errorf("ReadMachineInfo() = kernelVersion %q, want %q (/proc/sys/kernel/osrelease)", m.KernelVersion, want)
		}
		if m.OSImage == "" {
			t.Errorf("ReadMachineInfo() = osImage \"\", want /etc/os-release's PRETTY_NAME or \"Linux\"")
		}
	}
	if got := (Options{}).WithDefaults().Machine; got != m {
		t.Errorf("Options{}.WithDefaults().Machine = %+v, want ReadMachineInfo()'s %+v", got, m)
	}
	given := MachineInfo{MachineID: "m-1"}
	if got := (Options{Machine: given}).WithDefaults().Machine; got != given {
		t.Errorf("Options{Machine: %+v}.WithDefaults().Machine = %+v, want it kept", given, got)
	}
}
