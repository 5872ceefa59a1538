package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
)

// The HTTP server's limits, kube-apiserver's
// (staging/src/k8s.io/apiserver/pkg/server/secure_serving.go). There is
// no ReadTimeout and no WriteTimeout: a watch is one request that lasts
// as long as the client wants, and either would cut it.
const (
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes = 1 << 20
	// ReadHeaderTimeout cuts off a client that has not sent its whole
	// header by then, however slowly it trickles ("just shy of
	// requestTimeoutUpperBound" upstream).
	ReadHeaderTimeout = 32 * time.Second
	// IdleTimeout closes a kept-alive connection that sends no new
	// request ("matches http.DefaultTransport keep-alive timeout").
	IdleTimeout = 90 * time.Second
	// ShutdownTimeout is how long Serve lets requests in flight finish
	// once it is told to stop.
	ShutdownTimeout = 5 * time.Second
)

// NewServer is the apiserver's HTTP server for handler, with the limits
// above.
func NewServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		MaxHeaderBytes:    MaxHeaderBytes,
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
	}
}

// Config is what Serve runs.
type Config struct {
	// Store is the cluster's store; Serve compacts it but does not close
	// it.
	Store storage.Store
	// Handler is what the server serves: the apiserver with whatever Run
	// put around it (httpguard, the edge); Serve adds nothing.
	Handler http.Handler
	// Listener is where the apiserver listens.
	Listener net.Listener
	// CompactionInterval is the Compactor's Interval: 0 disables it.
	CompactionInterval time.Duration
	// After is the compactor's clock (storage.Compactor.After); tests
	// inject one.
	After func(d time.Duration) <-chan time.Time
	// Server, when set, is used instead of NewServer(Handler) (tests
	// shorten its timeouts); its BaseContext is replaced.
	Server *http.Server
	// Log receives what goes wrong while serving; io.Discard when nil.
	Log io.Writer
}

// Serve serves the apiserver and compacts the store until ctx is done,
// then stops: it stops accepting, ends the long-running requests (their
// context is cancelled, so watches end), lets the others finish for up to
// ShutdownTimeout, and stops the compactor. It returns nil after a stop
// asked for through ctx, or the error that stopped serving.
func Serve(ctx context.Context, cfg Config) error {
	if cfg.Store == nil || cfg.Handler == nil && cfg.Server == nil || cfg.Listener == nil {
		return errors.New("cluster: Serve needs a Store, a Handler and a Listener")
	}
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	srv := cfg.Server
	if srv == nil {
		srv = NewServer(cfg.Handler)
	}
	if srv.ErrorLog == nil {
		// What net/http says of a connection (a TLS handshake with a
		// client that does not trust the cluster's CA, say) goes where
		// the rest of the serving errors go.
		srv.ErrorLog = log.New(logw, "kata up: ", 0)
	}
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.BaseContext = func(net.Listener) context.Context { return base }

	cctx, stopCompactor := context.WithCancel(ctx)
	compactorDone := make(chan struct{})
	go func() {
		defer close(compactorDone)
		c := &storage.Compactor{
			Store:    cfg.Store,
			Interval: cfg.CompactionInterval,
			After:    cfg.After,
			Report: func(_ int64, err error) {
				if err != nil {
					fmt.Fprintf(logw, "kata up: compacting the store: %v\n", err)
				}
			},
		}
		_ = c.Run(cctx)
	}()
	defer func() { stopCompactor(); <-compactorDone }()

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(cfg.Listener) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		err = fmt.Errorf("cluster: serving: %w", err)
	}
	cancel() // ends the watches
	sctx, scancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer scancel()
	if serr := srv.Shutdown(sctx); serr != nil {
		srv.Close()
	}
	return err
}
