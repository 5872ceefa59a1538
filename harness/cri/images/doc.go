// Package images is the kata's container images: the small programs a
// container runs (http-echo, sleep, crash, counter, hog, curl) and the local
// registry that names them (kata/http-echo:2.0 runs http-echo with
// -text "hello v2"), kept in a cluster's data directory.
//
// There are no image layers: a container runs a Go binary that calls
// Dispatch first thing in main (the cluster program, or a test binary in
// TestMain) with $KATA_IMAGE_PROGRAM set to the program, and the image's
// arguments as its own. Kubernetes' e2e tests do the same with one
// multi-purpose test image whose first argument picks the program
// (test/images/agnhost in kubernetes/kubernetes).
//
// The package imports only the standard library and harness/cri, so
// that the kata command stays light.
//
// It has these responsibilities:
//
//  1. Programs. Programs lists the built-in programs; Run runs one in
//     the calling process with a stop channel (tests), Check only
//     parses its arguments. Each program parses its flags with a
//     flag.FlagSet (a bad flag or a stray argument is a usage error,
//     exit code 2), logs to stdout, and exits 0 when stop closes
//     (SIGTERM or SIGINT), unless it was given -ignore-term.
//  2. Dispatch. When $KATA_IMAGE_PROGRAM is set, Dispatch runs that
//     program with os.Args[1:] and exits with its code: SIGTERM and
//     SIGINT close its stop channel, and it exits at once when its
//     parent process dies (checked every 500 ms), so that a container
//     never outlives its runtime. An unknown program exits 127.
//  3. Registry. Open keeps DIR/images.json, created with the default
//     images when missing, written atomically (a temporary file in the
//     same directory, fsync, rename, fsync of the directory), mode
//     rw-r--r--. A file that cannot be read is an error naming it, and
//     is never overwritten.
//  4. Lookup. NAME[:TAG] (no tag: latest, as cri.NormalizeImage) or
//     NAME@sha256:ID finds an entry; a bad name is an error, an absent
//     image an error wrapping cri.ErrNotFound that says how to push it.
//  5. Push. Push adds or replaces NAME[:TAG] (no tag: latest), after
//     checking the program and its arguments as the program would.
//     An entry's ID is "sha256:" + the hex SHA-256 of the program and
//     its arguments joined by NUL bytes: the same for every tag that
//     runs the same thing.
//  6. Freshness. Every call reads the file again, so that a running
//     cluster sees what `kata image push` wrote. Two processes pushing
//     at once never tear the file: the last rename wins.
package images
