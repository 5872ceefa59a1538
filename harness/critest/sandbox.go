package critest

import (
	"net"
	"slices"

	"github.com/kubekata/kubekata/harness/cri"
)

// noSuchID is an id no runtime hands out.
const noSuchID = "critest-no-such-id"

// sandboxLifecycle: RunPodSandbox makes a Ready sandbox with an IP of its
// own; StopPodSandbox leaves it NotReady without its IP; RemovePodSandbox
// forgets it. api.proto: "RunPodSandbox creates and starts a pod-level
// sandbox. Runtimes must ensure the sandbox is in the ready state on
// success"; "StopPodSandbox ... reclaims network resources (e.g., IP
// addresses)"; "PodSandboxStatus ... If the PodSandbox is not present,
// returns an error" (cri-tools pkg/validate/pod.go runs the same cycle).
func sandboxLifecycle(c *check) {
	id, cfg := c.sandbox(nil)
	st := c.sandboxStatus(id)
	if st.ID != id || st.State != cri.SandboxReady {
		c.Errorf("PodSandboxStatus(%q) = id %q state %s, want id %q state %s", id, st.ID, st.State, id, cri.SandboxReady)
	}
	if net.ParseIP(st.IP) == nil {
		c.Errorf("PodSandboxStatus(%q) = IP %q, want the pod's IP address while Ready", id, st.IP)
	}
	if st.CreatedAt.IsZero() {
		c.Errorf("PodSandboxStatus(%q) = CreatedAt zero, want the time it was created", id)
	}
	if st.Metadata != cfg.Metadata {
		c.Errorf("PodSandboxStatus(%q) = metadata %+v, want %+v", id, st.Metadata, cfg.Metadata)
	}
	list, err := c.rt.ListPodSandbox(c.ctx, nil)
	if err != nil {
		c.Fatalf("ListPodSandbox(nil) = %v, want nil", err)
	}
	if i := slices.IndexFunc(list, func(s *cri.PodSandbox) bool { return s.ID == id }); i < 0 {
		c.Errorf("ListPodSandbox(nil) lacks %q, want it listed", id)
	} else if list[i].State != cri.SandboxReady {
		c.Errorf("ListPodSandbox(nil) lists %q in state %s, want %s", id, list[i].State, cri.SandboxReady)
	}

	c.noError("StopPodSandbox("+quote(id)+")", c.rt.StopPodSandbox(c.ctx, id))
	st = c.sandboxStatus(id)
	if st.State != cri.SandboxNotReady || st.IP != "" {
		c.Errorf("PodSandboxStatus(%q) after StopPodSandbox = state %s IP %q, want state %s and no IP", id, st.State, st.IP, cri.SandboxNotReady)
	}

	c.noError("RemovePodSandbox("+quote(id)+")", c.rt.RemovePodSandbox(c.ctx, id))
	_, err = c.rt.PodSandboxStatus(c.ctx, id)
	c.wantNotFound("PodSandboxStatus("+quote(id)+") after RemovePodSandbox", err)
	if ids := c.sandboxIDs(nil); slices.Contains(ids, id) {
		c.Errorf("ListPodSandbox(nil) after RemovePodSandbox(%q) = %v, want it gone", id, ids)
	}
	_, err = c.rt.PodSandboxStatus(c.ctx, noSuchID)
	c.wantNotFound("PodSandboxStatus("+quote(noSuchID)+")", err)
}

// sandboxIPsDistinct: every Ready sandbox has an IP of its own, as a
// pod's IP is unique in the cluster (the IP a CNI plugin hands out,
// api.proto PodSandboxNetworkStatus "IP address of the PodSandbox").
func sandboxIPsDistinct(c *check) {
	seen := map[string]string{}
	for range 4 {
		id, _ := c.sandbox(nil)
		ip := c.sandboxStatus(id).IP
		if net.ParseIP(ip) == nil {
			c.Errorf("PodSandboxStatus(%q) = IP %q, want an IP address", id, ip)
			continue
		}
		if other, dup := seen[ip]; dup {
			c.Errorf("PodSandboxStatus(%q) = IP %s, the IP of Ready sandbox %q too; want an IP of its own", id, ip, other)
		}
		seen[ip] = id
	}
}

// stopSandboxIdempotent: StopPodSandbox again, after removal, or of an id
// never seen is no error. api.proto: "This call is idempotent, and must
// not return an error if all relevant resources have already been
// reclaimed" (cri-tools pkg/validate/idempotence.go).
func stopSandboxIdempotent(c *check) {
	id, _ := c.sandbox(nil)
	c.noError("StopPodSandbox("+quote(id)+")", c.rt.StopPodSandbox(c.ctx, id))
	c.noError("StopPodSandbox("+quote(id)+") again", c.rt.StopPodSandbox(c.ctx, id))
	if st := c.sandboxStatus(id); st.State != cri.SandboxNotReady {
		c.Errorf("PodSandboxStatus(%q) after two StopPodSandbox = state %s, want %s", id, st.State, cri.SandboxNotReady)
	}
	c.noError("RemovePodSandbox("+quote(id)+")", c.rt.RemovePodSandbox(c.ctx, id))
	c.noError("StopPodSandbox("+quote(id)+") after RemovePodSandbox", c.rt.StopPodSandbox(c.ctx, id))
	c.noError("StopPodSandbox("+quote(noSuchID)+")", c.rt.StopPodSandbox(c.ctx, noSuchID))
}

