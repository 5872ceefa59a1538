package critest

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

// waitLogged polls a container's log file until it holds a line: a
// program has set itself up once it has written.
func (c *check) waitLogged(id string) {
	c.Helper()
	path := c.status(id).LogPath
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte("\n")) {
			return
		}
		select {
		case <-tick.C:
		case <-c.ctx.Done():
			c.Fatalf("log file %q of container %q has no line until the deadline, want the line Target.IgnoresTerm's program writes once it ignores SIGTERM", path, id)
		}
	}
}

// sigkill is the exit code of a container killed by SIGKILL: 128+9, as
// a shell reports it and the kubelet shows it (cri.ContainerStatus).
const sigkill = 137

// createNeedsReadySandbox: CreateContainer needs a sandbox that exists and
// is Ready; a stopped one, or an unknown id, is an error and makes
// nothing, as cri.RuntimeService states. api.proto CreateContainer
// "creates a new container in specified PodSandbox"; containerd finds
// the sandbox at create (internal/cri/server/container_create.go
// "failed to find sandbox id") and refuses one that is not ready when
// the container starts (container_start.go "sandbox container %q is not
// running"): the kata refuses it at create already.
func createNeedsReadySandbox(c *check) {
	sb, sbCfg := c.sandbox(nil)
	c.noError("StopPodSandbox("+quote(sb)+")", c.rt.StopPodSandbox(c.ctx, sb))
	cfg := c.prepare(c.tg.Runs("c"))
	if id, err := c.rt.CreateContainer(c.ctx, sb, cfg, sbCfg); err == nil {
		c.Errorf("CreateContainer(%q, %q) in a stopped sandbox = %q, nil; want an error", sb, cfg.Metadata.Name, id)
	}
	if id, err := c.rt.CreateContainer(c.ctx, noSuchID, cfg, sbCfg); err == nil {
		c.Errorf("CreateContainer(%q, %q) in an unknown sandbox = %q, nil; want an error", noSuchID, cfg.Metadata.Name, id)
	}
	if ids := c.containerIDs(nil); len(ids) != 0 {
		c.Errorf("ListContainers(nil) after failed creates = %v, want none", ids)
	}
}

// containerLifecycle: a container is Created, then Running once started,
// then Exited once stopped, with its times in order; removed, it is
// NotFound. api.proto ContainerState: CONTAINER_CREATED,
// CONTAINER_RUNNING, CONTAINER_EXITED; ContainerStatus created_at,
// started_at, finished_at; "ContainerStatus ... If the container is not
// present, returns an error" (cri-tools pkg/validate/container.go runs
// the same cycle).
func containerLifecycle(c *check) {
	sb, sbCfg := c.sandbox(nil)
	id := c.create(sb, sbCfg, c.tg.Runs("life"))
	st := c.status(id)
	if st.ID != id || st.State != cri.ContainerCreated {
		c.Errorf("ContainerStatus(%q) after CreateContainer = id %q state %s, want id %q state %s", id, st.ID, st.State, id, cri.ContainerCreated)
	}
	if st.CreatedAt.IsZero() || !st.StartedAt.IsZero() || !st.FinishedAt.IsZero() {
		c.Errorf("ContainerStatus(%q) after CreateContainer = CreatedAt %v StartedAt %v FinishedAt %v, want only CreatedAt set", id, st.CreatedAt, st.StartedAt, st.FinishedAt)
	}
	created := st.CreatedAt

	c.start(id)
	st = c.status(id)
	if st.State != cri.ContainerRunning {
		c.Errorf("ContainerStatus(%q) after StartContainer = state %s, want %s", id, st.State, cri.ContainerRunning)
	}
	if st.StartedAt.IsZero() || st.StartedAt.Before(created) || !st.FinishedAt.IsZero() {
		c.Errorf("ContainerStatus(%q) after StartContainer = CreatedAt %v StartedAt %v FinishedAt %v, want StartedAt set, not before CreatedAt, and no FinishedAt", id, created, st.StartedAt, st.FinishedAt)
	}
	if !st.CreatedAt.Equal(created) {
		c.Errorf("ContainerStatus(%q) after StartContainer = CreatedAt %v, want %v (unchanged)", id, st.CreatedAt, created)
	}
	started := st.StartedAt

	c.noError("StopContainer("+quote(id)+", 5s)", c.rt.StopContainer(c.ctx, id, 5*time.Second))
	st = c.status(id)
	if st.State != cri.ContainerExited {
		c.Errorf("ContainerStatus(%q) after StopContainer returned = state %s, want %s", id, st.State, cri.ContainerExited)
	}
	if st.FinishedAt.IsZero() || st.FinishedAt.Before(started) || !st.StartedAt.Equal(started) {
		c.Errorf("ContainerStatus(%q) after StopContainer = StartedAt %v FinishedAt %v, want StartedAt %v and FinishedAt not before it", id, st.StartedAt, st.FinishedAt, started)
	}
	if st.Reason == "" {
		c.Errorf("ContainerStatus(%q) after StopContainer = reason \"\", want %s or %s", id, cri.ReasonCompleted, cri.ReasonError)
	}

	c.noError("RemoveContainer("+quote(id)+")", c.rt.RemoveContainer(c.ctx, id))
	_, err := c.rt.ContainerStatus(c.ctx, id)
	c.wantNotFound("ContainerStatus("+quote(id)+") after RemoveContainer", err)
	if ids := c.containerIDs(nil); slices.Contains(ids, id) {
		c.Errorf("ListContainers(nil) after RemoveContainer(%q) = %v, want it gone", id, ids)
	}
	_, err = c.rt.ContainerStatus(c.ctx, noSuchID)
	c.wantNotFound("ContainerStatus("+quote(noSuchID)+")", err)
}

