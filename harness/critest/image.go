package critest

import (
	"slices"

	"github.com/kubekata/kubekata/harness/cri"
)

// imageListed reports whether ListImages lists an image with id.
func (c *check) imageListed(id string) bool {
	c.Helper()
	list, err := c.rt.ListImages(c.ctx)
	if err != nil {
		c.Fatalf("ListImages() = %v, want nil", err)
	}
	return slices.ContainsFunc(list, func(im *cri.Image) bool { return im != nil && im.ID == id })
}

// pullPresent: PullImage makes an image present and returns its id, the
// same id pulled again; ImageStatus reports it with its NAME:TAG among
// its RepoTags; ListImages lists it. api.proto: PullImageResponse
// "Reference to the image in use"; ImageStatus "returns the status of the
// image"; Image.repo_tags "Other names by which this image is known"
// (cri-tools pkg/validate/image.go pulls, checks the status and lists).
func pullPresent(c *check) {
	image := c.tg.Present
	want, err := cri.NormalizeImage(image)
	if err != nil {
		c.Fatalf("Target.Present %q: %v", image, err)
	}
	ref := c.pull(image)
	if ref == "" {
		c.Fatalf("PullImage(%q) = ref \"\", want the image's id", image)
	}
	if again := c.pull(image); again != ref {
		c.Errorf("PullImage(%q) again = %q, want %q (the same image)", image, again, ref)
	}
	st, err := c.rt.ImageStatus(c.ctx, cri.ImageSpec{Image: image})
	if err != nil || st == nil {
		c.Fatalf("ImageStatus(%q) after PullImage = %v, %v; want the image, nil", image, st, err)
	}
	if st.ID != ref {
		c.Errorf("ImageStatus(%q) = id %q, want %q (what PullImage returned)", image, st.ID, ref)
	}
	if !slices.Contains(st.RepoTags, want) {
		c.Errorf("ImageStatus(%q) = RepoTags %v, want them to hold %q", image, st.RepoTags, want)
	}
	if want != image {
		// The normalized name names the same image.
		st2, err := c.rt.ImageStatus(c.ctx, cri.ImageSpec{Image: want})
		if err != nil || st2 == nil || st2.ID != ref {
			c.Errorf("ImageStatus(%q) = %+v, %v; want image %q, nil", want, st2, err, ref)
		}
	}
	if !c.imageListed(ref) {
		c.Errorf("ListImages() after PullImage(%q) lacks id %q, want it listed", image, ref)
	}
}

// pullMissing: pulling an image the registry lacks is NotFound and leaves
// nothing behind; ImageStatus of an absent image is nil and no error.
// api.proto ImageStatus: "If the image is not present, returns a
// response with ImageStatusResponse.Image set to nil"; the kubelet
// turns a pull's failure into ErrImagePull
// (pkg/kubelet/images/image_manager.go).
func pullMissing(c *check) {
	image := c.tg.Missing
	ref, err := c.rt.PullImage(c.ctx, cri.ImageSpec{Image: image})
	if !cri.IsNotFound(err) {
		c.Errorf("PullImage(%q) = %q, %v; want an error wrapping cri.ErrNotFound", image, ref, err)
	}
	st, err := c.rt.ImageStatus(c.ctx, cri.ImageSpec{Image: image})
	if err != nil || st != nil {
		c.Errorf("ImageStatus(%q) = %+v, %v; want nil, nil (absence is not an error)", image, st, err)
	}
}

// removeImage: RemoveImage makes an image absent; removing it again, or
// an image never pulled, is no error. api.proto RemoveImage: "This call
// is idempotent, and must not return an error if the image has already
// been removed"; "The next call to ListImages, ImageStatus ... will not
// return this image" (cri-tools pkg/validate/idempotence.go).
func removeImage(c *check) {
	image := c.tg.Present
	ref := c.pull(image)
	c.noError("RemoveImage("+quote(image)+")", c.rt.RemoveImage(c.ctx, cri.ImageSpec{Image: image}))
	st, err := c.rt.ImageStatus(c.ctx, cri.ImageSpec{Image: image})
	if err != nil || st != nil {
		c.Errorf("ImageStatus(%q) after RemoveImage = %+v, %v; want nil, nil", image, st, err)
	}
	if c.imageListed(ref) {
		c.Errorf("ListImages() after RemoveImage(%q) lists id %q, want it gone", image, ref)
	}
	c.noError("RemoveImage("+quote(image)+") again", c.rt.RemoveImage(c.ctx, cri.ImageSpec{Image: image}))
	c.noError("RemoveImage("+quote(c.tg.Missing)+") of an image never pulled", c.rt.RemoveImage(c.ctx, cri.ImageSpec{Image: c.tg.Missing}))
	// And it can be pulled back.
	if again := c.pull(image); again != ref {
		c.Errorf("PullImage(%q) after RemoveImage = %q, want %q", image, again, ref)
	}
}

// createNeedsImage: CreateContainer from an image that is not present
// (never pulled, or removed) is NotFound: the kubelet pulls first
// (pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer:
// EnsureImageExists, then CreateContainer), and containerd resolves the
// image locally only, "the image should have been pulled before creating
// the container" (internal/cri/server/container_create.go).
func createNeedsImage(c *check) {
	sb, sbCfg := c.sandbox(nil)
	cfg := c.tg.Runs("c")
	cfg.LogPath = "c/0.log"
	image := cfg.Image.Image
	if err := c.rt.RemoveImage(c.ctx, cfg.Image); err != nil {
		c.Fatalf("RemoveImage(%q) = %v, want nil", image, err)
	}
	id, err := c.rt.CreateContainer(c.ctx, sb, cfg, sbCfg)
	if !cri.IsNotFound(err) {
		c.Errorf("CreateContainer(%q, image %q not pulled) = %q, %v; want an error wrapping cri.ErrNotFound", sb, image, id, err)
	}
	missing := c.tg.Runs("m")
	missing.Image = cri.ImageSpec{Image: c.tg.Missing}
	missing.LogPath = "m/0.log"
	id, err = c.rt.CreateContainer(c.ctx, sb, missing, sbCfg)
	if !cri.IsNotFound(err) {
		c.Errorf("CreateContainer(%q, image %q the registry lacks) = %q, %v; want an error wrapping cri.ErrNotFound", sb, c.tg.Missing, id, err)
	}
	if ids := c.containerIDs(nil); len(ids) != 0 {
		c.Errorf("ListContainers(nil) after failed creates = %v, want none", ids)
	}
}
