package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kubekata/kubekata/harness/cri/images"
)

// kata image manages the local registry a cluster pulls its images from
// (harness/cri/images), kept in the cluster's data directory as
// images.json, read again at every pull: what is pushed while a cluster
// runs is there at its next pull, which is how a rolling update stuck on
// a missing image (ImagePullBackOff) recovers.
//
//   - push NAME[:TAG] PROGRAM [ARGS...] adds or replaces the image
//     NAME:TAG (no tag: latest) that runs one of the kata's programs
//     with ARGS, as `docker push` after a build would; ARGS are checked
//     as the program would check them. Flags go before NAME: everything
//     after PROGRAM is the program's.
//   - ls lists the images, with the short form of their ids (the first
//     12 hex digits, as docker images and crictl images show them).

func init() {
	register("image", &command{
		summary: "push an image to the cluster's local registry, or list its images",
		usage:   "image push [--data-dir DIR] NAME[:TAG] PROGRAM [ARGS...] | image ls [--data-dir DIR]",
		run:     runImage,
	})
}

func runImage(env *Env, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "push":
		return imagePush(env, args[1:])
	case "ls", "list":
		return imageList(env, args[1:])
	}
	return errUsage
}

// imageRegistry opens the registry in --data-dir.
func imageRegistry(env *Env, cmd, dataDir string) (*images.Registry, error) {
	dir, err := dataDirFlag(env, dataDir)
	if err != nil {
		return nil, err
	}
	r, err := images.Open(dir)
	if err != nil {
		return nil, imageError(cmd, err)
	}
	return r, nil
}

func imageError(cmd string, err error) error {
	return fmt.Errorf("%s: %s", cmd, strings.TrimPrefix(err.Error(), "images: "))
}

// shortID is an image id's first 12 hex digits.
func shortID(id string) string {
	hex := strings.TrimPrefix(id, "sha256:")
	return hex[:min(12, len(hex))]
}

func imagePush(env *Env, args []string) error {
	const cmd = "kata image push"
	fs := flags(env, "image push")
	fs.Usage = func() {}
	dataDir := fs.String("data-dir", "", "the cluster's data directory, which holds images.json (default .kata/cluster in the checkout)")
	// Flags stop at NAME: the rest are PROGRAM and its own arguments.
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.PrintDefaults()
			return err
		}
		return errUsage
	}
	pos := fs.Args()
	if len(pos) < 2 || pos[0] == "" || pos[1] == "" {
		return errUsage
	}
	r, err := imageRegistry(env, cmd, *dataDir)
	if err != nil {
		return err
	}
	e, err := r.Push(pos[0], pos[1], pos[2:])
	if err != nil {
		return imageError(cmd, err)
	}
	fmt.Fprintf(env.Stdout, "pushed %s (sha256:%s)\n", e.Image, shortID(e.ID))
	return nil
}

func imageList(env *Env, args []string) error {
	const cmd = "kata image ls"
	fs := flags(env, "image ls")
	dataDir := fs.String("data-dir", "", "the cluster's data directory, which holds images.json (default .kata/cluster in the checkout)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return errUsage
	}
	r, err := imageRegistry(env, cmd, *dataDir)
	if err != nil {
		return err
	}
	es, err := r.List()
	if err != nil {
		return imageError(cmd, err)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "IMAGE\tPROGRAM\tARGS\tID")
	for _, e := range es {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Image, e.Program, quoteArgs(e.Args), shortID(e.ID))
	}
	return tw.Flush()
}

// quoteArgs shows arguments as a shell would take them back.
func quoteArgs(args []string) string {
	if len(args) == 0 {
		return "-"
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			q[i] = strconv.Quote(a)
		}
	}
	return strings.Join(q, " ")
}
