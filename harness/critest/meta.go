package critest

import (
	"bufio"
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

// label adds labels (and annotations, when given) to cfg, keeping the
// target's own.
func label(cfg *cri.ContainerConfig, labels, annotations map[string]string) *cri.ContainerConfig {
	if cfg.Labels == nil {
		cfg.Labels = map[string]string{}
	}
	maps.Copy(cfg.Labels, labels)
	if annotations != nil {
		if cfg.Annotations == nil {
			cfg.Annotations = map[string]string{}
		}
		maps.Copy(cfg.Annotations, annotations)
	}
	return cfg
}

// listFilters: ListContainers and ListPodSandbox return what matches every
// field of the filter that is set (id, state, sandbox, labels), and
// everything for a nil or empty filter, oldest first. api.proto
// ContainerFilter: "All those fields are combined with 'AND'";
// label_selector "LabelSelector to select matches. Only api.MatchLabels
// is supported for now"; PodSandboxFilter likewise. The kubelet lists
// with these filters (pkg/kubelet/kuberuntime/kuberuntime_container.go
// getKubeletContainers, kuberuntime_sandbox.go getKubeletSandboxes).
func listFilters(c *check) {
	sb1, cfg1 := c.sandbox(nil)
	sb2, cfg2 := c.sandbox(nil)
	a := c.run(sb1, cfg1, label(c.tg.Runs("a"), map[string]string{"app": "a", "tier": "web"}, nil))
	b := c.create(sb1, cfg1, label(c.tg.Runs("b"), map[string]string{"app": "b", "tier": "web"}, nil))
	x := c.run(sb2, cfg2, label(c.tg.Exits("x", 0), map[string]string{"app": "a"}, nil))
	c.waitState(a, cri.ContainerRunning)
	c.waitState(x, cri.ContainerExited)

	for _, tc := range []struct {
		filter *cri.ContainerFilter
		want   []string
	}{
		{nil, []string{a, b, x}},
		{&cri.ContainerFilter{}, []string{a, b, x}},
		{&cri.ContainerFilter{ID: b}, []string{b}},
		{&cri.ContainerFilter{ID: noSuchID}, nil},
		{&cri.ContainerFilter{State: cri.ContainerRunning}, []string{a}},
		{&cri.ContainerFilter{State: cri.ContainerCreated}, []string{b}},
		{&cri.ContainerFilter{State: cri.ContainerExited}, []string{x}},
		{&cri.ContainerFilter{PodSandboxID: sb1}, []string{a, b}},
		{&cri.ContainerFilter{PodSandboxID: sb2}, []string{x}},
		{&cri.ContainerFilter{LabelSelector: map[string]string{"app": "a"}}, []string{a, x}},
		{&cri.ContainerFilter{LabelSelector: map[string]string{"app": "a", "tier": "web"}}, []string{a}},
		{&cri.ContainerFilter{LabelSelector: map[string]string{"app": "c"}}, nil},
		{&cri.ContainerFilter{PodSandboxID: sb1, LabelSelector: map[string]string{"app": "a"}}, []string{a}},
		{&cri.ContainerFilter{PodSandboxID: sb2, State: cri.ContainerRunning}, nil},
		{&cri.ContainerFilter{ID: a, State: cri.ContainerExited}, nil},
	} {
		if got := c.containerIDs(tc.filter); !slices.Equal(got, tc.want) {
			c.Errorf("ListContainers(%s) = %v, want %v (a=%s b=%s x=%s, oldest first)", showFilter(tc.filter), got, tc.want, a, b, x)
		}
	}

	c.noError("StopPodSandbox("+quote(sb2)+")", c.rt.StopPodSandbox(c.ctx, sb2))
	for _, tc := range []struct {
		filter *cri.PodSandboxFilter
		want   []string
	}{
		{nil, []string{sb1, sb2}},
		{&cri.PodSandboxFilter{}, []string{sb1, sb2}},
		{&cri.PodSandboxFilter{ID: sb2}, []string{sb2}},
		{&cri.PodSandboxFilter{ID: noSuchID}, nil},
		{&cri.PodSandboxFilter{State: cri.SandboxReady}, []string{sb1}},
		{&cri.PodSandboxFilter{State: cri.SandboxNotReady}, []string{sb2}},
		{&cri.PodSandboxFilter{LabelSelector: cfg1.Labels}, []string{sb1}},
		{&cri.PodSandboxFilter{LabelSelector: map[string]string{"critest/pod": "none"}}, nil},
		{&cri.PodSandboxFilter{ID: sb1, State: cri.SandboxNotReady}, nil},
	} {
		if got := c.sandboxIDs(tc.filter); !slices.Equal(got, tc.want) {
			c.Errorf("ListPodSandbox(%s) = %v, want %v (oldest first)", showFilter(tc.filter), got, tc.want)
		}
	}
}

// resultsAreCopies: what a runtime returns, and what it was given, are
// not its own state: changing a returned status or list entry, or the
// config after the call, changes nothing the next read returns. CRI
// crosses a process boundary (gRPC), so every result is a copy there; an
// in-process runtime must behave the same (cri.Runtime, DESIGN rule 9).
func resultsAreCopies(c *check) {
	sbCfg := c.sandboxConfig(c.unique("pod"))
	sb, _ := c.sandbox(sbCfg)
	// What the runtime says now, copied: the runtime may hand out its
	// own record (the bug this property catches).
	wantSb := cloneSandboxStatus(c.sandboxStatus(sb))
	given := cloneSandboxConfig(sbCfg)
	sbCfg.Labels["critest/pod"] = "changed"
	sbCfg.Annotations["critest/note"] = "changed"
	sbCfg.Metadata.Name = "changed"

	cfg := label(c.tg.Runs("copy"), map[string]string{"app": "copy"}, map[string]string{"note": "copy"})
	id := c.run(sb, given, cfg)
	want := cloneStatus(c.status(id))
	cfg.Labels["app"] = "changed"
	cfg.Annotations["note"] = "changed"
	cfg.Metadata.Name = "changed"

	// Change everything that came back.
	st := c.status(id)
	scribble(st.Labels, st.Annotations)
	st.Metadata.Name = "changed"
	list, err := c.rt.ListContainers(c.ctx, nil)
	if err != nil {
		c.Fatalf("ListContainers(nil) = %v, want nil", err)
	}
	for _, x := range list {
		scribble(x.Labels, x.Annotations)
		x.Metadata.Name = "changed"
		x.State = cri.ContainerExited
	}
	sst := c.sandboxStatus(sb)
	scribble(sst.Labels, sst.Annotations)
	sst.Metadata.Name = "changed"
	sst.IP = "changed"
	sbs, err := c.rt.ListPodSandbox(c.ctx, nil)
	if err != nil {
		c.Fatalf("ListPodSandbox(nil) = %v, want nil", err)
	}
	for _, x := range sbs {
		scribble(x.Labels, nil)
		x.Metadata.Name = "changed"
	}
	ref := c.pull(c.tg.Present)
	im, err := c.rt.ImageStatus(c.ctx, cri.ImageSpec{Image: c.tg.Present})
	if err != nil || im == nil {
		c.Fatalf("ImageStatus(%q) = %v, %v; want the image, nil", c.tg.Present, im, err)
	}
	wantTags := slices.Clone(im.RepoTags)
	for i := range im.RepoTags {
		im.RepoTags[i] = "changed"
	}
	images, err := c.rt.ListImages(c.ctx)
	if err != nil {
		c.Fatalf("ListImages() = %v, want nil", err)
	}
	for _, x := range images {
		for i := range x.RepoTags {
			x.RepoTags[i] = "changed"
		}
	}

	// Read again: nothing changed.
	if got := c.status(id); !sameContainer(got, want) {
		c.Errorf("ContainerStatus(%q) after changing the config and earlier results = %+v, want %+v", id, *got, *want)
	}
	list, err = c.rt.ListContainers(c.ctx, nil)
	if err != nil || len(list) != 1 || list[0].Metadata != want.Metadata || !maps.Equal(list[0].Labels, want.Labels) || list[0].State != cri.ContainerRunning {
		c.Errorf("ListContainers(nil) after changing an earlier list = %v, %v; want one container %q with metadata %+v labels %v state %s", show(list), err, id, want.Metadata, want.Labels, cri.ContainerRunning)
	}
	if got := c.sandboxStatus(sb); got.Metadata != wantSb.Metadata || got.IP != wantSb.IP || !maps.Equal(got.Labels, wantSb.Labels) || !maps.Equal(got.Annotations, wantSb.Annotations) {
		c.Errorf("PodSandboxStatus(%q) after changing the config and earlier results = %+v, want %+v", sb, *got, *wantSb)
	}
	sbs, err = c.rt.ListPodSandbox(c.ctx, nil)
	if err != nil || len(sbs) != 1 || sbs[0].Metadata != wantSb.Metadata || !maps.Equal(sbs[0].Labels, wantSb.Labels) {
		c.Errorf("ListPodSandbox(nil) after changing an earlier list = %v, %v; want one sandbox with metadata %+v labels %v", show(sbs), err, wantSb.Metadata, wantSb.Labels)
	}
	im, err = c.rt.ImageStatus(c.ctx, cri.ImageSpec{Image: c.tg.Present})
	if err != nil || im == nil || im.ID != ref || !slices.Equal(im.RepoTags, wantTags) {
		c.Errorf("ImageStatus(%q) after changing earlier results = %+v, %v; want id %q RepoTags %v", c.tg.Present, im, err, ref, wantTags)
	}
}

// cloneSandboxConfig copies a sandbox config, maps included.
func cloneSandboxConfig(cfg *cri.PodSandboxConfig) *cri.PodSandboxConfig {
	out := *cfg
	out.Labels = maps.Clone(cfg.Labels)
	out.Annotations = maps.Clone(cfg.Annotations)
	return &out
}

// cloneStatus copies a container status, maps included.
func cloneStatus(st *cri.ContainerStatus) *cri.ContainerStatus {
	out := *st
	out.Labels = maps.Clone(st.Labels)
	out.Annotations = maps.Clone(st.Annotations)
	return &out
}

// cloneSandboxStatus copies a sandbox status, maps included.
func cloneSandboxStatus(st *cri.PodSandboxStatus) *cri.PodSandboxStatus {
	out := *st
	out.Labels = maps.Clone(st.Labels)
	out.Annotations = maps.Clone(st.Annotations)
	return &out
}

// scribble changes every value of the maps and adds a key.
func scribble(ms ...map[string]string) {
	for _, m := range ms {
		if m == nil {
			continue
		}
		for k := range m {
			m[k] = "changed"
		}
		m["critest/added"] = "changed"
	}
}

// sameContainer compares what a status says of a container's identity,
// metadata and state.
func sameContainer(a, b *cri.ContainerStatus) bool {
	return a.ID == b.ID && a.Metadata == b.Metadata && a.State == b.State &&
		a.Image == b.Image && a.ImageRef == b.ImageRef && a.LogPath == b.LogPath &&
		a.CreatedAt.Equal(b.CreatedAt) && a.StartedAt.Equal(b.StartedAt) &&
		maps.Equal(a.Labels, b.Labels) && maps.Equal(a.Annotations, b.Annotations)
}

// show prints a list of pointers by value.
func show[E any](list []*E) []E {
	out := make([]E, 0, len(list))
	for _, x := range list {
		if x != nil {
			out = append(out, *x)
		}
	}
	return out
}

// metadataKept: a sandbox and a container report the metadata, labels,
// annotations and image they were made with. api.proto PodSandboxStatus
// and ContainerStatus: metadata, labels, annotations, image, image_ref;
// the kubelet finds its pods and containers by them
// (pkg/kubelet/kuberuntime/labels.go).
func metadataKept(c *check) {
	sbCfg := c.sandboxConfig(c.unique("pod"))
	sbCfg.Metadata.Attempt = 1
	sb, _ := c.sandbox(sbCfg)
	sst := c.sandboxStatus(sb)
	if sst.Metadata != sbCfg.Metadata || !maps.Equal(sst.Labels, sbCfg.Labels) || !maps.Equal(sst.Annotations, sbCfg.Annotations) {
		c.Errorf("PodSandboxStatus(%q) = metadata %+v labels %v annotations %v, want %+v %v %v", sb, sst.Metadata, sst.Labels, sst.Annotations, sbCfg.Metadata, sbCfg.Labels, sbCfg.Annotations)
	}
	sbs, err := c.rt.ListPodSandbox(c.ctx, nil)
	if err != nil || len(sbs) != 1 || sbs[0].ID != sb || sbs[0].Metadata != sbCfg.Metadata || !maps.Equal(sbs[0].Labels, sbCfg.Labels) || !sbs[0].CreatedAt.Equal(sst.CreatedAt) {
		c.Errorf("ListPodSandbox(nil) = %v, %v; want one sandbox %q with metadata %+v labels %v created %v", show(sbs), err, sb, sbCfg.Metadata, sbCfg.Labels, sst.CreatedAt)
	}

	cfg := label(c.tg.Runs("kept"), map[string]string{"app": "kept"}, map[string]string{"note": "kept"})
	cfg.Metadata.Attempt = 2
	cfg.LogPath = ""
	cfg = c.prepare(cfg)
	wantMeta, wantLabels, wantAnn := cfg.Metadata, maps.Clone(cfg.Labels), maps.Clone(cfg.Annotations)
	ref := c.pull(cfg.Image.Image)
	norm, _ := cri.NormalizeImage(cfg.Image.Image)
	id, err := c.rt.CreateContainer(c.ctx, sb, cfg, sbCfg)
	if err != nil {
		c.Fatalf("CreateContainer(%q, %q) = %v, want nil", sb, cfg.Metadata.Name, err)
	}
	st := c.status(id)
	if st.Metadata != wantMeta || !maps.Equal(st.Labels, wantLabels) || !maps.Equal(st.Annotations, wantAnn) {
		c.Errorf("ContainerStatus(%q) = metadata %+v labels %v annotations %v, want %+v %v %v", id, st.Metadata, st.Labels, st.Annotations, wantMeta, wantLabels, wantAnn)
	}
	if (st.Image.Image != cfg.Image.Image && st.Image.Image != norm) || st.ImageRef != ref {
		c.Errorf("ContainerStatus(%q) = image %q ref %q, want image %q (or %q) ref %q (what PullImage returned)", id, st.Image.Image, st.ImageRef, cfg.Image.Image, norm, ref)
	}
	list, err := c.rt.ListContainers(c.ctx, nil)
	if err != nil || len(list) != 1 {
		c.Fatalf("ListContainers(nil) = %v, %v; want one container %q", show(list), err, id)
	}
	x := list[0]
	if x.ID != id || x.PodSandboxID != sb || x.Metadata != wantMeta || !maps.Equal(x.Labels, wantLabels) || !maps.Equal(x.Annotations, wantAnn) ||
		x.Image != st.Image || x.ImageRef != ref || x.State != cri.ContainerCreated || !x.CreatedAt.Equal(st.CreatedAt) {
		c.Errorf("ListContainers(nil) = %+v, want id %q sandbox %q metadata %+v labels %v annotations %v image %q ref %q state %s created %v",
			*x, id, sb, wantMeta, wantLabels, wantAnn, st.Image.Image, ref, cri.ContainerCreated, st.CreatedAt)
	}
}

// logs: a container's stdout and stderr go to its log file,
// LogDirectory/LogPath, one CRI log line per line written, with the
// stream it came from. api.proto ContainerConfig.log_path: "Path relative
// to PodSandboxConfig.LogDirectory for container to store the log
// (STDOUT and STDERR) on the host", joined to it as containerd does
// (internal/cri/server/container_create.go); the format is the
// kubelet's reader's (pkg/kubelet/kuberuntime/logs/logs.go).
func logs(c *check) {
	if c.tg.Logs == nil {
		c.Skipf("the target has no Logs: no container of it writes a given line to stdout and to stderr")
	}
	sb, sbCfg := c.sandbox(nil)
	const out, errOut = "hello from stdout", "hello from stderr"
	cfg := c.tg.Logs("talker", out, errOut)
	cfg.LogPath = "talker/0.log"
	id := c.run(sb, sbCfg, cfg)
	want := filepath.Join(sbCfg.LogDirectory, cfg.LogPath)
	st := c.status(id)
	if st.LogPath != want {
		c.Errorf("ContainerStatus(%q) = LogPath %q, want %q (LogDirectory/LogPath)", id, st.LogPath, want)
	}
	path := st.LogPath
	if path == "" {
		path = want
	}

	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var data []byte
	for {
		data, _ = os.ReadFile(path)
		if bytes.Contains(data, []byte(out)) && bytes.Contains(data, []byte(errOut)) {
			break
		}
		select {
		case <-tick.C:
			continue
		case <-c.ctx.Done():
		}
		c.Fatalf("log file %s of container %q = %q until the deadline, want a stdout line %q and a stderr line %q", path, id, data, out, errOut)
	}
	var gotOut, gotErr bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, err := cri.ParseLogLine(sc.Bytes())
		if err != nil {
			c.Errorf("log file %s: %v, want CRI log lines (TIME STREAM TAG MESSAGE)", path, err)
			continue
		}
		if line.Time.IsZero() {
			c.Errorf("log file %s: line %q has no time", path, sc.Text())
		}
		switch {
		case line.Message == out && line.Stream == cri.Stdout && !line.Partial:
			gotOut = true
		case line.Message == errOut && line.Stream == cri.Stderr && !line.Partial:
			gotErr = true
		}
	}
	if !gotOut || !gotErr {
		c.Errorf("log file %s = %q, want a full stdout line %q (found: %v) and a full stderr line %q (found: %v)", path, data, out, gotOut, errOut, gotErr)
	}
	c.noError("StopContainer("+quote(id)+", 0)", c.rt.StopContainer(c.ctx, id, 0))
}