// startOnlyCreated: StartContainer starts a Created container only;
// starting a running or an exited one is an error and changes nothing.
// containerd's setContainerStarting: "container is in %s state" for any
// state but CONTAINER_CREATED (internal/cri/server/container_start.go);
// the kubelet makes a new
// container for each restart, never starts one twice
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go).
func startOnlyCreated(c *check) {
	sb, sbCfg := c.sandbox(nil)
	id := c.run(sb, sbCfg, c.tg.Runs("twice"))
	if err := c.rt.StartContainer(c.ctx, id); err == nil {
		c.Errorf("StartContainer(%q) of a running container = nil, want an error", id)
	}
	if st := c.status(id); st.State != cri.ContainerRunning {
		c.Errorf("ContainerStatus(%q) after a second StartContainer = state %s, want %s", id, st.State, cri.ContainerRunning)
	}
	done := c.run(sb, sbCfg, c.tg.Exits("done", 0))
	c.waitState(done, cri.ContainerExited)
	if err := c.rt.StartContainer(c.ctx, done); err == nil {
		c.Errorf("StartContainer(%q) of an exited container = nil, want an error", done)
	}
	if st := c.status(done); st.State != cri.ContainerExited {
		c.Errorf("ContainerStatus(%q) after StartContainer of an exited container = state %s, want %s", done, st.State, cri.ContainerExited)
	}
	if err := c.rt.StartContainer(c.ctx, noSuchID); err == nil {
		c.Errorf("StartContainer(%q) = nil, want an error", noSuchID)
	}
}

// exitCode: a container that ends by itself is Exited with its exit code,
// reason Completed for 0 and Error otherwise. api.proto
// ContainerStatus.exit_code "Exit code of the container. Only required
// when finished_at != 0", reason "Brief CamelCase string explaining why
// container is in its current state"; containerd sets "Completed" and
// "Error" (internal/cri/server/container_status.go).
func exitCode(c *check) {
	sb, sbCfg := c.sandbox(nil)
	for _, tc := range []struct {
		code   int32
		reason string
	}{{0, cri.ReasonCompleted}, {3, cri.ReasonError}} {
		id := c.run(sb, sbCfg, c.tg.Exits(c.unique("exit"), tc.code))
		st := c.waitState(id, cri.ContainerExited)
		if st.ExitCode != tc.code || st.Reason != tc.reason {
			c.Errorf("ContainerStatus(%q) of a container that exits %d = exit code %d reason %q, want %d %q", id, tc.code, st.ExitCode, st.Reason, tc.code, tc.reason)
		}
		if st.FinishedAt.IsZero() || st.FinishedAt.Before(st.StartedAt) {
			c.Errorf("ContainerStatus(%q) of an exited container = StartedAt %v FinishedAt %v, want FinishedAt set and not before StartedAt", id, st.StartedAt, st.FinishedAt)
		}
	}
}

