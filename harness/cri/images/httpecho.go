package images

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// http-echo is the kata's web server, after hashicorp/http-echo
// (main.go: -text and -listen, a health route, a graceful Shutdown on
// SIGTERM) and the serve-hostname mode of Kubernetes' test image
// (kubernetes/kubernetes test/images/agnhost/serve-hostname): every
// answer names the pod, so that traffic through a Service shows which
// pod served it.
//
//	http-echo [-text hello] [-listen $POD_IP:8080]
//
// Every path answers 200 "<text> from <pod>\n" (pod: $POD_NAME, else
// the hostname), except /healthz, which answers 200 "ok" (for probes),
// or 503 "failing" once /healthz/fail was asked, until /healthz/pass is
// (a readiness that a scenario turns off and on, as agnhost netexec's
// /healthz can be made to fail). Each request is logged as
// "GET /path 200".

// shutdownTimeout bounds the wait for requests in flight on SIGTERM.
const shutdownTimeout = 5 * time.Second

func httpEchoFlags(fs *flag.FlagSet) func() (run, error) {
	text := fs.String("text", "hello", "the text to answer with")
	listen := fs.String("listen", defaultListen(os.Getenv("POD_IP")), "the address to listen on, HOST:PORT")
	return func() (run, error) {
		if _, _, err := net.SplitHostPort(*listen); err != nil {
			return nil, fmt.Errorf("-listen %q: want HOST:PORT", *listen)
		}
		return func(stdout, stderr io.Writer, stop <-chan struct{}) int {
			return httpEcho(*text, *listen, stdout, stderr, stop)
		}, nil
	}
}

// defaultListen is $POD_IP:8080, or 127.0.0.1:8080 outside a pod.
func defaultListen(podIP string) string {
	if podIP == "" {
		podIP = "127.0.0.1"
	}
	return net.JoinHostPort(podIP, "8080")
}

func podName() string {
	if n := os.Getenv("POD_NAME"); n != "" {
		return n
	}
	if h, err := os.Hostname(); err == nil {
		return h
	}
	return "unknown"
}

func httpEcho(text, listen string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fmt.Fprintf(stderr, "http-echo: %v\n", err)
		return 1
	}
	answer := text + " from " + podName() + "\n"
	var failing atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "failing")
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	toggle := func(fail bool, says string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			failing.Store(fail)
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, "/healthz now answers "+says+"\n")
		}
	}
	mux.HandleFunc("/healthz/fail", toggle(true, "503"))
	mux.HandleFunc("/healthz/pass", toggle(false, "200"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, answer)
	})
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
			mux.ServeHTTP(sw, r)
			fmt.Fprintf(stdout, "%s %s %d\n", r.Method, r.URL.Path, sw.code)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(stderr, "http-echo: ", 0),
	}
	fmt.Fprintf(stdout, "http-echo: listening on %s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "http-echo: %v\n", err)
		return 1
	case <-stop:
	}
	fmt.Fprintln(stdout, "http-echo: shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "http-echo: %v\n", err)
		return 1
	}
	return 0
}

// statusWriter remembers the status code for the request log.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}