// removeSandboxIdempotent: RemovePodSandbox of a Ready sandbox stops and
// removes it; again, or of an id never seen, is no error. api.proto:
// "This call is idempotent, and must not return an error if the sandbox
// has already been removed" (cri-tools pkg/validate/idempotence.go).
func removeSandboxIdempotent(c *check) {
	id, _ := c.sandbox(nil)
	keep, _ := c.sandbox(nil)
	c.noError("RemovePodSandbox("+quote(id)+") of a Ready sandbox", c.rt.RemovePodSandbox(c.ctx, id))
	_, err := c.rt.PodSandboxStatus(c.ctx, id)
	c.wantNotFound("PodSandboxStatus("+quote(id)+") after RemovePodSandbox", err)
	c.noError("RemovePodSandbox("+quote(id)+") again", c.rt.RemovePodSandbox(c.ctx, id))
	c.noError("RemovePodSandbox("+quote(noSuchID)+")", c.rt.RemovePodSandbox(c.ctx, noSuchID))
	if st := c.sandboxStatus(keep); st.State != cri.SandboxReady {
		c.Errorf("PodSandboxStatus(%q) of another sandbox after RemovePodSandbox(%q) = state %s, want %s", keep, id, st.State, cri.SandboxReady)
	}
}

// stopSandboxStopsContainers: StopPodSandbox stops every container of the
// sandbox, forcibly, before it returns, and leaves them listed (Exited)
// until the sandbox is removed; other sandboxes' containers run on.
// api.proto: "If there are any running containers in the sandbox, they
// must be forcibly terminated."
func stopSandboxStopsContainers(c *check) {
	sb, sbCfg := c.sandbox(nil)
	other, otherCfg := c.sandbox(nil)
	a := c.run(sb, sbCfg, c.tg.Runs("a"))
	b := c.run(sb, sbCfg, c.tg.IgnoresTerm("b"))
	o := c.run(other, otherCfg, c.tg.Runs("o"))
	c.waitState(b, cri.ContainerRunning)

	c.noError("StopPodSandbox("+quote(sb)+")", c.rt.StopPodSandbox(c.ctx, sb))
	for _, id := range []string{a, b} {
		st := c.status(id)
		if st.State != cri.ContainerExited {
			c.Errorf("ContainerStatus(%q) right after StopPodSandbox(%q) returned = state %s, want %s", id, sb, st.State, cri.ContainerExited)
		}
	}
	if st := c.status(b); st.State == cri.ContainerExited && st.ExitCode != 137 {
		c.Errorf("ContainerStatus(%q) of a container that ignores SIGTERM, after StopPodSandbox = exit code %d, want 137 (SIGKILL)", b, st.ExitCode)
	}
	if ids := c.containerIDs(&cri.ContainerFilter{PodSandboxID: sb}); !sameSet(ids, []string{a, b}) {
		c.Errorf("ListContainers({PodSandboxID: %q}) after StopPodSandbox = %v, want %v (a stopped sandbox keeps its containers)", sb, ids, []string{a, b})
	}
	if st := c.status(o); st.State != cri.ContainerRunning {
		c.Errorf("ContainerStatus(%q) in another sandbox after StopPodSandbox(%q) = state %s, want %s", o, sb, st.State, cri.ContainerRunning)
	}
}

// removeSandboxRemovesContainers: RemovePodSandbox kills and removes the
// sandbox's containers, in any state, and no other sandbox's. api.proto:
// "If there are any running containers in the sandbox, they must be
// forcibly terminated and removed."
func removeSandboxRemovesContainers(c *check) {
	sb, sbCfg := c.sandbox(nil)
	other, otherCfg := c.sandbox(nil)
	running := c.run(sb, sbCfg, c.tg.Runs("running"))
	created := c.create(sb, sbCfg, c.tg.Runs("created"))
	exited := c.run(sb, sbCfg, c.tg.Exits("exited", 0))
	c.waitState(exited, cri.ContainerExited)
	o := c.run(other, otherCfg, c.tg.Runs("o"))

	c.noError("RemovePodSandbox("+quote(sb)+")", c.rt.RemovePodSandbox(c.ctx, sb))
	for _, id := range []string{running, created, exited} {
		_, err := c.rt.ContainerStatus(c.ctx, id)
		c.wantNotFound("ContainerStatus("+quote(id)+") after RemovePodSandbox("+quote(sb)+")", err)
	}
	if ids := c.containerIDs(nil); !sameSet(ids, []string{o}) {
		c.Errorf("ListContainers(nil) after RemovePodSandbox(%q) = %v, want only %v", sb, ids, []string{o})
	}
	if st := c.status(o); st.State != cri.ContainerRunning {
		c.Errorf("ContainerStatus(%q) in another sandbox after RemovePodSandbox(%q) = state %s, want %s", o, sb, st.State, cri.ContainerRunning)
	}
}

// sameSet reports whether a and b hold the same ids, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// quote quotes an id for a call in a message.
func quote(s string) string { return `"` + s + `"` }