// stopTimeoutKills: StopContainer gives the container its grace period
// after SIGTERM and then kills it (exit code 137); a container that
// exits on SIGTERM is stopped before the grace period ends. api.proto
// StopContainer: "stops a running container with a grace period (i.e.,
// timeout)"; "The runtime must forcibly kill the container after the
// grace period is reached"; the kubelet's killContainer passes the pod's
// terminationGracePeriodSeconds (pkg/kubelet/kuberuntime/
// kuberuntime_container.go).
func stopTimeoutKills(c *check) {
	sb, sbCfg := c.sandbox(nil)
	const grace = 200 * time.Millisecond
	const slack = 2 * time.Second
	stubborn := c.run(sb, sbCfg, c.tg.IgnoresTerm("stubborn"))
	c.waitState(stubborn, cri.ContainerRunning)
	// A program that ignores SIGTERM has to get there first: a SIGTERM
	// before it has set itself up ends it as any other (143).
	c.waitLogged(stubborn)
	var err error
	if !c.bounded(grace+slack, func() { err = c.rt.StopContainer(c.ctx, stubborn, grace) }) {
		c.Fatalf("StopContainer(%q, %v) of a container that ignores SIGTERM did not return within %v, want SIGKILL once %v has passed", stubborn, grace, grace+slack, grace)
	}
	c.noError("StopContainer("+quote(stubborn)+", 200ms)", err)
	st := c.status(stubborn)
	if st.State != cri.ContainerExited || st.ExitCode != sigkill || st.Reason != cri.ReasonError {
		c.Errorf("ContainerStatus(%q) after StopContainer(%v) of a container that ignores SIGTERM = state %s exit code %d reason %q, want %s %d %q", stubborn, grace, st.State, st.ExitCode, st.Reason, cri.ContainerExited, sigkill, cri.ReasonError)
	}
	if d := st.FinishedAt.Sub(st.StartedAt); d < grace {
		c.Errorf("ContainerStatus(%q) after StopContainer(%v) = ran %v (StartedAt to FinishedAt), want at least the grace period %v before SIGKILL", stubborn, grace, d, grace)
	}

	const long = 5 * time.Second
	polite := c.run(sb, sbCfg, c.tg.Runs("polite"))
	c.waitState(polite, cri.ContainerRunning)
	if !c.bounded(long, func() { err = c.rt.StopContainer(c.ctx, polite, long) }) {
		c.Fatalf("StopContainer(%q, %v) of a container that exits on SIGTERM did not return within %v, want it to return once SIGTERM stopped it", polite, long, long)
	}
	c.noError("StopContainer("+quote(polite)+", 5s)", err)
	st = c.status(polite)
	if st.State != cri.ContainerExited || st.ExitCode == sigkill {
		c.Errorf("ContainerStatus(%q) after StopContainer(%v) of a container that exits on SIGTERM = state %s exit code %d, want %s by SIGTERM, not %d (SIGKILL)", polite, long, st.State, st.ExitCode, cri.ContainerExited, sigkill)
	}
}

