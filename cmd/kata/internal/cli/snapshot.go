package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/storage"
)

// kata snapshot backs up and restores a cluster's data as the seeds
// describe for etcd (etcdctl snapshot save / etcdutl snapshot restore),
// through the store's Snapshot and Restore:
//
//   - save FILE asks the cluster running on --data-dir (default
//     .kata/cluster) for a snapshot of its store, through the admin
//     endpoint the cluster announces in DIR/admin.json, and writes it to
//     FILE atomically (a temporary file, fsync, rename): FILE is the
//     whole snapshot or is not there. It refuses to overwrite an
//     existing FILE unless --force: a snapshot is a backup, and a typo
//     must not replace the last good one.
//   - restore FILE builds the cluster program with the same wiring rules
//     as kata up (your store, or --reference) and runs `PROG restore`,
//     which loads FILE into the store in --data-dir. The store must hold
//     no data: a directory that does is refused and left as it was, so
//     a restore never loses anything. Then kata up --data-dir DIR runs
//     the restored cluster.

func init() {
	register("snapshot", &command{
		summary: "save a running cluster's data to a file, or restore it into an empty data directory",
		usage:   "snapshot save FILE [--data-dir DIR] [--force] | snapshot restore FILE [--data-dir DIR] [--reference]",
		run:     runSnapshot,
	})
}

func runSnapshot(env *Env, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "save":
		return snapshotSave(env, args[1:])
	case "restore":
		return snapshotRestore(env, args[1:])
	}
	return errUsage
}

// dataDirFlag resolves --data-dir: relative to the working directory, or
// .kata/cluster in the checkout when empty.
func dataDirFlag(env *Env, dir string) (string, error) {
	if dir == "" {
		root, err := findRoot(env.Dir)
		if err != nil {
			return "", err
		}
		return filepath.Join(root, ".kata", "cluster"), nil
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	return dir, nil
}

func snapshotSave(env *Env, args []string) error {
	fs := flags(env, "snapshot save")
	dataDir := fs.String("data-dir", "", "the data directory of the running cluster (default .kata/cluster in the checkout)")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] == "" {
		return errUsage
	}
	dir, err := dataDirFlag(env, *dataDir)
	if err != nil {
		return err
	}
	file := pos[0]
	if !filepath.IsAbs(file) {
		file = filepath.Join(env.Dir, file)
	}
	if _, err := os.Stat(file); err == nil && !*force {
		return fmt.Errorf("kata snapshot save: %s already exists; pick another name, or pass --force to replace it", pos[0])
	}
	size, err := program.SaveSnapshotFile(env.Ctx, dir, file)
	if err != nil {
		if errors.Is(err, program.ErrNoCluster) {
			return fmt.Errorf("kata snapshot save: no cluster is running with its data in %s; start one with kata up (--data-dir %s)", dir, dir)
		}
		return fmt.Errorf("kata snapshot save: %s", trimPrefixes(err.Error()))
	}
	fmt.Fprintf(env.Stdout, "kata snapshot save: saved the store of the cluster in %s to %s (%d bytes)\n", dir, pos[0], size)
	return nil
}

func trimPrefixes(s string) string {
	for _, p := range []string{"program: ", "admin: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

func snapshotRestore(env *Env, args []string) error {
	const cmd = "kata snapshot restore"
	fs := flags(env, "snapshot restore")
	dataDir := fs.String("data-dir", "", "the empty data directory to restore into (default .kata/cluster in the checkout)")
	reference := fs.Bool("reference", false, "restore with the reference store instead of yours")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] == "" {
		return errUsage
	}
	file := pos[0]
	if !filepath.IsAbs(file) {
		file = filepath.Join(env.Dir, file)
	}
	if st, err := os.Stat(file); err != nil || st.IsDir() {
		return fmt.Errorf("%s: %s is not a snapshot file (kata snapshot save FILE makes one)", cmd, pos[0])
	}
	dir, err := dataDirFlag(env, *dataDir)
	if err != nil {
		return err
	}
	if pid, ok := program.Running(env.Ctx, dir); ok {
		return fmt.Errorf("%s: a cluster is running with its data in %s (pid %d); a restore goes into an empty directory, never under a running cluster", cmd, dir, pid)
	}
	root, err := findRoot(env.Dir)
	if err != nil {
		return err
	}
	w, err := clusterWiring(env, root, cmd, *reference, false)
	if err != nil {
		return err
	}
	if w.Store == "" {
		msg := cmd + ": restoring needs your store (" + storeID + "), and it is not finished yet; finish it (kata next)"
		if isDir(filepath.Join(root, "solutions")) {
			msg += ", or pass --reference to restore with the reference store"
		}
		return errors.New(msg)
	}
	tmp, err := os.MkdirTemp("", "kata-restore-")
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "kata-cluster")
	if err := buildCluster(env, root, cmd, w, bin); err != nil {
		return err
	}
	if err := program.Restore(env.Ctx, bin, dir, file); err != nil {
		switch {
		case env.Ctx.Err() != nil:
			return &exitError{code: 130}
		case errors.Is(err, storage.ErrNotEmpty):
			return fmt.Errorf("%s: %s already holds data; restore into a new, empty directory (--data-dir), or move that one away first; nothing was changed", cmd, dir)
		}
		fmt.Fprintf(env.Stderr, "%s\n", strings.TrimPrefix(err.Error(), "program: restore: "))
		return &exitError{code: 1}
	}
	fmt.Fprintf(env.Stdout, "%s: restored %s into %s; start it with: kata up --data-dir %s", cmd, pos[0], dir, dir)
	if *reference {
		fmt.Fprintf(env.Stdout, " --reference")
	}
	fmt.Fprintln(env.Stdout)
	return nil
}
