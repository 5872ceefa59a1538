// Package remote carries every exercise's contract across a process
// boundary, so that grading never runs the learner's code in the process
// that decides (DESIGN.md rule 9).
//
// For grading, the learner's package is built into a program of its own
// (ImplMain generates its main, which calls Serve with the exercise's
// service), and the verdict comes from a test binary built only from the
// pristine harness (GradeTest generates its one test file), which runs
// the unchanged suite against clients that implement the contract by
// calling that program ($KATA_IMPL). The package:
//
//  1. Serves a contract in the learner's program: ReconcileService (Plan),
//     LabelsService (the six functions of labelstest.Impl), StoreService
//     (storage.Store: every method, watches as streams, snapshots and
//     restores as byte streams, any number of stores and watchers at
//     once), APIServerService (the handler, served over real HTTP on a
//     unix socket, over a store that is the grader's own, reached back
//     through the store protocol, so that a suite's interfering store
//     still interferes) and AdmissionService (exercise 05: NewRequestInfo;
//     authorizers over the grader's store; the gate's filter applied in
//     the program to a next that is the grader's handler, reached back
//     over HTTP on a socket of the grader's). An authorizer or a gate is a
//     handle whose call stays open while the grader's ctx lives: its end
//     ends the learner's ctx in the program. Across the gate's hops the
//     client's connection (remote address, and the certificates the
//     grader's TLS server verified) reaches the gate, and what the gate
//     put in the context (pipeline.WithUser, WithRequestInfo, and what it
//     told the audit Record) reaches next and the grader's Record; the
//     grader removes every Kata-Remote-* header a client sent, so that no
//     client can forge a certificate or a user; answers stream. And
//     SchedulerService (exercise 06): NewNodeInfo, Filter, Score and
//     Schedule as pure calls; a queue is a handle and each of its methods
//     a pure call; New's scheduler is a handle over the grader's client,
//     and Run a call that stays open while the grader's ctx lives. A
//     queue or scheduler handle is freed once the grader's side of it is
//     garbage (runtime.AddCleanup), and with the program. The client
//     protocol (client.go) serves any constructor that takes
//     a client.Interface (06's New; the controllers' and the kubelet's
//     next): the grader shares its client (a suite's client.NewFake, or
//     a wrapper that counts calls) on the socket that serves its stores,
//     and the program's client calls it back, one call per method (Get,
//     List, Create, Update, UpdateStatus, Delete, Bind, Finalize) and a
//     Watch as a stream with credit, as the store's watch.
//     ReplicaSetService (exercise 07): NewPod, Claim and Status as pure
//     calls (Status's manageErr crosses as its text; nil stays nil);
//     expectations are a handle, each method a pure call; New's
//     controller is a handle over the grader's client, and Run a call
//     that stays open while the grader's ctx lives, as the scheduler's.
//     A controller's other inputs are reach-backs (reachback.go), which
//     08-11's controllers take too: the grader shares a value on its
//     back server and the program calls it back: plan.Call (the
//     grader's replicas.Func, the suite's scripted Plan: desired, pods,
//     now in, the Plan out), clock.Now, and clock.After, which answers
//     Started once the grader's clock counts the wait and ends with the
//     time its channel received (the program abandons the waits left
//     when Run returned). A nil Clock stays nil: the program's
//     controller reads the system clock. A reach-back the grader can no
//     longer answer (it freed the controller, or went away) fails soft in
//     the program, as the learner's code cannot take an error there: the
//     Plan is empty, Now the zero time, After never fires, and each says
//     so on the program's stderr, which the grader shows.
//     GCService (exercise 08): Classify and Decide as pure calls (their
//     arguments are values: a change the call made reaches the caller
//     only through the maps, slice elements and pointers it shares with
//     them, as in one process); New's collector is a handle over the
//     grader's client, with its kinds as the resources they name and
//     the grader's Clock reached back, and Run a call that stays open
//     while the grader's ctx lives, as the ReplicaSet controller's.
//     NodeLifecycleService (exercise 11, nodelifecycle.go): Health,
//     Decide, SwapTaints, Disruption, Evict and NotReady as pure calls,
//     as 08's (their exact times and the memory a result shares with
//     its arguments put back, a change to their arguments written
//     through; a float crosses as its text, so NaN and the infinities
//     come back as they are); New's controller is a handle over the
//     grader's client with every number of Options and the grader's
//     Clock reached back, and Run a call that stays open while the
//     grader's ctx lives. Its suite tells waits apart by the call site
//     of After, so the clock crosses as slots, one per call site of the
//     implementation, each calling the grader's clock from a call site
//     of its own.
//     NamespaceService (exercise 12, namespace.go): Decide, Sweep,
//     GraceEstimate, Conditions, Next, Finalize and
//     ServiceAccountsToCreate as pure calls, as 11's (Sweep's kind whole
//     but for its New, which the program takes from its registry); New's
//     namespace and ServiceAccount controllers are a handle over the
//     grader's client with the kinds as the resources they name, the
//     ServiceAccounts and Workers as they are and the grader's Clock
//     reached back as 10's, and Run a call that stays open while the
//     grader's ctx lives. The client's Finalize (the namespaces/{name}/
//     finalize subresource) crosses as its other methods.
//     KubeletService (exercise 13, kubelet.go): the kubelet's decisions,
//     SandboxChanged, ShouldRestart, Actions, BackoffNext, InBackoff,
//     ContainerStatuses, Phase, Conditions, ProbeDue, ProbeNext and
//     GracePeriod, all pure calls, as 12's (exact times and the memory a
//     result shares with its arguments put back; a change to the pod's
//     containers and statuses, the runtime's sandboxes and containers,
//     the previous statuses and conditions, StatusInput's maps, a
//     *Backoff entry, a probe's Exec command, a status' *bool Started or
//     a pod's *int64 grace written through to the caller); nil and
//     empty stay apart in the slices given and answered, a RuntimePod's
//     lists, StatusInput's maps and Actions' Kill. New's kubelet is a
//     handle over the grader's client, its cri.Runtime (below) and its
//     Clock reached back as 10's, with Options' other fields as their
//     JSON (nil and empty Capacity, Allocatable and Labels apart), and
//     Run a call that stays open while the grader's ctx lives.
//     The runtime protocol (cri.go) serves a constructor that takes a
//     cri.Runtime (the kubelet's loop), as the client protocol serves
//     one that takes a client: the grader shares its runtime (a
//     harness/cri/fake whose Calls the suite judges) for as long as the
//     call that hands it over lasts, and the program's cri.Runtime
//     calls it back, one call per method of cri.RuntimeService and
//     cri.ImageService (a kubelet's runtime is shared while its handle
//     lives, as its client is). Arguments and results cross as their JSON, times
//     exact to the nanosecond, nil and empty apart, a nil result nil
//     (ImageStatus of an absent image), each result the program's own
//     copy; cri.ErrNotFound and cri.ErrTimeout cross as the sentinels
//     do; the program's deadline reaches the grader's call, and the end
//     of its ctx ends it there (the program's call answers what the
//     grader's runtime answered, ctx.Err() from a call it cut short, or
//     ctx.Err() itself once the grader is still in the call hangGrace
//     after). After the sharing ended, a call fails at once, saying so.
//  2. Speaks one protocol over unix sockets (abstract ones on Linux, so
//     that nothing is left on disk by a grader that dies): the grader
//     creates the program's listeners and hands them over as inherited
//     files (3: calls, 4: HTTP), and each call or stream has a connection
//     of its own, reused by the next call once it ended cleanly. Frames
//     are length-prefixed, at most 64 MiB: a JSON header and, apart from
//     it, the JSON of the arguments or the result, or the raw bytes of a
//     snapshot or restore. Data crosses as the
//     JSON the apiserver would send (pods, selectors, key-values); beside
//     it, exercise 07's and 08's pure calls carry what that JSON loses and a suite
//     sees in one process (exact.go): api.Time finer than the second, and
//     the memory a result shares with its arguments; errors
//     cross as their text, the storage and context sentinels they wrap
//     (errors.Is keeps working; a bare sentinel comes back as itself), and
//     a *selector.ParseError, an apiserver's *api.Status (client.IsNotFound
//     and friends keep working) and a *framework.FitError they carry
//     (errors.As finds it, with all its fields). A
//     watch's events flow against credit the reader grants as it takes
//     them (at most 128 ahead), so a store still sees a watcher that stops
//     reading and ends it with storage.ErrSlowWatcher.
//  3. Gives the suites clients with their constructors' exact types:
//     Plan, Labels, Opener, NewAPIServer, Admission, Scheduler,
//     ReplicaSet, GC, Deployment, Job, NodeLifecycle, Namespace and
//     Kubelet, over a Program that starts
//     $KATA_IMPL on the first call, starts a fresh one after it died, and
//     kills and reaps every one it started when the test ends (FromEnv
//     registers that with t.Cleanup). The environment passes through, so
//     storetest's child processes reach the program too. A program whose
//     grader went away exits at once: it watches its stdin, and on Linux
//     the kernel kills it with its parent (Pdeathsig), even when the
//     learner's init never returned.
//  4. Fails only the call that met a failure, never the run, and never
//     with a verdict:
//     - a panic in the learner's code panics the client with the same
//     text and the line of the learner's file it came from;
//     - runtime.Goexit fails the call with "the implementation called
//     runtime.Goexit";
//     - os.Exit, a crash or a kill fails the call with "the
//     implementation's program exited (exit status N)" and the last lines
//     the program printed; the next call starts a fresh program (a store
//     or handler of the dead one keeps failing that way);
//     - a hang: a call that takes a context (the store's, the apiserver's
//     and the gate's requests, NewAuthorizer, Authorize, New, the
//     scheduler's and the controllers' Run) honours it, and a program
//     still in the call hangGrace (2s) after its context ended is killed,
//     or runGrace (10s, the suites' own wait) for a Run; a pure function (Plan,
//     Parse, ...) takes no context, so each call has a deadline of its
//     own, DefaultCallTimeout (5s: half a step's deadline, so the step
//     still reports it, and far above what any such call needs), after
//     which the program is killed; so has applying a gate's filter to a
//     next, and each method of a queue or of expectations;
//     - a frame that is too large, not JSON, has unknown fields or answers
//     nothing is a protocol error, the call's failure;
//     - the grader never answers in the implementation's place: a call
//     whose context is already done still reaches it, and a watch whose
//     connection broke ends with that error, not the context's.
//  5. Never parses what the program prints. Its stdout and stderr are
//     forwarded to the grader's stderr line by line, each line prefixed
//     with OutputPrefix and escaped (Escape: every byte outside printable
//     text and tab, including test2json's \x16 framing byte and ANSI
//     escapes, becomes a Go escape), and the lines printed while a call
//     ran are added to that call's failure message. At most 1 MiB of a
//     program's output is forwarded, then one line says the rest is cut.
//     A protocol frame the program writes to its own stdout is only
//     output.
//
// What this does not stop: the learner's program runs with the grader's
// user, files and environment unless kata grade separates them (see
// harness/grade): as the same user it can open /proc/<grader>/fd/1 and
// write there directly. It can read the harness and the tests, and it
// can answer calls correctly by any means it likes (that is the
// exercise).
package remote