// stopIdempotent: stopping a container that is not running (stopped
// already, exited by itself, or never started) is no error and changes
// nothing. api.proto StopContainer: "This call is idempotent, and must
// not return an error if the container has already been stopped"
// (cri-tools pkg/validate/idempotence.go).
func stopIdempotent(c *check) {
	sb, sbCfg := c.sandbox(nil)
	id := c.run(sb, sbCfg, c.tg.Runs("stopped"))
	c.noError("StopContainer("+quote(id)+", 0)", c.rt.StopContainer(c.ctx, id, 0))
	first := cloneStatus(c.status(id))
	c.noError("StopContainer("+quote(id)+", 0) again", c.rt.StopContainer(c.ctx, id, 0))
	again := c.status(id)
	if again.State != cri.ContainerExited || again.ExitCode != first.ExitCode || !again.FinishedAt.Equal(first.FinishedAt) {
		c.Errorf("ContainerStatus(%q) after a second StopContainer = state %s exit code %d FinishedAt %v, want %s %d %v (unchanged)", id, again.State, again.ExitCode, again.FinishedAt, first.State, first.ExitCode, first.FinishedAt)
	}

	exited := c.run(sb, sbCfg, c.tg.Exits("exited", 3))
	st := cloneStatus(c.waitState(exited, cri.ContainerExited))
	c.noError("StopContainer("+quote(exited)+", 0) of an exited container", c.rt.StopContainer(c.ctx, exited, 0))
	if after := c.status(exited); after.ExitCode != 3 || after.Reason != st.Reason || !after.FinishedAt.Equal(st.FinishedAt) {
		c.Errorf("ContainerStatus(%q) after StopContainer of a container that had exited 3 = exit code %d reason %q FinishedAt %v, want 3 %q %v (unchanged)", exited, after.ExitCode, after.Reason, after.FinishedAt, st.Reason, st.FinishedAt)
	}

	created := c.create(sb, sbCfg, c.tg.Runs("created"))
	c.noError("StopContainer("+quote(created)+", 0) of a created container", c.rt.StopContainer(c.ctx, created, 0))
}

// stopUnknownOK: StopContainer of an id the runtime does not know (never
// made, or removed) is no error, as cri.RuntimeService states (api.proto
// StopContainer is idempotent; cri-tools' validate/idempotence.go
// stops a made-up id and wants no error).
func stopUnknownOK(c *check) {
	c.noError("StopContainer("+quote(noSuchID)+", 0) of an unknown id", c.rt.StopContainer(c.ctx, noSuchID, 0))
	sb, sbCfg := c.sandbox(nil)
	id := c.run(sb, sbCfg, c.tg.Exits("gone", 0))
	c.waitState(id, cri.ContainerExited)
	c.noError("RemoveContainer("+quote(id)+")", c.rt.RemoveContainer(c.ctx, id))
	c.noError("StopContainer("+quote(id)+", 0) after RemoveContainer", c.rt.StopContainer(c.ctx, id, 0))
}

// removeRunningKills: RemoveContainer of a running container kills it at
// once (no grace period) and removes it. api.proto RemoveContainer: "If
// the container is running, the container must be forcibly removed."
func removeRunningKills(c *check) {
	sb, sbCfg := c.sandbox(nil)
	for _, cfg := range []*cri.ContainerConfig{c.tg.Runs("runs"), c.tg.IgnoresTerm("stubborn")} {
		id := c.run(sb, sbCfg, cfg)
		c.waitState(id, cri.ContainerRunning)
		const within = 5 * time.Second
		var err error
		if !c.bounded(within, func() { err = c.rt.RemoveContainer(c.ctx, id) }) {
			c.Fatalf("RemoveContainer(%q) of a running container (%s) did not return within %v, want it killed at once", id, cfg.Metadata.Name, within)
		}
		c.noError("RemoveContainer("+quote(id)+") of a running container", err)
		_, err = c.rt.ContainerStatus(c.ctx, id)
		c.wantNotFound("ContainerStatus("+quote(id)+") after RemoveContainer", err)
	}
	if ids := c.containerIDs(nil); len(ids) != 0 {
		c.Errorf("ListContainers(nil) after removing every container = %v, want none", ids)
	}
}

