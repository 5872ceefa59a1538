package scenario

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/cri/images"
)

// httpTimeout bounds one http-get.
const httpTimeout = 5 * time.Second

// http-get URL sends one GET to URL (a pod's address, from
// `get --env IP pods/NS/NAME {.status.podIP}`) and prints the body; the
// answer must be 200. With !, the request must fail or answer otherwise:
// a stopped pod's address refuses the connection.
func cmdHTTPGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: http-get URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), httpTimeout)
	defer cancel()
	body, err := httpGet(ctx, args[0])
	if err == nil {
		fmt.Fprint(ts.Stdout(), body)
	}
	report(ts, neg, "http-get "+args[0], err)
}

// httpGet is the body of a GET of url that answers 200, on a connection
// of its own (nothing kept alive between scenarios' pods).
func httpGet(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return string(b), fmt.Errorf("GET %s = %s, want 200 OK", url, resp.Status)
	}
	return string(b), nil
}

// image-push NAME:TAG PROGRAM [ARGS...] adds an image to the registry in
// the cluster's data directory, as `kata image push --data-dir` does: the
// nodes' runtimes pull from it, and read it again at every pull.
func cmdImagePush(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "image-push")
	if len(args) < 2 {
		ts.Fatalf("usage: image-push NAME:TAG PROGRAM [ARGS...]")
	}
	r, err := images.Open(stateOf(ts).dataDir)
	ts.Check(err)
	e, err := r.Push(args[0], args[1], args[2:])
	if err != nil {
		ts.Fatalf("image-push: %v", err)
	}
	fmt.Fprintf(ts.Stdout(), "%s %s\n", e.Image, e.ID)
}

// kubelet-stop NODE stops NODE's kubelet in the running cluster, and its
// containers with it (program.StopNode, through the admin endpoint), as
// a node that fails: its Lease is no longer renewed, and its Node and
// pods stay in the API for the node lifecycle controller.
func cmdKubeletStop(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "kubelet-stop")
	if len(args) != 1 {
		ts.Fatalf("usage: kubelet-stop NODE")
	}
	st := stateOf(ts)
	st.running(ts, "kubelet-stop")
	ctx, cancel := requestContext()
	defer cancel()
	if err := program.StopNode(ctx, st.dataDir, args[0]); err != nil {
		ts.Fatalf("kubelet-stop: %v", err)
	}
	fmt.Fprintf(ts.Stdout(), "stopped the kubelet on %s\n", args[0])
}