// removeIdempotent: removing a container again, or an id never seen, is
// no error; a Created or Exited container is removed. api.proto
// RemoveContainer: "This call is idempotent, and must not return an
// error if the container has already been removed" (cri-tools
// pkg/validate/idempotence.go).
func removeIdempotent(c *check) {
	sb, sbCfg := c.sandbox(nil)
	exited := c.run(sb, sbCfg, c.tg.Exits("exited", 0))
	c.waitState(exited, cri.ContainerExited)
	created := c.create(sb, sbCfg, c.tg.Runs("created"))
	for _, id := range []string{exited, created} {
		c.noError("RemoveContainer("+quote(id)+")", c.rt.RemoveContainer(c.ctx, id))
		_, err := c.rt.ContainerStatus(c.ctx, id)
		c.wantNotFound("ContainerStatus("+quote(id)+") after RemoveContainer", err)
		c.noError("RemoveContainer("+quote(id)+") again", c.rt.RemoveContainer(c.ctx, id))
	}
	c.noError("RemoveContainer("+quote(noSuchID)+")", c.rt.RemoveContainer(c.ctx, noSuchID))
}

// execSync: ExecSync runs a command in a running container and returns
// its output and exit code; a non-zero exit is a result, not an error;
// a container that is not running cannot exec. api.proto
// ExecSyncResponse: stdout, stderr, exit_code; the kubelet's exec probe
// reads the exit code (pkg/kubelet/prober/prober.go), and containerd's
// execInContainer refuses a container that is not CONTAINER_RUNNING
// (internal/cri/server/container_execsync.go "container is in %s
// state").
func execSync(c *check) {
	sb, sbCfg := c.sandbox(nil)
	id := c.run(sb, sbCfg, c.tg.Runs("exec"))
	c.waitState(id, cri.ContainerRunning)
	res, err := c.rt.ExecSync(c.ctx, id, c.tg.Exec, 5*time.Second)
	if err != nil || res == nil {
		c.Fatalf("ExecSync(%q, %q) = %v, %v; want a result, nil", id, c.tg.Exec, res, err)
	}
	if string(res.Stdout) != "ok\n" || res.ExitCode != 0 {
		c.Errorf("ExecSync(%q, %q) = stdout %q exit code %d, want %q 0", id, c.tg.Exec, res.Stdout, res.ExitCode, "ok\n")
	}
	res, err = c.rt.ExecSync(c.ctx, id, c.tg.ExecFail, 5*time.Second)
	if err != nil || res == nil || res.ExitCode != 3 {
		got := "nil"
		if res != nil {
			got = "exit code " + strconv.Itoa(int(res.ExitCode))
		}
		c.Errorf("ExecSync(%q, %q) = %s, %v; want exit code 3, nil (an exit code is a result, not an error)", id, c.tg.ExecFail, got, err)
	}
	c.noError("StopContainer("+quote(id)+", 0)", c.rt.StopContainer(c.ctx, id, 0))
	if res, err := c.rt.ExecSync(c.ctx, id, c.tg.Exec, 5*time.Second); err == nil {
		c.Errorf("ExecSync(%q, %q) of an exited container = %+v, nil; want an error", id, c.tg.Exec, res)
	}
}

// oom: a container that goes over its memory limit is killed and
// reported OOMKilled. api.proto LinuxContainerResources
// memory_limit_in_bytes and ContainerStatus.reason; the runtime's
// reason is what the kubelet copies into the pod's
// containerStatuses[].state.terminated.reason (cri.ReasonOOMKilled).
func oom(c *check) {
	if c.tg.Hog == nil {
		c.Skipf("the target has no Hog: it cannot go over a memory limit")
	}
	sb, sbCfg := c.sandbox(nil)
	cfg := c.tg.Hog("hog")
	if cfg.Resources.MemoryLimitInBytes <= 0 {
		c.Fatalf("Target.Hog gave MemoryLimitInBytes %d, want a limit", cfg.Resources.MemoryLimitInBytes)
	}
	id := c.run(sb, sbCfg, cfg)
	st := c.waitState(id, cri.ContainerExited)
	if st.Reason != cri.ReasonOOMKilled || st.ExitCode == 0 {
		c.Errorf("ContainerStatus(%q) of a container over its memory limit = exit code %d reason %q, want a non-zero exit code and reason %q", id, st.ExitCode, st.Reason, cri.ReasonOOMKilled)
	}
}
